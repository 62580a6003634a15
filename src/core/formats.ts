// The value formats a registry item's field (or its component name) may declare, as data:
// `"format": "port"`. Each check says what is wrong with a value, worded to follow
// "`<field>` ", or nothing when the value fits. src/core/validate.ts runs them before rendering;
// JSON Schemas may name them too (`{"type": "string", "format": "dns-label"}`).
import type { FieldRule, FieldRuleParams } from "./errors.ts";
import { shown } from "./filters.ts";
import { lazyLibraries } from "./lazy-libraries.ts";
import { FIELD_FORMATS, type FieldFormat } from "./vocabulary.ts";

export interface FormatBounds {
  minimum?: number | undefined;
  maximum?: number | undefined;
}

/** A whole number as people type it: no `+`, no leading zeros, no `-0`. */
const WHOLE = /^(?:0|-?[1-9][0-9]*)$/;
/** RFC 1123 label, as Kubernetes checks it (IsDNS1123Label), without the length. */
const DNS_1123_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
/** RFC 1035 label, as Kubernetes checks it (IsDNS1035Label): a letter first. */
const DNS_1035_LABEL = /^[a-z](?:[-a-z0-9]*[a-z0-9])?$/;
/** An IANA service name, as Kubernetes checks a named port (IsValidPortName). */
const PORT_NAME = /^[a-z0-9](?:[-a-z0-9]{0,13}[a-z0-9])?$/;
/**
 * Go's duration syntax (time.ParseDuration) without a sign: `30s`, `1h30m`, `1.5h`, `0`. Its two
 * micro signs (U+00B5 and U+03BC) are written as escapes: one character beyond ASCII anywhere in
 * a bundle file makes V8 hold the whole file's source as two bytes a character (setup.js: 207 KB
 * read, hashed and compiled as 414 KB on every run).
 */
const DURATION = /^(?:0|(?:[0-9]+(?:\.[0-9]+)?(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+)$/;

const LABEL_RULE = "lowercase letters, digits and `-`";

/** "from 0 to 10", "of at least 1", "of at most 9", or "". */
function range({ minimum, maximum }: FormatBounds): string {
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return ` of at least ${minimum}`;
  if (maximum !== undefined) return ` of at most ${maximum}`;
  return "";
}

/** Is `text` a whole number within the bounds? Compared exactly, whatever its size. */
function wholeWithin(text: string, { minimum, maximum }: FormatBounds): boolean {
  if (!WHOLE.test(text)) return false;
  const value = BigInt(text);
  if (minimum !== undefined && value < BigInt(Math.ceil(minimum))) return false;
  if (maximum !== undefined && value > BigInt(Math.floor(maximum))) return false;
  return true;
}

const PORT_BOUNDS: FormatBounds = { minimum: 1, maximum: 65535 };
const PORT_RULE = "a whole number from 1 to 65535 (a port number), written in digits";

/**
 * What a value of each format with one fixed rule must be, as the messages word it before
 * `; got …`: one table, so that the message and a form that words the rule in another language
 * (the dashboard, keyed by format) name the same rule. Integers (their bounds vary), CIDR host
 * bits, Ingress paths and YAML word each problem apart and are not here.
 */
export const FORMAT_RULES = {
  port: `must be ${PORT_RULE}`,
  "port-or-name": `must be ${PORT_RULE}, or a port name (1 to 15 ${LABEL_RULE}, with a letter, no \`-\` at either end or twice in a row)`,
  boolean: "must be `true` or `false`",
  "dns-label": `must be a DNS label (RFC 1123): 1 to 63 ${LABEL_RULE}, starting and ending with a letter or digit`,
  "dns-1035-label": `must be a DNS label (RFC 1035): 1 to 63 ${LABEL_RULE}, starting with a letter and ending with a letter or digit`,
  "dns-subdomain": `must be a DNS subdomain (RFC 1123): at most 253 characters, labels of 1 to 63 ${LABEL_RULE} (starting and ending with a letter or digit) joined by \`.\``,
  ip: "must be an IPv4 or IPv6 address, such as 192.0.2.10 or 2001:db8::1",
  cidr: "must be one or more address ranges in CIDR notation (10.0.0.0/16, 2001:db8::/32), separated by commas or spaces or as a JSON list of strings",
  "host-address":
    "must be a host address: an IPv4 address (four numbers from 0 to 255, such as 192.0.2.10), an IPv6 address (2001:db8::1) or a DNS name (web-1.example.com)",
  "ingress-host": `must be a DNS name for an Ingress rule (RFC 1123 subdomain: labels of 1 to 63 ${LABEL_RULE} joined by \`.\`, \`*.\` first for a wildcard), not an IP address`,
  duration:
    "must be a duration such as 30s, 5m or 1h30m: numbers, each followed by a unit (ns, us, ms, s, m, h)",
} as const satisfies Partial<Record<FieldFormat, string>>;

function isPortName(text: string): boolean {
  return PORT_NAME.test(text) && /[a-z]/.test(text) && !text.includes("--");
}

/** The address ranges of a `cidr` value: a JSON list of strings, or text split at commas and spaces. */
function cidrParts(value: string): string[] | undefined {
  if (value.trimStart().startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (!Array.isArray(parsed) || !parsed.every((entry) => typeof entry === "string")) {
        return undefined;
      }
      return parsed.map((entry: string) => entry.trim());
    } catch {
      return undefined;
    }
  }
  return value.split(/[\s,]+/).filter((part) => part !== "");
}

/**
 * A host kiln can reach: an IPv4 or IPv6 address, or a DNS name (RFC 1123 labels, either case).
 * A name whose last label is all digits is read as an IPv4 address, as resolvers and URL
 * parsers read it, so `10.0.0.999` is a bad address, not a host name.
 */
function isHostAddress(text: string): boolean {
  if (ipv4Number(text) !== undefined || ipv6(text) !== undefined) return true;
  const labels = text.split(".");
  if (/^[0-9]+$/.test(labels.at(-1) ?? "")) return false;
  return (
    text.length <= 253 &&
    labels.every((label) => label.length <= 63 && DNS_1123_LABEL.test(label.toLowerCase()))
  );
}

/**
 * An Ingress rule's host, as Kubernetes checks it: a DNS subdomain, its first label `*` for a
 * wildcard, and never an IP address (a name of digits only is one).
 */
function isIngressHost(text: string): boolean {
  const name = text.startsWith("*.") ? text.slice(2) : text;
  return isDnsSubdomain(name) && !/^[0-9]+$/.test(name.split(".").at(-1) ?? "");
}

/** What Kubernetes refuses in the path of an Ingress rule of pathType Prefix or Exact. */
const INGRESS_PATH_SEQUENCES = ["//", "/./", "/../", "%2f", "%2F"];
const INGRESS_PATH_SUFFIXES = ["/..", "/."];

/** What Kubernetes refuses in an Ingress path, as the field rule's params. */
type IngressPathRule = FieldRuleParams["ingress_path"];

/** The English words of an Ingress path refusal, before the note on path types. */
function ingressPathWords({ problem, text }: IngressPathRule): string {
  if (problem === "not_absolute") return "must be an absolute path, starting with `/`";
  return problem === "contains" ? `must not contain \`${text}\`` : `must not end with \`${text}\``;
}

/**
 * Why Kubernetes would refuse `path` for an Ingress rule of pathType Prefix or Exact (the two
 * path types that take a path as written; the built-in ingress writes Prefix), or undefined.
 */
function ingressPathProblem(path: string): IngressPathRule | undefined {
  if (!path.startsWith("/")) return { problem: "not_absolute", text: "/" };
  const sequence = INGRESS_PATH_SEQUENCES.find((bad) => path.includes(bad));
  if (sequence !== undefined) return { problem: "contains", text: sequence };
  const suffix = INGRESS_PATH_SUFFIXES.find((bad) => path.endsWith(bad));
  if (suffix !== undefined) return { problem: "ends_with", text: suffix };
  return undefined;
}

function isDnsSubdomain(text: string): boolean {
  return (
    text.length <= 253 &&
    text.split(".").every((label) => label.length <= 63 && DNS_1123_LABEL.test(label))
  );
}

/** The yaml library, loaded on first use (src/core/lazy-libraries.ts). */
function yamlLibrary(): typeof import("yaml") {
  return lazyLibraries().yaml();
}

/** Why `text` is not YAML (YAML 1.1, as the automation tool reads it), with line and column. */
function yamlProblem(text: string): FormatFailure | undefined {
  const doc = yamlLibrary().parseDocument(text, { version: "1.1" });
  const error = doc.errors[0];
  if (!error) return undefined;
  const at = error.linePos?.[0];
  const where = at ? `line ${at.line}, column ${at.col}: ` : "";
  const reason = error.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "") ?? "";
  return {
    text: `must be valid YAML - ${where}${reason}`,
    rule: { code: "yaml_parse", params: { line: at?.line, column: at?.col, reason } },
  };
}

/**
 * A value a format refuses: the core's English sentence (`must be …; got …`, the message the CLI
 * and the API print) and the same rule in parts, for a form to word in its own language.
 */
export interface FormatFailure {
  text: string;
  rule: FieldRule;
}

/** A format with one fixed rule refused the value: its sentence from FORMAT_RULES, then `got`. */
function fixedRuleFailure(format: keyof typeof FORMAT_RULES, got: string): FormatFailure {
  return { text: `${FORMAT_RULES[format]}; ${got}`, rule: { code: "format", params: { format } } };
}

/**
 * What is wrong with `value` for `format` ("must be ..., got ..."), or undefined when it fits.
 * Numbers and ports are read as the templates read them, without the blanks around them.
 */
export function formatProblem(
  format: FieldFormat,
  value: string,
  bounds: FormatBounds = {},
): string | undefined {
  return formatFailure(format, value, bounds)?.text;
}

/** formatProblem's refusal with its rule in parts (FieldProblem's `code` and `params`). */
export function formatFailure(
  format: FieldFormat,
  value: string,
  bounds: FormatBounds = {},
): FormatFailure | undefined {
  // built only for a value that does not fit: shown() escapes and quotes, about 3% of a
  // deployment render if done for every valid value
  const got = () => `got ${shown(value)}`;
  const trimmed = value.trim();
  switch (format) {
    case "integer": {
      if (wholeWithin(trimmed, bounds)) return undefined;
      const negative =
        bounds.minimum === undefined || bounds.minimum < 0 ? " (`-` in front when negative)" : "";
      return {
        text: `must be a whole number${range(bounds)}, written in digits${negative}; ${got()}`,
        rule: { code: "whole_number", params: { min: bounds.minimum, max: bounds.maximum } },
      };
    }
    case "port":
      return wholeWithin(trimmed, PORT_BOUNDS) ? undefined : fixedRuleFailure("port", got());
    case "port-or-name":
      if (wholeWithin(trimmed, PORT_BOUNDS) || isPortName(trimmed)) return undefined;
      return fixedRuleFailure("port-or-name", got());
    case "boolean":
      return value === "true" || value === "false" ? undefined : fixedRuleFailure("boolean", got());
    case "dns-label":
      return value.length <= 63 && DNS_1123_LABEL.test(value)
        ? undefined
        : fixedRuleFailure("dns-label", got());
    case "dns-1035-label":
      return value.length <= 63 && DNS_1035_LABEL.test(value)
        ? undefined
        : fixedRuleFailure("dns-1035-label", got());
    case "dns-subdomain":
      return isDnsSubdomain(value) ? undefined : fixedRuleFailure("dns-subdomain", got());
    case "ip":
      return !value.includes("/") && parseCidr(value) !== undefined
        ? undefined
        : fixedRuleFailure("ip", got());
    case "cidr": {
      const parts = cidrParts(value);
      const bad = parts?.find((part) => parseCidr(part) === undefined);
      if (parts && parts.length > 0 && bad === undefined) return hostBitsProblem(parts);
      return fixedRuleFailure("cidr", bad === undefined ? got() : `got ${shown(bad)}`);
    }
    case "host-address":
      return isHostAddress(trimmed) ? undefined : fixedRuleFailure("host-address", got());
    case "ingress-host":
      return isIngressHost(value) ? undefined : fixedRuleFailure("ingress-host", got());
    case "ingress-path": {
      const problem = ingressPathProblem(value);
      return problem === undefined
        ? undefined
        : {
            text: `${ingressPathWords(problem)} (an Ingress path of pathType Prefix or Exact, such as /api); ${got()}`,
            rule: { code: "ingress_path", params: problem },
          };
    }
    case "duration":
      return DURATION.test(trimmed) ? undefined : fixedRuleFailure("duration", got());
    case "yaml":
      return yamlProblem(value);
  }
}

/**
 * kiln's formats a JSON Schema may name in `format` (for strings), beside the standard ones.
 * Not `duration`: in a JSON Schema that is the standard ISO 8601 duration (`PT30S`).
 */
export const SCHEMA_FORMATS: readonly FieldFormat[] = FIELD_FORMATS.filter(
  (format) => format !== "duration",
);

/**
 * A range written with host bits set (`10.0.0.5/24`) is refused, as Terraform's and the cloud
 * APIs' network fields refuse it: the message names the network address meant (`10.0.0.0/24`).
 */
function hostBitsProblem(parts: readonly string[]): FormatFailure | undefined {
  for (const part of parts) {
    const [address = "", prefix] = part.split("/");
    if (prefix === undefined) continue;
    const range = parseCidr(part);
    const value = ipv4(address) ?? ipv6(address);
    if (range === undefined || value === undefined || value === range.first) continue;
    const network = `${range.family === 4 ? ipv4Text(range.first) : ipv6Text(range.first)}/${Number(prefix)}`;
    return {
      text: `must name each range by its network address, with no host bits set: \`${part}\` is in the range \`${network}\` - write \`${network}\``,
      rule: { code: "cidr_host_bits", params: { range: part, network } },
    };
  }
  return undefined;
}

/** 10.0.0.0 from its 32-bit value. */
function ipv4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".");
}

/**
 * 2001:db8:: from its 128-bit value, in the short form of RFC 5952: groups without leading
 * zeros, the longest run of two or more zero groups (the first on a tie) written `::`.
 * Hand-written beside the parser above: a library would load on every render for this message.
 */
function ipv6Text(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_unused, index) =>
    Number((value >> BigInt(16 * (7 - index))) & 0xffffn),
  );
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
  }
  const hex = (part: number[]) => part.map((group) => group.toString(16)).join(":");
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

/** An IPv4 or IPv6 CIDR (a bare address is a single-address range); undefined when not one. */
export function parseCidr(
  cidr: string,
): { family: 4 | 6; first: bigint; last: bigint } | undefined {
  const [address = "", prefixText, ...rest] = cidr.split("/");
  if (rest.length > 0) return undefined;
  const v4 = ipv4(address);
  const v6 = v4 === undefined ? ipv6(address) : undefined;
  const family = v4 !== undefined ? 4 : v6 !== undefined ? 6 : undefined;
  if (family === undefined) return undefined;
  const bits = family === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return undefined;
  const host = BigInt(bits - prefix);
  const value = (v4 ?? v6) as bigint;
  const first = (value >> host) << host;
  return { family, first, last: first + (1n << host) - 1n };
}

/**
 * An IPv4 address as a number (below 2^32, so exact), or undefined when not one: four decimal
 * octets of one to three digits (0-9), each 255 at most, joined by `.`. Read character by
 * character, with nothing allocated: it runs for every address of an inventory (a match with
 * four captures per address took 1.6 ms of a 10,000-host render, and its garbage more).
 */
function ipv4Number(address: string): number | undefined {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let at = 0; at < address.length; at++) {
    const code = address.charCodeAt(at);
    if (code >= 0x30 && code <= 0x39) {
      digits += 1;
      if (digits > 3) return undefined;
      octet = octet * 10 + (code - 0x30);
    } else if (code === 0x2e && digits > 0 && dots < 3 && octet <= 255) {
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots += 1;
    } else {
      return undefined;
    }
  }
  if (dots !== 3 || digits === 0 || octet > 255) return undefined;
  return value * 256 + octet;
}

function ipv4(address: string): bigint | undefined {
  const value = ipv4Number(address);
  return value === undefined ? undefined : BigInt(value);
}

function ipv6(address: string): bigint | undefined {
  if (!address.includes(":")) return undefined;
  let groups = address.split(":");
  // an IPv4 tail (::ffff:192.0.2.1) is two groups
  const tail = groups[groups.length - 1] ?? "";
  if (tail.includes(".")) {
    const v4 = ipv4(tail);
    if (v4 === undefined) return undefined;
    groups = [...groups.slice(0, -1), (v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16)];
  }
  const gap = address.indexOf("::");
  if (gap !== address.lastIndexOf("::")) return undefined;
  let expanded: string[];
  if (gap >= 0) {
    const joined = groups.join(":");
    const [head = "", rest = ""] = joined.split("::");
    const left = head === "" ? [] : head.split(":");
    const right = rest === "" ? [] : rest.split(":");
    const missing = 8 - left.length - right.length;
    if (missing < 1) return undefined;
    expanded = [...left, ...Array<string>(missing).fill("0"), ...right];
  } else {
    expanded = groups;
  }
  if (expanded.length !== 8) return undefined;
  let value = 0n;
  for (const group of expanded) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    value = (value << 16n) | BigInt(`0x${group}`);
  }
  return value;
}
