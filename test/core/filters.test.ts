// biome-ignore-all lint/suspicious/noTemplateCurlyInString: HCL's ${ interpolation is the subject here
// kiln's template filters, pinned value by value. The real-tool round trips (HCL parser,
// ansible-inventory) are in test/catalogue; these pin the exact text the templates write.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TemplateEngine } from "../../src/core/engine.ts";
import {
  hclEscape,
  hclString,
  iniHostValue,
  iniValue,
  KILN_FILTERS,
  safeFilter,
  tfIdentifier,
} from "../../src/core/filters.ts";

describe("hcl filters", () => {
  test("a quoted HCL string in which user values never interpolate", () => {
    assert.equal(hclString("web"), '"web"');
    assert.equal(hclString("${x}"), '"$${x}"');
    assert.equal(hclString("%{ if }"), '"%%{ if }"');
    assert.equal(hclString('q"uote'), '"q\\"uote"');
    assert.equal(hclString("nl\nx"), '"nl\\nx"');
    assert.equal(hclString("\b"), '"\\u0008"', "HCL has no \\b escape");
    assert.equal(hclEscape("a ${b}"), "a $${b}");
  });

  test("tf_identifier makes a valid Terraform name", () => {
    assert.equal(tfIdentifier("web-1"), "web-1");
    assert.equal(tfIdentifier("my.app"), "my_app");
    assert.equal(tfIdentifier("1st"), "_1st");
    assert.equal(tfIdentifier(""), "_");
  });
});

describe("ini filters", () => {
  test("plain text stays bare; anything the INI parser would change becomes a Python literal", () => {
    assert.equal(iniValue("plain"), "plain");
    assert.equal(iniValue("22"), "22");
    assert.equal(iniValue("a b"), "'a b'");
    assert.equal(iniValue("#x"), "'#x'");
    assert.equal(iniValue("1.31"), "'1.31'");
    assert.equal(iniValue("True"), "'True'");
    assert.equal(iniValue("it's"), "'it\\'s'");
  });

  test("host-line values are shell-quoted around the literal", () => {
    assert.equal(iniHostValue("plain"), "plain");
    assert.equal(iniHostValue("a b"), `"'a b'"`);
  });
});

describe("filter safety", () => {
  test("every kiln filter is wrapped so it can never throw into the engine", () => {
    const engine = new TemplateEngine();
    for (const name of Object.keys(KILN_FILTERS)) {
      for (const input of ["none", "[1, {'a': none}]", "{'k': [1.5, true]}", "missing.attr"]) {
        const out = engine.render(`filter ${name}`, `{{ ${input} | ${name} }}`, {});
        assert.equal(typeof out, "string");
      }
    }
    const throwing = safeFilter(() => {
      throw new Error("boom");
    });
    assert.equal(throwing("x"), "");
  });
});
