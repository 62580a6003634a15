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
  plainOrQuoted,
  safeFilter,
  tfIdentifier,
  yamlScalar,
  yamlScalarByLibrary,
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

describe("yaml filter on lists and maps", () => {
  test("maps from templates are written as plain flow maps, not YAML 1.1 ordered maps", () => {
    const engine = new TemplateEngine();
    const out = engine.render("t", "{{ m | yaml }} {{ l | yaml }}", {
      m: { b: "yes", a: [1, "on"] },
      l: [{ k: null }],
    });
    assert.equal(out, '{ a: [ 1, "on" ], b: "yes" } [ { k: null } ]');
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

describe("yaml filter fast path", () => {
  // yamlScalar writes most strings without the yaml library (plainOrQuoted); it must give exactly
  // what the library gives. Strings are built from fragments that touch every rule: YAML 1.1
  // keywords, numbers, dates and base-60 forms, indicators, `: `, ` #`, spaces at either end,
  // document markers and non-ASCII text (with lone surrogates).
  const FRAGMENTS = [
    ...["y", "Y", "yes", "Yes", "YES", "no", "No", "NO", "n", "N", "on", "On", "ON", "off", "Off"],
    ...["OFF", "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL", "~"],
    ...["0", "7", "07", "08", "0o17", "0b101", "0x1F", "0xg", "1_000", "+12", "-3", "1e3", "1E+3"],
    ...["1.5e-3", ".5", "5.", "1.2.3", ".inf", "-.Inf", "+.INF", ".nan", ".NaN", "190:20:30"],
    ...["1:2", "1:60", "12:30.5", "2001-12-14", "2001-1-1", "t21:59:43.10", " 1:2:3", "-05:00"],
    ...["Z", "2001-12-14T21:59:43Z"],
    ...["-", "?", ":", ",", "[", "]", "{", "}", "#", "&", "*", "!", "|", ">", "'", '"', "%", "@"],
    ...["`", "\\", "=", "<<", "<", "/", ".", "_", "+", "(", ")", "$", "^"],
    ...[": ", " #", "# ", " ", "  ", "- ", "? ", "---", "...", "-- ", ".."],
    ...["a", "web", "app", "nginx:1.27", "10.0.0.5", "shop.example.com", "/healthz", "x y"],
    ...["é", "日本", "😀", "\u00a0", "\u3000", "\ud800", "\udc00", "ß", "Ω"],
  ];
  function random(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    };
  }
  function* strings(): Generator<string> {
    yield "";
    for (const a of FRAGMENTS) {
      yield a;
      for (const b of FRAGMENTS) yield a + b;
    }
    const next = random(1234);
    const pick = () => FRAGMENTS[Math.floor(next() * FRAGMENTS.length)] as string;
    for (let i = 0; i < 30_000; i++) {
      let text = "";
      const parts = 1 + Math.floor(next() * 5);
      for (let j = 0; j < parts; j++) text += pick();
      yield text;
    }
  }

  test("gives the yaml library's output, byte for byte, for every generated string", () => {
    let fast = 0;
    let total = 0;
    const mismatches: string[] = [];
    for (const text of strings()) {
      total += 1;
      const quick = yamlScalar(text);
      if (plainOrQuoted(text) !== undefined) fast += 1;
      const full = yamlScalarByLibrary(text);
      if (quick !== full) {
        mismatches.push(`${JSON.stringify(text)}: ${quick} != ${full}`);
      }
    }
    assert.deepEqual(mismatches.slice(0, 20), []);
    assert.ok(fast > total * 0.8, `the fast path took only ${fast} of ${total} strings`);
  });

  test("pinned examples", () => {
    const cases: [string, string][] = [
      ["web", "web"],
      ["nginx:1.27", "nginx:1.27"],
      ["10.96.0.0/12", "10.96.0.0/12"],
      ["App server", "App server"],
      ["/", "/"],
      ["80", '"80"'],
      ["1.31", '"1.31"'],
      ["yes", '"yes"'],
      ["Off", '"Off"'],
      ["~", '"~"'],
      ["", '""'],
      ["0755", '"0755"'],
      ["1_000", '"1_000"'],
      ["190:20:30", '"190:20:30"'],
      ["2001-12-14", '"2001-12-14"'],
      ["*", '"*"'],
      ["a: b", '"a: b"'],
      ["a #b", '"a #b"'],
      ["a#b", "a#b"],
      [" lead", '" lead"'],
      ["trail ", '"trail "'],
      ["a,b", '"a,b"'],
      ["'x' in y", "\"'x' in y\""],
      ["café", "café"],
    ];
    for (const [input, expected] of cases) {
      assert.equal(yamlScalar(input), expected, input);
      assert.equal(yamlScalarByLibrary(input), expected, input);
    }
  });
});
