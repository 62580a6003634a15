// kiln's own template filters, added to MiniJinja's built-ins so templates can write values that
// stay valid whatever the user typed. A filter is called from inside the WASM engine: it must
// never throw and must return plain JSON data, or the engine instance panics; `safeFilter`
// guarantees both.
//
// Two kinds of filter: writing filters (`yaml`, `hcl`, `ini_value`, ...) write any value so that
// the file reads it back exactly; checking filters (`integer`, `text`, `ini_host_name`, ...)
// pass a value through unchanged when it can be written where the template puts it, and
// otherwise answer with a refusal (see `refusal`), which fails the whole render with a clear
// message instead of writing a file whose structure the value changed.

import { dequal } from "dequal";
import { errorMessage } from "./errors.ts";
import { lazyLibraries } from "./lazy-libraries.ts";

/** This process's refusal mark, made on first use (refusalMark). */
let madeMark: string | undefined;

/**
 * Marks a refusal in a filter's output. A filter must never throw into the engine, so a value
 * that cannot be written safely becomes `refusalMark() + message + refusalMark()` in the output;
 * `renderItem` (src/core/render-item.ts) looks for the mark in every rendered path and content and
 * fails the render with the message. The mark holds NUL characters (which no escaping filter
 * writes as they are) and a random part, so no value can forge one; kiln's filters hand a value
 * that holds a refusal on unchanged (`safeFilter`), so chaining them keeps it. One mark per
 * process, made at the first render from the host's generator (lazy-libraries.ts).
 */
export function refusalMark(): string {
  madeMark ??= `\u0000kiln-refusal-${lazyLibraries().randomUUID()}\u0000`;
  return madeMark;
}

/** A filter's answer for a value it will not write: `message` says what was wrong and what to do. */
export function refusal(message: string): string {
  return `${refusalMark()}${message.replaceAll("\u0000", "\\u0000")}${refusalMark()}`;
}

/** The message of the first refusal in rendered text, or undefined when there is none. */
export function refusalMessage(text: string): string | undefined {
  const mark = refusalMark();
  const start = text.indexOf(mark);
  if (start < 0) return undefined;
  const from = start + mark.length;
  const end = text.indexOf(mark, from);
  return text.slice(from, end < 0 ? undefined : end);
}

/** The first string holding a refusal in a value (a string, or a list or map of them). */
function refusalIn(value: unknown, depth = 0): string | undefined {
  if (typeof value === "string") return value.includes(refusalMark()) ? value : undefined;
  if (depth > 64 || typeof value !== "object" || value === null) return undefined;
  const items = value instanceof Map ? value.values() : Object.values(value);
  for (const item of items) {
    const found = refusalIn(item, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The subject of a refusal message: the field a template names in the filter's argument. */
function subject(field: unknown): string {
  return typeof field === "string" && field !== "" ? `\`${field}\`` : "a value";
}

/** Characters a message shows as escapes: controls, line and paragraph separators, bidi marks. */
const UNSHOWABLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we look for
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

/** A value as a message shows it: quoted, escaped, at most 60 characters. */
export function shown(value: unknown): string {
  const chars = Array.from(typeof value === "string" ? value : asText(value));
  const quoted = JSON.stringify(chars.slice(0, 60).join("")).replace(UNSHOWABLE, unicodeEscape);
  return chars.length > 60 ? `${quoted}…` : quoted;
}

/** `\uNNNN` for one UTF-16 code unit. */
function unicodeEscape(char: string): string {
  return `\\u${(char.charCodeAt(0) as number).toString(16).padStart(4, "0")}`;
}

/**
 * `{{ value | yaml }}`: a YAML scalar (or flow collection) that reads back as exactly `value`
 * under YAML 1.1 and 1.2 alike, quoted only when needed, always on one line. YAML 1.1 rules are
 * applied because the tools that read our files use them: Kubernetes' sigs.k8s.io/yaml and the
 * automation tool's PyYAML read `yes`, `on`, `0755` or `1_000` as booleans and numbers, `<<` as
 * a merge key and `=` as a "value" tag, and U+0085, U+2028 and U+2029 as line breaks.
 * Lists and maps become flow collections (`[ a, b ]`, `{ k: v }`) written with the same rules,
 * keys included (`none` as `null`); a map key too long for YAML readers (over 1024 characters as
 * written) is refused.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we look for
const NEEDS_ESCAPES = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;
/**
 * What JSON.stringify leaves raw but YAML readers must not see raw inside a double-quoted
 * scalar: PyYAML refuses C1 controls and U+FFFE/U+FFFF, and folds U+0085, U+2028 and U+2029 as
 * line breaks (eating the spaces after them); U+FEFF is escaped too.
 */
const RAW_IN_JSON_UNSAFE_FOR_YAML = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;
/**
 * Plain scalars the yaml library (in YAML 1.1 mode) leaves bare that a reader takes as
 * something else: YAML 1.1's merge key and "value" tag, and YAML 1.2's octal `0o17` (15 to a
 * YAML 1.2 reader, a string to a YAML 1.1 one). Always quoted.
 */
const YAML11_INDICATOR_WORD = /^(?:<<|=|[-+]?0o[0-7]+)$/;
/** The longest implicit key YAML readers accept: the `:` at most 1024 characters after its start. */
export const YAML_MAX_KEY_LENGTH = 1024;

export function yamlScalar(value: unknown, field?: unknown): string {
  // the commonest non-strings without the library, as it writes them
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return String(value);
  if (Number.isSafeInteger(value) && !Object.is(value, -0)) return String(value);
  if (typeof value === "string") {
    if (PLAIN_WORD.test(value)) return plainWord(value);
    if (NEEDS_ESCAPES.test(value)) return yamlDoubleQuoted(value);
    if (YAML11_INDICATOR_WORD.test(value)) return `"${value}"`;
    const fast = plainOrQuoted(value);
    if (fast !== undefined) return fast;
  } else if (typeof value === "object" && value !== null) {
    return yamlFlow(value, field, 0);
  }
  return yamlScalarByLibrary(value);
}

/**
 * A whole number as people type it: no leading zeros, optionally negative. YAML 1.1 and 1.2
 * readers (the automation tool's PyYAML among them) read it as that number, exactly. Others
 * stay quoted strings: `0755`, `1_000`, `1e3` or `+1` read differently in YAML 1.1 and 1.2 or
 * as something else, and a decimal would lose its meaning (`1.20`, a version, reads as 1.2).
 */
const TYPED_NUMBER = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * `{{ value | yaml_var }}`: an automation variable's value. A whole number is written as typed
 * (`"8080"` gives `8080`, as the original tool writes group vars), so the tool sees a number;
 * everything else as `yaml` writes it, quoted whenever YAML would read it as something other
 * than the text (`yes`, `null`, `~`, ``, `0755`, `1.20`, `*x`, `a: b`, ...).
 */
export function yamlVar(value: unknown, field?: unknown): string {
  if (typeof value === "string" && TYPED_NUMBER.test(value)) return value;
  return yamlScalar(value, field);
}

/** A string as a one-line YAML double-quoted scalar: JSON, plus escapes YAML 1.1 readers need. */
function yamlDoubleQuoted(value: string): string {
  return JSON.stringify(value).replace(RAW_IN_JSON_UNSAFE_FOR_YAML, unicodeEscape);
}

/**
 * `yamlScalar` of a scalar the long way, through the yaml library: for non-strings and rare
 * strings. Lists and maps are written by `yamlFlow`.
 */
export function yamlScalarByLibrary(value: unknown): string {
  if (typeof value === "object" && value !== null) return yamlFlow(value, undefined, 0);
  if (typeof value === "string" && YAML11_INDICATOR_WORD.test(value)) return `"${value}"`;
  const text = yamlLibrary()
    .stringify(value === undefined ? null : value, {
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
  if (text.includes("\n")) return yamlDoubleQuoted(String(value));
  // YAML 1.1 floats need a `.` and a signed exponent: `1e+21` would read back as a string
  return typeof value === "number" ? text.replace(/^(-?[0-9]+)(e[-+])/, "$1.0$2") : text;
}

/**
 * A list or map as a one-line YAML flow collection, every key and item written by `yamlScalar`:
 * byte for byte what the yaml library writes for ordinary data (`[ 1, "on" ]`, `{ a: b }`, `[]`,
 * `{}`), without its blind spots (raw U+2028, `<<`, keys that are not strings).
 * MiniJinja hands maps to filters as JS `Map`s (its `none` as undefined); plain objects work too.
 */
function yamlFlow(value: object, field: unknown, depth: number): string {
  const item = (entry: unknown) =>
    typeof entry === "object" && entry !== null && depth < 64
      ? yamlFlow(entry, field, depth + 1)
      : yamlScalar(entry === undefined ? null : entry, field);
  if (Array.isArray(value)) return value.length === 0 ? "[]" : `[ ${value.map(item).join(", ")} ]`;
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  if (entries.length === 0) return "{}";
  const pairs = entries.map(([key, entry]) => {
    const written = item(key);
    const refused =
      written.length > YAML_MAX_KEY_LENGTH ? yamlKeyTooLong(key, written, field) : undefined;
    return `${refused ?? written}: ${item(entry)}`;
  });
  return `{ ${pairs.join(", ")} }`;
}

function yamlKeyTooLong(key: unknown, written: string, field: unknown): string {
  return refusal(
    `${subject(field)} has a key ${written.length} characters long as written (${shown(key)}); YAML readers take keys of at most ${YAML_MAX_KEY_LENGTH} characters`,
  );
}

/**
 * `{{ key | yaml_key("field") }}`: a block mapping key, written as `yaml` writes it; a key over
 * 1024 characters as written is refused, as YAML readers cannot read it back.
 */
export function yamlKey(value: unknown, field?: unknown): string {
  const written = yamlScalar(value, field);
  return written.length > YAML_MAX_KEY_LENGTH && !written.includes(refusalMark())
    ? yamlKeyTooLong(value, written, field)
    : written;
}

// The yaml library is loaded on first use only: `yamlScalar` writes every string without it
// (see `plainOrQuoted`), so a one-shot CLI run that renders only strings never loads it, and
// its first cold `stringify` calls (each builds a whole YAML document) cost more than the
// rendering around them.
/** The yaml library, loaded on first use (src/core/lazy-libraries.ts). */
function yamlLibrary(): typeof import("yaml") {
  return lazyLibraries().yaml();
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
// here) and the merge key `<<` (quoted before: YAML11_INDICATOR_WORD). Control characters never
// get here (NEEDS_ESCAPES).
// test/core/filters.test.ts compares this with the library over many generated strings.
const LIBRARY_ONLY =
  /["\\]|^---|^\.\.\.|^<<$|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A word: a letter, then letters, digits, `.`, `_`, `/`, `-`, and `:` before one of those (not
 * last, not before a blank): `web-1`, `nginx:1.27`, `shop.example.com`, `default`. None of the
 * rules above can refuse it as plain but YAML 1.1's booleans and null (every other one needs a
 * character a word leaves out, or a digit, sign, `.` or `~` first), so a word is settled by two
 * short tests instead of some fifteen. Most values are words: a deployment render tested each
 * of its ten scalars against every rule (measured: 5% of the service's HTTP thread under unique
 * deployment renders).
 */
const PLAIN_WORD = /^[A-Za-z](?:[-A-Za-z0-9._/]|:(?=[-A-Za-z0-9._/]))*$/;
/** The YAML 1.1 booleans and null that are words (YAML11_NOT_STRING's first three). */
const YAML11_WORD =
  /^(?:[Nn]ull|NULL|[Yy]|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON|[Nn]|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/;

/** `yamlScalar` of a word (PLAIN_WORD): plain, or quoted when YAML 1.1 reads it as another type. */
function plainWord(value: string): string {
  return YAML11_WORD.test(value) ? `"${value}"` : value;
}

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

/**
 * Wraps a filter so that it always returns a string and never throws into the engine. A value
 * that holds a refusal (see `refusal`) is handed on unchanged, so a refusal survives a chain of
 * kiln filters; a filter that throws (a bug) answers with a refusal, never with a guess.
 */
export function safeFilter(filter: Filter, name = "a kiln filter"): Filter {
  return (value, ...args) => {
    try {
      const refused = refusalIn(value);
      if (refused !== undefined) return refused;
      const out = filter(value ?? "", ...args);
      return typeof out === "string" ? out : "";
    } catch (error) {
      return refusal(`${name} failed on ${shown(value)}: ${errorMessage(error)}`);
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
      // a lone surrogate cannot be written in UTF-8: Python's escape keeps it
      else if (code >= 0xd800 && code <= 0xdfff) out += `\\u${code.toString(16)}`;
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
  return `{${entries.map(([k, v]) => `${pythonLiteral(k)}: ${pythonLiteral(v)}`).join(", ")}}`;
}

/** Characters that need no quoting in an INI inventory value (nor in a shlex word). */
const INI_PLAIN = /^[A-Za-z0-9_./:@%~-]+$/;
/** Decimal integers: written bare on purpose, so `cm_port=22` reads as a number, as INI users expect. */
const INI_INTEGER = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * Would `ast.literal_eval` turn this plain text into something other than the same string?
 * Over-approximates: True/False/None, Ellipsis (`...`), anything signed, and anything starting
 * like a number that could still be one (Python numbers hold at most one `.`, complex sums end
 * in `j`). IPv4 addresses and dotted versions like `1.2.3` stay plain. Written with character
 * codes, not regular expressions and `split`: it runs for every value of an inventory.
 */
function looksLikePythonLiteral(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first === 0x2b || first === 0x2d) return true; // `+`, `-`
  if (text === "True" || text === "False" || text === "None") return true;
  const digit = first >= 0x30 && first <= 0x39;
  if (!digit && first !== 0x2e) return false; // starts with neither a digit nor `.`
  let dots = 0;
  for (let at = 0; at < text.length; at++) if (text.charCodeAt(at) === 0x2e) dots += 1;
  if (dots <= 1 || dots === text.length) return true; // one number, or Ellipsis
  const last = text.charCodeAt(text.length - 1);
  return last === 0x6a || last === 0x4a; // `j`, `J`
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
  // a string iniValue left as it was is plain already (its characters are a subset of these)
  if (text === value || /^[A-Za-z0-9_./:@%~-]*$/.test(text)) return text;
  return `"${text.replace(/[\\"]/g, "\\$&")}"`;
}

/** Whitespace, line breaks (also U+0085, U+2028, U+2029) and control characters. */
const BLANK_OR_CONTROL = /[\s\p{Cc}]/u;

/** A name given as a string, number or boolean, as text; undefined for lists and maps. */
function nameText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/**
 * A refusal for a name an INI inventory cannot hold: what it is, why not, and what is allowed.
 * The automation tool reads an INI inventory line by line (Python's `splitlines`, so also
 * U+000B, U+000C, U+001C–U+001E, U+0085, U+2028, U+2029 end a line), strips each line, skips
 * lines starting with `#` or `;`, and has no escapes for names.
 */
function iniNameRefusal(field: unknown, kind: string, name: string, why: string, rule: string) {
  return refusal(
    `${subject(field)} has a ${kind} ${shown(name)} that an INI inventory cannot hold: it ${why}. ${rule}`,
  );
}

/** One reason an INI name is refused: when it applies, and the message's "it ..." part. */
export interface IniNameRule {
  refuses: (name: string) => boolean;
  why: string;
}

/** A kind of INI name: its rules, checked in order (the first that applies is reported). */
export interface IniNameKind {
  kind: string;
  /** Names that pass every rule for sure, tested first: most names are plain words. */
  plain: RegExp;
  rules: readonly IniNameRule[];
  /** What is allowed, for the message. */
  allowed: string;
}

const EMPTY: IniNameRule = { refuses: (name) => name === "", why: "is empty" };
const BLANK: IniNameRule = {
  refuses: (name) => BLANK_OR_CONTROL.test(name),
  why: "holds a space, a line break or a control character",
};

/**
 * A group name for `[group]`, `[group:children]`, `[group:vars]` and the lines of a `:children`
 * section. Its section pattern is `[` + one or more characters other than whitespace, `:` and
 * `]` + `]`; a `:children` line starting with `#` or `;` is a comment.
 */
const GROUP_NAME: IniNameKind = {
  kind: "group name",
  plain: /^[A-Za-z0-9_.-]+$/,
  rules: [
    EMPTY,
    BLANK,
    {
      refuses: (name) => /[:[\]]/.test(name),
      why: "holds `:`, `[` or `]`, which end or split a section header",
    },
    {
      refuses: (name) => /^[#;]/.test(name),
      why: "starts with `#` or `;`, which starts a comment",
    },
  ],
  allowed:
    "A group name may not be empty, hold spaces, line breaks, control characters, `:`, `[` or `]`, or start with `#` or `;`.",
};

/**
 * A host name at the start of a host line. The tool splits host lines with POSIX shlex
 * (whitespace separates, quotes and `\` are removed, `#` starts a comment even inside a word),
 * expands `[a:b]` ranges into several hosts, reads a single `name:22` as a port, refuses a name
 * ending in `:` or equal to `---`, and skips a line starting with `;`.
 */
const HOST_NAME: IniNameKind = {
  kind: "host name",
  // no `:` at all, and not only dashes (`---`)
  plain: /^(?=.*[A-Za-z0-9_.])[A-Za-z0-9_.-]+$/,
  rules: [
    EMPTY,
    BLANK,
    {
      refuses: (name) => /['"\\#]/.test(name),
      why: "holds a quote, `\\` or `#`, which the host line's shell-like splitting removes or reads as a comment",
    },
    {
      refuses: (name) => /[[\]]/.test(name),
      why: "holds `[` or `]`, which expand to a range of hosts",
    },
    {
      refuses: (name) => name.indexOf(":") >= 0 && name.indexOf(":") === name.lastIndexOf(":"),
      why: "holds one `:`, which sets the SSH port (use `cm_port`)",
    },
    { refuses: (name) => name.endsWith(":"), why: "ends with `:`" },
    { refuses: (name) => name.startsWith(";"), why: "starts with `;`, which starts a comment" },
    { refuses: (name) => name === "---", why: "is `---`" },
  ],
  allowed:
    "A host name may not be empty or `---`, hold spaces, line breaks, control characters, quotes, `\\`, `#`, `[` or `]`, start with `;`, or end with `:`; it may hold `:` only as an IPv6 address does (two or more).",
};

/**
 * The name of a variable on a host line (`name=value`, a shlex token split at its first `=`)
 * or in a `[group:vars]` section (the text before the first `=`, stripped).
 */
const VAR_NAME: IniNameKind = {
  kind: "variable name",
  plain: /^[A-Za-z0-9_.:-]+$/,
  rules: [
    EMPTY,
    BLANK,
    {
      refuses: (name) => /['"\\#=]/.test(name),
      why: "holds `=`, a quote, `\\` or `#`, which end the name or are removed, or start a comment",
    },
    {
      refuses: (name) => /^[;[]/.test(name),
      why: "starts with `;` or `[`, which make a comment or a section header",
    },
  ],
  allowed:
    "A variable name may not be empty, hold spaces, line breaks, control characters, `=`, quotes, `\\` or `#`, or start with `;` or `[`.",
};

/** The kinds of INI names, for tests: no name a `plain` pattern takes may break a rule. */
export const INI_NAME_KINDS: readonly IniNameKind[] = [GROUP_NAME, HOST_NAME, VAR_NAME];

/** `value` unchanged when it is a name of this kind the tool reads as written; else a refusal. */
function iniName(names: IniNameKind, value: unknown, field: unknown): string {
  const name = nameText(value);
  if (name === undefined) return textRefusal(value, field);
  if (names.plain.test(name)) return name;
  const broken = names.rules.find((rule) => rule.refuses(name));
  return broken === undefined
    ? name
    : iniNameRefusal(field, names.kind, name, broken.why, names.allowed);
}

/**
 * `{{ group | ini_group_name("hosts") }}`: a group name, unchanged; refused when the tool would
 * read it as something else (`GROUP_NAME`).
 */
export function iniGroupName(value: unknown, field?: unknown): string {
  return iniName(GROUP_NAME, value, field);
}

/**
 * `{{ host | ini_host_name("hosts") }}`: a host name at the start of a host line, unchanged;
 * refused when the tool would read it as something else (`HOST_NAME`).
 */
export function iniHostName(value: unknown, field?: unknown): string {
  return iniName(HOST_NAME, value, field);
}

/**
 * `{{ key | ini_var_name("hosts") }}`: a variable's name on a host line or in a `[group:vars]`
 * section, unchanged; refused when the tool would read it as something else (`VAR_NAME`).
 */
export function iniVarName(value: unknown, field?: unknown): string {
  return iniName(VAR_NAME, value, field);
}

/**
 * `{{ value | cfg_value("inventory") }}`: the value of a `key = value` line in an INI config
 * file the automation tool reads with Python's configparser (`cm.cfg`): `%` doubled (it starts
 * an interpolation there), anything else as it is. Refused when configparser would read it back
 * differently: a line break or control character (it would end the value or start a new line),
 * a space at either end (stripped), or a `;` at the start or after a space (the tool's parser
 * takes it as a comment). Lists and maps are refused too.
 */
export function cfgValue(value: unknown, field?: unknown): string {
  const text = nameText(value);
  if (text === undefined) return textRefusal(value, field);
  const why = /[\p{Cc}\u2028\u2029]/u.test(text)
    ? "holds a line break or a control character"
    : /^\s|\s$/.test(text)
      ? "starts or ends with a space, which the config reader strips"
      : /(?:^|\s);/.test(text)
        ? "holds a `;` at its start or after a space, which starts a comment there"
        : undefined;
  if (why !== undefined) {
    return refusal(
      `${subject(field)} is ${shown(text)}, which cm.cfg cannot hold: it ${why}. Write one line without control characters, spaces at either end or \` ;\`.`,
    );
  }
  return text.replaceAll("%", "%%");
}

/** Whole numbers as kiln writes them: digits, no sign, no leading zeros. */
const WHOLE_NUMBER = /^(?:0|[1-9][0-9]*)$/;

/**
 * `{{ port | integer("port") }}`: a whole number, written as typed (blanks around it dropped):
 * `8080` stays `8080`. Anything else is refused (`three`, `80\n hostPort: 22`, `1.5`, `-1`,
 * `0755`, which YAML 1.1 reads as octal, a list or a map), so a number field can never add text to a
 * YAML or HCL file.
 */
export function integer(value: unknown, field?: unknown): string {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === "string" && WHOLE_NUMBER.test(value.trim())) return value.trim();
  return refusal(
    `${subject(field)} must be a whole number written in digits, such as 8080 (no sign, leading zeros, spaces or other characters); got ${shown(value)}`,
  );
}

function textRefusal(value: unknown, field: unknown): string {
  const kind = Array.isArray(value) ? "list" : typeof value === "object" ? "map" : typeof value;
  return refusal(
    `${subject(field)} must be text, not a ${kind} (${shown(value)}); a value that starts with \`[\` or \`{\` and is valid JSON arrives as a list or a map`,
  );
}

/**
 * `{{ image | text("image") }}`: a value that must be text, unchanged (numbers and booleans as
 * text); a list or map (what a JSON-looking value becomes) is refused, for places where a list
 * or map would change the file's structure.
 */
export function text(value: unknown, field?: unknown): string {
  const written = nameText(value);
  return written ?? textRefusal(value, field);
}

/**
 * `{{ value | tojson | yaml_json }}`: `tojson`'s JSON made safe to embed in YAML that YAML 1.1
 * tools read (JSON is YAML, nearly): characters JSON leaves raw that PyYAML refuses or reads as
 * line breaks (U+0085, U+2028, U+2029, other C1 controls, U+FEFF, U+FFFE, U+FFFF) become
 * `\uNNNN`; numbers with an exponent get the `.` and sign YAML 1.1 needs (`1e21` → `1.0e+21`);
 * a key over 1024 characters is refused. Ordinary JSON comes back byte for byte. Text that is
 * not JSON is written as a JSON string.
 */
export function yamlJson(value: unknown, field?: unknown): string {
  let json = typeof value === "string" ? value : asText(value);
  try {
    JSON.parse(json);
  } catch {
    json = JSON.stringify(json);
  }
  let out = "";
  const tokens = json.matchAll(/("(?:[^"\\]|\\[\s\S])*")(\s*:)?|[^"]+/g);
  for (const [token, string, colon] of tokens) {
    if (string === undefined) {
      out += token.replace(/(-?[0-9]+)(?:\.([0-9]+))?[eE]([-+]?)([0-9]+)/g, (_m, i, f, sign, e) => {
        return `${i}.${f ?? "0"}e${sign || "+"}${e}`;
      });
      continue;
    }
    const written = string.replace(RAW_IN_JSON_UNSAFE_FOR_YAML, unicodeEscape);
    if (colon !== undefined && written.length > YAML_MAX_KEY_LENGTH) {
      return yamlKeyTooLong(JSON.parse(string), written, field);
    }
    out += written + (colon ?? "");
  }
  return out;
}

/** Line breaks YAML readers disagree on (all but `\n` and `\r\n`) and characters they refuse. */
const YAML_TEXT_UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we look for
  /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/**
 * Does YAML text hold a tab where PyYAML, the automation tool's reader, reads none: between
 * tokens (indentation, after `:` or `,`) or inside a plain scalar? Quoted scalars, comments and
 * block scalars may hold tabs. The yaml package's lexer finds the places.
 */
function hasUnreadableTab(yaml: typeof import("yaml"), text: string): boolean {
  if (!text.includes("\t")) return false;
  let blockHeader = false;
  let scalarNext = false;
  for (const token of new yaml.Lexer().lex(text)) {
    if (scalarNext) {
      // the source of the scalar announced by the previous token: plain, or a block's body
      scalarNext = false;
      if (blockHeader) blockHeader = false;
      else if (token.includes("\t")) return true;
      continue;
    }
    const type = yaml.CST.tokenType(token);
    if (type === "scalar") scalarNext = true;
    else if (type === "block-scalar-header") blockHeader = true;
    else if (type === "space" && token.includes("\t")) return true;
  }
  return false;
}

/** Tags the automation tool's YAML loader constructs: its own and YAML 1.1's safe ones. */
const KNOWN_TAG =
  /^(?:!unsafe|!vault|!vault-encrypted|tag:yaml\.org,2002:(?:str|int|float|bool|null|seq|map|binary|timestamp|omap|pairs|set))$/;

/** Keys the check in `yamlBlock` puts around the text; no user key starts with NUL. */
const BEFORE_KEY = "\u0000kiln-before";
const AFTER_KEY = "\u0000kiln-after";

/**
 * `{{ text | yaml_block(indent, "field") }}`: YAML text a user wrote (raw YAML, a task list),
 * placed in the file as it is: with `indent` 0, unchanged, after complete top-level `key: value`
 * lines; with `indent` 2 or more, as the block value of a key at `indent - 2` spaces, trimmed of
 * line breaks at both ends and indented like MiniJinja's `trim("\r\n") | indent(indent, true)`.
 * Refused unless it stays in its place: it must be valid YAML on its own, hold no line break but
 * `\n` and `\r\n` (PyYAML also breaks lines at `\r`, U+0085, U+2028, U+2029, where an indent
 * would be missing) and no control characters, and read back, placed in the file, as exactly
 * what it reads as alone (so it can neither swallow nor add the file's own keys). At indent 0
 * it must be a mapping (or empty).
 */
export function yamlBlock(given: unknown, indent?: unknown, field?: unknown): string {
  const value = nameText(given);
  if (value === undefined) return textRefusal(given, field);
  const width = typeof indent === "number" && Number.isInteger(indent) ? indent : 0;
  const refuse = (why: string) =>
    refusal(`${subject(field)} is YAML that cannot be placed in this file: ${why}`);
  if (width !== 0 && (width < 2 || width > 64)) return refuse(`indent ${width} is not supported`);
  const unsafe = YAML_TEXT_UNSAFE.exec(value);
  if (unsafe) {
    return refuse(
      `it holds ${shown(unsafe[0])}, a line break other than \\n or a control character (write it as an escape inside a double-quoted string)`,
    );
  }
  const text = width === 0 ? value : value.replace(/^[\r\n]+|[\r\n]+$/g, "");
  const written =
    width === 0
      ? text
      : text
          .split("\n")
          .map((line) => (line === "" ? line : " ".repeat(width) + line))
          .join("\n");
  if (/^(?:(?:---|\.\.\.)(?:[ \t\r]|$)|%)/m.test(text)) {
    return refuse("it holds a document marker (`---`, `...`) or a directive (`%`) at a line start");
  }
  const yaml = yamlLibrary();
  if (hasUnreadableTab(yaml, text)) {
    return refuse("it holds a tab outside quotes, comments and block scalars (use spaces there)");
  }
  const read = (source: string): { value?: unknown; error?: string | undefined } => {
    try {
      const doc = yaml.parseDocument(source, { version: "1.1", prettyErrors: false });
      if (doc.errors.length > 0) return { error: doc.errors[0]?.message.split("\n")[0] };
      // What the yaml package reads and PyYAML, the automation tool's reader, fails on: an
      // empty key (`: x`), a list or map as a key (`{{ x }}: 1`, `{{ x }}`), a plain `=`
      // (YAML 1.1's value tag) or `<<` outside a key, and a tag the tool cannot construct.
      let unreadable: string | undefined;
      const checkTag = (tag: string | undefined) => {
        if (tag !== undefined && !KNOWN_TAG.test(tag)) {
          unreadable = `the tag \`${tag}\`, which the automation tool does not know`;
        }
      };
      yaml.visit(doc, {
        Pair(_key, pair) {
          const key = pair.key;
          if (key === null || (yaml.isScalar(key) && key.range?.[0] === key.range?.[1])) {
            unreadable = "a mapping key is empty (`: value`)";
          } else if (yaml.isCollection(key)) {
            unreadable = "a mapping key is a list or map (an unquoted `{{ }}`? quote it)";
          }
        },
        Scalar(key, node) {
          checkTag(node.tag);
          if (node.type !== "PLAIN") return;
          if (node.source === "=" || (node.source === "<<" && key !== "key")) {
            unreadable = `a plain \`${node.source}\` (quote it)`;
          }
        },
        Collection(_key, node) {
          checkTag(node.tag);
        },
      });
      if (unreadable !== undefined) return { error: unreadable };
      return { value: doc.toJS({ mapAsMap: true, maxAliasCount: 1000 }) };
    } catch (error) {
      return { error: errorMessage(error) };
    }
  };
  const alone = read(text);
  if (alone.error !== undefined) {
    return refuse(`it is not YAML the automation tool reads (${alone.error})`);
  }
  let wrapper: string;
  let expected: Map<unknown, unknown>;
  if (width === 0) {
    if (alone.value !== null && !(alone.value instanceof Map)) {
      return refuse("it must be a YAML mapping (`key: value` lines starting at the left margin)");
    }
    wrapper = `${JSON.stringify(BEFORE_KEY)}: 0\n${written}${written.endsWith("\n") ? "" : "\n"}`;
    expected = new Map([[BEFORE_KEY, 0], ...((alone.value as Map<unknown, unknown>) ?? [])]);
  } else {
    const pad = " ".repeat(width - 2);
    wrapper = `${pad}${JSON.stringify(BEFORE_KEY)}:\n${written}\n${pad}${JSON.stringify(AFTER_KEY)}: 0\n`;
    expected = new Map<unknown, unknown>([
      [BEFORE_KEY, alone.value],
      [AFTER_KEY, 0],
    ]);
  }
  const placed = read(wrapper);
  if (placed.error !== undefined || !dequal(placed.value, expected)) {
    return refuse(
      "placed in the file it would read differently or change the lines around it (it must start at the left margin)",
    );
  }
  return written;
}

/** The filters every template may use, by name. */
export const KILN_FILTERS: Record<string, Filter> = {
  yaml: yamlScalar,
  yaml_var: yamlVar,
  yaml_key: yamlKey,
  yaml_json: yamlJson,
  yaml_block: yamlBlock,
  ini_value: iniValue,
  ini_host_value: iniHostValue,
  ini_group_name: iniGroupName,
  ini_host_name: iniHostName,
  ini_var_name: iniVarName,
  cfg_value: cfgValue,
  hcl: hclString,
  hcl_escape: hclEscape,
  tf_identifier: tfIdentifier,
  integer,
  text,
};
