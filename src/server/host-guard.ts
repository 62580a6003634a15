// DNS-rebinding guard. A web page on evil.example can point its own name at 127.0.0.1 and then
// read our answers as same-origin; the only trace is the Host header, which names evil.example.
// So while the service is bound to a loopback address, a request whose Host (and the authority
// of an absolute-form target) is not a loopback name or address is refused with 403.
// `--allowed-host` adds names. Bound to a non-loopback address, the guard is off: the operator
// chose to expose the service. Addresses, the bound one and those in Host headers, are compared
// by what they mean (addresses.ts): a bind on `::ffff:127.0.0.1` is a loopback bind, and Host
// `[::ffff:7f00:1]` is 127.0.0.1.
import { isIP } from "node:net";
import { canonicalAddress, isLoopbackAddress } from "./addresses.ts";
import { type Reply, text } from "./reply.ts";

/**
 * A bind (`--bind`, or the address the socket really listens on) that only this machine can
 * reach: `localhost`, or a loopback address in any spelling.
 */
export function isLoopbackBind(bind: string): boolean {
  return bind === "localhost" || isLoopbackAddress(bind);
}

/**
 * A Host header (RFC 9110: `uri-host [ ":" port ]`) read strictly: a DNS name or IPv4 address
 * (letters, digits, `-`, `.`), or an IPv6 address in brackets, then optionally `:` and a port
 * of 1 to 5 digits up to 65535. Anything else (`localhost:4600@evil.com`, `localhost:abc`,
 * `localhost:99999`, user info, spaces, a path) is no host at all.
 */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?\.?)(?::([0-9]{1,5}))?$/;

/**
 * `name`, `name:port`, `[v6]`, `[v6]:port` → lower-case host name without the port (and
 * without a final `.`); undefined when the value is not a well-formed host.
 */
export function hostName(host: string): string | undefined {
  const match = HOST_HEADER.exec(host.trim().toLowerCase());
  if (!match) return undefined;
  const [, name, port] = match as unknown as [string, string, string | undefined];
  if (port !== undefined && Number(port) > 65535) return undefined;
  if (name.startsWith("[") && isIP(name.slice(1, -1)) !== 6) return undefined;
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The Host's name as the allowed names are kept: an IP address in its canonical spelling
 * (`[::ffff:7f00:1]` → `127.0.0.1`, `[0:0::1]` → `[::1]`), anything else as it is.
 */
function comparable(name: string): string {
  const address = canonicalAddress(name);
  if (address === undefined) return name;
  return isIP(address) === 6 ? `[${address}]` : address;
}

/** How many distinct Host values the guard remembers its verdict for. */
const VERDICT_CACHE_SIZE = 256;

export class HostGuard {
  private enabled: boolean;
  private readonly allowed: ReadonlySet<string>;
  /**
   * Verdicts by raw Host value: a client sends the same Host on every request, so the header
   * is normalised once, not per request. Bounded: cleared when full.
   */
  private readonly verdicts = new Map<string, boolean>();

  constructor(bind: string, extraHosts: readonly string[]) {
    this.enabled = isLoopbackBind(bind);
    this.allowed = new Set([
      ...LOOPBACK_HOSTS,
      ...extraHosts
        .map((host) => hostName(host))
        .filter((host): host is string => host !== undefined && host !== "")
        .map(comparable),
    ]);
  }

  /**
   * The address the socket really listens on, as the system reports it once listening: the
   * guard is also on when that is loopback, whatever `--bind` spelled (a name that resolved
   * to a loopback address, `127.1`).
   */
  listening(address: string): void {
    if (isLoopbackBind(address)) this.enabled = true;
  }

  private allows(host: string): boolean {
    let verdict = this.verdicts.get(host);
    if (verdict === undefined) {
      const name = hostName(host);
      verdict = name !== undefined && this.allowed.has(comparable(name));
      if (this.verdicts.size >= VERDICT_CACHE_SIZE) this.verdicts.clear();
      this.verdicts.set(host, verdict);
    }
    return verdict;
  }

  /** A 403 reply when the request must be refused, otherwise undefined. */
  check(hostHeader: string | undefined, targetAuthority: string | undefined): Reply | undefined {
    if (!this.enabled) return undefined;
    // A request without Host cannot come from a browser, and rebinding needs a browser.
    if (hostHeader !== undefined && !this.allows(hostHeader)) return refusal(hostHeader);
    if (targetAuthority !== undefined && !this.allows(targetAuthority)) {
      return refusal(targetAuthority);
    }
    return undefined;
  }
}

function refusal(host: string): Reply {
  const reply = text(
    403,
    `Forbidden: host \`${host}\` is not allowed - the service answers only requests for localhost, 127.0.0.1 or [::1] (pass --allowed-host to add a name)`,
  );
  reply.rejected = "host_refused";
  return reply;
}
