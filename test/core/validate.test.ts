// Values checked against what their item declares, before rendering (src/core/validate.ts):
// every format, JSON Schemas with the path inside the value, JSON parse positions, the built-ins'
// declarations against their presets, and items that declare nothing left exactly as the
// specification has them.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { FIELD_VALIDATORS_PATH, fieldValidatorsModule } from "../../scripts/field-validators.ts";
import { requiredFieldError } from "../../src/core/context.ts";
import { closest, MAX_SUGGESTED_NAME } from "../../src/core/did-you-mean.ts";
import { KilnError, reworded } from "../../src/core/errors.ts";
import { formatProblem } from "../../src/core/formats.ts";
import { itemChecks, parseRegistryItem, type RegistryItem } from "../../src/core/item.ts";
import { componentInput } from "../../src/core/project/render-components.ts";
import { renderItem } from "../../src/core/render-item.ts";
import { undeclaredFieldWarnings, validateInput } from "../../src/core/validate.ts";
import type { FieldFormat } from "../../src/core/vocabulary.ts";
import { builtinPresets } from "../../src/node/builtin-presets.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { builtinFor } from "../../src/node/resolve-reference.ts";
import { TemplateEngine } from "../../src/node/template-engine.ts";

const engine = new TemplateEngine();
const registry = builtinRegistry();
const builtin = (reference: string) => builtinFor(reference, registry) as RegistryItem;

function item(fields: unknown[], kiln: Record<string, unknown> = {}): RegistryItem {
  return parseRegistryItem(
    {
      name: "thing",
      category: "custom",
      fields,
      files: [{ path: "{{ name }}.txt", template: "{{ value }}|{{ value is string }}\n" }],
      kiln,
    },
    "thing.json",
  );
}

/** The message (and detail) `validateInput` refuses with, or undefined when it accepts. */
function refusal(
  target: RegistryItem,
  fields: Record<string, string>,
  name = "web",
): { message: string; detail: string | undefined } | undefined {
  try {
    validateInput(target, { name, fields, defaultNamespace: "default" });
    return undefined;
  } catch (error) {
    assert.ok(error instanceof KilnError, String(error));
    assert.equal(error.kind, "invalid_request");
    return { message: error.message, detail: error.detail };
  }
}

const accepts = (format: FieldFormat, value: string, bounds = {}) =>
  assert.equal(
    formatProblem(format, value, bounds),
    undefined,
    `${format} accepts ${JSON.stringify(value)}`,
  );
const refuses = (format: FieldFormat, value: string, bounds = {}) =>
  assert.notEqual(
    formatProblem(format, value, bounds),
    undefined,
    `${format} refuses ${JSON.stringify(value)}`,
  );

describe("formats", () => {
  test("integer: whole numbers in digits, within the bounds", () => {
    for (const value of ["0", "7", "-12", " 42 ", "123456789012345678901234567890"])
      accepts("integer", value);
    for (const value of ["", "three", "1.5", "+1", "0755", "-0", "1e3", "0x1f", "1 2", "[1]"]) {
      refuses("integer", value);
    }
    accepts("integer", "0", { minimum: 0, maximum: 2147483647 });
    accepts("integer", "2147483647", { minimum: 0, maximum: 2147483647 });
    refuses("integer", "2147483648", { minimum: 0, maximum: 2147483647 });
    refuses("integer", "-1", { minimum: 0 });
    refuses("integer", "11", { maximum: 10 });
    assert.equal(
      formatProblem("integer", "three", { minimum: 0, maximum: 9 }),
      'must be a whole number from 0 to 9, written in digits; got "three"',
    );
    assert.match(
      formatProblem("integer", "x") ?? "",
      /^must be a whole number, written in digits \(`-` in front when negative\)/,
    );
  });

  test("port: 1 to 65535", () => {
    for (const value of ["1", "80", "65535", " 8080 "]) accepts("port", value);
    for (const value of ["0", "65536", "080", "http", "-1", ""]) refuses("port", value);
  });

  test("port-or-name: a port number or an IANA service name", () => {
    for (const value of ["8080", "http", "http-alt", "h2c", "a1", "metrics-15chars"])
      accepts("port-or-name", value);
    for (const value of [
      "0",
      "08080",
      "HTTP",
      "-http",
      "http-",
      "my--port",
      "123456",
      "sixteen-chars-xx",
      "a b",
    ]) {
      refuses("port-or-name", value);
    }
  });

  test("boolean: true or false", () => {
    accepts("boolean", "true");
    accepts("boolean", "false");
    for (const value of ["True", "yes", "1", "", " true"]) refuses("boolean", value);
  });

  test("dns-label (RFC 1123), dns-1035-label, dns-subdomain", () => {
    for (const value of ["web", "web-1", "1web", "a".repeat(63)]) accepts("dns-label", value);
    for (const value of [
      "",
      "My_Service",
      "sub/dir",
      "-web",
      "web-",
      "web.app",
      "a".repeat(64),
      "wéb",
    ]) {
      refuses("dns-label", value);
    }
    accepts("dns-1035-label", "web-1");
    refuses("dns-1035-label", "1web");
    for (const value of ["web", "web.example.com", "a-1.b-2"]) accepts("dns-subdomain", value);
    for (const value of [
      "",
      "web..app",
      ".web",
      "Web.app",
      `${"a".repeat(64)}.b`,
      `${"a.".repeat(127)}ab`,
    ]) {
      refuses("dns-subdomain", value);
    }
  });

  test("ip: IPv4 or IPv6, no range", () => {
    for (const value of ["192.0.2.10", "2001:db8::1", "::1", "::ffff:192.0.2.1"])
      accepts("ip", value);
    for (const value of ["256.0.0.1", "192.0.2", "10.0.0.0/8", "web", "", "1.2.3.4.5"])
      refuses("ip", value);
  });

  test("cidr: one or more ranges, separated by commas or spaces, or a JSON list", () => {
    for (const value of [
      "10.0.0.0/16",
      "10.0.0.0/16, 10.1.0.0/16",
      "2001:db8::/32 10.0.0.1",
      '["10.0.0.0/8"]',
    ]) {
      accepts("cidr", value);
    }
    for (const value of ["10.0.0.0/33", "web", ", ", '["10.0.0.0/8", 3]', "[not json"])
      refuses("cidr", value);
    assert.match(formatProblem("cidr", "10.0.0.0/8, nope") ?? "", /got "nope"$/);
  });

  test("cidr: a range with host bits set is refused, naming its network address", () => {
    assert.equal(
      formatProblem("cidr", "10.0.0.0/16, 10.0.0.5/24"),
      "must name each range by its network address, with no host bits set: `10.0.0.5/24` is in the range `10.0.0.0/24` - write `10.0.0.0/24`",
    );
    assert.match(formatProblem("cidr", "2001:db8::1/32") ?? "", /`2001:db8::\/32`$/);
    assert.match(formatProblem("cidr", "fd00:0:0:1::5/64") ?? "", /`fd00:0:0:1::\/64`$/);
    for (const value of ["10.0.0.0/24", "10.0.0.5", "10.0.0.5/32", "::/0", "2001:db8::/32"])
      accepts("cidr", value);
  });

  test("host-address: an IPv4 or IPv6 address or a DNS name; dotted numbers must be an IPv4 address", () => {
    for (const value of ["192.0.2.10", "2001:db8::1", "web-1", "Web-1.Example.com", "db.internal"])
      accepts("host-address", value);
    for (const value of ["10.0.0.999", "10.0.0", "1.2.3.4.5", "web_1", "-web", "a..b", "", "a b"])
      refuses("host-address", value);
  });

  test("an IPv4 address is four octets of one to three ASCII digits, each 255 at most (blanks around it aside)", () => {
    for (const value of [
      "0.0.0.0",
      "255.255.255.255",
      "010.001.0.1",
      "::ffff:192.0.2.1",
      "1.2.3.4\n",
      " 1.2.3.4",
    ])
      accepts("host-address", value);
    for (const value of [
      "256.0.0.1",
      "1.2.3.1000",
      "1.2.3.4/8",
      "1.2.3.4 5",
      "1.2.3.+4",
      "1.2.3.٤",
      "1.2..4",
      "::ffff:192.0.2.256",
    ])
      refuses("host-address", value);
    // the octets' value, not their text, decides a range's network address
    assert.equal(
      formatProblem("cidr", "192.168.001.7/24"),
      "must name each range by its network address, with no host bits set: `192.168.001.7/24` is in the range `192.168.1.0/24` - write `192.168.1.0/24`",
    );
    accepts("cidr", "255.255.255.255/32");
  });

  test("ingress-host: a DNS subdomain, `*.` for a wildcard, never an IP address", () => {
    for (const value of ["app.example.com", "*.example.com", "localhost"])
      accepts("ingress-host", value);
    for (const value of ["10.0.0.1", "App.example.com", "*", "a.*.example.com", "2001:db8::1"])
      refuses("ingress-host", value);
  });

  test("ingress-path: absolute, as Kubernetes takes it for pathType Prefix and Exact", () => {
    for (const value of ["/", "/api", "/api/v1/", "/a.b~c"]) accepts("ingress-path", value);
    for (const [value, why] of [
      ["nopath", "must be an absolute path, starting with `/`"],
      ["/a//b", "must not contain `//`"],
      ["/a/../b", "must not contain `/../`"],
      ["/a%2fb", "must not contain `%2f`"],
      ["/a/.", "must not end with `/.`"],
    ] as const) {
      assert.equal(
        formatProblem("ingress-path", value),
        `${why} (an Ingress path of pathType Prefix or Exact, such as /api); got ${JSON.stringify(value)}`,
      );
    }
  });

  test("duration: Go's syntax without a sign", () => {
    for (const value of ["30s", "5m", "1h30m", "1.5h", "250ms", "0", "2h45m10s"])
      accepts("duration", value);
    for (const value of ["", "30", "5 m", "-5m", "1d", "m", "PT30S"]) refuses("duration", value);
  });

  test("yaml: YAML that parses, with line and column", () => {
    accepts("yaml", "packages:\n  - nginx\n");
    accepts("yaml", '{"a": 1}');
    const problem = formatProblem("yaml", "a: 1\nb: [\n");
    assert.match(problem ?? "", /^must be valid YAML - line \d+, column \d+: /);
  });
});

describe("validateInput", () => {
  test("an item that declares nothing is not checked: invalid JSON stays a string, as the spec says", () => {
    const plain = item([{ name: "value" }, { name: "count", default: "x" }]);
    assert.deepEqual(itemChecks(plain), { nameFormat: null, fields: {} });
    assert.equal(refusal(plain, { value: "[1, 2,]" }, "Any Name/At all"), undefined);
    const rendered = renderItem(engine, plain, {
      name: "n",
      fields: { value: "[1, 2,]", undeclared: "{" },
      defaultNamespace: "d",
    });
    assert.equal(rendered.files[0]?.content, "[1, 2,]|true\n");
    // and an item built in code declares nothing either
    const { checks: _checks, ...bare } = builtin("k8s/deployment");
    assert.equal(refusal(bare, { image: "x", replicas: "three" }, "My_Service"), undefined);
  });

  test("a format names the component and the field, says what was expected and gives the field's help", () => {
    const target = item([
      {
        name: "replicas",
        format: "integer",
        minimum: 0,
        maximum: 10,
        description: "Pods.",
        example: "3",
      },
    ]);
    assert.deepEqual(refusal(target, { replicas: "three" }), {
      message:
        'custom/thing: `replicas` must be a whole number from 0 to 10, written in digits; got "three"',
      detail: "replicas: Pods.\nfor example: 3",
    });
    assert.equal(refusal(target, { replicas: "10" }), undefined);
    // bounds apply to `integer` only; a bound that is not a number is left out
    assert.deepEqual(
      itemChecks(
        item([
          { name: "p", format: "port", minimum: 5 },
          { name: "n", format: "integer", maximum: "9" },
        ]),
      ).fields,
      {
        p: { format: "port" },
        n: { format: "integer" },
      },
    );
  });

  test("an empty value of a field that is not required means unset; a required one is checked", () => {
    const target = item([
      { name: "port", format: "port" },
      { name: "must", format: "port", required: true },
    ]);
    assert.equal(refusal(target, { port: "", must: "80" }), undefined);
    assert.match(
      refusal(target, { must: "" })?.message ?? "",
      /^custom\/thing: `must` must be a whole number/,
    );
  });

  test("a default is checked too, and said to be the default", () => {
    const target = item([{ name: "port", format: "port", default: "none" }]);
    assert.match(
      refusal(target, {})?.message ?? "",
      /^custom\/thing: `port` \(its default\) must be/,
    );
    assert.equal(refusal(target, { port: "80" }), undefined);
  });

  test("an unknown format or a schema that is not an object is left out, as the metadata is", () => {
    const target = item([
      { name: "a", format: "ports" },
      { name: "b", schema: "array" },
    ]);
    assert.deepEqual(itemChecks(target).fields, {});
    assert.equal(refusal(target, { a: "x", b: "y" }), undefined);
  });

  test("the name's format (kiln.nameFormat)", () => {
    const target = item([], { nameFormat: "dns-label" });
    for (const name of ["My_Service", "sub/dir", "", "web.app"]) {
      const refused = refusal(target, {}, name);
      assert.match(
        refused?.message ?? "",
        /^custom\/thing: `name` must be a DNS label \(RFC 1123\)/,
        name,
      );
      assert.match(refused?.detail ?? "", /kiln add --name/);
    }
    assert.equal(refusal(target, {}, "web-1"), undefined);
  });

  test("JSON that does not parse: line and column, and how JSON is recognised", () => {
    const target = item([{ name: "hosts", schema: { type: "array" }, description: "Groups." }]);
    const refused = refusal(target, { hosts: '[\n  {"group": "web"},\n]' });
    assert.equal(
      refused?.message,
      "custom/thing: `hosts` is not valid JSON - line 3, column 1: expected a value (an object, array, string, number, true, false or null)",
    );
    assert.equal(
      refused?.detail,
      "a value starting with `[` or `{` is read as JSON\nhosts: Groups.",
    );
  });

  test("a schema: the path inside the value and what was expected", () => {
    const target = item([
      {
        name: "hosts",
        schema: {
          type: "array",
          items: {
            type: "object",
            properties: {
              group: { type: "string" },
              port: { type: "integer", minimum: 1, maximum: 65535 },
              "odd key": { type: "string" },
              role: {
                type: ["string", "object"],
                properties: { role: { type: "string" } },
                required: ["role"],
              },
              level: { enum: ["low", "high"] },
              net: { type: "string", format: "ipv4" },
              label: { type: "string", format: "dns-label" },
            },
            required: ["group"],
            additionalProperties: false,
          },
        },
      },
    ]);
    const message = (value: unknown) => refusal(target, { hosts: JSON.stringify(value) })?.message;
    assert.equal(message([{ group: "a" }]), undefined);
    assert.equal(message([{}]), "custom/thing: `hosts[0]` is missing the key `group`");
    // a missing key beside a misspelling of it: the misspelling is the likelier mistake
    assert.equal(
      message([{ grop: "a" }]),
      'custom/thing: `hosts[0]` has an unknown key "grop"; did you mean `group`?',
    );
    assert.equal(
      message([{ group: "a", grop: 1 }]),
      'custom/thing: `hosts[0]` has an unknown key "grop"; did you mean `group`?',
    );
    assert.equal(
      message([{ group: "a", zzz: 1 }]),
      'custom/thing: `hosts[0]` has an unknown key "zzz"; its keys are `group`, `port`, `odd key`, `role`, `level`, `net`, `label`',
    );
    assert.equal(message([{ group: 3 }]), "custom/thing: `hosts[0].group` must be a string; got 3");
    assert.equal(
      message([{ group: "a", port: 0 }]),
      "custom/thing: `hosts[0].port` must be at least 1; got 0",
    );
    assert.equal(
      message([{ group: "a", "odd key": [] }]),
      'custom/thing: `hosts[0]["odd key"]` must be a string; got an array',
    );
    assert.equal(
      message([{ group: "a", role: 1 }]),
      "custom/thing: `hosts[0].role` must be a string or an object; got 1",
    );
    assert.equal(
      message([{ group: "a", level: "mid" }]),
      'custom/thing: `hosts[0].level` must be one of "low", "high"; got the text "mid"',
    );
    assert.equal(
      message([{ group: "a", net: "300.1.1.1" }]),
      'custom/thing: `hosts[0].net` must be in the format `ipv4`; got the text "300.1.1.1"',
    );
    assert.equal(
      message([{ group: "a", label: "Web" }]),
      'custom/thing: `hosts[0].label` must be a DNS label (RFC 1123): 1 to 63 lowercase letters, digits and `-`, starting and ending with a letter or digit; got "Web"',
    );
    // text that is not JSON is checked as a string
    assert.equal(
      refusal(target, { hosts: "web" })?.message,
      'custom/thing: `hosts` must be an array; got the text "web" (JSON text starts with `[` or `{`)',
    );
  });

  test("the error carries its field in parts: name, path inside the value, rule, expected, got", () => {
    const target = item([
      {
        name: "hosts",
        schema: {
          type: "array",
          items: {
            type: "object",
            properties: { port: { type: "integer", minimum: 1, maximum: 65535 } },
          },
        },
      },
      { name: "replicas", format: "integer", minimum: 0, maximum: 10 },
    ]);
    const problem = (fields: Record<string, string>) => {
      try {
        validateInput(target, { name: "web", fields, defaultNamespace: "default" });
        return undefined;
      } catch (error) {
        assert.ok(error instanceof KilnError);
        return error.field;
      }
    };
    assert.deepEqual(problem({ replicas: "three" }), {
      field: "replicas",
      path: "",
      rule: "invalid",
      expected: "must be a whole number from 0 to 10, written in digits",
      got: "three",
      code: "whole_number",
      params: { min: 0, max: 10 },
    });
    // inside a JSON value: the path as the message writes it, the value found there as JSON
    assert.deepEqual(problem({ hosts: '[{"port": 70000}]' }), {
      field: "hosts",
      path: "[0].port",
      rule: "invalid",
      expected: "must be at most 65535",
      got: "70000",
      code: "json_bound",
      params: { comparison: "<=", limit: 65535 },
    });
    // a long value: as much as the message quotes
    assert.equal(problem({ replicas: "x".repeat(100) })?.got, `${"x".repeat(60)}…`);
    // JSON that does not parse: where it stops, and not the whole text again
    const unparsed = problem({ hosts: "[1,]" });
    assert.equal(unparsed?.expected.startsWith("is not valid JSON - line 1, column 4"), true);
    assert.equal(unparsed?.got, undefined);
    assert.equal(unparsed?.code, "json_parse");
    assert.deepEqual(unparsed?.params, {
      line: 1,
      column: 4,
      reason: "expected a value (an object, array, string, number, true, false or null)",
    });
  });

  test("anyOf: the error of the form the value has, the keys any form needs, or the forms", () => {
    const entry = {
      type: ["string", "object"],
      properties: { role: { type: "string" }, name: { type: "string" }, when: { type: "string" } },
      additionalProperties: false,
      anyOf: [{ type: "string" }, { required: ["role"] }, { required: ["name"] }],
    };
    const target = item([{ name: "roles", schema: { type: "array", items: entry } }]);
    const message = (value: unknown) => refusal(target, { roles: JSON.stringify(value) })?.message;
    assert.equal(message(["a", { role: "b", when: "c" }]), undefined);
    assert.equal(
      message([{ when: "c" }]),
      "custom/thing: `roles[0]` is missing the key `role` or `name`",
    );
    assert.equal(
      message([{ rol: "b" }]),
      'custom/thing: `roles[0]` has an unknown key "rol"; did you mean `role`?',
    );
    assert.equal(
      message([{ role: "b", whn: "c" }]),
      'custom/thing: `roles[0]` has an unknown key "whn"; did you mean `when`?',
    );
    const described = item([
      {
        name: "p",
        schema: {
          description: "a port or its name",
          anyOf: [{ type: "integer" }, { type: "string" }],
        },
      },
    ]);
    assert.equal(
      refusal(described, { p: "[1]" })?.message,
      "custom/thing: `p` must be a port or its name; got an array",
    );
  });

  test("a schema that does not compile makes the item invalid, with the reason", () => {
    const target = item([{ name: "x" }, { name: "v", schema: { type: "strin" } }]);
    const refused = refusal(target, { v: "a" });
    assert.equal(refused?.message, "custom/thing is not a valid registry item");
    assert.match(refused?.detail ?? "", /^fields\[1\]\.schema: /);
  });
});

describe("a refused value's parts are bounded like its message", () => {
  test("an unknown key of 200,000 characters comes back cut to 60 in the error's params", () => {
    const inventory = builtinFor("automation/inventory", builtinRegistry()) as RegistryItem;
    const key = "k".repeat(200_000);
    const hosts = JSON.stringify([{ group: "web", members: [{ name: "a", [key]: 1 }] }]);
    try {
      validateInput(inventory, { name: "x", fields: { hosts }, defaultNamespace: "default" });
      assert.fail("the unknown key is refused");
    } catch (error) {
      assert.ok(error instanceof KilnError && error.field?.code === "json_unknown_key");
      const params = error.field.params as { key: string };
      assert.equal(params.key, `${"k".repeat(60)}…`);
      assert.ok(JSON.stringify(error.field).length < 2_000, "the whole field problem stays small");
    }
  });
});

describe("undeclared fields", () => {
  test("the nearest declared field, if near enough", () => {
    assert.equal(closest("replica", ["image", "replicas", "port"]), "replicas");
    assert.equal(closest("targetPort", ["port", "target_port"]), "target_port");
    assert.equal(closest("target-port", ["port", "target_port"]), "target_port");
    assert.equal(closest("imgae", ["image", "replicas"]), "image");
    assert.equal(closest("colour", ["image", "replicas", "port"]), undefined);
    assert.equal(closest("img", ["image"]), undefined);
  });

  test("names from strangers too long to be typos get no suggestion instead of billions of steps", {
    // a fail-safe, not a measure: without the length rules this takes minutes and gigabytes
    timeout: 30_000,
  }, () => {
    const long = (letter: string) => letter.repeat(50_000);
    const fields = ["a", "b", "c", "d"].map(long);
    assert.equal(closest(`${long("a")}x`, fields), undefined, "a name past the length bound");
    assert.equal(
      closest("replica", [...fields, "replicas"]),
      "replicas",
      "long candidates skipped",
    );
    const justShort = "f".repeat(MAX_SUGGESTED_NAME);
    assert.equal(
      closest(`${justShort.slice(1)}g`, [justShort]),
      justShort,
      "at the bound: compared",
    );
  });

  test("a warning for each undeclared field, none for namespace or an item without fields", () => {
    const deployment = builtin("k8s/deployment");
    assert.deepEqual(
      undeclaredFieldWarnings(deployment, {
        replica: "3",
        image: "x",
        namespace: "n",
        colour: "red",
      }),
      [
        "replica is not a field of k8s/deployment; did you mean replicas?",
        "colour is not a field of k8s/deployment (its fields: image, replicas, port); the template receives it as it is",
      ],
    );
    assert.deepEqual(undeclaredFieldWarnings(item([]), { anything: "x" }), []);
  });
});

describe("the built-in components' declarations", () => {
  test("Kubernetes names, numbers and ports, and the JSON-valued fields", () => {
    const declared = Object.fromEntries(
      registry.items.map((entry) => [`${entry.category}/${entry.name}`, itemChecks(entry)]),
    );
    assert.equal(declared["k8s/deployment"]?.nameFormat, "dns-label");
    assert.equal(declared["k8s/service"]?.nameFormat, "dns-1035-label");
    assert.equal(declared["k8s/ingress"]?.nameFormat, "dns-label");
    assert.deepEqual(declared["k8s/deployment"]?.fields.replicas, {
      format: "integer",
      minimum: 0,
      maximum: 2147483647,
    });
    assert.equal(declared["k8s/service"]?.fields.target_port?.format, "port-or-name");
    assert.equal(declared["infra/cloud-a"]?.fields.count?.format, "integer");
    for (const [reference, field] of [
      ["automation/inventory", "hosts"],
      ["automation/playbook", "plays"],
      ["automation/playbook", "roles"],
      ["automation/site", "playbooks"],
      ["automation/group-vars", "vars"],
    ] as const) {
      assert.equal(
        typeof declared[reference]?.fields[field]?.schema,
        "object",
        `${reference} ${field}`,
      );
    }
  });

  test("every default and example fits its declaration", () => {
    for (const entry of registry.items) {
      const checks = itemChecks(entry);
      for (const field of entry.fields) {
        if (!Object.hasOwn(checks.fields, field.name)) continue;
        for (const value of [field.default, field.example]) {
          if (value === undefined) continue;
          assert.equal(
            refusal(entry, { [field.name]: value }, "web"),
            undefined,
            `${entry.name} ${field.name} ${value}`,
          );
        }
      }
    }
  });

  test("the role-entry forms, host keys and types of the automation fields", () => {
    const plays = builtin("automation/playbook");
    const message = (value: unknown) => refusal(plays, { plays: JSON.stringify(value) })?.message;
    const roles = [
      "common",
      { role: "nginx" },
      { role: "pg", when: "x", tags: ["db"], vars: { a: 1 } },
      { name: "alias" },
    ];
    assert.equal(
      message([
        {
          name: "p",
          hosts: "web",
          become: false,
          tags: ["t"],
          pre_tasks: "- debug: {}",
          roles,
          post_tasks: [],
        },
      ]),
      undefined,
    );
    assert.equal(message([{ hosts: "web", roles: "common, nginx" }]), undefined);
    assert.equal(
      message([{ host: "web" }]),
      'automation/playbook: `plays[0]` has an unknown key "host"; did you mean `hosts`?',
    );
    assert.equal(
      message([{ hosts: "web", become: "maybe" }]),
      'automation/playbook: `plays[0].become` must be true or false; got the text "maybe"',
    );
    assert.equal(
      message([{ hosts: "web", roles: [{ when: "x" }] }]),
      "automation/playbook: `plays[0].roles[0]` is missing the key `role` or `name`",
    );
    assert.equal(
      message({ hosts: "web" }),
      "automation/playbook: `plays` must be an array; got an object",
    );

    const inventory = builtin("automation/inventory");
    const hosts = (value: unknown) => refusal(inventory, { hosts: JSON.stringify(value) })?.message;
    assert.equal(
      hosts([
        {
          group: "web",
          members: [
            "a",
            {
              name: "b",
              cm_host: "10.0.0.1",
              cm_user: null,
              cm_port: 2222,
              ssh_key_file: "k",
              vars: { x: [1] },
            },
            { cm_host: "c", cm_port: "22" },
            { name: "d", cm_port: "" },
          ],
          children: ["x"],
          vars: { y: null },
        },
      ]),
      undefined,
    );
    assert.equal(
      hosts([{ group: "web", members: [{ name: "a", cm_port: "ssh" }] }]),
      'automation/inventory: `hosts[0].members[0].cm_port` must be a port number from 1 to 65535 (a number, or its digits), "" or null; got the text "ssh"',
    );
    assert.equal(
      hosts([{ group: "web", members: [{ name: "a", cm_port: 70000 }] }]),
      'automation/inventory: `hosts[0].members[0].cm_port` must be a port number from 1 to 65535 (a number, or its digits), "" or null; got 70000',
    );
    assert.equal(
      hosts([{ group: "web", members: [{ vars: {} }] }]),
      "automation/inventory: `hosts[0].members[0]` is missing the key `name` or `cm_host`",
    );
    assert.equal(
      hosts([{ members: [] }]),
      "automation/inventory: `hosts[0]` is missing the key `group`",
    );
    assert.equal(
      hosts([{ group: "" }]),
      'automation/inventory: `hosts[0].group` must be at least 1 characters long; got the text ""',
    );

    const site = builtin("automation/site");
    assert.equal(
      refusal(site, { playbooks: '["a.yml", {"path": "b.yml"}, {"name": "c", "path": ""}]' }),
      undefined,
    );
    assert.equal(
      refusal(site, { playbooks: '[{"name": "x"}]' })?.message,
      "automation/site: `playbooks[0]` is missing the key `path`",
    );
    const vars = builtin("automation/group-vars");
    assert.equal(
      refusal(vars, { group: "g", vars: '{"a": 1, "b": [1], "c": {"d": null}}' }),
      undefined,
    );
    assert.equal(
      refusal(vars, { group: "g", vars: '["a"]' })?.message,
      "automation/group-vars: `vars` must be an object; got an array",
    );
  });

  test("every preset's components validate, and render the same bytes as without the checks", async () => {
    for (const preset of builtinPresets()) {
      const namespace = preset.project?.namespace ?? "default";
      for (const component of preset.components) {
        const target = builtin(component.reference);
        const input = componentInput(component, namespace);
        const checked = renderItem(engine, target, input);
        const { checks: _checks, ...unchecked } = target;
        assert.deepEqual(
          checked,
          renderItem(engine, unchecked, input),
          `${preset.name} ${component.name}`,
        );
      }
    }
  });

  test("the compiled validators are current (run `npm run validators` after changing a schema)", () => {
    assert.equal(readFileSync(FIELD_VALIDATORS_PATH, "utf8"), fieldValidatorsModule());
  });

  test("built-in values are checked without loading ajv; another item's schema loads it", () => {
    const script = `
      const { renderItem } = await import("./src/core/render-item.ts");
      const { TemplateEngine } = await import("./src/node/template-engine.ts");
      const { builtinRegistry } = await import("./src/node/builtin-registry.ts");
      const { parseRegistryItem } = await import("./src/core/item.ts");
      const { createRequire } = await import("node:module");
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes("/node_modules/ajv/dist/core.js"));
      const engine = new TemplateEngine();
      const registry = builtinRegistry();
      const inventory = registry.byComponentName("inventory");
      renderItem(engine, inventory, { name: "i", fields: { hosts: '[{"group": "web", "members": ["a"]}]' }, defaultNamespace: "d" });
      const before = loaded();
      const other = parseRegistryItem({ ...JSON.parse(JSON.stringify({ name: "x", category: "c", fields: [{ name: "v", schema: { type: "array" } }], files: [{ path: "x", template: "x" }] })) }, "x");
      renderItem(engine, other, { name: "i", fields: { v: "[]" }, defaultNamespace: "d" });
      console.log(JSON.stringify({ before, after: loaded() }));
    `;
    const result = spawnSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        cwd: fileURLToPath(new URL("../..", import.meta.url)),
        encoding: "utf8",
      },
    );
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout.trim()), { before: false, after: true });
  });
});

describe("group vars' group names the output file", () => {
  test("letters, digits, _ and -; a / or a space (another folder, another file) is refused", () => {
    const item = builtinRegistry().byComponentName("group-vars") as Parameters<
      typeof renderItem
    >[1];
    const render = (group: string) =>
      renderItem(new TemplateEngine(), item, {
        name: "g",
        fields: { group },
        defaultNamespace: "d",
      });
    assert.equal(render("k8s-nodes").files[0]?.path, "group_vars/k8s-nodes.yml");
    assert.equal(render("all").files[0]?.path, "group_vars/all.yml");
    for (const group of ["a/b", "we b", "../x", "web\n"]) {
      assert.throws(
        () => render(group),
        /automation\/group-vars: `group` must match the pattern/,
        group,
      );
    }
  });
});

describe("a reworded error", () => {
  test("keeps its kind and the field it is about, with the new words", () => {
    const item = builtinRegistry().byComponentName("deployment") as RegistryItem;
    const original = requiredFieldError("image", item);
    assert.ok(original.field, "the required-field error names its field");
    const hinted = reworded(original, original.message, "a hint");
    assert.equal(hinted.kind, original.kind);
    assert.equal(hinted.detail, "a hint");
    assert.deepEqual(hinted.field, original.field);
  });
});
