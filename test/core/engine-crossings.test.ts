// The engine's faster glue (issue 14): the two helpers every value crossing between WASM and
// JavaScript goes through are replaced (engine.ts, GLUE_REPLACEMENTS). These tests pin that the
// replacements apply to the installed minijinja-js and that every kind of string still crosses
// unchanged, in both directions, also after the WASM memory has grown.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { fasterGlueApplied, TemplateEngine } from "../../src/core/engine.ts";

describe("the engine's glue", () => {
  test("both faster helpers apply to the installed minijinja-js", () => {
    assert.equal(fasterGlueApplied(), 2);
  });

  test("strings of every kind cross both ways unchanged (context, filter argument and result)", () => {
    const engine = new TemplateEngine();
    const values = [
      "",
      "web-1",
      "10.0.0.1",
      "x".repeat(64),
      "x".repeat(65),
      "y".repeat(10_000),
      "\u0000\u0001\u007f",
      "é",
      "naïve café",
      "日本語",
      "a😀b",
      `${"a".repeat(63)}é`,
      `é${"a".repeat(100)}`,
    ];
    for (const value of values) {
      // `text` is a kiln filter (a crossing into JavaScript and back); `~` stays in the engine
      const out = engine.render("t", "{{ v | text('v') }}|{{ v ~ '' }}|{{ v | length }}", {
        v: value,
      });
      assert.equal(out, `${value}|${value}|${[...value].length}`, JSON.stringify(value));
    }
  });

  test("values still cross correctly after the WASM memory has grown", () => {
    const engine = new TemplateEngine();
    const before = engine.render("t", "{{ v | yaml }}", { v: "on" });
    // a large context and a large output make the memory grow (its views are renewed)
    const hosts = Array.from({ length: 20_000 }, (_, index) => `host-${index}`);
    const big = engine.render("big", "{% for h in hosts %}{{ h | text('h') }}\n{% endfor %}", {
      hosts,
    });
    assert.equal(big, hosts.map((host) => `${host}\n`).join(""));
    assert.equal(engine.render("t", "{{ v | yaml }}", { v: "on" }), before);
    assert.equal(before, '"on"');
  });
});
