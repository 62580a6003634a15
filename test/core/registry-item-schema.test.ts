// The published JSON Schema of a registry-item file (src/core/schemas/registry-item.schema.json)
// describes what kiln reads: every built-in component (its component.json with the template
// files inlined, which is the item format) and the README's example items validate against it,
// and kiln accepts what it accepts.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parseRegistryItem } from "../../src/core/item.ts";
import { BUILTIN_REGISTRY_DIR, builtinRegistry } from "../../src/node/builtin-registry.ts";

const schema = JSON.parse(
  readFileSync(
    new URL("../../src/core/schemas/registry-item.schema.json", import.meta.url),
    "utf8",
  ),
) as object;
const validate = new Ajv2020({ allErrors: true, allowUnionTypes: true, strict: true }).compile(
  schema,
);

function check(json: unknown, what: string): void {
  assert.ok(validate(json), `${what}: ${JSON.stringify(validate.errors, null, 2)}`);
}

/** A component folder's component.json as an item file: each `templateFile` read inline. */
function inlined(reference: string): Record<string, unknown> {
  const folder = join(BUILTIN_REGISTRY_DIR, reference);
  const json = JSON.parse(readFileSync(join(folder, "component.json"), "utf8")) as {
    files: { path: string; templateFile: string }[];
  };
  return {
    ...json,
    files: json.files.map((file) => ({
      path: file.path,
      template: readFileSync(join(folder, file.templateFile), "utf8"),
    })),
  };
}

describe("the registry-item JSON Schema", () => {
  test("every built-in component, its templates inlined, validates", () => {
    const references = builtinRegistry().references();
    assert.equal(references.length, 13);
    for (const reference of references) check(inlined(reference), reference);
  });

  test("the README's example items validate, and kiln reads them", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const items = [...readme.matchAll(/```json\n([\s\S]*?)\n```/g)]
      .map((match) => JSON.parse(match[1] as string) as Record<string, unknown>)
      .filter((json) => "files" in json && "category" in json);
    assert.ok(items.length >= 2, "the README shows example items");
    for (const item of items) {
      check(item, String(item.name));
      parseRegistryItem(item, String(item.name));
    }
  });

  test("unknown keys are allowed, as kiln ignores them; what kiln refuses, it refuses", () => {
    const minimal = { name: "x", category: "c", files: [{ path: "p", template: "t" }] };
    check(
      { ...minimal, future: 1, fields: [{ name: "a", future: true }], kiln: { later: 2 } },
      "unknown keys",
    );
    check({ ...minimal, title: null, fields: null }, "null counts as absent");
    check({ $schema: "./registry-item.schema.json", ...minimal }, "$schema for editors");
    for (const bad of [
      { category: "c", files: [] },
      { ...minimal, files: [{ path: "p" }] },
      { ...minimal, fields: [{ name: "a", required: "yes" }] },
      { ...minimal, fields: [{ name: "a", schema: { type: "strin" } }] },
      { ...minimal, fields: [{ name: "a", format: "ports" }] },
      { ...minimal, $schema: 1 },
    ]) {
      assert.equal(validate(bad), false, JSON.stringify(bad));
    }
  });

  test("it lists every component folder's keys (no key kiln reads is missing from it)", () => {
    const fieldKeys = new Set(
      Object.keys((schema as { $defs: { field: { properties: object } } }).$defs.field.properties),
    );
    for (const category of readdirSync(BUILTIN_REGISTRY_DIR, { withFileTypes: true })) {
      if (!category.isDirectory()) continue;
      for (const name of readdirSync(join(BUILTIN_REGISTRY_DIR, category.name))) {
        const fields = (inlined(`${category.name}/${name}`).fields ?? []) as object[];
        for (const field of fields) {
          for (const key of Object.keys(field)) assert.ok(fieldKeys.has(key), `${name}: ${key}`);
        }
      }
    }
  });
});
