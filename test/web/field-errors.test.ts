// The words the dashboard shows for a refused field value: the form's label of the field, the
// message under it and the preview's summary, from the core's structured problem.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  fieldErrorMessage,
  fieldErrorSummary,
  fieldLabel,
} from "../../web/src/model/field-errors.ts";

describe("a refused field in the form's words", () => {
  it("a field's label is its name in words, first letter capital", () => {
    assert.equal(fieldLabel("image"), "Image");
    assert.equal(fieldLabel("target_port"), "Target port");
    assert.equal(fieldLabel("os-image"), "Os image");
  });

  it("a missing required field is `<Label> is required`, with no CLI flag", () => {
    const problem = { field: "image", path: "", rule: "missing", expected: "is required" } as const;
    assert.equal(fieldErrorMessage(problem), "Image is required");
    assert.equal(fieldErrorSummary(problem), "Image is required");
  });

  it("a value that does not fit says what the field takes and what it got", () => {
    const problem = {
      field: "replicas",
      path: "",
      rule: "invalid",
      expected: "must be a whole number from 0 to 2147483647, written in digits",
      got: "three",
    } as const;
    assert.equal(
      fieldErrorMessage(problem),
      "must be a whole number from 0 to 2147483647, written in digits - got three",
    );
    assert.equal(
      fieldErrorSummary(problem),
      "Replicas: must be a whole number from 0 to 2147483647, written in digits - got three",
    );
  });

  it("a problem inside a JSON value leads with its place; an empty value is named", () => {
    const inside = {
      field: "hosts",
      path: "[0].members[1].cm_port",
      rule: "invalid",
      expected: "must be a port number",
      got: "x1",
    } as const;
    assert.equal(
      fieldErrorMessage(inside),
      "At [0].members[1].cm_port: must be a port number - got x1",
    );
    assert.equal(
      fieldErrorMessage({
        field: "name",
        path: "",
        rule: "invalid",
        expected: "must be a DNS label",
        got: "",
      }),
      "must be a DNS label - got nothing",
    );
  });
});
