import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildContext, jsonValued } from "../../src/core/context.ts";
import { KilnError } from "../../src/core/errors.ts";
import { parseRegistryItem } from "../../src/core/item.ts";
import { renderItem } from "../../src/core/render-item.ts";
import { TemplateEngine } from "../../src/node/template-engine.ts";

const item = parseRegistryItem(
  {
    name: "thing",
    category: "misc",
    fields: [
      { name: "image", required: true },
      { name: "replicas", default: "1" },
      { name: "namespace", default: "ignored" },
      { name: "optional_no_default" },
      { name: "hosts", default: '[{"group": "web"}]' },
    ],
    files: [{ path: "{{ name }}.txt", template: "x" }],
  },
  "misc/thing",
);

describe("template context", () => {
  test("name, namespace from the caller's default, labels with app = name", () => {
    const context = buildContext(item, {
      name: "web",
      fields: { image: "nginx" },
      defaultNamespace: "team",
    });
    assert.equal(context.name, "web");
    assert.equal(context.namespace, "team");
    assert.deepEqual(context.labels, { app: "web" });
  });

  test("a supplied namespace field wins over the default namespace", () => {
    const context = buildContext(item, {
      name: "web",
      fields: { image: "i", namespace: "prod" },
      defaultNamespace: "team",
    });
    assert.equal(context.namespace, "prod");
  });

  test("a declared field named namespace has no effect: its default is not applied", () => {
    const context = buildContext(item, {
      name: "web",
      fields: { image: "i" },
      defaultNamespace: "default",
    });
    assert.equal(context.namespace, "default");
  });

  test("labels: supplied labels are added, and a supplied app wins", () => {
    const context = buildContext(item, {
      name: "web",
      fields: { image: "i" },
      labels: { tier: "frontend", app: "shop" },
      defaultNamespace: "d",
    });
    assert.deepEqual(context.labels, { app: "shop", tier: "frontend" });
  });

  test("declared fields: supplied value, else default, else undefined", () => {
    const context = buildContext(item, {
      name: "w",
      fields: { image: "nginx", replicas: "3" },
      defaultNamespace: "d",
    });
    assert.equal(context.image, "nginx");
    assert.equal(context.replicas, "3");
    assert.equal("optional_no_default" in context, false);
    const defaults = buildContext(item, {
      name: "w",
      fields: { image: "nginx" },
      defaultNamespace: "d",
    });
    assert.equal(defaults.replicas, "1");
  });

  test("supplied undeclared fields reach the template", () => {
    const context = buildContext(item, {
      name: "w",
      fields: { image: "i", extra: "yes" },
      defaultNamespace: "d",
    });
    assert.equal(context.extra, "yes");
  });

  test("a required field with no value and no default fails with the spec's message", () => {
    assert.throws(
      () => buildContext(item, { name: "w", defaultNamespace: "d" }),
      (error: unknown) =>
        error instanceof KilnError &&
        error.kind === "invalid_request" &&
        error.message === "--image is required for misc/thing",
    );
  });

  test("a supplied empty string counts as a value", () => {
    assert.equal(
      buildContext(item, { name: "w", fields: { image: "" }, defaultNamespace: "d" }).image,
      "",
    );
  });

  test("defaults are JSON-valued too", () => {
    const context = buildContext(item, {
      name: "w",
      fields: { image: "i" },
      defaultNamespace: "d",
    });
    assert.deepEqual(context.hosts, [{ group: "web" }]);
  });
});

describe("JSON-valued fields", () => {
  test("a valid JSON array gives a list, an object a map", () => {
    assert.deepEqual(jsonValued("[1, 2]"), [1, 2]);
    assert.deepEqual(jsonValued('{"b": 1, "a": 2}'), { b: 1, a: 2 });
  });
  test("leading whitespace is skipped when looking for [ or {", () => {
    assert.deepEqual(jsonValued('  \n ["x"]'), ["x"]);
  });
  test("text starting with [ or { that is invalid JSON stays the original string", () => {
    assert.equal(jsonValued("[not json"), "[not json");
    assert.equal(jsonValued("{a}"), "{a}");
  });
  test("any other value stays the original string", () => {
    assert.equal(jsonValued("42"), "42");
    assert.equal(jsonValued('"quoted"'), '"quoted"');
    assert.equal(jsonValued("true"), "true");
  });
  test("map keys are iterated in alphabetical order by templates", () => {
    const engine = new TemplateEngine();
    const mapItem = parseRegistryItem(
      {
        name: "m",
        category: "c",
        files: [
          { path: "p", template: "{% for k, v in vars|items %}{{ k }}={{ v }};{% endfor %}" },
        ],
      },
      "c/m",
    );
    const result = renderItem(engine, mapItem, {
      name: "n",
      fields: { vars: '{"zeta": 1, "alpha": 2, "mid": 3}' },
      defaultNamespace: "d",
    });
    assert.equal(result.files[0]?.content, "alpha=2;mid=3;zeta=1;");
  });
});
