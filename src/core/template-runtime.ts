// What the built-in templates compiled ahead of time (src/core/registry/compiled-templates.cjs,
// written by scripts/compile-templates.ts) call at run time: MiniJinja's value semantics as
// minijinja-js gives them, restated for the few operations the catalogue uses. The generated
// code handles values only through these functions and kiln's filters; it never evaluates text.
//
// Values: strings, numbers (a safe integer is MiniJinja's integer, any other number its float),
// booleans, `null` for none, `undefined` for undefined, arrays for lists, and for maps `Map`s
// (the template's map literals, keys in the engine's order) or the context's plain objects,
// read in place (walked in the engine's key order). Anything these functions do not restate
// exactly (a type error the engine would report with its own message, printing a list) throws
// `FALLBACK`: the caller then renders the whole item with the engine, which gives its own
// output or error.
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
 * Instructions the current template may still run: the engine fails a render whose template
 * runs as many instructions as its fuel (MiniJinja stops when the fuel left reaches 0), so a
 * template starts with its fuel less one (startTemplate). The compiled code adds, as each
 * block starts, an upper bound of the instructions the engine runs for it (work(), counted by
 * scripts/compile-templates.ts from the template's tree); past the fuel, the engine renders,
 * and gives its own output or its own out-of-fuel error. Below it the engine cannot run out.
 */
let fuelLeft = 0;

/** Starts one template's count with the engine's fuel per template. */
export function startTemplate(fuel: number): void {
  fuelLeft = fuel - 1;
}

/** The instructions counted since startTemplate(`fuel`) (for tests: the bound's tightness). */
export function fuelCounted(fuel: number): number {
  return fuel - 1 - fuelLeft;
}

/**
 * Characters the current render may still write, counted as they are written (text and values,
 * and what a `{% set %}` block captures, which the engine holds too): past the share of the
 * engine's memory its context leaves (engineContext), the engine renders. Counted as the output
 * grows, not once it is done: fuel does not bound the output (one instruction writes a value of
 * any length), and an output of gigabytes would fail here with another error than the engine's.
 */
let unitsLeft = 0;

/** Adds a block's instructions and the characters of its text; past either limit, the engine. */
export function work(instructions: number, units = 0): void {
  fuelLeft -= instructions;
  unitsLeft -= units;
  if (fuelLeft < 0 || unitsLeft < 0) fallback();
}

/** The length at which a loop sets the text it is writing aside (see setAside). */
const SET_ASIDE_UNITS = 1 << 14;

/**
 * After each loop turn: once the text being written reaches SET_ASIDE_UNITS, makes V8 copy it
 * into one flat string (reading a character does), keeps that in `done` and starts a new text.
 * Appending builds a rope, a node per append; a whole output as one rope stayed alive until the
 * render ended, outlived the young generation's collections, was copied and promoted, and made
 * the old generation's collections come more often the larger the input: rendering a
 * 50,000-host inventory cost 10 times a 10,000-host one. Set aside in pieces, the rope's nodes
 * die young, each character is copied once more, and what stays alive is the flat text.
 */
export function setAside(done: string[], writing: string): string {
  if (writing.length < SET_ASIDE_UNITS) return writing;
  writing.charCodeAt(0);
  done.push(writing);
  return "";
}

/** What a template, block or macro wrote: the texts set aside, then the rest. */
export function written(done: readonly string[], writing: string): string {
  return done.length === 0 ? writing : done.join("") + writing;
}

/** A value as `{{ }}` writes it, counted against the output's limit (see unitsLeft). */
export function emit(value: unknown): string {
  const out = text(value);
  unitsLeft -= out.length;
  if (unitsLeft < 0) fallback();
  return out;
}

/**
 * The longest output, in characters, a compiled render writes, whatever the engine's memory cap
 * leaves (engineContext): longer goes to the engine. It bounds what the render builds in the JS
 * heap; a 50,000-host inventory writes about 5,000,000 (its body is captured, then written).
 */
export const COMPILED_OUTPUT_BUDGET = 16_000_000;

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

/**
 * A string as it comes back out of the engine: a lone surrogate (half of a pair without the
 * other half) cannot be written in UTF-8, so crossing into WASM turns it into U+FFFD (the
 * TextEncoder's replacement), as `toWellFormed` does. `isWellFormed` answers a string V8 holds
 * at one byte a character (most of them) without reading it; a regular expression read every
 * filter's output (measured: 1.5% of the service's HTTP thread under unique deployment renders).
 */
function wellFormed(value: string): string {
  return value.isWellFormed() ? value : value.toWellFormed();
}

/** Whether the engine would hold `value` with a U+FFFD in place of a lone surrogate. */
function hasLoneSurrogate(value: string): boolean {
  return !value.isWellFormed();
}

/**
 * A map as the compiled code holds it: a `Map` (a map literal of the template, or a value
 * converted by engineValue) or a plain object of the context, read in place (a JSON object: its
 * own keys only, in the engine's order when walked: see mapKeys).
 */
type AnyMap = Map<string, unknown> | Record<string, unknown>;

/** Whether `value` is a map (a Map or a plain object; arrays are lists). */
function isMap(value: unknown): value is AnyMap {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A map's entry, undefined when it has none (a plain object's own keys only). */
function mapGet(map: AnyMap, key: string): unknown {
  if (map instanceof Map) return map.get(key);
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/** A map's keys in the engine's order (by code points; a Map holds them sorted already). */
function mapKeys(map: AnyMap): string[] {
  if (map instanceof Map) return [...map.keys()];
  const keys = Object.keys(map);
  return keys.length > 1 ? keys.sort(compareCodePoints) : keys;
}

/** Whether a map has `key` (a plain object: as its own key). */
function hasKey(map: AnyMap, key: string): boolean {
  return map instanceof Map ? map.has(key) : Object.hasOwn(map, key);
}

/** Whether a map has any entry. */
function mapFilled(map: AnyMap): boolean {
  if (map instanceof Map) return map.size > 0;
  for (const key in map) if (Object.hasOwn(map, key)) return true;
  return false;
}

/**
 * A JSON-like value as the engine holds it after crossing into WASM: strings well formed (a lone
 * surrogate becomes U+FFFD), -0 as 0, objects as maps in key order. Used only for a context
 * that holds a lone surrogate or a -0 (see contextShape); any other is read in place.
 */
function engineValue(value: unknown): unknown {
  if (typeof value === "string") return wellFormed(value);
  if (typeof value === "number") return Object.is(value, -0) ? 0 : value;
  if (typeof value === "boolean" || value === null || value === undefined) return value;
  if (Array.isArray(value)) return value.map(engineValue);
  const entries = new Map<string, unknown>();
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    entries.set(wellFormed(key), engineValue(item));
  }
  const keys = [...entries.keys()].sort(compareCodePoints);
  return new Map(keys.map((key) => [key, entries.get(key)]));
}

/**
 * The engine's WASM memory a context takes at most, and what each of its parts costs, in bytes,
 * measured with the smallest memory cap at which a fresh engine still renders (minijinja-js
 * 2.11, contexts of 50,000 and 100,000 values of each kind): about 64 a value (scalar, list or
 * map; a short string is held inside its value), 400 more a map with entries, 64 more a list
 * with items, 96 an entry, at most 8 a UTF-16 unit of a string or key (a 3-byte UTF-8 character,
 * held and converted), and 8 a unit of the output; about 1.2 MiB with nothing. A 10,000-host
 * inventory: 16.3 MiB measured, 24 MiB by this count.
 */
const ENGINE_BYTES = {
  base: 2 * 1024 * 1024,
  value: 64,
  filledMap: 400,
  filledList: 64,
  entry: 96,
  unit: 8,
  outputUnit: 8,
} as const;

/**
 * The share of the engine's memory cap a compiled render's context and output may take by that
 * count: the rest is the margin for what the engine holds besides (its compiled templates, the
 * gaps a long-lived instance leaves), so a render the compiled path answers never comes near
 * the cap at which the engine would fail.
 */
const MEMORY_SHARE = 0.5;

/** Deeper contexts go to the engine (no compiled template reads that deep; the walk is recursive). */
const MAX_DEPTH = 200;

/** What walking a context found: its size in the engine's memory, and whether it reads in place. */
interface ContextShape {
  bytes: number;
  /** A lone surrogate or a -0 somewhere: the engine holds another value than JavaScript's. */
  converts: boolean;
}

/**
 * Walks a value once, without copying it: adds its engine memory to `shape` and notes what the
 * engine would hold differently. Falls back on a value that JSON cannot give.
 */
function measure(value: unknown, shape: ContextShape, depth: number): void {
  shape.bytes += ENGINE_BYTES.value;
  if (typeof value === "string") {
    shape.bytes += ENGINE_BYTES.unit * value.length;
    if (hasLoneSurrogate(value)) shape.converts = true;
    return;
  }
  if (typeof value === "number") {
    if (value === 0 && Object.is(value, -0)) shape.converts = true;
    return;
  }
  if (typeof value !== "object" || value === null) {
    if (typeof value !== "boolean" && value !== null && value !== undefined) fallback();
    return;
  }
  if (depth > MAX_DEPTH) fallback();
  if (Array.isArray(value)) {
    if (value.length > 0) shape.bytes += ENGINE_BYTES.filledList;
    for (const item of value) measure(item, shape, depth + 1);
    return;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) fallback();
  let filled = false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    filled = true;
    shape.bytes += ENGINE_BYTES.entry + ENGINE_BYTES.unit * key.length;
    if (hasLoneSurrogate(key)) shape.converts = true;
    measure((value as Record<string, unknown>)[key], shape, depth + 1);
  }
  if (filled) shape.bytes += ENGINE_BYTES.filledMap;
}

/** The engine's limits the compiled path keeps. */
export interface EngineBudget {
  /** Fuel per template. */
  fuel: number;
  /** The engine's WASM memory cap, in bytes. */
  memoryBytes: number;
  /**
   * The most characters the render may write, when the caller bounds it below what the memory
   * cap leaves (the HTTP thread does: one instruction can write a long value); past it, the
   * engine renders. Absent: COMPILED_OUTPUT_BUDGET.
   */
  outputUnits?: number;
}

/**
 * Starts a compiled render: the context as the compiled templates read it, in place, or
 * converted when the engine would hold other values (a lone surrogate, a -0). Throws FALLBACK
 * when the engine could come near its memory cap with it (see ENGINE_BYTES, MEMORY_SHARE); what
 * is left of that share bounds the render's output (unitsLeft).
 */
export function engineContext(
  context: Record<string, unknown>,
  budget: EngineBudget,
): Map<string, unknown> | Record<string, unknown> {
  const shape: ContextShape = { bytes: ENGINE_BYTES.base, converts: false };
  measure(context, shape, 0);
  const room = budget.memoryBytes * MEMORY_SHARE - shape.bytes;
  if (room < 0) fallback();
  unitsLeft = Math.min(
    budget.outputUnits ?? COMPILED_OUTPUT_BUDGET,
    COMPILED_OUTPUT_BUDGET,
    Math.floor(room / ENGINE_BYTES.outputUnit),
  );
  return shape.converts ? (engineValue(context) as Map<string, unknown>) : context;
}

/** A context variable (undefined when absent). */
export function lookup(context: AnyMap, name: string): unknown {
  return mapGet(context, name);
}

/** MiniJinja's truthiness. */
export function truthy(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === "string") return value !== "";
  if (typeof value === "number") return value !== 0;
  if (typeof value === "boolean") return value;
  if (Array.isArray(value)) return value.length > 0;
  if (isMap(value)) return mapFilled(value);
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
  if (isMap(a) && isMap(b)) {
    const keys = mapKeys(a);
    if (keys.length !== mapKeys(b).length) return false;
    return keys.every((key) => {
      const other = mapGet(b, key);
      return (other !== undefined || hasKey(b, key)) && equal(mapGet(a, key), other);
    });
  }
  // a boolean against a number compares as numbers there; not restated
  if (typeof a !== "object" && typeof b !== "object") return fallback();
  return false;
}

/** `needle in haystack`: a substring, a list's item, a map's key. */
export function contains(haystack: unknown, needle: unknown): boolean {
  if (typeof haystack === "string" && typeof needle === "string") return haystack.includes(needle);
  if (Array.isArray(haystack)) return haystack.some((item) => equal(item, needle));
  if (isMap(haystack) && typeof needle === "string") return hasKey(haystack, needle);
  return fallback();
}

/**
 * `value[key]`: a map's entry by a string key, or a list's item by a whole number from 0,
 * undefined past its end. Anything else (a negative index, a string's character, a key of
 * another type, an undefined value) is left to the engine.
 */
export function item(value: unknown, key: unknown): unknown {
  if (isMap(value) && typeof key === "string") return mapGet(value, key);
  if (Array.isArray(value) && Number.isSafeInteger(key) && (key as number) >= 0) {
    return value[key as number];
  }
  return fallback();
}

/** `value.name` (and `value["name"]`): a map's entry, undefined on an undefined value. */
export function attribute(value: unknown, name: string): unknown {
  if (isMap(value)) return mapGet(value, name);
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
  if (isMap(value)) return mapKeys(value);
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
  mapping: (value) => isMap(value),
  sequence: (value) => Array.isArray(value),
  string: (value) => typeof value === "string",
};

/** MiniJinja's `trim`: Unicode whitespace, or the characters given. */
function trim(given: unknown, chars?: unknown): string {
  // a string argument takes any value as it prints (undefined as "", none as "none")
  const value = text(given);
  const set =
    chars === undefined ? RUST_WHITESPACE : typeof chars === "string" ? chars : fallback();
  // code point by code point from each end, reading only what is trimmed: the text can be a
  // whole file (a 10,000-host inventory's body), which splitting into code points would copy
  let from = 0;
  let to = value.length;
  while (from < to) {
    const width =
      isHighSurrogate(value.charCodeAt(from)) && isLowSurrogate(value.charCodeAt(from + 1)) ? 2 : 1;
    if (!set.includes(value.slice(from, from + width))) break;
    from += width;
  }
  while (to > from) {
    const width =
      isLowSurrogate(value.charCodeAt(to - 1)) &&
      to - 2 >= from &&
      isHighSurrogate(value.charCodeAt(to - 2))
        ? 2
        : 1;
    if (!set.includes(value.slice(to - width, to))) break;
    to -= width;
  }
  return from === 0 && to === value.length ? value : value.slice(from, to);
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
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
  if (isMap(value)) {
    const pairs = mapKeys(value).map((key) => `${jsonOf(key)}:${jsonOf(mapGet(value, key))}`);
    return `{${pairs.join(",")}}`;
  }
  return fallback();
}

/** MiniJinja's built-in filters the catalogue uses, by name. */
export const BUILTIN_FILTERS: Record<string, (value: unknown, ...args: unknown[]) => unknown> = {
  items: (value) =>
    isMap(value) ? mapKeys(value).map((key) => [key, mapGet(value, key)]) : fallback(),
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

/**
 * A value as minijinja-js hands it to a JavaScript filter: none (and undefined) as undefined, a
 * map as a `Map` in the engine's key order (a plain object of the context is converted here, for
 * the filters that take it).
 */
function filterArgument(value: unknown): unknown {
  if (value === null) return undefined;
  if (Array.isArray(value)) return value.some(handedOtherwise) ? value.map(filterArgument) : value;
  if (value instanceof Map) {
    if (![...value.values()].some(handedOtherwise)) return value;
    return new Map([...value].map(([key, item]) => [key, filterArgument(item)]));
  }
  if (isMap(value)) {
    return new Map(mapKeys(value).map((key) => [key, filterArgument(mapGet(value, key))]));
  }
  return value;
}

/** Whether a filter gets `value` as another value (see filterArgument). */
function handedOtherwise(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.some(handedOtherwise);
  if (value instanceof Map) return [...value.values()].some(handedOtherwise);
  return isMap(value);
}

/** kiln's filters as the engine calls them (safeFilter), by name. */
const SAFE_KILN_FILTERS: Record<string, (value: unknown, ...args: unknown[]) => string> =
  Object.fromEntries(
    Object.entries(KILN_FILTERS).map(([name, filter]) => [name, safeFilter(filter)]),
  );

/**
 * Calls one of kiln's filters with the values as the engine passes them. The catalogue passes
 * at most one argument, which takes the path without an array of arguments (one filter call per
 * value of a large inventory).
 */
export function kilnFilter(name: string, value: unknown, ...args: unknown[]): string {
  const filter = SAFE_KILN_FILTERS[name];
  if (filter === undefined) return fallback();
  const given = filterArgument(value);
  let out: string;
  if (args.length === 0) out = filter(given);
  else if (args.length === 1) out = filter(given, filterArgument(args[0]));
  else out = filter(given, ...args.map(filterArgument));
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
  emit,
  setAside,
  written,
  TESTS,
  BUILTIN_FILTERS,
  kilnFilter,
};
