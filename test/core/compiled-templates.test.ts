// The built-in and `@kiln` templates compiled ahead of time (src/core/registry/
// compiled-templates.cjs) render exactly what the sandboxed engine renders: the same bytes for
// every file, the same errors (kind and message), for every built-in and every item of `@kiln`
// (registries/kiln/, as its build publishes it) with its examples, defaults, every preset's
// values and generated inputs (fast-check, seeded: the same inputs every run). The compiler
// refuses what it does not support, naming the template and line, and the generated files (the
// module and the packaged `@kiln` digests) are current.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  COMPILED_KILN_TEMPLATES_PATH,
  COMPILED_TEMPLATES_PATH,
  compiledKilnTemplatesModule,
  compiledTemplatesModule,
  compileTemplate,
  PACKAGED_KILN_DIGESTS_PATH,
  packagedKilnDigestsText,
  packagedKilnItems,
} from "../../scripts/compile-templates.ts";
import { CompiledRenderer, renderCompiled } from "../../src/core/compiled-renderer.ts";
import { buildContext, type RenderInput } from "../../src/core/context.ts";
import { KilnError } from "../../src/core/errors.ts";
import { KILN_FILTERS } from "../../src/core/filters.ts";
import { type RegistryItem, referenceOf } from "../../src/core/item.ts";
import { componentInput } from "../../src/core/project/render-components.ts";
import { trustAsCatalogueItem } from "../../src/core/registry.ts";
import { renderItem } from "../../src/core/render-item.ts";
import { builtinPresets } from "../../src/node/builtin-presets.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { builtinFor } from "../../src/node/resolve-reference.ts";
import { DEFAULT_ENGINE_LIMITS, TemplateEngine } from "../../src/node/template-engine.ts";
import { renderInputFor } from "./template-inputs.ts";

const engine = new TemplateEngine();
const LIMITS = DEFAULT_ENGINE_LIMITS;
/** `@kiln`'s items, trusted as the CLI and the service trust the packaged ones. */
const kilnItems = packagedKilnItems().map(({ item }) => trustAsCatalogueItem(item));
const items = [...builtinRegistry().items, ...kilnItems];

/** An item's templates as renderItem passes them: each file's path, then its content. */
function templatesOf(item: RegistryItem) {
  return item.files.flatMap((file, index) => [
    { name: `${referenceOf(item)} files[${index}].path`, source: file.path },
    { name: `${referenceOf(item)} files[${index}].template`, source: file.template },
  ]);
}

type Outcome = { files: unknown } | { kind: string; message: string };

function outcome(render: () => unknown): Outcome {
  try {
    return { files: render() };
  } catch (error) {
    if (!(error instanceof KilnError)) throw error;
    return { kind: error.kind, message: error.message };
  }
}

/** How many renders the compiled path answered itself, and how many it left to the engine. */
const tally = { compiled: 0, engine: 0 };

/**
 * Renders `input` both ways and requires the same outcome: through renderItem (the files, or
 * the error's kind and message), and template by template on the compiled path whenever it
 * answers (the same text as the engine's, and never an answer where the engine fails).
 */
function assertSameRender(item: RegistryItem, input: RenderInput): "compiled" | "engine" {
  const renderer = new CompiledRenderer(() => engine, LIMITS);
  const viaEngine = outcome(() => renderItem(engine, item, input));
  const viaCompiled = outcome(() => renderItem(renderer, item, input));
  assert.deepEqual(viaCompiled, viaEngine, `${referenceOf(item)} ${JSON.stringify(input)}`);
  let context: Record<string, unknown>;
  try {
    context = buildContext(item, input);
  } catch {
    return "engine"; // a missing required field: no template runs either way
  }
  const templates = templatesOf(item);
  const compiled = renderCompiled(templates, context, LIMITS);
  if (compiled === undefined) {
    tally.engine += 1;
    return "engine";
  }
  const expected = outcome(() => engine.renderAll(templates, context));
  assert.deepEqual({ files: compiled }, expected, `${referenceOf(item)} ${JSON.stringify(input)}`);
  tally.compiled += 1;
  return "compiled";
}

/** Every field's example (or default), as a user would type them. */
function exampleInput(item: RegistryItem): RenderInput {
  const fields: Record<string, string> = {};
  for (const field of item.fields) {
    const value = field.example ?? field.default;
    if (value !== undefined) fields[field.name] = value;
  }
  return { name: "web", fields, defaultNamespace: "default" };
}

describe("the compiled templates", () => {
  test("the generated module is current (run `npm run templates` after changing a template)", async () => {
    assert.equal(readFileSync(COMPILED_TEMPLATES_PATH, "utf8"), await compiledTemplatesModule());
    assert.equal(
      readFileSync(COMPILED_KILN_TEMPLATES_PATH, "utf8"),
      await compiledKilnTemplatesModule(),
    );
  });

  test("the packaged @kiln digests are current (run `npm run templates` after changing registries/kiln)", () => {
    assert.equal(readFileSync(PACKAGED_KILN_DIGESTS_PATH, "utf8"), packagedKilnDigestsText());
    assert.ok(kilnItems.length >= 6, `${kilnItems.length} @kiln items`);
  });

  test("every built-in's and every @kiln item's templates are compiled, each set in its own module", () => {
    const builtins = readFileSync(COMPILED_TEMPLATES_PATH, "utf8");
    const kiln = readFileSync(COMPILED_KILN_TEMPLATES_PATH, "utf8");
    for (const item of items) {
      const module = kilnItems.includes(item) ? kiln : builtins;
      for (const { source } of templatesOf(item)) {
        assert.ok(module.includes(`templates.set(${JSON.stringify(source)}, `), referenceOf(item));
      }
    }
  });

  test("the compiler refuses what it does not support, naming the template and line", () => {
    const filters = new Set(Object.keys(KILN_FILTERS));
    const refused: [string, RegExp][] = [
      ["a\n{% include 'x' %}", /t line 2: the `\{% include %\}` statement$/],
      ["{{ a | upper }}", /t line 1: the filter `upper`$/],
      ["{{ a is odd }}", /t line 1: the test `odd`$/],
      ["\n\n{{ a + 1 }}", /t line 3: arithmetic$/],
      ["{{ a[1::2] }}", /t line 1: a slice step$/],
      ["{% for x in y %}{{ loop.index }}{% endfor %}", /t line 1: `loop.index`$/],
      ["{{ range(3) }}", /t line 1: a call of `range`/],
    ];
    for (const [source, message] of refused) {
      assert.throws(() => compileTemplate(source, "t", filters), message, source);
    }
  });

  test("the generated code holds template text only as string literals and never evaluates", () => {
    for (const path of [COMPILED_TEMPLATES_PATH, COMPILED_KILN_TEMPLATES_PATH]) {
      const module = readFileSync(path, "utf8");
      assert.equal(/\beval\b|new Function|Function\(|require\(|import\(/.test(module), false);
    }
  });
});

describe("the compiled path renders exactly what the engine renders", () => {
  test("every built-in and @kiln item with its examples and defaults, on the compiled path", () => {
    for (const item of items) {
      assert.equal(assertSameRender(item, exampleInput(item)), "compiled", referenceOf(item));
      const bare: RenderInput = { name: "x", defaultNamespace: "d" };
      assertSameRender(item, bare);
      for (const profile of ["cm", "ansible"] as const) {
        assertSameRender(item, { ...exampleInput(item), automationProfile: profile });
      }
      // every option a field offers, each on the compiled path (`@kiln`'s images look them up)
      for (const field of item.fields) {
        for (const option of field.options ?? []) {
          const input = exampleInput(item);
          const withOption = { ...input, fields: { ...input.fields, [field.name]: option.value } };
          assert.equal(
            assertSameRender(item, withOption),
            "compiled",
            `${field.name}=${option.value}`,
          );
        }
      }
    }
  });

  test("every component of every preset with the preset's values, on the compiled path", () => {
    for (const preset of builtinPresets()) {
      for (const component of preset.components) {
        const item = builtinFor(component.reference, builtinRegistry());
        if (!item) continue;
        for (const profile of ["cm", "ansible"] as const) {
          const input = componentInput(component, "default", profile);
          assert.equal(
            assertSameRender(item, input),
            "compiled",
            `${preset.name} ${component.name}`,
          );
        }
      }
    }
  });

  test("10,000 generated inputs: awkward strings, control characters, unicode, JSON lists and maps, missing fields, huge numbers", () => {
    const runs = Math.ceil(10_000 / items.length);
    let total = 0;
    for (const item of items) {
      fc.assert(
        fc.property(renderInputFor(item), (input) => {
          total += 1;
          assertSameRender(item, input as RenderInput);
        }),
        { seed: 27, numRuns: runs, endOnFailure: true },
      );
    }
    assert.ok(total >= 10_000, `${total} inputs`);
    // most generated inputs stay on the compiled path (the rest go to the engine as a whole)
    console.log(JSON.stringify(tally));
    assert.ok(tally.compiled > tally.engine, JSON.stringify(tally));
  });
});

describe("the compiled path keeps the engine's limits", () => {
  const item = (reference: string) => builtinFor(reference, builtinRegistry()) as RegistryItem;
  /** A playbook of `count` empty plays: the catalogue's costliest input per value, in fuel. */
  const emptyPlays = (count: number): RenderInput => ({
    name: "site",
    fields: { hosts: "all", plays: JSON.stringify(Array.from({ length: count }, () => ({}))) },
    defaultNamespace: "d",
  });

  test("a render that runs the engine out of fuel fails with the engine's error on both paths", () => {
    const fuel = 100_000;
    const small = new TemplateEngine({ fuel });
    const renderer = new CompiledRenderer(() => small, small.limits);
    const playbook = item("automation/playbook");
    const viaEngine = outcome(() => renderItem(small, playbook, emptyPlays(1000)));
    assert.equal((viaEngine as { kind: string }).kind, "internal");
    assert.match((viaEngine as { message: string }).message, /fuel/);
    assert.deepEqual(
      outcome(() => renderItem(renderer, playbook, emptyPlays(1000))),
      viaEngine,
    );
    assert.deepEqual(renderer.counts, { compiled: 0, engine: 1 });
    // within the budget the compiled path answers, with the engine's output
    const few = emptyPlays(5);
    assert.deepEqual(
      outcome(() => renderItem(renderer, playbook, few)),
      outcome(() => renderItem(small, playbook, few)),
    );
    assert.deepEqual(renderer.counts, { compiled: 1, engine: 1 });
  });

  test("a context the engine's memory cap cannot hold fails with the engine's error on both paths", () => {
    // a million 3-byte characters: about 8 MiB in the engine, which is capped at 4 MiB here
    const limits = { fuel: LIMITS.fuel, memoryBytes: 4 * 1024 * 1024 };
    const small = new TemplateEngine(limits);
    const renderer = new CompiledRenderer(() => small, limits);
    const deployment = item("k8s/deployment");
    const extra = "€".repeat(1_000_000);
    const input = { name: "w", fields: { image: "nginx", extra }, defaultNamespace: "d" };
    const viaEngine = outcome(() => renderItem(small, deployment, input));
    assert.match((viaEngine as { message: string }).message, /^template engine failure/);
    assert.deepEqual(
      outcome(() => renderItem(renderer, deployment, input)),
      viaEngine,
    );
    assert.deepEqual(renderer.counts, { compiled: 0, engine: 1 });
  });

  test("a 14 M-character value and a 50,000-host inventory give the engine's outcome", () => {
    const renderer = new CompiledRenderer(() => engine, LIMITS);
    const huge: [RegistryItem, RenderInput][] = [
      [
        item("k8s/deployment"),
        { name: "w", fields: { image: "x".repeat(14_000_000) }, defaultNamespace: "d" },
      ],
      [
        item("automation/inventory"),
        {
          name: "inv",
          fields: {
            hosts: JSON.stringify([
              {
                group: "web",
                members: Array.from({ length: 50_000 }, (_, i) => ({
                  name: `h${i}`,
                  cm_host: `10.0.${i % 250}.${i % 200}`,
                })),
              },
            ]),
          },
          defaultNamespace: "d",
        },
      ],
    ];
    for (const [huge_item, input] of huge) {
      assert.deepEqual(
        outcome(() => renderItem(renderer, huge_item, input)),
        outcome(() => renderItem(engine, huge_item, input)),
        referenceOf(huge_item),
      );
    }
  });
});
