// The words the dashboard shows for a refused field value: the form's label of the field, the
// message under it and the preview's summary, from the core's structured problem: the rule's
// code and params, never the English of `expected` (the problems below carry a stand-in there,
// so a wording read back from it would show).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FieldProblem } from "../../src/core/errors.ts";
import { FORMAT_RULES } from "../../src/core/formats.ts";
import { chooseLanguage } from "../../web/src/i18n/i18n.ts";
import {
  fieldErrorMessage,
  fieldErrorSummary,
  fieldLabel,
} from "../../web/src/model/field-errors.ts";

/** What the core's English says, replaced in these problems: a dashboard reading it would show it. */
const NOT_READ = "(the core's English, not read)";

describe("a refused field in the form's words", () => {
  it("a field's label is its name in words, first letter capital", () => {
    assert.equal(fieldLabel("image"), "Image");
    assert.equal(fieldLabel("target_port"), "Target port");
    assert.equal(fieldLabel("os-image"), "Os image");
  });

  it("a missing required field is `<Label> is required`, with no CLI flag", () => {
    const problem: FieldProblem = {
      field: "image",
      path: "",
      rule: "missing",
      expected: NOT_READ,
      code: "required",
      params: {},
    };
    assert.equal(fieldErrorMessage(problem), "Image is required");
    assert.equal(fieldErrorSummary(problem), "Image is required");
  });

  it("a value that does not fit says what the field takes, from the rule's code and params, and what it got", () => {
    const problem: FieldProblem = {
      field: "replicas",
      path: "",
      rule: "invalid",
      expected: NOT_READ,
      got: "three",
      code: "whole_number",
      params: { min: 0, max: 2147483647 },
    };
    assert.equal(
      fieldErrorMessage(problem),
      "must be a whole number from 0 to 2147483647, written in digits - got three",
    );
    assert.equal(
      fieldErrorSummary(problem),
      "Replicas: must be a whole number from 0 to 2147483647, written in digits - got three",
    );
    const unbounded: FieldProblem = { ...problem, code: "whole_number", params: {} };
    assert.equal(
      fieldErrorMessage(unbounded),
      "must be a whole number, written in digits (`-` in front when negative) - got three",
    );
  });

  it("a problem inside a JSON value leads with its place; an empty value is named", () => {
    const inside: FieldProblem = {
      field: "hosts",
      path: "[0].members[1].cm_port",
      rule: "invalid",
      expected: NOT_READ,
      got: "x1",
      code: "format",
      params: { format: "port" },
    };
    assert.equal(
      fieldErrorMessage(inside),
      `At [0].members[1].cm_port: ${FORMAT_RULES.port} - got x1`,
    );
    assert.equal(
      fieldErrorMessage({ ...inside, path: "", got: "", params: { format: "dns-label" } }),
      `${FORMAT_RULES["dns-label"]} - got nothing`,
    );
  });

  it("JSON shapes, YAML, Ingress paths and CIDR host bits are worded from their params", () => {
    const base = { field: "targets", path: "[0]", rule: "invalid", expected: NOT_READ } as const;
    assert.equal(
      fieldErrorMessage({
        ...base,
        got: '{"uri":"a"}',
        code: "json_unknown_key",
        params: { key: "uri", suggestion: "url", keys: ["url"] },
      }),
      'At [0]: has an unknown key `uri`; did you mean `url`? - got {"uri":"a"}',
    );
    assert.equal(
      fieldErrorMessage({
        ...base,
        path: "",
        got: "web",
        code: "json_type",
        params: { types: ["array", "object"], plainText: true },
      }),
      "must be an array or an object (JSON text starts with `[` or `{`) - got web",
    );
    assert.equal(
      fieldErrorMessage({
        ...base,
        code: "json_missing_key",
        params: { keys: ["role", "name"] },
      }),
      "At [0]: is missing the key `role` or `name`",
    );
    assert.equal(
      fieldErrorMessage({
        ...base,
        path: "",
        code: "yaml_parse",
        params: { line: 2, column: 3, reason: "Nested mappings are not allowed" },
      }),
      "must be valid YAML - line 2, column 3: Nested mappings are not allowed",
    );
    assert.equal(
      fieldErrorMessage({
        ...base,
        path: "",
        got: "/a//b",
        code: "ingress_path",
        params: { problem: "contains", text: "//" },
      }),
      "must not contain `//` (an Ingress path of pathType Prefix or Exact, such as /api) - got /a//b",
    );
    assert.equal(
      fieldErrorMessage({
        ...base,
        path: "",
        code: "cidr_host_bits",
        params: { range: "10.0.0.5/24", network: "10.0.0.0/24" },
      }),
      "must name each range by its network address, with no host bits set: `10.0.0.5/24` is in the range `10.0.0.0/24` - write `10.0.0.0/24`",
    );
    assert.equal(
      fieldErrorMessage({
        ...base,
        code: "json_size",
        params: { of: "entries", bound: "min", limit: 1 },
      }),
      "At [0]: must have at least 1 entry",
    );
  });

  it("in French the words are French, with French number formats, a format's fixed rule by its name, JSON shapes and CIDR host bits from their params", () => {
    chooseLanguage("fr");
    try {
      const missing: FieldProblem = {
        field: "image",
        path: "",
        rule: "missing",
        expected: NOT_READ,
        code: "required",
        params: {},
      };
      assert.equal(fieldErrorMessage(missing), "«\u00a0Image\u00a0» est obligatoire");
      const bounds: FieldProblem = {
        field: "replicas",
        path: "",
        rule: "invalid",
        expected: NOT_READ,
        got: "",
        code: "whole_number",
        params: { min: 0, max: 2147483647 },
      };
      assert.equal(
        fieldErrorSummary(bounds),
        "Replicas\u00a0: doit être un nombre entier de 0 à 2\u202f147\u202f483\u202f647, écrit en chiffres – reçu rien",
      );
      const dns: FieldProblem = {
        field: "name",
        path: "[0].host",
        rule: "invalid",
        expected: NOT_READ,
        got: "A_B",
        code: "format",
        params: { format: "dns-label" },
      };
      assert.equal(
        fieldErrorMessage(dns),
        "À [0].host\u00a0: doit être un label DNS (RFC 1123)\u00a0: 1 à 63 caractères faits de lettres minuscules, de chiffres et de `-`, qui commencent et finissent par une lettre ou un chiffre – reçu A_B",
      );
      const address: FieldProblem = { ...dns, path: "", got: "10.0.0", params: { format: "ip" } };
      assert.equal(
        fieldErrorMessage(address),
        "doit être une adresse IPv4 ou IPv6, comme 192.0.2.10 ou 2001:db8::1 – reçu 10.0.0",
      );
      const shape: FieldProblem = {
        ...dns,
        got: '{"uri":"a"}',
        code: "json_unknown_key",
        params: { key: "uri", suggestion: "url", keys: ["url"] },
      };
      assert.equal(
        fieldErrorMessage(shape),
        'À [0].host\u00a0: a une clé inconnue `uri`\u202f; vouliez-vous dire `url`\u202f? – reçu {"uri":"a"}',
      );
      const hostBits: FieldProblem = {
        ...dns,
        path: "",
        got: "10.0.0.5/24",
        code: "cidr_host_bits",
        params: { range: "10.0.0.5/24", network: "10.0.0.0/24" },
      };
      assert.equal(
        fieldErrorMessage(hostBits),
        "doit nommer chaque plage par son adresse de réseau, sans bits d’hôte\u00a0: `10.0.0.5/24` est dans la plage `10.0.0.0/24` – écrivez `10.0.0.0/24` – reçu 10.0.0.5/24",
      );
      const types: FieldProblem = {
        ...dns,
        path: "",
        got: "web",
        code: "json_type",
        params: { types: ["array", "object"], plainText: true },
      };
      assert.equal(
        fieldErrorMessage(types),
        "doit être un tableau ou un objet (un texte JSON commence par `[` ou `{`) – reçu web",
      );
    } finally {
      chooseLanguage("en");
    }
  });
});
