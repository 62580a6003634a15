// The words the dashboard shows for a refused field value: the form's label of the field, the
// message under it and the preview's summary, from the core's structured problem.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FORMAT_RULES } from "../../src/core/formats.ts";
import { chooseLanguage } from "../../web/src/i18n/i18n.ts";
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

  it("in French the words are French, with French number formats, a format's fixed rule by its name; JSON shapes keep the core's words", () => {
    chooseLanguage("fr");
    try {
      const missing = {
        field: "image",
        path: "",
        rule: "missing",
        expected: "is required",
      } as const;
      assert.equal(fieldErrorMessage(missing), "«\u00a0Image\u00a0» est obligatoire");
      const bounds = {
        field: "replicas",
        path: "",
        rule: "invalid",
        expected: "must be a whole number from 0 to 2147483647, written in digits",
        got: "",
      } as const;
      assert.equal(
        fieldErrorSummary(bounds),
        "Replicas\u00a0: doit être un nombre entier de 0 à 2\u202f147\u202f483\u202f647, écrit en chiffres – reçu rien",
      );
      const dns = {
        field: "name",
        path: "[0].host",
        rule: "invalid",
        expected: FORMAT_RULES["dns-label"],
        got: "A_B",
      } as const;
      assert.equal(
        fieldErrorMessage(dns),
        "À [0].host\u00a0: doit être un label DNS (RFC 1123)\u00a0: 1 à 63 caractères faits de lettres minuscules, de chiffres et de `-`, qui commencent et finissent par une lettre ou un chiffre – reçu A_B",
      );
      const address = { ...dns, path: "", expected: FORMAT_RULES.ip, got: "10.0.0" };
      assert.equal(
        fieldErrorMessage(address),
        "doit être une adresse IPv4 ou IPv6, comme 192.0.2.10 ou 2001:db8::1 – reçu 10.0.0",
      );
      // a JSON shape's words are the core's, which quote the keys and values they name
      const shape = { ...dns, expected: 'has an unknown key "uri"; did you mean `url`?' };
      assert.equal(
        fieldErrorMessage(shape),
        'À [0].host\u00a0: has an unknown key "uri"; did you mean `url`? – reçu A_B',
      );
    } finally {
      chooseLanguage("en");
    }
  });
});
