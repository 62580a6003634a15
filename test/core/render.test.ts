import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TemplateEngine } from "../../src/core/engine.ts";
import { KilnError } from "../../src/core/errors.ts";
import { parseRegistryItem } from "../../src/core/item.ts";
import { renderItem } from "../../src/core/render.ts";

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
