// biome-ignore-all lint/suspicious/noTemplateCurlyInString: HCL's ${ interpolation is the subject here
// kiln's template filters, pinned value by value. The real-tool round trips (HCL parser,
// ansible-inventory) are in test/catalogue; these pin the exact text the templates write.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseDocument, stringify as yamlStringify } from "yaml";
import { KilnError } from "../../src/core/errors.ts";
import {
  cfgValue,
  hclEscape,
  hclString,
  INI_NAME_KINDS,
  iniGroupName,
  iniHostName,
  iniHostValue,
  iniValue,
  iniVarName,
  integer,
  KILN_FILTERS,
  plainOrQuoted,
  refusal,
  refusalMark,
  refusalMessage,
  safeFilter,
  text,
  tfIdentifier,
  yamlBlock,
  yamlJson,
  yamlKey,
  yamlScalar,
  yamlScalarByLibrary,
  yamlVar,
} from "../../src/core/filters.ts";
import { parseRegistryItem } from "../../src/core/item.ts";
import { renderItem } from "../../src/core/render-item.ts";
import { TemplateEngine } from "../../src/node/template-engine.ts";

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
    }, "`boom`");
    assert.equal(refusalMessage(throwing("x")), '`boom` failed on "x": boom');
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

  test("yaml_var: a whole number as typed reads as that number, everything else as its text, under YAML 1.1 and 1.2", () => {
    const wrong: string[] = [];
    for (const text of strings()) {
      const written = yamlVar(text);
      const expected = /^-?(?:0|[1-9][0-9]*)$/.test(text) ? Number(text) : text;
      for (const version of ["1.1", "1.2"] as const) {
        const read = parseDocument(`v: ${written}\n`, { version }).toJS() as { v: unknown };
        if (!Object.is(read.v, expected)) {
          wrong.push(
            `${version} ${JSON.stringify(text)} -> ${written} -> ${JSON.stringify(read.v)}`,
          );
        }
      }
    }
    assert.deepEqual(wrong.slice(0, 20), []);
    assert.equal(yamlVar("8080"), "8080");
    assert.equal(yamlVar("1.20"), '"1.20"');
    assert.equal(yamlVar("0755"), '"0755"');
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

describe("refusals: what a filter answers for a value it will not write", () => {
  test("a refusal is the mark, the message and the mark; the mark holds NUL and cannot be typed", () => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the mark is delimited by NUL
    assert.match(refusalMark(), /^\u0000kiln-refusal-[0-9a-f-]{36}\u0000$/);
    const refused = refusal("`port` must be a whole number");
    assert.equal(refused, `${refusalMark()}\`port\` must be a whole number${refusalMark()}`);
    assert.equal(refusalMessage(`a: ${refused}\n`), "`port` must be a whole number");
    assert.equal(refusalMessage("a: 1\n"), undefined);
    assert.equal(refusalMessage(refusal("NUL \u0000 inside")), "NUL \\u0000 inside");
  });

  test("kiln filters hand a refusal on unchanged, alone or inside a list or map", () => {
    const refused = integer("three", "port");
    for (const [name, filter] of Object.entries(KILN_FILTERS)) {
      const safe = safeFilter(filter);
      assert.equal(safe(refused), refused, name);
      assert.equal(safe(`x${refused}y`), `x${refused}y`, name);
      assert.equal(safe(["a", new Map([["k", refused]])]), refused, name);
    }
  });

  test("renderItem fails with the item's reference and the message; nothing is returned", () => {
    const engine = new TemplateEngine();
    const item = parseRegistryItem(
      {
        name: "thing",
        category: "misc",
        files: [{ path: "{{ name }}.yaml", template: "port: {{ port | integer('port') }}\n" }],
      },
      "misc/thing",
    );
    const ok = renderItem(engine, item, {
      name: "a",
      fields: { port: "8080" },
      defaultNamespace: "d",
    });
    assert.equal(ok.files[0]?.content, "port: 8080\n");
    assert.throws(
      () =>
        renderItem(engine, item, {
          name: "a",
          fields: { port: "80\n  x: 1" },
          defaultNamespace: "d",
        }),
      (error: unknown) =>
        error instanceof KilnError &&
        error.kind === "invalid_request" &&
        error.message ===
          'misc/thing: `port` must be a whole number written in digits, such as 8080 (no sign, leading zeros, spaces or other characters); got "80\\n  x: 1"',
    );
    // in a path too
    const inPath = parseRegistryItem(
      {
        name: "p",
        category: "misc",
        files: [{ path: "{{ name | integer('name') }}", template: "" }],
      },
      "misc/p",
    );
    assert.throws(() => renderItem(engine, inPath, { name: "web", defaultNamespace: "d" }), {
      message: /^misc\/p: `name` must be a whole number/,
    });
  });

  test("a message shows the value escaped and at most 60 characters long", () => {
    const long = refusalMessage(integer(`${"9".repeat(70)}x`, "count")) as string;
    assert.match(long, /got "9{60}"…$/);
    const hidden = refusalMessage(integer("1\u202e2\u001b[31m", "count")) as string;
    assert.match(hidden, /got "1\\u202e2\\u001b\[31m"$/);
  });
});

describe("integer and text", () => {
  test("a whole number is written as typed; anything else is refused", () => {
    assert.equal(integer("8080"), "8080");
    assert.equal(integer(80), "80");
    assert.equal(integer(" 3\n"), "3", "blanks around the number are dropped");
    assert.equal(integer("0"), "0");
    for (const bad of [
      "three",
      "80\n              hostPort: 22",
      "-1",
      "0755",
      "1.5",
      "1e3",
      "+1",
      "",
      " ",
      "8 0",
      "٣",
    ]) {
      assert.equal(
        refusalMessage(integer(bad, "replicas")),
        `\`replicas\` must be a whole number written in digits, such as 8080 (no sign, leading zeros, spaces or other characters); got ${JSON.stringify(bad)}`,
        JSON.stringify(bad),
      );
    }
    assert.ok(refusalMessage(integer(1.5)));
    assert.ok(refusalMessage(integer(-1)));
    assert.ok(refusalMessage(integer(["80"])));
    assert.ok(refusalMessage(integer(true)));
  });

  test("text passes text, numbers and booleans; a list or map is refused", () => {
    assert.equal(text("nginx:1.27"), "nginx:1.27");
    assert.equal(text(80), "80");
    assert.equal(text(false), "false");
    assert.equal(
      refusalMessage(text(["nginx"], "image")),
      '`image` must be text, not a list ("[\\"nginx\\"]"); a value that starts with `[` or `{` and is valid JSON arrives as a list or a map',
    );
    assert.match(refusalMessage(text(new Map([["a", 1]]), "image")) as string, /not a map/);
  });
});

describe("yaml: what YAML 1.1 readers take for something else", () => {
  test("a map key `none` is written null, not `undefined`", () => {
    const engine = new TemplateEngine();
    const out = engine.render(
      "t",
      "{{ {none: 4} | yaml }} {{ {1: none, 'a': [none]} | yaml }}",
      {},
    );
    assert.equal(out, "{ null: 4 } { 1: null, a: [ null ] }");
    const doc = parseDocument("{ null: 4 }", { version: "1.1" }).toJS({ mapAsMap: true });
    assert.deepEqual(doc, new Map([[null, 4]]));
  });

  test("`<<` (merge key) and `=` (value tag) are quoted, alone and in collections", () => {
    assert.equal(yamlScalar("<<"), '"<<"');
    assert.equal(yamlScalar("="), '"="');
    assert.equal(yamlScalarByLibrary("<<"), '"<<"');
    assert.equal(yamlScalar(new Map([["<<", "="]])), '{ "<<": "=" }');
    assert.equal(yamlScalar("<<x"), "<<x");
  });

  test("line breaks YAML 1.1 reads (U+0085, U+2028, U+2029) and characters it refuses are escaped", () => {
    assert.equal(yamlScalar("a\u2028b"), '"a\\u2028b"');
    assert.equal(yamlScalar("a\u0085b"), '"a\\u0085b"');
    assert.equal(yamlScalar("a\u2029b\ufffe\u0080"), '"a\\u2029b\\ufffe\\u0080"');
    assert.equal(yamlScalar(["x\u2028  y"]), '[ "x\\u2028  y" ]');
    for (const value of ["a\u2028  b", "\u0085", "x\ufeffy"]) {
      assert.equal(parseDocument(`k: ${yamlScalar(value)}`, { version: "1.1" }).toJS().k, value);
    }
  });

  test("numbers with an exponent get the `.` YAML 1.1 floats need", () => {
    assert.equal(yamlScalar(1e21), "1.0e+21");
    assert.equal(yamlScalar(1.5e-7), "1.5e-7");
    assert.equal(yamlScalar(5e-7), "5.0e-7");
    assert.equal(parseDocument("k: 1.0e+21", { version: "1.1" }).toJS().k, 1e21);
  });

  test("a key over 1024 characters as written is refused (yaml_key, and keys of flow maps)", () => {
    assert.equal(yamlKey("a".repeat(1024)), "a".repeat(1024));
    assert.match(
      refusalMessage(yamlKey("a".repeat(1025), "labels")) as string,
      /^`labels` has a key 1025 characters long as written \("a{60}"…\); YAML readers take keys of at most 1024 characters$/,
    );
    assert.match(refusalMessage(yamlKey(`${"a".repeat(1022)}: `)) as string, /1026 characters/);
    assert.ok(refusalMessage(yamlScalar(new Map([["k".repeat(2000), 1]]))));
  });

  test("lists and maps are written byte for byte as the yaml library writes ordinary data", () => {
    const words = [
      "web",
      "a b",
      "yes",
      "1.31",
      "a: b",
      "x#y",
      "#x",
      "",
      "*",
      "ünï",
      'say "hi"',
      "1,2",
      "[x]",
      "-",
      "?",
      "~",
      "08",
    ];
    let state = 7;
    const next = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % n;
    };
    const leaf = (): unknown => {
      const pick = next(6);
      if (pick === 0) return next(1000) - 500;
      if (pick === 1) return [true, false, null, 1.5][next(4)];
      return (
        (words[next(words.length)] as string) +
        (next(3) === 0 ? (words[next(words.length)] as string) : "")
      );
    };
    const data = (depth: number): unknown => {
      if (depth > 2 || next(3) === 0) return leaf();
      const size = next(4);
      if (next(2) === 0) return Array.from({ length: size }, () => data(depth + 1));
      return Object.fromEntries(
        Array.from({ length: size }, () => [leaf() ?? "k", data(depth + 1)]),
      );
    };
    const asMaps = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(asMaps)
        : typeof value === "object" && value !== null
          ? new Map(Object.entries(value).map(([k, v]) => [k, asMaps(v)]))
          : value;
    const options = {
      version: "1.1",
      lineWidth: 0,
      minContentWidth: 0,
      collectionStyle: "flow",
      defaultStringType: "PLAIN",
      defaultKeyType: "PLAIN",
    } as const;
    for (let i = 0; i < 3000; i++) {
      const value = data(0);
      if (typeof value !== "object" || value === null) continue;
      const library = yamlStringify(value, options).replace(/\n$/, "");
      assert.equal(yamlScalar(asMaps(value)), library, JSON.stringify(value));
    }
  });
});

describe("yaml_json: tojson's JSON made safe for YAML 1.1 readers", () => {
  const engine = new TemplateEngine();
  const both = (value: unknown) =>
    engine
      .render("t", "{{ v | tojson }}\n{{ v | tojson | yaml_json }}", { v: value })
      .split("\n") as [string, string];

  test("ordinary JSON comes back byte for byte", () => {
    for (const value of [
      ["a", 1, true, null, 1.5, -3],
      { b: [1, { c: "it's <b>&</b>" }], a: "ünï ✓ 😀", "": "" },
      { "9": 1, "10": 2, k: 'tab\there "q" \\' },
      [],
      {},
    ]) {
      const [plain, safe] = both(value);
      assert.equal(safe, plain);
    }
  });

  test("raw U+2028, U+0085, U+FEFF become escapes; exponents get `.0` and a sign", () => {
    const [, safe] = both({ "k\u2028": ["a\u0085b", "\ufeff", 1e21] });
    assert.equal(safe, '{"k\\u2028":["a\\u0085b","\\ufeff",1.0e+21]}');
    assert.deepEqual(parseDocument(safe, { version: "1.1" }).toJS(), {
      "k\u2028": ["a\u0085b", "\ufeff", 1e21],
    });
  });

  test("a key over 1024 characters is refused; text that is not JSON is written as a string", () => {
    assert.ok(refusalMessage(yamlJson(JSON.stringify({ ["k".repeat(1100)]: 1 }), "vars")));
    assert.equal(yamlJson("not json\u2028"), '"not json\\u2028"');
  });
});

describe("yaml_block: raw YAML text that must stay in its place", () => {
  const engine = new TemplateEngine();
  const tasks = [
    "- name: Wait\n  ansible.builtin.wait_for_connection:\n    timeout: 60\n",
    "\n\n- name: a\n\n  debug:\n    msg: |\n      two\n\n      lines\n\n",
    "- name: crlf\r\n  debug: {msg: x}\r\n",
    '# a comment\n- name: x # trailing\n  debug:\n    msg: "a: b"\n   \n',
    '- name: Report\n  ansible.builtin.debug:\n    msg: "{{ inventory_hostname }} done"',
  ];

  test('writes exactly what `trim("\\r\\n") | indent(4, true)` writes', () => {
    for (const value of tasks) {
      const expected = engine.render("a", '{{ t | trim("\\r\\n") | indent(4, true) }}', {
        t: value,
      });
      assert.equal(yamlBlock(value, 4, "plays"), expected, JSON.stringify(value));
      assert.equal(engine.render("b", '{{ t | yaml_block(4, "plays") }}', { t: value }), expected);
    }
    assert.equal(yamlBlock("a: 1\nb: [x]\n", 0), "a: 1\nb: [x]\n");
  });

  test("refuses text that would break out of its place or that YAML readers disagree on", () => {
    const cases: [string, number, RegExp][] = [
      ["- a\r- hosts: all", 4, /holds "\\r", a line break other than \\n/],
      ["- a\u2028- hosts: all", 4, /holds "\\u2028"/],
      ["- a\u0085b", 4, /holds "\\u0085"/],
      ["- a\u0000", 4, /holds "\\u0000"/],
      ["- debug: [", 4, /is not YAML the automation tool reads/],
      ['- debug: "x', 4, /is not YAML the automation tool reads/],
      ["- a\n---\n- b", 4, /document marker/],
      ["%YAML 1.1\n---\na: 1", 0, /directive/],
      ["- a", 0, /must be a YAML mapping/],
      ["plain words", 0, /must be a YAML mapping/],
      ["  a: 1", 0, /read differently or change the lines around it/],
      ["a: &x [1]\nb: *y", 0, /is not YAML the automation tool reads/],
      // what the yaml package reads and the automation tool's PyYAML does not
      [": x", 0, /a mapping key is empty/],
      ["{{ x }}: 1", 0, /a mapping key is a list or map/],
      ["- {{ x }}", 4, /a mapping key is a list or map/],
      ["a: =", 0, /a plain `=`/],
      ["- <<", 4, /a plain `<<`/],
      ["a: !tag x", 0, /the tag `!tag`/],
      ["a:\t1", 0, /a tab outside quotes/],
      ["- a\t", 4, /a tab outside quotes/],
      ["a: b\tc", 0, /a tab outside quotes/],
    ];
    for (const [value, indent, message] of cases) {
      assert.match(
        refusalMessage(yamlBlock(value, indent, "plays")) ?? "",
        message,
        JSON.stringify(value),
      );
    }
    assert.match(refusalMessage(yamlBlock(["a"], 0, "yaml")) ?? "", /must be text, not a list/);
    // indented more than needed is still the same list, in place
    assert.equal(yamlBlock("  - a", 4), "      - a");
    // what the tool reads: a merge key, its own tags, tabs in quotes, comments and block scalars
    for (const ok of ["<<: {a: 1}", "a: !unsafe '{{ x }}'", 'a: "x\ty" # c\td', "a: |\n  x\ty\n"]) {
      assert.equal(yamlBlock(ok, 0), ok);
    }
  });
});

describe("INI names and cm.cfg values: written as they are, or refused", () => {
  test("group names", () => {
    for (const ok of ["web", "db_primary", "web-servers", "all", "a#b", "ünï", "1"]) {
      assert.equal(iniGroupName(ok), ok);
    }
    for (const [bad, why] of [
      ["web\n[all:vars]", "holds a space, a line break or a control character"],
      ["a b", "holds a space"],
      ["a:b", "holds `:`, `[` or `]`"],
      ["a]", "holds `:`, `[` or `]`"],
      ["#x", "starts with `#` or `;`"],
      [";x", "starts with `#` or `;`"],
      ["", "is empty"],
      ["a\u2028b", "holds a space, a line break"],
    ] as const) {
      assert.match(
        refusalMessage(iniGroupName(bad, "hosts")) ?? "",
        new RegExp(
          `^\`hosts\` has a group name .* that an INI inventory cannot hold: it ${why.replace(/[[\]`]/g, "\\$&")}`,
        ),
        bad,
      );
    }
  });

  test("host names", () => {
    for (const ok of [
      "web-1",
      "10.0.0.5",
      "web-1.example.com",
      "2001:db8::1",
      "::1",
      "a=b",
      "ünï",
    ]) {
      assert.equal(iniHostName(ok), ok);
    }
    for (const bad of [
      "web\n[all:vars]",
      "a b",
      "it's",
      'a"b',
      "a\\b",
      "a#b",
      "web[1:3]",
      "host:22",
      "fe80::",
      ";x",
      "---",
      "",
      "\u00a0x",
    ]) {
      assert.ok(
        refusalMessage(iniHostName(bad, "hosts"))?.startsWith("`hosts` has a host name "),
        bad,
      );
    }
  });

  test("variable names", () => {
    for (const ok of ["http_port", "Alpha", "a.b", "a:b", "x-1"]) assert.equal(iniVarName(ok), ok);
    for (const bad of ["a=b", "a b", "#a", "a#", ";a", "[a", "it's", "a\\b", "", "a\nb"]) {
      assert.ok(
        refusalMessage(iniVarName(bad, "hosts"))?.startsWith("`hosts` has a variable name "),
        bad,
      );
    }
  });

  test("a name the fast path writes as it is breaks no rule of its kind", () => {
    // every string of up to 3 characters from an alphabet of plain and special characters
    const alphabet = [
      "a",
      "Z",
      "0",
      "-",
      ".",
      "_",
      ":",
      "#",
      ";",
      "[",
      "]",
      "=",
      "'",
      '"',
      "\\",
      " ",
      "\n",
      "é",
      "@",
    ];
    let names = [""];
    const all: string[] = [""];
    for (let length = 1; length <= 3; length++) {
      names = names.flatMap((name) => alphabet.map((char) => name + char));
      all.push(...names);
    }
    for (const kind of INI_NAME_KINDS) {
      const plain = all.filter((name) => kind.plain.test(name));
      assert.ok(plain.length > 100, `${kind.kind}: the fast path takes plain names`);
      for (const name of plain) {
        const broken = kind.rules.find((rule) => rule.refuses(name));
        assert.equal(broken, undefined, `${kind.kind} ${JSON.stringify(name)}: ${broken?.why}`);
      }
    }
  });

  test("cm.cfg values: % doubled; line breaks, blanks at the ends and ` ;` refused", () => {
    assert.equal(cfgValue("50%inv.ini"), "50%%inv.ini");
    assert.equal(cfgValue("roles:vendor/roles"), "roles:vendor/roles");
    assert.equal(cfgValue("a;b #c"), "a;b #c");
    for (const bad of ["a\nb", "a\rb", "a\u2028b", " a", "a ", "a ;b", ";a", "a\tb"]) {
      assert.ok(refusalMessage(cfgValue(bad, "inventory"))?.startsWith("`inventory` is "), bad);
    }
    assert.match(refusalMessage(cfgValue(["a"], "inventory")) ?? "", /must be text, not a list/);
  });

  test("a Python literal keeps a lone surrogate and a map key none", () => {
    assert.equal(iniValue("a\ud800"), "'a\\ud800'");
    assert.equal(iniValue(new Map([[undefined, 1]])), "{None: 1}");
  });
});
