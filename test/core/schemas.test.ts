// One source for what a preset file and a registry-item file may hold: the published JSON
// Schemas (src/core/schemas/) and kiln's own decoders and value checks must agree. Every
// built-in preset validates; the built-in components' part of the preset schema is the
// catalogue's; every JSON example in README.md and docs/*.md is classified (an example nobody
// classified fails, so a new one cannot slip by) and each item and preset among them passes
// both the schema and kiln; invalid documents are refused by both; and a `$schema` key is
// accepted by every front (the CLI, the service, the dashboard's preset decoding).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { builtinsSchema, PRESET_SCHEMA_PATH } from "../../scripts/preset-schema.ts";
import { buildContext } from "../../src/core/context.ts";
import { formatProblem } from "../../src/core/formats.ts";
import { itemChecks, parseRegistryItem } from "../../src/core/item.ts";
import { type Preset, parsePreset } from "../../src/core/project/preset-manifest.ts";
import { validateInput } from "../../src/core/validate.ts";
import { FIELD_FORMATS } from "../../src/core/vocabulary.ts";
import { BUILTIN_PRESETS_DIR } from "../../src/node/builtin-presets.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { builtinFor } from "../../src/node/resolve-reference.ts";
import { projectFromPreset } from "../../web/src/model/project.ts";
import { BIN, ensureBuilt, kiln } from "../cli/helpers.ts";
import { codeBlocks, documents, REPO } from "../docs/markdown.ts";
import { startChild } from "../server/helpers.ts";

function readSchema(name: string): object {
  return JSON.parse(readFileSync(join(REPO, "src/core/schemas", name), "utf8")) as object;
}

/**
 * ajv in strict mode with kiln's field formats, checked by the core's own format rules, and the
 * integer bounds the preset schema states beside them (`x-minimum`, `x-maximum`), so the
 * schema is exercised with exactly the meaning kiln gives it.
 */
function schemaValidator() {
  const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true, strict: true });
  for (const format of FIELD_FORMATS) {
    ajv.addFormat(format, {
      type: "string",
      validate: (value: string) => formatProblem(format, value) === undefined,
    });
  }
  for (const [keyword, fits] of [
    ["x-minimum", (bound: number, value: number) => value >= bound],
    ["x-maximum", (bound: number, value: number) => value <= bound],
  ] as const) {
    ajv.addKeyword({
      keyword,
      type: "string",
      schemaType: "number",
      validate: (bound: number, value: string) => fits(bound, Number(value.trim())),
    });
  }
  return ajv;
}

const ajv = schemaValidator();
const validatePreset = ajv.compile(readSchema("preset.schema.json"));
const validateItem = ajv.compile(readSchema("registry-item.schema.json"));

function schemaAccepts(validate: typeof validatePreset, json: unknown): string | undefined {
  return validate(json) ? undefined : JSON.stringify(validate.errors);
}

/**
 * Why kiln refuses a preset document, or undefined when it takes it: the decoder, then each
 * built-in component's values as `kiln setup` checks them before rendering (required fields,
 * formats, JSON Schemas).
 */
function kilnRefusesPreset(json: unknown): string | undefined {
  let preset: Preset;
  try {
    preset = parsePreset(JSON.stringify(json), "example");
  } catch (error) {
    return `${(error as Error).message}: ${(error as { detail?: string }).detail}`;
  }
  for (const component of preset.components) {
    const item = builtinFor(component.reference, builtinRegistry());
    if (!item) continue;
    const input = { ...component, defaultNamespace: "default" };
    try {
      validateInput(item, input);
      buildContext(item, input);
    } catch (error) {
      return (error as Error).message;
    }
  }
  return undefined;
}

function kilnRefusesItem(json: unknown): string | undefined {
  try {
    parseRegistryItem(json, "example");
    return undefined;
  } catch (error) {
    return `${(error as Error).message}: ${(error as { detail?: string }).detail}`;
  }
}

/** Both accept a preset, or the message of the one that does not. */
function assertPresetAccepted(json: unknown, what: string): void {
  assert.equal(schemaAccepts(validatePreset, json), undefined, `${what}: the schema refuses it`);
  assert.equal(kilnRefusesPreset(json), undefined, `${what}: kiln refuses it`);
}

function assertItemAccepted(json: unknown, what: string): void {
  assert.equal(schemaAccepts(validateItem, json), undefined, `${what}: the schema refuses it`);
  assert.equal(kilnRefusesItem(json), undefined, `${what}: kiln refuses it`);
}

function builtinPresetFiles(): { file: string; json: unknown }[] {
  const order = JSON.parse(readFileSync(join(BUILTIN_PRESETS_DIR, "index.json"), "utf8"));
  return (order as string[]).map((name) => {
    const file = `${name}.preset.json`;
    return { file, json: JSON.parse(readFileSync(join(BUILTIN_PRESETS_DIR, file), "utf8")) };
  });
}

/** Every field JSON Schema a built-in component declares (the catalogue doc shows them). */
function builtinFieldSchemas(): unknown[] {
  return builtinRegistry().items.flatMap((item) =>
    Object.values(itemChecks(item).fields).flatMap((check) =>
      check.schema === undefined ? [] : [check.schema],
    ),
  );
}

type Example = { document: string; line: number; json: Record<string, unknown> };

/** What a JSON example of the docs is; each kind says how the test checks it. */
const EXAMPLE_KINDS: {
  kind: string;
  matches: (example: Example) => boolean;
  check: (example: Example) => void;
}[] = [
  {
    kind: "registry item",
    matches: ({ json }) => "category" in json && "files" in json,
    check: ({ json, document, line }) => assertItemAccepted(json, `${document}:${line}`),
  },
  {
    kind: "preset",
    matches: ({ json }) =>
      Array.isArray(json.components) && !("version" in json) && !("unowned" in json),
    check: ({ json, document, line }) => assertPresetAccepted(json, `${document}:${line}`),
  },
  {
    // the format of kiln.lock, tested with the lock itself (test/core/lock.test.ts)
    kind: "kiln.lock",
    matches: ({ json }) => json.version === 1 && Array.isArray(json.components),
    check: ({ json }) => assert.ok((json.components as { fingerprint?: string }[])[0]?.fingerprint),
  },
  {
    // the output of `kiln status --json` (test/cli/lifecycle.test.ts)
    kind: "kiln status --json",
    matches: ({ json }) => Array.isArray(json.unowned) && Array.isArray(json.components),
    check: () => {},
  },
  {
    // a line of `kiln serve`'s request log (test/server/observability.test.ts): its keys only
    kind: "a request log line",
    matches: ({ json }) => json.msg === "request" && "requestId" in json,
    check: ({ json, document, line }) =>
      assert.deepEqual(
        Object.keys(json).sort(),
        [
          "durationMs",
          "hostname",
          "level",
          "method",
          "msg",
          "pid",
          "requestId",
          "route",
          "status",
          "time",
        ],
        `${document}:${line}`,
      ),
  },
  {
    // docs/catalogue.md shows each field's declared schema: it is one a built-in declares
    kind: "a built-in field's JSON Schema",
    matches: ({ document }) => document === "docs/catalogue.md",
    check: ({ json, document, line }) =>
      assert.ok(
        builtinFieldSchemas().some((schema) => JSON.stringify(schema) === JSON.stringify(json)),
        `${document}:${line} is no built-in field's schema (run npm run docs:catalogue)`,
      ),
  },
];

function docsJsonExamples(): Example[] {
  return documents().flatMap((document) =>
    codeBlocks(document)
      .filter((block) => block.language === "json")
      .map((block) => ({
        document,
        line: block.line,
        json: JSON.parse(block.text) as Record<string, unknown>,
      })),
  );
}

describe("the preset JSON Schema and kiln agree", () => {
  test("every built-in preset validates and kiln takes it", () => {
    const presets = builtinPresetFiles();
    assert.equal(presets.length, 5);
    for (const { file, json } of presets) assertPresetAccepted(json, file);
  });

  test("its built-in components' part is the catalogue's (node --import tsx scripts/preset-schema.ts)", () => {
    const schema = JSON.parse(readFileSync(PRESET_SCHEMA_PATH, "utf8")) as {
      $defs: { builtins: unknown };
    };
    assert.deepEqual(schema.$defs.builtins, builtinsSchema());
  });

  test("every JSON example of README.md and docs/*.md is classified, and items and presets pass both", () => {
    const counts: Record<string, number> = {};
    for (const example of docsJsonExamples()) {
      const kind = EXAMPLE_KINDS.find((candidate) => candidate.matches(example));
      assert.ok(
        kind,
        `${example.document}:${example.line}: a JSON example this test does not classify - add its kind to EXAMPLE_KINDS`,
      );
      kind.check(example);
      counts[kind.kind] = (counts[kind.kind] ?? 0) + 1;
    }
    assert.ok((counts["registry item"] ?? 0) >= 3, JSON.stringify(counts));
    assert.ok((counts.preset ?? 0) >= 1, JSON.stringify(counts));
  });

  const component = { reference: "k8s/deployment", name: "web", fields: { image: "nginx" } };
  const refusedPresets: [string, unknown][] = [
    ["not an object", []],
    ["no components", { name: "x" }],
    ["components null", { components: null }],
    ["a component without a reference", { components: [{ name: "web" }] }],
    ["a component without a name", { components: [{ reference: "k8s/service" }] }],
    ["a number as a field value", { components: [{ ...component, fields: { image: 3 } }] }],
    ["a label value null", { components: [{ ...component, labels: { tier: null } }] }],
    ["a name that is not a string", { name: 5, components: [] }],
    ["project not an object", { project: "shop", components: [] }],
    ["an unknown automation profile", { project: { automationProfile: "puppet" }, components: [] }],
    ["$schema not a string", { $schema: 5, components: [] }],
    [
      "a built-in's required field missing",
      { components: [{ reference: "k8s/deployment", name: "web" }] },
    ],
    [
      "replicas not a number",
      { components: [{ ...component, fields: { image: "n", replicas: "three" } }] },
    ],
    [
      "replicas below its minimum",
      { components: [{ ...component, fields: { image: "n", replicas: "-1" } }] },
    ],
    [
      "a port out of range",
      { components: [{ ...component, fields: { image: "n", port: "70000" } }] },
    ],
    ["a name that is no DNS label", { components: [{ ...component, name: "Web_1" }] }],
    [
      "a count below zero",
      {
        components: [
          {
            reference: "infra/cloud-a",
            name: "s",
            fields: { count: "-2", token_var: "t", location: "l", server_type: "x" },
          },
        ],
      },
    ],
  ];
  test("what one refuses, the other refuses", () => {
    for (const [what, json] of refusedPresets) {
      assert.notEqual(schemaAccepts(validatePreset, json), undefined, `the schema takes ${what}`);
      assert.notEqual(kilnRefusesPreset(json), undefined, `kiln takes ${what}`);
    }
  });

  test("what both accept: unknown keys, null for absent, $schema, empty optional values", () => {
    for (const json of [
      { $schema: "./node_modules/kiln/src/core/schemas/preset.schema.json", components: [] },
      { name: null, title: null, project: null, components: [], later: { any: 1 } },
      { project: { name: null, automationProfile: null }, components: [] },
      { components: [{ ...component, fields: { image: "n", replicas: "", port: " 8080 " } }] },
      { components: [{ reference: "./custom.json", name: "Any Name", fields: { x: "y" } }] },
    ]) {
      assertPresetAccepted(json, JSON.stringify(json));
    }
  });

  test("the dashboard opens a preset with $schema, and refuses one whose $schema is no string", () => {
    const project = projectFromPreset(
      JSON.stringify({ $schema: "./preset.schema.json", name: "p", components: [component] }),
    );
    assert.equal(project.components.length, 1);
    assert.throws(
      () => projectFromPreset({ $schema: 5, components: [] }),
      /\$schema: invalid type/,
    );
  });
});

describe("the registry-item JSON Schema and kiln agree", () => {
  const minimal = { name: "x", category: "c", files: [{ path: "p", template: "t" }] };
  test("what one refuses, the other refuses", () => {
    for (const [what, json] of [
      ["$schema not a string", { ...minimal, $schema: ["a"] }],
      ["no files", { name: "x", category: "c" }],
      ["a file without a template", { ...minimal, files: [{ path: "p" }] }],
      ["an option without a value", { ...minimal, fields: [{ name: "a", options: [{}] }] }],
      ["a field name that is not a string", { ...minimal, fields: [{ name: 1 }] }],
    ] as const) {
      assert.notEqual(schemaAccepts(validateItem, json), undefined, `the schema takes ${what}`);
      assert.notEqual(kilnRefusesItem(json), undefined, `kiln takes ${what}`);
    }
  });

  test("both accept $schema", () => {
    assertItemAccepted({ $schema: "./registry-item.schema.json", ...minimal }, "$schema");
    assertItemAccepted({ $schema: null, ...minimal }, "$schema null");
  });
});

describe("$schema in files the fronts read", () => {
  const dir = mkdtempSync(join(tmpdir(), "kiln-schema-key-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const item = {
    $schema: "./node_modules/kiln/src/core/schemas/registry-item.schema.json",
    name: "note",
    category: "custom",
    fields: [{ name: "text", required: true }],
    files: [{ path: "{{ name }}.txt", template: "{{ text }}\n" }],
  };
  writeFileSync(join(dir, "note.json"), JSON.stringify(item));
  writeFileSync(
    join(dir, "notes.preset.json"),
    JSON.stringify({
      $schema: "./node_modules/kiln/src/core/schemas/preset.schema.json",
      name: "notes",
      project: { outputDir: "out" },
      components: [{ reference: "./note.json", name: "hello", fields: { text: "hi" } }],
    }),
  );

  test("kiln add, setup, check and render take an item and a preset that name their schema", () => {
    ensureBuilt();
    assert.ok(BIN);
    const setup = kiln(["setup", "./notes.preset.json"], dir);
    assert.equal(setup.status, 0, setup.stderr);
    assert.equal(readFileSync(join(dir, "out/hello.txt"), "utf8"), "hi\n");
    const add = kiln(["add", "./note.json", "--name", "bye", "--set", "text=bye"], dir);
    assert.equal(add.status, 0, add.stderr);
    assert.equal(add.stderr, "", "no warning about $schema");
    const check = kiln(["check", "./notes.preset.json"], dir);
    assert.equal(check.status, 0, check.stderr);
    const render = kiln(["render", "./note.json", "--name", "x", "--set", "text=y"], dir);
    assert.equal(render.stdout, "# Source: x.txt\ny\n");
  });

  test("POST /api/render renders an item file that names its schema", async () => {
    const server = await startChild(["--port", "0"]);
    try {
      const response = await fetch(`${server.url}/api/render`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          reference: join(dir, "note.json"),
          name: "x",
          fields: { text: "y" },
        }),
      });
      assert.equal(response.status, 200, await response.clone().text());
      assert.deepEqual(await response.json(), {
        component: "note",
        files: [{ path: "x.txt", content: "y\n" }],
      });
    } finally {
      await server.stop();
    }
  });
});
