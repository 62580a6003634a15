// kiln's own template filters, added to MiniJinja's built-ins so templates can write values that
// stay valid whatever the user typed. A filter is called from inside the WASM engine: it must
// never throw and must return plain JSON data, or the engine instance panics; `safeFilter`
// guarantees both.
import { createRequire } from "node:module";

/**
 * `{{ value | yaml }}`: a YAML scalar (or flow collection) that reads back as exactly `value`
 * under YAML 1.1 and 1.2 alike, quoted only when needed. YAML 1.1 rules are applied because
 * the tools that read our files use them: Kubernetes' sigs.k8s.io/yaml and the automation
 * tool's PyYAML read `yes`, `on`, `0755` or `1_000` as booleans and numbers.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we look for
const NEEDS_ESCAPES = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;

export function yamlScalar(value: unknown): string {
  if (typeof value === "string") {
    if (NEEDS_ESCAPES.test(value)) return JSON.stringify(value); // one line, escaped; JSON strings are valid YAML
    const fast = plainOrQuoted(value);
    if (fast !== undefined) return fast;
  }
  return yamlScalarByLibrary(value);
}

/** `yamlScalar` the long way, through the yaml library: for non-strings and rare strings. */
export function yamlScalarByLibrary(value: unknown): string {
  const text = yamlLibrary()
    .stringify(plainData(value), {
      version: "1.1",
      lineWidth: 0,
      minContentWidth: 0,
      collectionStyle: "flow",
      defaultStringType: "PLAIN",
      defaultKeyType: "PLAIN",
    })
    .replace(/\n$/, "");
  // A scalar must stay on one line to fit after `key: ` at any depth; the yaml library writes
  // document markers such as `---` or `...` as block scalars, so fall back to JSON there.
  return text.includes("\n") ? JSON.stringify(value) : text;
}

/**
 * MiniJinja hands maps to filters as JS `Map`s, which the yaml library writes as YAML 1.1
 * ordered maps (`!!omap [ k: v ]`); plain objects give ordinary flow maps (`{ k: v }`).
 * `none` inside them arrives as undefined, which the library would drop: it becomes null.
 */
function plainData(value: unknown): unknown {
  if (value === undefined) return null; // MiniJinja's `none` arrives as undefined
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [key, entry] of value) {
      Object.defineProperty(out, String(key), {
        value: plainData(entry),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return Array.isArray(value) ? value.map(plainData) : value;
}

// The yaml library is loaded on first use only: `yamlScalar` writes every string without it
// (see `plainOrQuoted`), so a one-shot CLI run that renders only strings never loads it, and
// its first cold `stringify` calls (each builds a whole YAML document) cost more than the
// rendering around them.
let yamlModule: typeof import("yaml") | undefined;
function yamlLibrary(): typeof import("yaml") {
  yamlModule ??= createRequire(import.meta.url)("yaml") as typeof import("yaml");
  return yamlModule;
}

// What the yaml library (2.9, with the options above) does with a one-line string, restated:
// it writes the string plain unless a plain scalar would not read back as that string, and then
// double-quoted (JSON escapes; without `"` or `\\` in the string, that is the string between
// `"`). A plain scalar is refused when the string
// - holds a flow indicator (`[]{},`: the options put the scalar in flow context),
const FLOW_INDICATOR = /[[\]{},]/;
// - starts with an indicator or `- `, `? `, is `-` or `?`, holds `: ` or ` #`, ends with ` ` or
//   `:` (the library's own test, kept character for character),
const NOT_PLAIN =
  /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
// - or reads as another type under YAML 1.1: null (also ``), booleans, integers (binary, octal,
//   decimal, hex, base 60), floats (also base 60, exponents, .inf, .nan) and timestamps (the
//   YAML 1.1 schema's own tests).
const YAML11_NOT_STRING: readonly RegExp[] = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/,
  /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/,
  /^[-+]?0b[0-1_]+$/,
  /^[-+]?0[0-7_]+$/,
  /^[-+]?[0-9][0-9_]*$/,
  /^[-+]?0x[0-9a-fA-F_]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/,
  /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*$/,
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:t|T|[ \t]+)([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(\.[0-9]+)?)(?:[ \t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?$/,
];
// Left to the library: strings with `"` or `\\` (other quoting and escapes), lone surrogates
// (forced into escapes), document markers at the start (`---`, `...`: block scalars, so JSON
// here) and the merge key `<<`. Control characters never get here (NEEDS_ESCAPES).
// test/core/filters.test.ts compares this with the library over many generated strings.
const LIBRARY_ONLY =
  /["\\]|^---|^\.\.\.|^<<$|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** `yamlScalar` of a one-line string without control characters, or undefined to ask the library. */
export function plainOrQuoted(value: string): string | undefined {
  if (LIBRARY_ONLY.test(value)) return undefined;
  if (
    FLOW_INDICATOR.test(value) ||
    NOT_PLAIN.test(value) ||
    YAML11_NOT_STRING.some((test) => test.test(value))
  ) {
    return `"${value}"`;
  }
  return value;
}

/** A filter's value as text: strings as they are, anything else (a JSON-valued field) as JSON. */
function asText(value: unknown): string {
  if (typeof value === "string") return value;
  // MiniJinja hands maps to filters as JS `Map`s, which JSON.stringify would write as `{}`
  const json = JSON.stringify(value, (_key, v: unknown) =>
    v instanceof Map ? Object.fromEntries(v) : v,
  );
  return json ?? "";
}

/**
 * `{{ value | hcl_escape }}`: the inside of an HCL (Terraform) quoted string that reads back as
 * exactly `value`, for a value written inside a string the template spells out, such as
 * `"{{ name | hcl_escape }}-${count.index}"`. Escapes `\` and `"`; newlines, tabs and other
 * control or line-breaking characters as `\n`, `\r`, `\t` or `\uNNNN` (HCL knows no other
 * escapes, so `tojson`'s `\b` and `\f` would not parse); and HCL's template introducers `${` and
 * `%{`, which would otherwise interpolate or run a directive, as `$${` and `%%{`.
 */
export function hclEscape(value: unknown): string {
  let out = "";
  for (const char of asText(value)) {
    const code = char.codePointAt(0) as number;
    if (char === "\\") out += "\\\\";
    else if (char === '"') out += '\\"';
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (NEEDS_ESCAPES.test(char)) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return out.replace(/([$%])\{/g, "$1$1{");
}

/** `{{ value | hcl }}`: a quoted HCL (Terraform) string literal that reads back as `value`. */
export function hclString(value: unknown): string {
  return `"${hclEscape(value)}"`;
}

/**
 * `{{ value | tf_identifier }}`: a valid Terraform name for a resource, variable or output label:
 * ASCII letters, digits, `_` and `-`, starting with a letter or `_`. Every other character
 * becomes `_`, and a name that would start with a digit or `-` (or be empty) gets a leading `_`:
 * `web-1` stays `web-1`, `my.app` becomes `my_app`, `1st` becomes `_1st`.
 */
export function tfIdentifier(value: unknown): string {
  const name = Array.from(asText(value), (char) => (/[A-Za-z0-9_-]/.test(char) ? char : "_")).join(
    "",
  );
  return /^[A-Za-z_]/.test(name) ? name : `_${name}`;
}

export type Filter = (value: unknown, ...args: unknown[]) => string;

/** Wraps a filter so that it always returns a string and never throws into the engine. */
export function safeFilter(filter: Filter): Filter {
  return (value, ...args) => {
    try {
      const out = filter(value ?? "", ...args);
      return typeof out === "string" ? out : "";
    } catch {
      return "";
    }
  };
}

/**
 * A value as a Python literal, the way the automation tool's INI inventory reads values: it runs
 * `ast.literal_eval` on every `key=value` value (host lines and `[group:vars]` lines alike) and
 * keeps the raw text only when that fails. Strings become single-quoted literals with every
 * character that Python's `str.splitlines` breaks on escaped, so the value stays on its line.
 */
export function pythonLiteral(value: unknown): string {
  if (typeof value === "string") {
    let out = "'";
    for (const char of value) {
      const code = char.codePointAt(0) as number;
      if (char === "\\") out += "\\\\";
      else if (char === "'") out += "\\'";
      else if (char === "\n") out += "\\n";
      else if (char === "\r") out += "\\r";
      else if (char === "\t") out += "\\t";
      else if (code < 0x20 || (code >= 0x7f && code <= 0x9f))
        out += `\\x${code.toString(16).padStart(2, "0")}`;
      else if (code === 0x2028 || code === 0x2029) out += `\\u${code.toString(16)}`;
      else out += char;
    }
    return `${out}'`;
  }
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (value === null || value === undefined) return "None";
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(", ")}]`;
  // MiniJinja hands maps to filters as JS `Map`s; plain objects are accepted too
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return `{${entries.map(([k, v]) => `${pythonLiteral(String(k))}: ${pythonLiteral(v)}`).join(", ")}}`;
}

/** Characters that need no quoting in an INI inventory value (nor in a shlex word). */
const INI_PLAIN = /^[A-Za-z0-9_./:@%~-]+$/;
/** Decimal integers: written bare on purpose, so `cm_port=22` reads as a number, as INI users expect. */
const INI_INTEGER = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * Would `ast.literal_eval` turn this plain text into something other than the same string?
 * Over-approximates: True/False/None, Ellipsis (`...`), anything signed, and anything starting
 * like a number that could still be one (Python numbers hold at most one `.`, complex sums end
 * in `j`). IPv4 addresses and dotted versions like `1.2.3` stay plain.
 */
function looksLikePythonLiteral(text: string): boolean {
  if (/^(?:True|False|None)$/.test(text) || /^\.+$/.test(text) || /^[-+]/.test(text)) return true;
  if (!/^[0-9.]/.test(text)) return false;
  return text.split(".").length <= 2 || /[jJ]$/.test(text);
}

/**
 * `{{ value | ini_value }}`: the value of a `key=value` line in an INI inventory's
 * `[group:vars]` section, read back by the automation tool as exactly `value`. Plain strings stay
 * bare, decimal integers stay bare (and read as numbers), the empty string is empty; everything
 * else (spaces, `#`, `;`, `=`, quotes, `True`, `1.31`, non-ASCII …) becomes a quoted Python
 * literal. JSON numbers, booleans, null, lists and maps become the matching Python literals.
 */
export function iniValue(value: unknown): string {
  if (typeof value !== "string") return pythonLiteral(value);
  if (value === "" || INI_INTEGER.test(value)) return value;
  if (INI_PLAIN.test(value) && !looksLikePythonLiteral(value)) return value;
  return pythonLiteral(value);
}

/**
 * `{{ value | ini_host_value }}`: a value of a `key=value` token on an INI inventory host line.
 * The tool splits host lines with POSIX shlex (quotes removed, `#` starts a comment even inside
 * a word) and then reads each value like `ini_value`, so a quoted literal gets one more layer of
 * shlex double quotes: `key="'hello world'"`, as the tool's own documentation shows.
 */
export function iniHostValue(value: unknown): string {
  const text = iniValue(value);
  if (/^[A-Za-z0-9_./:@%~-]*$/.test(text)) return text;
  return `"${text.replace(/[\\"]/g, "\\$&")}"`;
}

/** The filters every template may use, by name. */
export const KILN_FILTERS: Record<string, Filter> = {
  yaml: yamlScalar,
  ini_value: iniValue,
  ini_host_value: iniHostValue,
  hcl: hclString,
  hcl_escape: hclEscape,
  tf_identifier: tfIdentifier,
};
