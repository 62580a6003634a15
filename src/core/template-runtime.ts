// What the built-in templates compiled ahead of time (src/core/registry/compiled-templates.cjs,
// written by scripts/compile-templates.ts) call at run time: MiniJinja's value semantics as
// minijinja-js gives them, restated for the few operations the catalogue uses. The generated
// code handles values only through these functions and kiln's filters; it never evaluates text.
//
// Values: strings, numbers (a safe integer is MiniJinja's integer, any other number its float),
// booleans, `null` for none, `undefined` for undefined, arrays for lists and `Map`s for maps
// (keys in the engine's order). Anything these functions do not restate exactly (a type error
// the engine would report with its own message, printing a list) throws `FALLBACK`: the caller
// then renders the whole item with the engine, which gives its own output or error.
import { KILN_FILTERS, safeFilter } from "./filters.ts";

/** Thrown where the compiled code would leave what it restates: the engine renders instead. */
export const FALLBACK: unique symbol = Symbol("kiln:render-with-engine");

/** A variable set by `{% set %}` in a scope before the statement ran (the context's shows). */
export const UNSET: unique symbol = Symbol("kiln:unset");

/** Leaves the compiled path for this render (see FALLBACK). */
export function fallback(): never {
  throw FALLBACK;
}

/**
 * The engine's fuel per unit of the compiled path's work, with a margin: work counts a context's
 * values and characters, loop iterations and macro calls, and the most fuel the engine spent per
 * unit of that work, measured over the catalogue's costliest shapes (a play of `{}`, an
 * inventory of bare host names, lists of tags and roles), was about 32. A render whose work
 * could reach the engine's fuel goes to the engine, so its fuel limit gives the same error (or
 * the same output) as ever; below it the engine cannot run out.
 */
export const FUEL_PER_WORK = 100;

/** Work left in the current compiled render (see FUEL_PER_WORK). */
let workLeft = 0;

/** Counts one unit of work (a loop iteration, a macro call); past the budget, the engine renders. */
export function work(): void {
  workLeft -= 1;
  if (workLeft < 0) fallback();
}

/** The longest output, in characters, the compiled path returns; longer goes to the engine. */
export const COMPILED_OUTPUT_BUDGET = 4_000_000;

/** Rust's `char::is_whitespace` (MiniJinja's `trim`, its `-` whitespace control). */
const RUST_WHITESPACE =
  "\t\n\u000b\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

/** Compares two strings by code points (Rust's `str` order), not UTF-16 code units. */
function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let at = 0; at < length; at++) {
    const x = a.charCodeAt(at);
    const y = b.charCodeAt(at);
    if (x === y) continue;
    // a surrogate (an astral code point) sorts after every BMP character above it
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? (y >= 0xe000 ? 1 : x - y) : x >= 0xe000 ? -1 : x - y;
    return x - y;
  }
  return a.length - b.length;
}

/** A lone surrogate (half of a pair without the other half). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A string as it comes back out of the engine: a lone surrogate cannot be written in UTF-8, so
 * crossing into WASM turns it into U+FFFD (the TextEncoder's replacement).
 */
function wellFormed(value: string): string {
  LONE_SURROGATE.lastIndex = 0;
  return LONE_SURROGATE.test(value) ? value.replace(LONE_SURROGATE, "\ufffd") : value;
}

/**
 * A JSON-like value as the engine holds it after crossing into WASM: strings well formed (a lone
 * surrogate becomes U+FFFD), -0 as 0, objects as maps in key order. Undefined past the budget.
 */
function engineValue(value: unknown): unknown {
  work();
  if (typeof value === "string") {
    workLeft -= value.length;
    return wellFormed(value);
  }
  if (typeof value === "number") return Object.is(value, -0) ? 0 : value;
  if (typeof value === "boolean" || value === null || value === undefined) return value;
  if (Array.isArray(value)) return value.map(engineValue);
  if (typeof value === "object") {
    const entries = new Map<string, unknown>();
    for (const [key, item] of Object.entries(value)) {
      workLeft -= key.length;
      entries.set(wellFormed(key), engineValue(item));
    }
    const keys = [...entries.keys()].sort(compareCodePoints);
    return new Map(keys.map((key) => [key, entries.get(key)]));
  }
  return fallback();
}

/**
 * Starts a compiled render for an engine with `fuel`: the context as the compiled templates
 * read it, and the render's work budget, of which the context's values and characters take
 * their share; throws FALLBACK past it.
 */
export function engineContext(
  context: Record<string, unknown>,
  fuel: number,
): Map<string, unknown> {
  workLeft = Math.floor(fuel / FUEL_PER_WORK);
  return engineValue(context) as Map<string, unknown>;
}

/** A context variable (undefined when absent). */
export function lookup(context: Map<string, unknown>, name: string): unknown {
  return context.get(name);
}

/** MiniJinja's truthiness. */
export function truthy(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === "string") return value !== "";
  if (typeof value === "number") return value !== 0;
  if (typeof value === "boolean") return value;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Map) return value.size > 0;
  return fallback();
}

/** A float as Rust's `Display` writes it (no exponent), with MiniJinja's `.0` for whole ones. */
function floatText(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value < 0 ? "-inf" : "inf";
  const [mantissa, exponentText] = value.toExponential().split("e") as [string, string];
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace(/^-/, "").replace(".", "");
  const point = Number(exponentText) + 1;
  let text: string;
  if (point <= 0) text = `0.${"0".repeat(-point)}${digits}`;
  else if (point >= digits.length) text = `${digits}${"0".repeat(point - digits.length)}`;
  else text = `${digits.slice(0, point)}.${digits.slice(point)}`;
  if (!text.includes(".")) text += ".0";
  return negative ? `-${text}` : text;
}

/** A value as `{{ }}`, `~` and `string` write it. */
export function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  if (value === null) return "none";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    return Number.isSafeInteger(value) ? String(value) : floatText(value);
  }
  return fallback();
}

/** `a == b`. */
export function equal(a: unknown, b: unknown): boolean {
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (a === undefined || a === null || b === undefined || b === null) return a === b;
  if (typeof a === "number" && typeof b === "number") return a === b;
  if (typeof a === "boolean" && typeof b === "boolean") return a === b;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => equal(item, b[index]));
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [key, item] of a) if (!b.has(key) || !equal(item, b.get(key))) return false;
    return true;
  }
  // a boolean against a number compares as numbers there; not restated
  if (typeof a !== "object" && typeof b !== "object") return fallback();
  return false;
}

/** `needle in haystack`: a substring, a list's item, a map's key. */
export function contains(haystack: unknown, needle: unknown): boolean {
  if (typeof haystack === "string" && typeof needle === "string") return haystack.includes(needle);
  if (Array.isArray(haystack)) return haystack.some((item) => equal(item, needle));
  if (haystack instanceof Map && typeof needle === "string") return haystack.has(needle);
  return fallback();
}

/**
 * `value[key]`: a map's entry by a string key, or a list's item by a whole number from 0,
 * undefined past its end. Anything else (a negative index, a string's character, a key of
 * another type, an undefined value) is left to the engine.
 */
export function item(value: unknown, key: unknown): unknown {
  if (value instanceof Map && typeof key === "string") return value.get(key);
  if (Array.isArray(value) && Number.isSafeInteger(key) && (key as number) >= 0) {
    return value[key as number];
  }
  return fallback();
}

/** `value.name` (and `value["name"]`): a map's entry, undefined on an undefined value. */
export function attribute(value: unknown, name: string): unknown {
  if (value instanceof Map) return value.get(name);
  if (value === undefined) return undefined;
  return fallback();
}

/** `value[start:stop]` of a string, by code points, as Python slices. */
export function slice(value: unknown, start: number | undefined, stop: number | undefined): string {
  if (typeof value !== "string") return fallback();
  const chars = Array.from(value);
  const clamp = (at: number) =>
    at < 0 ? Math.max(chars.length + at, 0) : Math.min(at, chars.length);
  const from = start === undefined ? 0 : clamp(start);
  const to = stop === undefined ? chars.length : clamp(stop);
  return from < to ? chars.slice(from, to).join("") : "";
}

/** What `{% for %}` walks: a list's items, a map's keys, nothing for undefined. */
export function iterable(value: unknown): readonly unknown[] {
  if (Array.isArray(value)) return value;
  if (value === undefined) return [];
  if (value instanceof Map) return [...value.keys()];
  return fallback();
}

/** `for a, b in ...`: one item unpacked into `count` variables. */
export function unpack(item: unknown, count: number): readonly unknown[] {
  if (Array.isArray(item) && item.length === count) return item;
  return fallback();
}

/** The tests the catalogue uses, by name. */
export const TESTS: Record<string, (value: unknown) => boolean> = {
  defined: (value) => value !== undefined,
  none: (value) => value === null,
  mapping: (value) => value instanceof Map,
  sequence: (value) => Array.isArray(value),
  string: (value) => typeof value === "string",
};

/** MiniJinja's `trim`: Unicode whitespace, or the characters given. */
function trim(given: unknown, chars?: unknown): string {
  // a string argument takes any value as it prints (undefined as "", none as "none")
  const value = text(given);
  const set =
    chars === undefined ? RUST_WHITESPACE : typeof chars === "string" ? chars : fallback();
  const points = Array.from(value);
  let from = 0;
  let to = points.length;
  while (from < to && set.includes(points[from] as string)) from++;
  while (to > from && set.includes(points[to - 1] as string)) to--;
  return from === 0 && to === points.length ? value : points.slice(from, to).join("");
}

/** A float as serde_json writes it (ryu's shortest form). */
function jsonFloat(value: number): string {
  if (!Number.isFinite(value)) return "null";
  const [mantissa, exponentText] = value.toExponential().split("e") as [string, string];
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace(/^-/, "").replace(".", "");
  const length = digits.length;
  const kk = Number(exponentText) + 1;
  const k = kk - length;
  let text: string;
  if (k >= 0 && kk <= 16) text = `${digits}${"0".repeat(k)}.0`;
  else if (kk > 0 && kk <= 16) text = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -5 && kk <= 0) text = `0.${"0".repeat(-kk)}${digits}`;
  else if (length === 1) text = `${digits}e${kk - 1}`;
  else text = `${digits[0]}.${digits.slice(1)}e${kk - 1}`;
  return sign + text;
}

/** MiniJinja's `tojson`: compact JSON, `<`, `>`, `&` and `'` escaped for HTML. */
function toJson(value: unknown): string {
  return jsonOf(value).replace(/[<>&']/g, (char) =>
    char === "<" ? "\\u003c" : char === ">" ? "\\u003e" : char === "&" ? "\\u0026" : "\\u0027",
  );
}

function jsonOf(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    return Number.isSafeInteger(value) ? String(value) : jsonFloat(value);
  }
  if (Array.isArray(value)) return `[${value.map(jsonOf).join(",")}]`;
  if (value instanceof Map) {
    const pairs: string[] = [];
    for (const [key, item] of value) pairs.push(`${jsonOf(text(key))}:${jsonOf(item)}`);
    return `{${pairs.join(",")}}`;
  }
  return fallback();
}

/** MiniJinja's built-in filters the catalogue uses, by name. */
export const BUILTIN_FILTERS: Record<string, (value: unknown, ...args: unknown[]) => unknown> = {
  items: (value) => (value instanceof Map ? [...value.entries()] : fallback()),
  trim,
  tojson: (value) => toJson(value),
  string: (value) => text(value),
  lower: (value) => text(value).toLowerCase(),
  split: (value, separator) =>
    typeof separator === "string" && separator !== "" ? text(value).split(separator) : fallback(),
  map: (value, name) =>
    name === "trim" && Array.isArray(value) ? value.map((item) => trim(item)) : fallback(),
  select: (value) => (Array.isArray(value) ? value.filter(truthy) : fallback()),
  list: (value) => (Array.isArray(value) ? value : fallback()),
};

/** A value as minijinja-js hands it to a JavaScript filter: none (and undefined) as undefined. */
function filterArgument(value: unknown): unknown {
  if (value === null) return undefined;
  if (Array.isArray(value)) return value.some(holdsNone) ? value.map(filterArgument) : value;
  if (value instanceof Map) {
    if (![...value.values()].some(holdsNone)) return value;
    return new Map([...value].map(([key, item]) => [key, filterArgument(item)]));
  }
  return value;
}

function holdsNone(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.some(holdsNone);
  if (value instanceof Map) return [...value.values()].some(holdsNone);
  return false;
}

/** kiln's filters as the engine calls them (safeFilter), by name. */
const SAFE_KILN_FILTERS: Record<string, (value: unknown, ...args: unknown[]) => string> =
  Object.fromEntries(
    Object.entries(KILN_FILTERS).map(([name, filter]) => [name, safeFilter(filter)]),
  );

/** Calls one of kiln's filters with the values as the engine passes them. */
export function kilnFilter(name: string, value: unknown, ...args: unknown[]): string {
  const filter = SAFE_KILN_FILTERS[name];
  if (filter === undefined) return fallback();
  const out = filter(filterArgument(value), ...args.map(filterArgument));
  return wellFormed(out);
}

/** Everything the generated module is given. */
export const TEMPLATE_RUNTIME = {
  FALLBACK,
  UNSET,
  fallback,
  lookup,
  truthy,
  text,
  equal,
  contains,
  attribute,
  item,
  slice,
  iterable,
  unpack,
  work,
  TESTS,
  BUILTIN_FILTERS,
  kilnFilter,
};
