import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  array,
  boolean,
  describeValue,
  optional,
  record,
  required,
  ShapeError,
  string,
  struct,
  unsigned,
  withDefault,
} from "../../src/core/shape.ts";

const reason = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ShapeError);
    return error.message;
  }
  assert.fail("expected a ShapeError");
};

describe("serde-worded decoding errors", () => {
  test("values are described the way serde describes them", () => {
    assert.equal(describeValue(5), "integer `5`");
    assert.equal(describeValue(1.5), "floating point `1.5`");
    assert.equal(describeValue(true), "boolean `true`");
    assert.equal(describeValue("x"), 'string "x"');
    assert.equal(describeValue(null), "null");
    assert.equal(describeValue([]), "sequence");
    assert.equal(describeValue({}), "map");
  });

  test("invalid type names what was expected", () => {
    assert.equal(
      reason(() => string(5, "")),
      "invalid type: integer `5`, expected a string",
    );
    assert.equal(
      reason(() => boolean("yes", "")),
      'invalid type: string "yes", expected a boolean',
    );
    assert.equal(
      reason(() => array(string)({}, "")),
      "invalid type: map, expected a sequence",
    );
    assert.equal(
      reason(() => record(string)([], "")),
      "invalid type: sequence, expected a map",
    );
  });

  test("unsigned integers: out-of-range is an invalid value, a fraction an invalid type", () => {
    assert.equal(unsigned(16)(65535, ""), 65535);
    assert.equal(
      reason(() => unsigned(16)(70000, "")),
      "invalid value: integer `70000`, expected u16",
    );
    assert.equal(
      reason(() => unsigned(32)(-1, "")),
      "invalid value: integer `-1`, expected u32",
    );
    assert.equal(
      reason(() => unsigned(32)(1.5, "")),
      "invalid type: floating point `1.5`, expected u32",
    );
    assert.equal(unsigned(32)(4294967295, ""), 4294967295);
  });

  const decode = struct("Thing", {
    reference: required(string),
    fields: withDefault(record(string), () => ({})),
    labels: withDefault(
      array(struct("Label", { key: required(string), value: required(string) })),
      () => [],
    ),
    port: optional(unsigned(16)),
  });

  test("a missing required key is `missing field`", () => {
    assert.equal(
      reason(() => decode({}, "")),
      "missing field `reference`",
    );
  });

  test("nested errors are prefixed with the key's path", () => {
    assert.equal(
      reason(() => decode({ reference: "x", fields: { image: 5 } }, "")),
      "fields.image: invalid type: integer `5`, expected a string",
    );
    assert.equal(
      reason(() => decode({ reference: "x", labels: [{ key: "a" }] }, "")),
      "labels[0]: missing field `value`",
    );
    assert.equal(
      reason(() => decode({ reference: "x", port: 70000 }, "")),
      "port: invalid value: integer `70000`, expected u16",
    );
  });

  test("a path reaches through nested arrays and maps under the caller's own path, with and without strings", () => {
    const nested = struct("Outer", {
      rows: required(array(array(struct("Cell", { tags: required(record(string)) })))),
    });
    let caught: unknown;
    try {
      nested({ rows: [[], [{ tags: {} }, { tags: { a: "x", b: "secret" } }]] }, "body");
      nested({ rows: [[{ tags: { a: "x" } }], [{ tags: { b: 5 } }]] }, "body");
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof ShapeError);
    assert.equal(caught.path, "body.rows[1][0].tags.b");
    assert.equal(
      caught.message,
      "body.rows[1][0].tags.b: invalid type: integer `5`, expected a string",
    );
    assert.equal(caught.reason, "invalid type: integer `5`, expected a string");
    assert.equal(
      reason(() => nested({ rows: [[{ tags: { a: 1 } }]] }, "")),
      "rows[0][0].tags.a: invalid type: integer `1`, expected a string",
    );
    assert.throws(
      () => nested({ rows: [[{ tags: "secret" }]] }, ""),
      (error) =>
        error instanceof ShapeError &&
        error.messageWithoutStrings === "rows[0][0].tags: invalid type: string, expected a map",
    );
  });

  test("optional keys given as null count as absent; unknown keys are ignored", () => {
    const value = decode({ reference: "x", fields: null, port: null, extra: 1 }, "");
    assert.deepEqual(value, { reference: "x", fields: {}, labels: [], port: undefined });
  });

  test("a required key given as null is an invalid type", () => {
    assert.equal(
      reason(() => decode({ reference: null }, "")),
      "reference: invalid type: null, expected a string",
    );
  });

  test("a key named __proto__ stays an ordinary key", () => {
    const fields = record(string)(JSON.parse('{"__proto__": "x", "a": "b"}'), "");
    assert.deepEqual(Object.keys(fields), ["__proto__", "a"]);
    assert.equal(Object.getPrototypeOf(fields), Object.prototype);
  });
});
