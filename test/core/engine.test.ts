// The template engine: Jinja semantics as MiniJinja 2 has them, and a sandbox that strangers'
// templates cannot escape, hang, crash or bloat.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { Environment } from "minijinja-js";
import { KilnError } from "../../src/core/errors.ts";
import { yamlScalar } from "../../src/core/filters.ts";
import { capWasmMemory, MAX_FUEL, TemplateEngine } from "../../src/node/template-engine.ts";

interface CorpusCase {
  name: string;
  template: string;
  context: Record<string, unknown>;
  expected: string;
}

const corpus = JSON.parse(
  readFileSync(new URL("fixtures/engine-corpus.json", import.meta.url), "utf8"),
) as CorpusCase[];

/** The stock minijinja-js package, configured as decisions section 3 says, for comparison. */
function stockMiniJinja() {
  const env = new Environment();
  env.keepTrailingNewline = true;
  env.undefinedBehavior = "chainable";
  return env;
}

const engine = new TemplateEngine();

function renderError(
  source: string,
  context: Record<string, unknown> = {},
  on = engine,
): KilnError {
  try {
    on.render("t", source, context);
  } catch (error) {
    assert.ok(error instanceof KilnError, `expected a KilnError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(source)} to fail`);
}

describe("engine corpus: same bytes as MiniJinja", () => {
  const stock = stockMiniJinja();
  for (const c of corpus) {
    test(c.name, () => {
      const ours = engine.render(`corpus ${c.name}`, c.template, c.context);
      assert.equal(
        ours,
        stock.renderStr(c.template, c.context),
        "kiln's engine and stock MiniJinja agree",
      );
      assert.equal(ours, c.expected, "the pinned expectation holds");
    });
  }
});

describe("engine sandbox", () => {
  const escapes = [
    "{{ range.constructor('return process')() }}",
    "{{ ''.constructor.constructor('return process')() }}",
    "{{ x.__proto__ }}{{ x.constructor }}{{ x.constructor.constructor }}",
    "{{ ''.__class__.__mro__ }}{{ x.__class__.__subclasses__() }}",
    "{{ cycler.__init__.__globals__ }}{{ self.__init__ }}",
    "{{ lipsum.__globals__ }}{{ joiner.__init__ }}",
  ];
  for (const source of escapes) {
    test(`no way out through ${source}`, () => {
      let output = "";
      try {
        output = engine.render("t", source, { x: {} });
      } catch (error) {
        assert.ok(error instanceof KilnError); // a render error is fine, an escape is not
        return;
      }
      assert.doesNotMatch(output, /process|function|native code|\[object/i);
    });
  }

  test("a CPU bomb runs out of fuel", () => {
    const error = renderError(
      "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    );
    assert.equal(error.kind, "internal");
    assert.match(error.message, /out of fuel/);
  });

  test("a string bomb hits the memory cap, and the engine recovers", () => {
    const small = new TemplateEngine({ memoryBytes: 64 * 1024 * 1024 });
    const error = renderError('{{ "x" * 2000000000 }}', {}, small);
    assert.equal(error.kind, "internal");
    assert.equal(small.render("t", "still {{ ok }}", { ok: "working" }), "still working");
  });

  test("string doubling in a loop hits a limit", () => {
    const small = new TemplateEngine({ memoryBytes: 64 * 1024 * 1024 });
    renderError(
      '{% set ns = namespace(s="xxxxxxxx") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}',
      {},
      small,
    );
    assert.equal(small.render("t", "ok", {}), "ok");
  });

  test("list doubling hits a limit", () => {
    const small = new TemplateEngine({ memoryBytes: 64 * 1024 * 1024 });
    renderError(
      "{% set ns = namespace(l=[1, 2, 3, 4]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }}",
      {},
      small,
    );
    assert.equal(small.render("t", "ok", {}), "ok");
  });

  test("deep recursion stops at MiniJinja's recursion limit", () => {
    const error = renderError("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}");
    assert.match(error.message, /recursion limit/);
  });

  test("a template-triggered engine panic is an error of that render, then the engine recovers", () => {
    const error = renderError("{{ 1.0 < 9007199254740993 }}");
    assert.equal(error.kind, "internal");
    assert.equal(engine.render("t", "{{ a }}", { a: "fine" }), "fine");
  });

  test("error messages are one line and do not echo variable values", () => {
    const error = renderError("{{ secret + [] }}", { secret: "hunter2" });
    assert.doesNotMatch(error.message, /hunter2/);
    assert.doesNotMatch(error.message, /\n/);
  });

  test("templates named like .yaml or .json files are not auto-escaped", () => {
    assert.equal(engine.render("deploy.yaml", "{{ v }}", { v: "<a & 'b'>" }), "<a & 'b'>");
    assert.equal(engine.render("x.json", "{{ v }}", { v: '"q"' }), '"q"');
  });

  test("a changed template under the same name is recompiled; the cache stays bounded", () => {
    const tiny = new TemplateEngine({ cacheSize: 2 });
    assert.equal(tiny.render("a", "one", {}), "one");
    assert.equal(tiny.render("a", "two", {}), "two");
    for (let i = 0; i < 10; i++) assert.equal(tiny.render(`n${i}`, `{{ ${i} }}`, {}), String(i));
    assert.equal(tiny.render("a", "two", {}), "two");
  });
});

describe("engine limits", () => {
  test("fuel above what minijinja-js honours is refused instead of failing every render", () => {
    assert.throws(() => new TemplateEngine({ fuel: MAX_FUEL + 1 }), RangeError);
    assert.throws(() => new TemplateEngine({ fuel: 0 }), RangeError);
    assert.equal(new TemplateEngine({ fuel: MAX_FUEL }).render("t", "{{ 1 + 1 }}", {}), "2");
  });
});

describe("capWasmMemory", () => {
  test("adds a maximum to a memory without one", () => {
    // (module (memory 1)) with its memory section: id 5, size 3, count 1, flags 0, min 1
    const module = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 3, 1, 0, 1]);
    const capped = capWasmMemory(module, 2);
    const memory = new WebAssembly.Instance(
      new WebAssembly.Module(
        // export the memory so the test can grow it: append an export section
        Uint8Array.from([...capped, 7, 7, 1, 3, 0x6d, 0x65, 0x6d, 2, 0]),
      ),
    ).exports.mem as WebAssembly.Memory;
    assert.equal(memory.grow(1), 1);
    assert.throws(() => memory.grow(1), RangeError);
  });
});

describe("kiln filters", () => {
  test("yaml quotes only what YAML 1.1 readers would misread", () => {
    assert.equal(yamlScalar("web"), "web");
    assert.equal(yamlScalar("nginx:1.27"), "nginx:1.27");
    for (const risky of [
      "yes",
      "no",
      "on",
      "",
      "a: b",
      "#x",
      "*x",
      "&x",
      "3",
      "0755",
      "null",
      "~",
      "- x",
      "true",
    ]) {
      assert.notEqual(yamlScalar(risky), risky, `${risky} must be quoted`);
    }
    assert.equal(yamlScalar("two\nlines"), '"two\\nlines"');
    for (const marker of ["---", "...", "--- x", "... y"]) {
      assert.equal(
        yamlScalar(marker),
        JSON.stringify(marker),
        "document markers stay one quoted line",
      );
    }
  });

  test("a filter never throws into the engine", () => {
    assert.equal(
      engine.render("t", "[{{ none_value | yaml }}][{{ missing | yaml }}][{{ [1] | yaml }}]", {
        none_value: null,
      }),
      '[""][""][[ 1 ]]',
    );
  });
});
