// The compiled path's fuel count is an upper bound of the engine's: for every template of every
// built-in and `@kiln` item, with generated inputs (fast-check, seeded; long lists among them)
// and the 10,000-host inventory of the service's goal (which the service's limits now let the
// compiled path render), the engine renders every template with
// as much fuel as the compiled path counted plus one (MiniJinja fails a template that runs as
// many instructions as its fuel), so its real use is never more than the count. The count stays
// close (within a quarter over the real use, found by a binary search on the engine's fuel),
// and a render given exactly its real use as fuel - one unit short - fails with the engine's
// own error on both paths, while the count plus one is answered on the compiled path.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { packagedKilnItems } from "../../scripts/compile-templates.ts";
import { CompiledRenderer, compiledFuel } from "../../src/core/compiled-renderer.ts";
import { buildContext, type RenderInput } from "../../src/core/context.ts";
import { KilnError } from "../../src/core/errors.ts";
import { type RegistryItem, referenceOf } from "../../src/core/item.ts";
import { trustAsCatalogueItem } from "../../src/core/registry.ts";
import { renderItem } from "../../src/core/render-item.ts";
import {
  DEFAULT_ENGINE_MEMORY_BYTES,
  DEFAULT_RENDER_FUEL,
} from "../../src/core/service-settings.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { builtinFor } from "../../src/node/resolve-reference.ts";
import { MAX_FUEL, TemplateEngine } from "../../src/node/template-engine.ts";
import { jsonValue, renderInputFor } from "./template-inputs.ts";

const kilnItems = packagedKilnItems().map(({ item }) => trustAsCatalogueItem(item));
const items = [...builtinRegistry().items, ...kilnItems];

/** The engine the fuel is measured with: one shared environment, another fuel per render. */
const measuring = new TemplateEngine({ cacheSize: 4096 });

/** An item's templates as renderItem passes them: each file's path, then its content. */
function templatesOf(item: RegistryItem) {
  return item.files.flatMap((file, index) => [
    { name: `${referenceOf(item)} files[${index}].path`, source: file.path },
    { name: `${referenceOf(item)} files[${index}].template`, source: file.template },
  ]);
}

/** Whether the engine renders `source` with `fuel` without running out (other errors: yes). */
function fitsIn(fuel: number, name: string, source: string, context: Record<string, unknown>) {
  try {
    measuring.renderWithFuel(fuel, name, source, context);
    return true;
  } catch (error) {
    if (error instanceof KilnError && /ran out of fuel/.test(error.message)) return false;
    return true;
  }
}

/** What the engine gives for `source` with `fuel`: its output, or its error's message. */
function outcomeWith(fuel: number, name: string, source: string, context: Record<string, unknown>) {
  try {
    return { output: measuring.renderWithFuel(fuel, name, source, context) };
  } catch (error) {
    if (error instanceof KilnError) return { error: error.message };
    throw error;
  }
}

/** The engine's real fuel use: the most instructions it ran (a binary search on its fuel). */
function realFuel(name: string, source: string, context: Record<string, unknown>): number {
  let low = 1;
  let high = MAX_FUEL;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (fitsIn(middle, name, source, context)) high = middle;
    else low = middle + 1;
  }
  return low - 1;
}

/** The context a render of `input` gives its templates, or undefined when none would run. */
function contextOf(item: RegistryItem, input: RenderInput): Record<string, unknown> | undefined {
  try {
    return buildContext(item, input);
  } catch {
    return undefined; // a required field missing: no template runs either way
  }
}

/**
 * Requires the engine to render each template of `item` with the compiled count plus one; the
 * counts, or undefined when the compiled path leaves the render to the engine anyway.
 */
function assertCountCovers(item: RegistryItem, input: RenderInput): number[] | undefined {
  const context = contextOf(item, input);
  if (context === undefined) return undefined;
  const templates = templatesOf(item);
  let counts: number[] | undefined;
  try {
    counts = compiledFuel(templates, context);
  } catch (error) {
    // a refused value, as the render itself refuses it: the differential test compares those;
    // anything else is a fault of the count itself
    if (error instanceof KilnError) return undefined;
    throw error;
  }
  if (counts === undefined) return undefined;
  templates.forEach(({ name, source }, index) => {
    const count = counts[index] as number;
    // the same outcome as with all the fuel there is: the output, or the same error (one of
    // memory or output, say), never running out of fuel first
    assert.deepEqual(
      outcomeWith(count + 1, name, source, context),
      outcomeWith(MAX_FUEL, name, source, context),
      `${name}: the engine needs more than ${count} instructions for ${JSON.stringify(input).slice(0, 500)}`,
    );
  });
  return counts;
}

/** Every list inside `value` repeated `times` times, from the outside in, `depth` levels deep. */
function stretched(value: unknown, times: readonly number[]): unknown {
  const [here = 1, ...deeper] = times;
  if (Array.isArray(value)) {
    const items = value.map((item) => stretched(item, deeper));
    return Array.from({ length: items.length * here }, (_, index) => items[index % items.length]);
  }
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, stretched(item, times)]),
    );
  }
  return value;
}

/** A field's value as a long list: generated JSON with its lists repeated, outer or inner. */
const longListText = fc
  .tuple(
    fc.array(jsonValue.value, { minLength: 1, maxLength: 3 }),
    fc.constantFrom([1, 1], [100, 1], [1, 100], [10, 10]),
  )
  .map(([value, times]) => JSON.stringify(stretched(value, times)));

/** The goal's inventory: `hosts` hosts in one group, each with an address and one variable. */
function inventoryInput(hosts: number): RenderInput {
  const members = Array.from({ length: hosts }, (_, index) => ({
    name: `web-${index}`,
    cm_host: `10.0.${index >> 8}.${index & 255}`,
    vars: { role: "web" },
  }));
  return {
    name: "inv",
    fields: { hosts: JSON.stringify([{ group: "web", members }]) },
    defaultNamespace: "d",
  };
}

const inventory = builtinFor("automation/inventory", builtinRegistry()) as RegistryItem;

describe("the compiled path's fuel count", () => {
  test("covers the engine's real fuel use for every template and generated input, long lists among them", () => {
    let checked = 0;
    for (const item of items) {
      // one field (a declared one, or `extra`) a long list, the others as the differential test
      // makes them: the engine converts the whole context for each template
      const withLongList = fc
        .tuple(
          renderInputFor(item),
          fc.constantFrom(...item.fields.map((field) => field.name), "extra"),
          longListText,
        )
        .map(([input, field, text]) => ({ ...input, fields: { ...input.fields, [field]: text } }));
      fc.assert(
        fc.property(withLongList, (input) => {
          if (assertCountCovers(item, input)) checked += 1;
        }),
        { seed: 27, numRuns: 12, endOnFailure: true },
      );
    }
    assert.ok(checked >= items.length * 6, `${checked} inputs counted on the compiled path`);
  });

  test("covers it for the 10,000-host inventory, which the service's limits render on the compiled path", () => {
    const input = inventoryInput(10_000);
    const counts = assertCountCovers(inventory, input) as number[];
    assert.ok((counts[1] as number) < DEFAULT_RENDER_FUEL, `${counts[1]} instructions`);
    const limits = { fuel: DEFAULT_RENDER_FUEL, memoryBytes: DEFAULT_ENGINE_MEMORY_BYTES };
    const engine = new TemplateEngine(limits);
    const compiled = new CompiledRenderer(() => engine, limits);
    assert.deepEqual(renderItem(compiled, inventory, input), renderItem(engine, inventory, input));
    assert.deepEqual(compiled.counts, { compiled: 1, engine: 0 });
  });

  test("stays within a quarter over the engine's real use for every item's example", () => {
    for (const item of [...items, inventory]) {
      const input =
        item === inventory
          ? inventoryInput(100)
          : {
              name: "web",
              fields: Object.fromEntries(
                item.fields.flatMap((field) => {
                  const value = field.example ?? field.default;
                  return value === undefined ? [] : [[field.name, value]];
                }),
              ),
              defaultNamespace: "default",
            };
      const context = contextOf(item, input) as Record<string, unknown>;
      const templates = templatesOf(item);
      const counts = compiledFuel(templates, context) as number[];
      templates.forEach(({ name, source }, index) => {
        const real = realFuel(name, source, context);
        const count = counts[index] as number;
        assert.ok(count >= real, `${name}: counted ${count}, the engine ran ${real}`);
        assert.ok(count <= real * 1.25 + 10, `${name}: counted ${count}, the engine ran ${real}`);
      });
    }
  });

  test("a render given its real fuel use fails with the engine's error on both paths; the count plus one renders compiled", () => {
    const input = inventoryInput(100);
    const context = contextOf(inventory, input) as Record<string, unknown>;
    const [path, body] = templatesOf(inventory) as [
      { name: string; source: string },
      { name: string; source: string },
    ];
    const real = realFuel(body.name, body.source, context);
    const counted = (compiledFuel([path, body], context) as number[])[1] as number;
    const outcome = (renderer: TemplateEngine | CompiledRenderer) => {
      try {
        return { files: renderItem(renderer, inventory, input).files };
      } catch (error) {
        assert.ok(error instanceof KilnError);
        return { kind: error.kind, message: error.message };
      }
    };
    for (const fuel of [real, real + 1, counted, counted + 1]) {
      const engine = new TemplateEngine({ fuel });
      const compiled = new CompiledRenderer(() => engine, engine.limits);
      const viaEngine = outcome(engine);
      assert.deepEqual(outcome(compiled), viaEngine, `fuel ${fuel}`);
      if (fuel === real) {
        assert.equal((viaEngine as { kind: string }).kind, "internal");
        assert.match(
          (viaEngine as { message: string }).message,
          /^engine ran out of fuel \(in automation\/inventory files\[0\]\.template\.jinja:\d+\)$/,
        );
      } else {
        assert.ok("files" in viaEngine, `fuel ${fuel}`);
      }
      const onCompiledPath = fuel === counted + 1 ? 1 : 0;
      assert.deepEqual(
        compiled.counts,
        { compiled: onCompiledPath, engine: 1 - onCompiledPath },
        `fuel ${fuel}`,
      );
    }
  });
});
