import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseRegistryItem, parseRegistryItemText, toItemView } from "../../src/core/item.ts";
import { kilnErrorFrom } from "../tools/spec.ts";

const minimal = { name: "thing", category: "misc", files: [{ path: "a.txt", template: "x" }] };

describe("registry item file format", () => {
  test("optional keys take their defaults", () => {
    const item = parseRegistryItem({ ...minimal, fields: [{ name: "image" }] }, "x.json");
    assert.equal(item.title, "");
    assert.equal(item.description, "");
    assert.deepEqual(item.fields, [
      {
        name: "image",
        required: false,
        default: undefined,
        description: undefined,
        example: undefined,
        options: [],
      },
    ]);
    assert.deepEqual(parseRegistryItem(minimal, "x.json").fields, []);
  });

  test("unknown keys are ignored", () => {
    const item = parseRegistryItem(
      { ...minimal, extra: true, files: [{ path: "p", template: "t", mode: 1 }] },
      "r",
    );
    assert.deepEqual(item.files, [{ path: "p", template: "t" }]);
  });

  for (const [what, json] of [
    ["name missing", { category: "c", files: [] }],
    ["category missing", { name: "n", files: [] }],
    ["files missing", { name: "n", category: "c" }],
    ["a file without template", { name: "n", category: "c", files: [{ path: "p" }] }],
    ["a non-string default", { ...minimal, fields: [{ name: "f", default: 1 }] }],
    ["a non-boolean required", { ...minimal, fields: [{ name: "f", required: "yes" }] }],
    ["an option without value", { ...minimal, fields: [{ name: "f", options: [{ label: "x" }] }] }],
    ["not an object", [1, 2]],
  ] as const) {
    test(`${what} is not a valid registry item`, () => {
      const error = kilnErrorFrom(() => parseRegistryItem(json, "https://example.com/item.json"));
      assert.equal(error.message, "https://example.com/item.json is not a valid registry item");
      assert.equal(error.kind, "invalid_request");
      assert.ok(error.detail, "the detail says what did not fit");
    });
  }

  test("text that is not JSON is not a valid registry item", () => {
    const error = kilnErrorFrom(() => parseRegistryItemText("{nope", "./item.json"));
    assert.equal(error.message, "./item.json is not a valid registry item");
  });
});

describe("RegistryItem as the HTTP API returns it", () => {
  test("keys, nulls for unset values, label defaulting to value, unrendered file paths", () => {
    const item = parseRegistryItem(
      {
        name: "web",
        category: "apps",
        title: "Web",
        fields: [
          {
            name: "size",
            required: true,
            default: "s",
            description: "d",
            example: "e",
            options: [{ value: "s" }, { value: "m", label: "Medium" }],
          },
          { name: "plain" },
        ],
        files: [{ path: "{{ name }}.yaml", template: "body" }],
      },
      "x",
    );
    const view = toItemView(item);
    assert.deepEqual(Object.keys(view), [
      "name",
      "category",
      "title",
      "description",
      "reference",
      "fields",
      "files",
    ]);
    assert.equal(view.reference, "apps/web");
    assert.deepEqual(view.fields[0], {
      name: "size",
      required: true,
      default: "s",
      description: "d",
      example: "e",
      options: [
        { value: "s", label: "s" },
        { value: "m", label: "Medium" },
      ],
    });
    assert.deepEqual(view.fields[1], {
      name: "plain",
      required: false,
      default: null,
      description: null,
      example: null,
      options: [],
    });
    assert.deepEqual(view.files, ["{{ name }}.yaml"]);
  });
});
