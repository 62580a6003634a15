// Decoding untrusted JSON into typed values, with error messages worded the way serde (Rust's
// standard deserializer) words them, because the HTTP API's clients expect exactly those
// texts: "missing field `reference`", "invalid type: integer `5`, expected a string",
// "invalid value: integer `70000`, expected u16", prefixed by the key's path when nested.
// Written by hand: schema libraries (zod, ajv, valibot, TypeBox's own checker) have their own
// wording, and rewording their error objects would be more code than these few rules.
// These are the rules, one function each. The wire shapes are not written with them by hand:
// they are declared once as schemas (src/core/wire-shapes.ts), and scripts/wire-schemas.ts walks
// each declaration into calls of these rules (src/core/wire-decoders.ts).

export class ShapeError extends Error {
  /** The message without the path prefix. */
  readonly reason: string;
  /** `fields.image`, `labels[0].key`; empty at the top level. */
  readonly path: string;
  /**
   * The message without string values (`invalid type: string, expected a sequence`), for
   * documents read from files and URLs: a reference may name any file (a key, a token), and an
   * error must not echo what it holds. Numbers and booleans stay, as serde words them.
   */
  readonly messageWithoutStrings: string;
  /** The reason without string values, kept to word the error again under a longer path. */
  private readonly reasonWithoutStrings: string;

  constructor(path: string, reason: string, reasonWithoutStrings = reason) {
    super(path ? `${path}: ${reason}` : reason);
    this.name = "ShapeError";
    this.path = path;
    this.reason = reason;
    this.reasonWithoutStrings = reasonWithoutStrings;
    this.messageWithoutStrings = path ? `${path}: ${reasonWithoutStrings}` : reasonWithoutStrings;
  }

  /** The same error about the value at `outer` followed by this error's path. */
  under(outer: string): ShapeError {
    return new ShapeError(joinPaths(outer, this.path), this.reason, this.reasonWithoutStrings);
  }
}

/**
 * Decodes `value`, or throws a ShapeError at `path` (where the value is; empty at the top). The
 * rules below decode a nested value at the empty path and put the path to it in front of its
 * errors (decodeInside), so a decoder only ever uses `path` in the errors it throws.
 */
export type Decoder<T> = (value: unknown, path: string) => T;

/** How serde names the JSON value it did not expect. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return `boolean \`${value}\``;
  if (typeof value === "number") {
    return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  }
  if (typeof value === "string") return `string ${JSON.stringify(value)}`;
  if (Array.isArray(value)) return "sequence";
  return "map";
}

function invalidType(path: string, value: unknown, expected: string): ShapeError {
  const found = describeValue(value);
  return new ShapeError(
    path,
    `invalid type: ${found}, expected ${expected}`,
    `invalid type: ${typeof value === "string" ? "string" : found}, expected ${expected}`,
  );
}

/** The path of `key` inside the value at `path`: `fields.image`, or `image` at the top. */
export const childPath = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** `inner`, a path relative to the value at `outer`, as a path from the top. */
function joinPaths(outer: string, inner: string): string {
  if (inner === "") return outer;
  if (outer === "" || inner.startsWith("[")) return outer + inner;
  return `${outer}.${inner}`;
}

/**
 * `decode` of a value inside a larger one, whose errors are reworded with the path to it. A
 * nested value is decoded at the empty path and its path is only built when it is wrong: building
 * each element's path as it goes (`items[412].title`) made decoding a 1,000-item registry index
 * several times slower than parsing its JSON.
 */
function decodeInside<T>(
  decode: Decoder<T>,
  value: unknown,
  path: string,
  keyOrIndex: string | number,
): T {
  try {
    return decode(value, "");
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    throw error.under(
      typeof keyOrIndex === "number" ? `${path}[${keyOrIndex}]` : childPath(path, keyOrIndex),
    );
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export const string: Decoder<string> = (value, path) => {
  if (typeof value !== "string") throw invalidType(path, value, "a string");
  return value;
};

export const boolean: Decoder<boolean> = (value, path) => {
  if (typeof value !== "boolean") throw invalidType(path, value, "a boolean");
  return value;
};

/** An unsigned integer of `bits` bits (serde's `u16`, `u32`). */
export function unsigned(bits: 16 | 32): Decoder<number> {
  const max = 2 ** bits - 1;
  const expected = `u${bits}`;
  return (value, path) => {
    if (typeof value !== "number" || !Number.isInteger(value)) {
      throw invalidType(path, value, expected);
    }
    if (value < 0 || value > max) {
      throw new ShapeError(path, `invalid value: integer \`${value}\`, expected ${expected}`);
    }
    return value;
  };
}

export function array<T>(item: Decoder<T>): Decoder<T[]> {
  return (value, path) => {
    if (!Array.isArray(value)) throw invalidType(path, value, "a sequence");
    const decoded: T[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      decoded[index] = decodeInside(item, value[index], path, index);
    }
    return decoded;
  };
}

/** A JSON object whose values all decode with `item` (serde's `HashMap<String, T>`). */
export function record<T>(item: Decoder<T>): Decoder<Record<string, T>> {
  return (value, path) => {
    if (!isPlainObject(value)) throw invalidType(path, value, "a map");
    const out: Record<string, T> = {};
    for (const [key, entry] of Object.entries(value)) {
      // defineProperty keeps a key named `__proto__` an ordinary own key
      Object.defineProperty(out, key, {
        value: decodeInside(item, entry, path, key),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
}

export interface FieldSpec<T> {
  decode: Decoder<T>;
  /** When set, the key may be missing or null and this value is used instead. */
  fallback?: () => T;
  /** When true, a missing or null key stays `undefined`. */
  optional?: boolean;
  /** When false, the key is checked (missing or null counts as absent) but not kept. */
  keep?: boolean;
}

type StructOf<S> = {
  [K in keyof S as S[K] extends { keep: false } ? never : K]: S[K] extends FieldSpec<infer T>
    ? S[K] extends { optional: true }
      ? T | undefined
      : T
    : never;
};

export function required<T>(decode: Decoder<T>): FieldSpec<T> {
  return { decode };
}

export function optional<T>(decode: Decoder<T>): FieldSpec<T> & { optional: true } {
  return { decode, optional: true };
}

export function withDefault<T>(decode: Decoder<T>, fallback: () => T): FieldSpec<T> {
  return { decode, fallback };
}

/**
 * A key that may be missing or null, refused when it holds anything else, and left out of the
 * result: kiln ignores it, but a file it reads must still be one its published schema accepts
 * (`$schema`, an editor's pointer to that schema).
 */
export function checkedOnly<T>(decode: Decoder<T>): FieldSpec<T> & { optional: true; keep: false } {
  return { decode, optional: true, keep: false };
}

/** How serde lists the variants an enum expects: `` `a` ``, `` `a` or `b` ``, `one of ...`. */
function expectedVariants(values: readonly string[]): string {
  const quoted = values.map((value) => `\`${value}\``);
  if (quoted.length <= 2) return quoted.join(" or ");
  return `one of ${quoted.join(", ")}`;
}

/** A string naming one of `values` (serde's unit-only enum). */
export function variant<T extends string>(values: readonly T[]): Decoder<T> {
  const expected = expectedVariants(values);
  return (value, path) => {
    const text = string(value, path);
    if ((values as readonly string[]).includes(text)) return text as T;
    throw new ShapeError(
      path,
      `unknown variant \`${text}\`, expected ${expected}`,
      `unknown variant, expected ${expected}`,
    );
  };
}

/**
 * A JSON object with known keys (serde's struct). Unknown keys are ignored; a key given as
 * `null` counts as absent.
 */
export function struct<S extends Record<string, FieldSpec<unknown>>>(
  name: string,
  spec: S,
): Decoder<StructOf<S>> {
  const fields = Object.entries(spec);
  return (value, path) => {
    if (!isPlainObject(value)) throw invalidType(path, value, `struct ${name}`);
    const out: Record<string, unknown> = {};
    for (const [key, field] of fields) {
      const raw = Object.hasOwn(value, key) ? value[key] : undefined;
      const absent = raw === undefined || (raw === null && (field.fallback || field.optional));
      if (field.keep === false) {
        if (!absent) decodeInside(field.decode, raw, path, key);
      } else if (absent) {
        if (field.fallback) out[key] = field.fallback();
        else if (field.optional) out[key] = undefined;
        else throw new ShapeError(path, `missing field \`${key}\``);
      } else {
        out[key] = decodeInside(field.decode, raw, path, key);
      }
    }
    return out as StructOf<S>;
  };
}
