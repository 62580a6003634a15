// The vocabulary the wire shapes are declared in (src/core/wire-shapes.ts): TypeBox's JSON
// Schema builders, plus what serde's decoding says that JSON Schema does not - a struct's name,
// a key's value when it is absent, keys the decoder checks but drops or leaves to a lenient
// reader, the name a shared part has in the published documents - carried on symbol keys, which
// JSON never shows. And `Decoded<S>`, the TypeScript type of what the decoder of `S` gives.
//
// Why TypeBox rather than zod: a TypeBox type IS a JSON Schema object, so the published schema
// files and the OpenAPI entries are the declarations themselves (plus "null counts as absent"),
// and the decoder generator walks plain JSON Schema; zod's schemas would have to be converted
// (z.toJSONSchema, with its own spelling of nullable and records) and walked through zod's
// internals. `typebox` 1.x is the maintained line (`@sinclair/typebox` 0.34 is the previous,
// long-term-support one). Only `typebox/type`'s builders are imported, by name: the package
// root's `Type` namespace brings TypeBox's whole type engine along (about 200 KB bundled, 15 ms
// to load), and its `Record` 120 KB of it (maps are built here instead). Build time only, like
// the declarations: run-time modules import this file for its types alone. (Even the builders
// alone, with these declarations, cost about 2 ms of `kiln add`'s start: hence generated
// decoders rather than a walk of the schemas at run time.)
import * as Type from "typebox/type";

export type { Static, TSchema } from "typebox/type";

/** The struct's name in serde's `expected struct RegistryItem`. */
export const STRUCT_NAME = Symbol("kiln.wire.struct");
/** The value a key has when it is missing or null. */
export const FALLBACK = Symbol("kiln.wire.fallback");
/** How the decoder treats a key: `checked` (refused if wrong, then dropped) or `described`. */
export const KEY_USE = Symbol("kiln.wire.use");
/** The name of a shared part: `#/$defs/<name>` or `#/components/schemas/<name>`. */
export const DEF_NAME = Symbol("kiln.wire.def");

/** On a use of a named part with annotations of its own: the part, and those annotations. */
export const USE_SITE = Symbol("kiln.wire.useSite");

/** A JSON Schema as the walker and the writer read it: plain JSON plus the symbols above. */
export interface SchemaNode {
  type?: string | string[];
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
  minimum?: number;
  maximum?: number;
  $ref?: string;
  [STRUCT_NAME]?: string;
  [FALLBACK]?: unknown;
  [KEY_USE]?: "checked" | "described";
  [DEF_NAME]?: string;
  [USE_SITE]?: { schema: SchemaNode; options: Record<string, unknown> };
  [keyword: string]: unknown;
}

/** A JSON object whose values all have one schema (serde's `HashMap<String, T>`). */
export interface TMap<Item extends Type.TSchema = Type.TSchema>
  extends Type.TUnsafe<Record<string, Type.Static<Item>>> {
  type: "object";
  additionalProperties: Item;
}

/** A key that may be missing or null, then decoded as its fallback value. */
export type TWithDefault<T extends Type.TSchema> = Type.TOptional<T> & {
  readonly [FALLBACK]: unknown;
};

/** A key the decoder checks or skips, and leaves out of what it gives. */
export type TNotKept<T extends Type.TSchema> = Type.TOptional<T> & {
  readonly [KEY_USE]: "checked" | "described";
};

/** A declaration as the walker and the writer read it. */
export function schemaNode(schema: Type.TSchema): SchemaNode {
  return schema as unknown as SchemaNode;
}

type Flatten<T> = { [K in keyof T]: T[K] };

/** What the decoder gives for a struct's keys: kept keys; optional ones may be undefined. */
type DecodedStruct<P> = Flatten<
  {
    [K in keyof P as P[K] extends TNotKept<Type.TSchema>
      ? never
      : P[K] extends TWithDefault<Type.TSchema>
        ? K
        : P[K] extends Type.TOptional<Type.TSchema>
          ? never
          : K]: Decoded<P[K]>;
  } & {
    [K in keyof P as P[K] extends TNotKept<Type.TSchema>
      ? never
      : P[K] extends TWithDefault<Type.TSchema>
        ? never
        : P[K] extends Type.TOptional<Type.TSchema>
          ? K
          : never]?: Decoded<P[K]> | undefined;
  }
>;

/**
 * The TypeScript type of what `decoderOf(schema)` gives. A map is recognised by its
 * `additionalProperties` key, not as `TMap<infer Item>`: matching two instantiations of the
 * generic TMap makes the type checker work out how TMap varies with its parameter, which goes
 * through TypeBox's `Static` and took it about 5 s of CPU, in both type checks (the same type
 * comes out).
 */
export type Decoded<S> =
  S extends Type.TObject<infer P>
    ? DecodedStruct<P>
    : S extends Type.TArray<infer Item>
      ? Decoded<Item>[]
      : S extends { additionalProperties: infer Item extends Type.TSchema }
        ? Record<string, Decoded<Item>>
        : S extends Type.TSchema
          ? Type.Static<S>
          : never;

/**
 * A JSON object with known keys, decoded as serde decodes a struct named `name`: unknown keys
 * are ignored, a key given as null counts as absent, a missing required key is `missing field`.
 */
export function struct<P extends Type.TProperties>(
  name: string,
  properties: P,
  options: Type.TObjectOptions = {},
): Type.TObject<P> {
  const schema = Type.Object(properties, options);
  schemaNode(schema)[STRUCT_NAME] = name;
  return schema;
}

/** serde's `u16`, `u32`: a whole number from 0 to 2^bits - 1. */
export function unsignedInteger(bits: 16 | 32): Type.TInteger {
  return Type.Integer({ minimum: 0, maximum: 2 ** bits - 1 });
}

/** A JSON object of any keys whose values all have the schema `item`. */
export function map<Item extends Type.TSchema>(
  item: Item,
  options: Type.TSchemaOptions = {},
): TMap<Item> {
  return { type: "object", additionalProperties: item, ...options } as unknown as TMap<Item>;
}

/**
 * A key that may be missing or null, decoded as `value` then (a fresh copy each time). `T` comes
 * from `schema` alone (`NoInfer`): inferring it from `value` through `Decoded` too cost the type
 * checker seconds, for the same `T`.
 */
export function withDefault<T extends Type.TSchema>(
  schema: T,
  value: NoInfer<Decoded<T>>,
): TWithDefault<T> {
  const optionalSchema = Type.Optional(schema);
  schemaNode(optionalSchema)[FALLBACK] = value;
  return optionalSchema as unknown as TWithDefault<T>;
}

/** A key kiln ignores but refuses when it holds the wrong type (`$schema`). */
export function checkedOnlyKey<T extends Type.TSchema>(schema: T): TNotKept<T> {
  const optionalSchema = Type.Optional(schema);
  schemaNode(optionalSchema)[KEY_USE] = "checked";
  return optionalSchema as unknown as TNotKept<T>;
}

/**
 * A key the published schema describes for editors but the decoder does not read: kiln reads it
 * leniently elsewhere (a value it does not know is ignored, not refused), such as an item's
 * catalogue metadata (src/core/item.ts, parseItemMeta).
 */
export function describedOnly<T extends Type.TSchema>(schema: T): TNotKept<T> {
  const optionalSchema = Type.Optional(schema);
  schemaNode(optionalSchema)[KEY_USE] = "described";
  return optionalSchema as unknown as TNotKept<T>;
}

/** A part the published documents show once, under `name`, and refer to where it is used. */
export function named<T extends Type.TSchema>(name: string, schema: T): T {
  schemaNode(schema)[DEF_NAME] = name;
  return schema;
}

/** A use of the named part `schema` with annotations of its own (`{"$ref": ..., description}`). */
export function refTo<T extends Type.TSchema>(schema: T, options: Type.TSchemaOptions): T {
  return { ...schema, ...options, [USE_SITE]: { schema, options } };
}

/** A value of `schema` or null (the views' `"type": ["string", "null"]`). */
export function nullable<T extends Type.TString>(schema: T): Type.TUnsafe<Type.Static<T> | null> {
  return Type.Unsafe<Type.Static<T> | null>({ ...schema, type: [schema.type, "null"] });
}
