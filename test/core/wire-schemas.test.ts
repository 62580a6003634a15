// The wire shapes are declared once (src/core/wire-shapes.ts) and everything else is made from
// the declarations by scripts/wire-schemas.ts: the decoders, the published JSON Schemas and the
// OpenAPI entries. Each made file is what the script makes now (none is stale, so none can be
// edited by hand and drift); at every key of every declared document the decoder and the
// published schema agree (a missing required key, null for an optional one, a value of the wrong
// type); and nothing of TypeBox reaches run time.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { PRESET_SCHEMA_PATH } from "../../scripts/preset-schema.ts";
import {
  DECODERS_PATH,
  decodersModule,
  OPENAPI_PATH,
  openApiSchemas,
  presetSchema,
  REGISTRY_ITEM_SCHEMA_PATH,
  registryItemSchema,
} from "../../scripts/wire-schemas.ts";
import { ShapeError } from "../../src/core/shape.ts";
import {
  FALLBACK,
  KEY_USE,
  type SchemaNode,
  STRUCT_NAME,
  schemaNode,
} from "../../src/core/wire.ts";
import {
  decodePreset,
  decodeRegistryItem,
  decodeRenderRequestBody,
} from "../../src/core/wire-decoders.ts";
import { PRESET, REGISTRY_ITEM, RENDER_REQUEST } from "../../src/core/wire-shapes.ts";
import { BIN, ensureBuilt, REPO } from "../cli/helpers.ts";

const readJson = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;

/** The generated module as the script writes it: formatted by biome, imports organized. */
function formattedDecoders(): string {
  const biome = spawnSync(
    "npx",
    ["biome", "check", "--write", `--stdin-file-path=${DECODERS_PATH}`],
    { cwd: REPO, input: decodersModule(), encoding: "utf8" },
  );
  assert.equal(biome.status, 0, biome.stderr);
  return biome.stdout;
}

describe("what is made from the declarations is not stale (npm run schemas)", () => {
  test("the decoders, src/core/wire-decoders.ts", () => {
    assert.equal(readFileSync(DECODERS_PATH, "utf8"), formattedDecoders());
  });

  test("the published JSON Schemas, src/core/schemas/", () => {
    assert.deepEqual(readJson(REGISTRY_ITEM_SCHEMA_PATH), registryItemSchema());
    assert.deepEqual(readJson(PRESET_SCHEMA_PATH), presetSchema());
  });

  test("the OpenAPI document's entries of the render request and the views", () => {
    const written = (readJson(OPENAPI_PATH).components as { schemas: Record<string, unknown> })
      .schemas;
    const made = openApiSchemas();
    assert.deepEqual(Object.keys(made).sort(), [
      "Field",
      "PresetComponent",
      "PresetSummary",
      "PresetView",
      "RegistryItem",
      "RenderRequest",
    ]);
    for (const [name, entry] of Object.entries(made)) assert.deepEqual(written[name], entry, name);
  });
});

/** The smallest document a schema takes: its required keys, each with the smallest value. */
function minimal(schema: SchemaNode): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema[STRUCT_NAME] !== undefined) {
    const required = new Set(schema.required ?? []);
    return Object.fromEntries(
      Object.entries(schema.properties ?? {})
        .filter(([key]) => required.has(key))
        .map(([key, property]) => [key, minimal(property)]),
    );
  }
  switch (schema.type) {
    case "string":
      return "x";
    case "boolean":
      return true;
    case "integer":
      return 1;
    case "array":
      return [];
    default:
      return {};
  }
}

/** A value of the wrong type for `schema`, and the serde text the decoder says of it. */
function wrongValue(schema: SchemaNode): { value: unknown; reason: RegExp } {
  if (Array.isArray(schema.enum)) return { value: "nope", reason: /^unknown variant `nope`/ };
  if (schema.type === "string") {
    return { value: 5, reason: /^invalid type: integer `5`, expected a string$/ };
  }
  if (schema.type === "array") return { value: {}, reason: /^invalid type: map, expected/ };
  return { value: "x", reason: /^invalid type: string "x", expected/ };
}

interface Key {
  /** Where the key is, as the decoder's errors say it (`components[0].fields`). */
  path: string;
  /** The document with the key's parent present. */
  document: Record<string, unknown>;
  /** The key's parent in `document`. */
  parent: Record<string, unknown>;
  key: string;
  schema: SchemaNode;
  required: boolean;
}

/**
 * Every key the decoder reads, in a minimal document: the struct's own keys, and those of a
 * struct one element of a list holds (`files[0].path`).
 */
function decodedKeys(declaration: SchemaNode): Key[] {
  const keys: Key[] = [];
  const visit = (
    schema: SchemaNode,
    path: string,
    makeDocument: () => { document: Record<string, unknown>; parent: Record<string, unknown> },
  ) => {
    const required = new Set(schema.required ?? []);
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      if (property[KEY_USE] === "described") continue;
      keys.push({
        path,
        ...makeDocument(),
        key,
        schema: property,
        required: required.has(key),
      });
      const item = property.items;
      if (property.type === "array" && item?.[STRUCT_NAME] !== undefined) {
        visit(item, `${path ? `${path}.` : ""}${key}[0]`, () => {
          const { document, parent } = makeDocument();
          const element = minimal(item) as Record<string, unknown>;
          parent[key] = [element];
          return { document, parent: element };
        });
      }
    }
  };
  visit(declaration, "", () => {
    const document = minimal(declaration) as Record<string, unknown>;
    return { document, parent: document };
  });
  return keys;
}

function ajv(): Ajv2020 {
  // the preset schema's built-in part names kiln's own formats; these documents name no built-in
  return new Ajv2020({
    allErrors: true,
    allowUnionTypes: true,
    strict: false,
    validateFormats: false,
  });
}

const openApi = ajv().addSchema(readJson(OPENAPI_PATH), "openapi");

const DOCUMENTS = [
  {
    what: "a registry-item file",
    declaration: REGISTRY_ITEM,
    decode: decodeRegistryItem,
    validate: ajv().compile(readJson(REGISTRY_ITEM_SCHEMA_PATH)),
  },
  {
    what: "a preset file",
    declaration: PRESET,
    decode: decodePreset,
    validate: ajv().compile(readJson(PRESET_SCHEMA_PATH)),
  },
  {
    what: "POST /api/render's body",
    declaration: RENDER_REQUEST,
    decode: decodeRenderRequestBody,
    validate: openApi.compile({ $ref: "openapi#/components/schemas/RenderRequest" }),
  },
];

function decoderError(decode: (value: unknown, path: string) => unknown, value: unknown) {
  try {
    decode(value, "");
  } catch (error) {
    assert.ok(error instanceof ShapeError, String(error));
    return error.message;
  }
  return undefined;
}

describe("the decoder and the published schema agree at every key", () => {
  for (const { what, declaration, decode, validate } of DOCUMENTS) {
    test(what, () => {
      const keys = decodedKeys(schemaNode(declaration));
      assert.ok(keys.length >= 6, `${what}: ${keys.length} keys`);
      const root = minimal(schemaNode(declaration));
      assert.equal(decoderError(decode, root), undefined, `${what}: the decoder takes it`);
      assert.ok(validate(root), `${what}: the schema takes it`);
      for (const { path, document, parent, key, schema, required } of keys) {
        const where = `${what}, ${path ? `${path}.` : ""}${key}`;
        const prefix = path ? `${path}.${key}: ` : `${key}: `;
        if (required) {
          delete parent[key];
          assert.equal(
            decoderError(decode, document),
            `${path ? `${path}: ` : ""}missing field \`${key}\``,
            where,
          );
          assert.equal(validate(document), false, `${where}: the schema takes it missing`);
        } else {
          parent[key] = null;
          assert.equal(decoderError(decode, document), undefined, `${where}: null is refused`);
          assert.ok(validate(document), `${where}: the schema refuses null`);
          if (Object.hasOwn(schema, FALLBACK)) continue;
        }
        const wrong = wrongValue(schema);
        parent[key] = wrong.value;
        const message = decoderError(decode, document) ?? "";
        assert.ok(message.startsWith(prefix), `${where}: ${message}`);
        assert.match(message.slice(prefix.length), wrong.reason, where);
        assert.equal(
          validate(document),
          false,
          `${where}: the schema takes ${JSON.stringify(wrong.value)}`,
        );
      }
    });
  }
});

describe("nothing of TypeBox runs when kiln does", () => {
  test("run-time modules import the declarations and TypeBox for their types only", () => {
    const buildTime = new Set(["src/core/wire.ts", "src/core/wire-shapes.ts"]);
    const files = (dir: string): string[] =>
      readdirSync(join(REPO, dir), { recursive: true, encoding: "utf8" })
        .filter((file) => /\.tsx?$/.test(file))
        .map((file) => join(dir, file));
    const valueImport =
      /^import\s+(?!type\b)[^;]*?from\s+"(typebox[^"]*|[^"]*\/wire(-shapes)?\.ts)"/gms;
    for (const file of [...files("src"), ...files("web/src")]) {
      if (buildTime.has(file)) continue;
      const text = readFileSync(join(REPO, file), "utf8");
      const found = [...text.matchAll(valueImport)].map((match) => match[1]);
      assert.deepEqual(found, [], `${file} imports a build-time module for its values`);
    }
  });

  test("neither the CLI bundle nor the dashboard's carries it", () => {
    ensureBuilt();
    assert.ok(BIN);
    // every schema TypeBox builds is marked with a `~kind` key, a string minifying keeps
    for (const dir of ["dist/cli", "dist/web/assets"]) {
      for (const file of readdirSync(join(REPO, dir)).filter((name) => name.endsWith(".js"))) {
        const text = readFileSync(join(REPO, dir, file), "utf8");
        assert.ok(!text.includes("~kind"), `${dir}/${file} bundles TypeBox`);
      }
    }
  });
});
