// IP addresses compared by what they mean, not by how they are written. One address has many
// spellings: `::ffff:127.0.0.1`, `::ffff:7f00:1`, `0:0:0:0:0:ffff:127.0.0.1` and `[::FFFF:7F00:1]`
// all reach 127.0.0.1 (an IPv4-mapped IPv6 address is the IPv4 address on a dual-stack socket);
// `0:0::1` is `::1`. A URL's host arrives already in the WHATWG URL parser's form (decimal,
// octal, hex and short IPv4 such as `2130706433`, `0x7f.1`, `127.1` become `127.0.0.1`; IPv6 is
// compressed, lower case, mapped IPv4 written `::ffff:7f00:1`), and the system's resolver
// writes addresses its own way; a `--bind` is whatever the operator typed. So every check of
// "is this the service, or this machine" goes through canonicalAddress, and range checks
// through node:net's BlockList, which matches an IPv4-mapped IPv6 address against IPv4 rules.
import { BlockList, isIP } from "node:net";

/** `ipv4` or `ipv6` as BlockList names them. */
type Family = "ipv4" | "ipv6";

/** IPv4-mapped IPv6 as the WHATWG URL parser writes it: `::ffff:` and two 16-bit groups. */
const MAPPED_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * The one spelling of an IP address: IPv4 dotted decimal for IPv4 and IPv4-mapped IPv6
 * addresses, otherwise IPv6 compressed and in lower case (RFC 5952, as the WHATWG URL parser
 * writes it). Brackets and a zone (`%eth0`) are dropped. Undefined when `text` is not an IP
 * address (a name, or an IPv4 spelling node:net does not take, such as `127.1`).
 */
export function canonicalAddress(text: string): string | undefined {
  const bare = text.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return undefined;
  const compressed = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const mapped = MAPPED_HEX.exec(compressed);
  if (!mapped) return compressed;
  const high = Number.parseInt(mapped[1] as string, 16);
  const low = Number.parseInt(mapped[2] as string, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** The BlockList family of a canonical address. */
function familyOf(address: string): Family {
  return isIP(address) === 4 ? "ipv4" : "ipv6";
}

/** A set of addresses and ranges, matched whatever the spelling of the address asked about. */
export class AddressSet {
  private readonly list = new BlockList();

  /** Adds an address (any spelling); names and non-addresses are ignored. */
  add(text: string): this {
    const address = canonicalAddress(text);
    if (address !== undefined) this.list.addAddress(address, familyOf(address));
    return this;
  }

  addSubnet(network: string, prefix: number): this {
    this.list.addSubnet(network, prefix, familyOf(network));
    return this;
  }

  /** Whether `text` (any spelling of an IP address) is in the set; false for a name. */
  has(text: string): boolean {
    const address = canonicalAddress(text);
    return address !== undefined && this.list.check(address, familyOf(address));
  }
}

/** Loopback: 127.0.0.0/8 and ::1 (and, by BlockList's mapping, ::ffff:127.0.0.0/104). */
const LOOPBACK = new AddressSet().addSubnet("127.0.0.0", 8).add("::1");

/** Loopback and unspecified (0.0.0.0, ::): addresses that always reach this machine. */
const THIS_MACHINE = new AddressSet().addSubnet("127.0.0.0", 8).add("::1").add("0.0.0.0").add("::");

/** A loopback address, in any spelling. */
export function isLoopbackAddress(text: string): boolean {
  return LOOPBACK.has(text);
}

/** An address that always means this machine (loopback or unspecified), in any spelling. */
export function alwaysThisMachine(text: string): boolean {
  return THIS_MACHINE.has(text);
}
