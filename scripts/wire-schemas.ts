// Writes everything that comes from the declared wire shapes (src/core/wire-shapes.ts):
// - their decoders, src/core/wire-decoders.ts: each declaration walked into calls of
//   src/core/shape.ts's serde-worded rules (generated code, so nothing of TypeBox runs when kiln
//   does);
// - the JSON Schemas of a registry-item file and a preset file (src/core/schemas/; the preset's
//   with the built-in components' fields from the catalogue: scripts/preset-schema.ts);
// - the OpenAPI document's entries for the render request and the registry and preset views
//   (src/server/contract/openapi.json, components/schemas; the rest of it is written by hand).
// `npm run schemas` rewrites them; a test (test/core/wire-schemas.test.ts) fails when one is stale.
//
// A declaration is JSON Schema already; writing it adds what the decoder's rules imply and JSON
// Schema must be told: an optional key of a struct (serde's) may also be null, which counts as
// absent; and a named part is written once and referred to (`#/$defs/field`).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import {
  DEF_NAME,
  FALLBACK,
  KEY_USE,
  type SchemaNode,
  STRUCT_NAME,
  schemaNode,
  type TSchema,
  USE_SITE,
} from "../src/core/wire.ts";
import {
  PRESET,
  PRESET_SUMMARY,
  PRESET_VIEW,
  REGISTRY_ITEM,
  REGISTRY_ITEM_VIEW,
  RENDER_REQUEST,
} from "../src/core/wire-shapes.ts";
import { builtinsSchema, PRESET_SCHEMA_PATH } from "./preset-schema.ts";

type Json = Record<string, unknown>;

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
export const DECODERS_PATH = path("../src/core/wire-decoders.ts");
export const REGISTRY_ITEM_SCHEMA_PATH = path("../src/core/schemas/registry-item.schema.json");
export const OPENAPI_PATH = path("../src/server/contract/openapi.json");

/** The decoders generated, by function name: the declaration and its name in wire-shapes.ts. */
const DECODERS = [
  { name: "decodeRegistryItem", declaration: "REGISTRY_ITEM", schema: REGISTRY_ITEM },
  { name: "decodePreset", declaration: "PRESET", schema: PRESET },
  { name: "decodeRenderRequestBody", declaration: "RENDER_REQUEST", schema: RENDER_REQUEST },
] as const;

/** The declarations the OpenAPI document's components/schemas take from here. */
const OPENAPI_SHAPES: readonly TSchema[] = [
  RENDER_REQUEST,
  REGISTRY_ITEM_VIEW,
  PRESET_SUMMARY,
  PRESET_VIEW,
];

/** serde's bits of an unsigned integer (`minimum: 0`, `maximum: 2^bits - 1`): u16, u32. */
function unsignedBits(schema: SchemaNode): 16 | 32 {
  for (const bits of [16, 32] as const) {
    if (schema.minimum === 0 && schema.maximum === 2 ** bits - 1) return bits;
  }
  throw new Error(`no serde integer type has the bounds of ${JSON.stringify(schema)}`);
}

/** A key as the generated code writes it: bare when it is an identifier. */
function keyCode(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

/** The rule a struct applies to one of its keys. */
function fieldCode(schema: SchemaNode, isRequired: boolean, rules: Set<string>): string {
  const decode = decoderCode(schema, rules);
  const rule = (name: string, args: string) => {
    rules.add(name);
    return `${name}(${args})`;
  };
  if (schema[KEY_USE] === "checked") return rule("checkedOnly", decode);
  if (Object.hasOwn(schema, FALLBACK)) {
    const fallback = JSON.stringify(schema[FALLBACK]);
    return rule(
      "withDefault",
      `${decode}, () => ${fallback.startsWith("{") ? `(${fallback})` : fallback}`,
    );
  }
  return isRequired ? rule("required", decode) : rule("optional", decode);
}

/**
 * The code of the serde rule that decodes `schema` (the generic walk: each kind of schema has
 * one rule). Hand-written, like the rules: no schema library (TypeBox's own checker, ajv, zod)
 * words its errors the way serde does, and the spec fixes serde's texts. A schema the rules
 * cannot decode is a mistake in a declaration, so it throws.
 */
function decoderCode(schema: SchemaNode, rules: Set<string>): string {
  const rule = (name: string, args?: string) => {
    rules.add(name);
    return args === undefined ? name : `${name}(${args})`;
  };
  if (Array.isArray(schema.enum)) return rule("variant", `${JSON.stringify(schema.enum)} as const`);
  if (schema[STRUCT_NAME] !== undefined) {
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties ?? {})
      .filter(([, property]) => property[KEY_USE] !== "described")
      .map(
        ([key, property]) => `${keyCode(key)}: ${fieldCode(property, required.has(key), rules)},`,
      );
    return rule("struct", `${JSON.stringify(schema[STRUCT_NAME])}, {\n${fields.join("\n")}\n}`);
  }
  switch (schema.type) {
    case "string":
      return rule("string");
    case "boolean":
      return rule("boolean");
    case "integer":
      return rule("unsigned", String(unsignedBits(schema)));
    case "array":
      return rule("array", decoderCode(schema.items as SchemaNode, rules));
    case "object":
      if (typeof schema.additionalProperties === "object" && !schema.properties) {
        return rule("record", decoderCode(schema.additionalProperties, rules));
      }
  }
  throw new Error(`the serde rules cannot decode ${JSON.stringify(schema)}`);
}

/** src/core/wire-decoders.ts: one lazily built decoder per declared document. */
export function decodersModule(): string {
  const rules = new Set<string>();
  const functions = DECODERS.map(({ name, declaration, schema }) => {
    const code = decoderCode(schemaNode(schema), rules);
    const type = `Decoded<typeof ${declaration}>`;
    const built = `${name.replace(/^decode/, "").replace(/^./, (first) => first.toLowerCase())}Decoder`;
    return `let ${built}: Decoder<${type}> | undefined;

/** ${declaration} of src/core/wire-shapes.ts. */
export function ${name}(value: unknown, path: string): ${type} {
  ${built} ??= ${code};
  return ${built}(value, path);
}`;
  });
  const imported = [...rules, "type Decoder"].sort((a, b) =>
    a.replace(/^type /, "").localeCompare(b.replace(/^type /, ""), "en"),
  );
  return `// Generated by scripts/wire-schemas.ts (npm run schemas) from the declarations in
// src/core/wire-shapes.ts; do not edit. Each decoder is those rules of src/core/shape.ts that
// its declaration names, built when it first decodes (so a command that never reads such a
// document does not build it, and a bundle that never calls it leaves it out).
import { ${imported.join(", ")} } from "./shape.ts";
import type { Decoded } from "./wire.ts";
import type { ${DECODERS.map(({ declaration }) => declaration)
    .sort()
    .join(", ")} } from "./wire-shapes.ts";

${functions.join("\n\n")}
`;
}

/** One document being written: where its named parts go and the parts written so far. */
interface Document {
  refPrefix: string;
  parts: Map<string, { nullable: boolean; json: Json }>;
}

/** `json` that also takes null: `["string", "null"]`, or null among the values of an enum. */
function orNull(json: Json): Json {
  if (Array.isArray(json.enum)) return { ...json, enum: [...json.enum, null] };
  if (typeof json.type === "string") return { ...json, type: [json.type, "null"] };
  throw new Error(`cannot write ${JSON.stringify(json)} as nullable`);
}

/** A reference to the named part `schema`, written into the document's parts the first time. */
function refer(schema: SchemaNode, nullable: boolean, document: Document): Json {
  const name = schema[DEF_NAME] as string;
  const known = document.parts.get(name);
  if (!known) {
    const entry = { nullable, json: {} };
    document.parts.set(name, entry);
    entry.json = write(schema, nullable, document, false);
  } else if (!isDeepStrictEqual(write(schema, nullable, document, false), known.json)) {
    throw new Error(`two different parts are named ${name} (or one is used with and without null)`);
  }
  return { $ref: `${document.refPrefix}${name}` };
}

/**
 * The JSON Schema of a declaration. A named part becomes a reference unless `inline` (when the
 * part itself is written); its use with annotations of its own keeps them beside the `$ref`.
 */
function write(schema: SchemaNode, nullable: boolean, document: Document, inline = true): Json {
  const useSite = schema[USE_SITE];
  if (useSite) return { ...refer(useSite.schema, nullable, document), ...useSite.options };
  if (inline && schema[DEF_NAME] !== undefined) return refer(schema, nullable, document);
  const json: Json = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "properties") {
      const required = new Set(schema.required ?? []);
      const properties: Json = {};
      for (const [key, property] of Object.entries(value as Record<string, SchemaNode>)) {
        // an absent key of a struct may be null too; keys kiln does not decode are as declared
        const orAbsent =
          schema[STRUCT_NAME] !== undefined &&
          !required.has(key) &&
          property[KEY_USE] !== "described";
        properties[key] = write(property, orAbsent, document);
      }
      json.properties = properties;
    } else if ((keyword === "items" || keyword === "additionalProperties") && isSchema(value)) {
      json[keyword] = write(value, false, document);
    } else {
      json[keyword] = value;
    }
  }
  return nullable ? orNull(json) : json;
}

function isSchema(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A published schema file: the declaration with its named parts under `$defs`. */
function schemaFile(declaration: TSchema): Json {
  const document: Document = { refPrefix: "#/$defs/", parts: new Map() };
  const { title, description, ...rest } = write(schemaNode(declaration), false, document);
  const defs = Object.fromEntries([...document.parts].map(([name, part]) => [name, part.json]));
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title,
    description,
    ...rest,
    $defs: defs,
  };
}

export function registryItemSchema(): Json {
  return schemaFile(REGISTRY_ITEM);
}

/** The preset's schema: a component is also held to its built-in's fields (`$defs/builtins`). */
export function presetSchema(): Json {
  const schema = schemaFile(PRESET);
  const defs = schema.$defs as Record<string, Json>;
  (defs.component as Json).$ref = "#/$defs/builtins";
  defs.builtins = builtinsSchema() as Json;
  return schema;
}

/** The OpenAPI document's components/schemas entries written from declarations, by name. */
export function openApiSchemas(): Record<string, Json> {
  const document: Document = { refPrefix: "#/components/schemas/", parts: new Map() };
  for (const shape of OPENAPI_SHAPES) write(schemaNode(shape), false, document);
  return Object.fromEntries([...document.parts].map(([name, part]) => [name, part.json]));
}

/** The OpenAPI document with its declared entries replaced, in place (the others as written). */
export function openApiDocument(current: Json): Json {
  const components = current.components as { schemas: Record<string, Json> };
  const generated = openApiSchemas();
  const schemas: Record<string, Json> = {};
  for (const [name, entry] of Object.entries(components.schemas)) {
    schemas[name] = generated[name] ?? entry;
  }
  for (const [name, entry] of Object.entries(generated)) schemas[name] ??= entry;
  return { ...current, components: { ...components, schemas } };
}

function writeJson(file: string, json: unknown): void {
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
}

/** Rewrites the published documents, formatted as the repository formats JSON. */
function writeDocuments(): number {
  writeJson(REGISTRY_ITEM_SCHEMA_PATH, registryItemSchema());
  writeJson(PRESET_SCHEMA_PATH, presetSchema());
  writeJson(OPENAPI_PATH, openApiDocument(JSON.parse(readFileSync(OPENAPI_PATH, "utf8")) as Json));
  const files = [REGISTRY_ITEM_SCHEMA_PATH, PRESET_SCHEMA_PATH, OPENAPI_PATH];
  return (
    spawnSync("npx", ["biome", "format", "--write", ...files], { stdio: "inherit" }).status ?? 1
  );
}

/**
 * Rewrites every file this script writes: the decoders first, then the documents in a fresh
 * process, which reads the built-in catalogue (for the preset schema's `$defs/builtins`) with
 * the decoders just written rather than the ones this process loaded.
 */
export function writeWireSchemas(): number {
  writeFileSync(DECODERS_PATH, decodersModule());
  const format = spawnSync("npx", ["biome", "check", "--write", DECODERS_PATH], {
    stdio: "inherit",
  });
  if (format.status !== 0) return format.status ?? 1;
  const script = fileURLToPath(import.meta.url);
  const documents = spawnSync(process.execPath, ["--import", "tsx", script, "--documents"], {
    stdio: "inherit",
  });
  return documents.status ?? 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exit(process.argv[2] === "--documents" ? writeDocuments() : writeWireSchemas());
}
