import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { buildContext, type RenderInput } from "../../src/core/context.ts";
import { KilnError } from "../../src/core/errors.ts";
import { parseRegistryItem, type RegistryItem, referenceOf } from "../../src/core/item.ts";
import { type RenderedFile, renderItem } from "../../src/core/render-item.ts";
import { builtinPresets } from "../../src/node/builtin-presets.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { builtinFor } from "../../src/node/resolve-reference.ts";
import { TemplateEngine } from "../../src/node/template-engine.ts";

const engine = new TemplateEngine();

function itemWith(files: { path: string; template: string }[], fields: unknown[] = []) {
  return parseRegistryItem({ name: "thing", category: "misc", fields, files }, "misc/thing");
}

describe("rendering one component", () => {
  test("returns the component name without category and each file's rendered path and content", () => {
    const item = itemWith([
      { path: "{{ name }}/{{ kind }}.yaml", template: "name: {{ name }}\nns: {{ namespace }}\n" },
      { path: "{{ name }}/README", template: "{{ labels.app }}" },
    ]);
    const result = renderItem(engine, item, {
      name: "web",
      fields: { kind: "svc" },
      defaultNamespace: "prod",
    });
    assert.deepEqual(result, {
      component: "thing",
      files: [
        { path: "web/svc.yaml", content: "name: web\nns: prod\n" },
        { path: "web/README", content: "web" },
      ],
    });
  });

  test("a trailing newline in a template is kept; undefined variables render empty", () => {
    const item = itemWith([
      { path: "a", template: "[{{ missing }}][{{ missing.attr.deeper }}]\n\n" },
    ]);
    assert.equal(
      renderItem(engine, item, { name: "n", defaultNamespace: "d" }).files[0]?.content,
      "[][]\n\n",
    );
  });

  test("two files of one item rendering to the same path fail with the spec's message", () => {
    const item = itemWith([
      { path: "{{ name }}.yaml", template: "a" },
      { path: "{{ other }}.yaml", template: "b" },
    ]);
    assert.throws(
      () => renderItem(engine, item, { name: "x", fields: { other: "x" }, defaultNamespace: "d" }),
      (error: unknown) =>
        error instanceof KilnError &&
        error.kind === "invalid_request" &&
        error.message === "misc/thing has two files that both render to `x.yaml`",
    );
  });

  test("paths that differ only in spelling (./, //) are the same path", () => {
    const item = itemWith([
      { path: "dir/a.yaml", template: "a" },
      { path: "./dir//a.yaml", template: "b" },
    ]);
    assert.throws(
      () => renderItem(engine, item, { name: "x", defaultNamespace: "d" }),
      /both render to `\.\/dir\/\/a\.yaml`/,
    );
  });

  test("a template syntax error is an internal error carrying the engine's one-line message", () => {
    const item = itemWith([{ path: "a", template: "{% for x in %}" }]);
    assert.throws(
      () => renderItem(engine, item, { name: "x", defaultNamespace: "d" }),
      (error: unknown) =>
        error instanceof KilnError &&
        error.kind === "internal" &&
        error.message.startsWith("syntax error: unexpected end of block") &&
        !error.message.includes("\n"),
    );
  });

  test("an unknown filter is an internal error", () => {
    const item = itemWith([{ path: "a", template: "{{ name | nope }}" }]);
    assert.throws(
      () => renderItem(engine, item, { name: "x", defaultNamespace: "d" }),
      /unknown filter/,
    );
  });
});

describe("one context conversion for all of an item's templates (TemplateEngine.renderAll)", () => {
  /** What renderItem did before renderAll: every template on its own. */
  function oneByOne(item: RegistryItem, input: RenderInput): RenderedFile[] {
    const context = buildContext(item, input);
    const reference = referenceOf(item);
    return item.files.map((file, index) => ({
      path: engine.render(`${reference} files[${index}].path`, file.path, context),
      content: engine.render(`${reference} files[${index}].template`, file.template, context),
    }));
  }

  test("every component of every built-in preset renders the same bytes as one by one", () => {
    const registry = builtinRegistry();
    const combinedBefore = engine.combinedRenders;
    let compared = 0;
    let combined = 0;
    for (const preset of builtinPresets()) {
      for (const component of preset.components) {
        const item = builtinFor(component.reference, registry) as RegistryItem;
        const input = {
          name: component.name,
          fields: component.fields,
          labels: component.labels,
          defaultNamespace: preset.project?.namespace ?? "default",
        };
        assert.deepEqual(renderItem(engine, item, input).files, oneByOne(item, input));
        compared += item.files.length;
        combined += 1;
      }
    }
    assert.ok(compared >= 120, `${compared} files compared`);
    assert.equal(engine.combinedRenders - combinedBefore, combined, "each item in one render");
  });

  test("the engine corpus renders the same bytes together as alone", () => {
    const corpus = JSON.parse(
      readFileSync(new URL("fixtures/engine-corpus.json", import.meta.url), "utf8"),
    ) as { name: string; template: string; context: Record<string, unknown> }[];
    for (const c of corpus) {
      const templates = [
        { name: `a ${c.name}`, source: c.template },
        { name: `b ${c.name}`, source: "{{ name }}|{{ missing }}\n" },
        { name: `c ${c.name}`, source: c.template },
      ];
      assert.deepEqual(
        engine.renderAll(templates, c.context),
        templates.map(({ name, source }) => engine.render(name, source, c.context)),
        c.name,
      );
    }
  });

  test("a {% set %} or macro of one template does not reach the next", () => {
    const out = engine.renderAll(
      [
        {
          name: "one",
          source: "{% set name = 'changed' %}{% macro m() %}x{% endmacro %}{{ name }}",
        },
        { name: "two", source: "{{ name }} {{ m is defined }}" },
      ],
      { name: "web" },
    );
    assert.deepEqual(out, ["changed", "web false"]);
    const before = engine.combinedRenders;
    engine.renderAll(
      [
        { name: "x", source: "1" },
        { name: "y", source: "2" },
      ],
      {},
    );
    assert.equal(engine.combinedRenders, before + 1, "not the one-by-one fallback");
  });

  test("an error is the failing template's own, as when rendered alone", () => {
    const templates = [
      { name: "misc/thing files[0].path", source: "ok.txt" },
      { name: "misc/thing files[0].template", source: "{{ foo.bar.baz() }}" },
    ];
    const alone = (() => {
      try {
        engine.render(templates[1]?.name as string, templates[1]?.source as string, {});
      } catch (error) {
        return (error as KilnError).message;
      }
    })();
    assert.match(alone ?? "", /misc\/thing files\[0\]\.template\.jinja/);
    assert.throws(
      () => engine.renderAll(templates, {}),
      (error: unknown) => error instanceof KilnError && error.message === alone,
    );
    const syntax = { name: "misc/thing files[1].template", source: "{% if %}" };
    assert.throws(
      () => engine.renderAll([templates[0] as (typeof templates)[0], syntax], {}),
      /syntax error.*misc\/thing files\[1\]\.template\.jinja/,
    );
  });

  test("names that do not fit in a string literal, and memory bombs, still work as alone", () => {
    const odd = [
      { name: 'quote " and \\ back', source: "{{ name }}" },
      { name: "new\nline", source: "{{ name }}!" },
    ];
    assert.deepEqual(engine.renderAll(odd, { name: "n" }), ["n", "n!"]);
    const small = new TemplateEngine({ memoryBytes: 32 * 1024 * 1024 });
    assert.throws(
      () =>
        small.renderAll(
          [
            { name: "p", source: "x" },
            { name: "bomb", source: "{{ ('x' * 2000000000) | length }}" },
          ],
          {},
        ),
      KilnError,
    );
    assert.deepEqual(
      small.renderAll(
        [
          { name: "p", source: "{{ a }}" },
          { name: "q", source: "{{ b }}" },
        ],
        { a: 1, b: 2 },
      ),
      ["1", "2"],
    );
  });
});
