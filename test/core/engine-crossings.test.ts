// The engine's faster glue (issue 14): the functions every value crossing between WASM and
// JavaScript goes through are replaced (engine.ts, GLUE_REPLACEMENTS). These tests pin that the
// replacements apply to the installed minijinja-js and that every kind of string still crosses
// unchanged, in both directions, also after the WASM memory has grown.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { fasterGlueApplied, TemplateEngine } from "../../src/node/template-engine.ts";

describe("the engine's glue", () => {
  test("every faster function applies to the installed minijinja-js", () => {
    assert.equal(fasterGlueApplied(), 4);
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

  test("numbers and other non-strings cross unchanged (the engine reads each by its type)", () => {
    const engine = new TemplateEngine();
    const out = engine.render(
      "t",
      "{{ i + 1 }}|{{ f * 2 }}|{{ neg }}|{{ big }}|{{ s ~ 'x' }}|{{ b }}|{{ n is none }}|{{ m.k + 1 }}|{{ l | sum }}",
      {
        i: 42,
        f: 1.25,
        neg: -3,
        big: 2 ** 53 - 1,
        s: "7",
        b: true,
        n: null,
        m: { k: 0 },
        l: [1, 2.5],
      },
    );
    assert.equal(out, "43|2.5|-3|9007199254740991|7x|true|true|1|3.5");
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
