// Field values must never change the structure of a built-in file. Every field of every
// built-in component gets hostile values (line breaks, `: `, `#`, `[`, `]`, `=`, quotes, `${`,
// `%{`, `{{`, control characters, Unicode line separators, ...), and each render must either
// - be refused: a KilnError `invalid_request` whose message starts with the reference and names
//   the field, or
// - give files that the real readers read back with exactly the value given and nothing else:
//   YAML through the `yaml` package (1.1 and 1.2 agreeing) and the automation tool's own loader
//   (PyYAML with its constructors), Kubernetes manifests also through the strict schema, Terraform through the
//   HCL parser of test/tools/hcl.ts, inventories through `ansible-inventory --list`, cm.cfg through configparser as
//   the automation tool builds it. Each check compares the whole parsed file with the one the
//   inputs call for, so an added key, variable, section or host fails it.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${` in values is what is tested
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { parseDocument } from "yaml";
import { KilnError } from "../../src/core/errors.ts";
import { tfIdentifier } from "../../src/core/filters.ts";
import { type RenderedFile, renderItem } from "../../src/core/render-item.ts";
import { builtinRenderer } from "../../src/node/builtin-renderer.ts";
import { resolveReference } from "../../src/node/resolve-reference.ts";
import {
  type AnsibleInventoryList,
  ansibleInventoryListAll,
  ansiblePython,
  ansibleSkip,
} from "../tools/ansible.ts";
import { hclJsonLiteral, parseTerraform } from "../tools/hcl.ts";
import { validateK8sManifest } from "../tools/k8s-schema.ts";

// the renderer kiln itself renders built-ins with: the compiled templates, or the sandboxed
// engine under KILN_ENGINE=sandbox (CI runs these suites both ways)
const engine = builtinRenderer();
const json = (value: unknown) => JSON.stringify(value);

/** The two exploits this file was written for. */
const PORT_EXPLOIT = "80\n              hostPort: 22";
const HOST_EXPLOIT = `web-1\n[all:vars]\nansible_ssh_common_args='-o ProxyCommand="sh -c id"'`;

/** Values that change a file's structure unless written with care, or cannot be written. */
const HOSTILE: readonly string[] = [
  PORT_EXPLOIT,
  HOST_EXPLOIT,
  "a\nb",
  "a\r\nb",
  "a\rb",
  "\n",
  "two\n  injected: true",
  "a: b",
  "a:b",
  "- item",
  "? key",
  ": x",
  "# comment",
  "a #b",
  "a#b",
  "; x",
  "a ;b",
  "a;b",
  "[",
  "]",
  "[x]",
  "web[1:3]",
  "host:22",
  "[::1]:22",
  "=",
  "a=b",
  "<<",
  "?",
  "'",
  '"',
  'it\'s "quoted"',
  "\\",
  "back\\slash\\n",
  "${var.secret}",
  "%{ if true }x%{ endif }",
  "$${x}",
  "%%{x}",
  "$",
  "{{ jinja }}",
  "{% raw %}",
  "{#",
  "\u0000",
  "a\u0007b\bc\fd\ve",
  "\u001b[31mred\u001b[0m",
  "\t",
  "tab\there",
  "\u007f",
  "\u0085",
  "a\u0085b",
  "\u2028",
  "a\u2028  b",
  "a\u2029b",
  "\ufeff",
  "\u200e\u202e",
  "\ufffe",
  "---",
  "...",
  "--- x",
  "---\nx: 1",
  "%YAML 1.1",
  "*alias",
  "&anchor",
  "!tag",
  "|",
  ">",
  "@at",
  "`tick`",
  " padded ",
  "",
  " ",
  "yes",
  "on",
  "null",
  "~",
  "True",
  "None",
  "0755",
  "1e3",
  "0x1f",
  "1.5",
  "-1",
  '["a"]',
  '{"a": 1}',
  "[1, 2",
  "ünï ✓ 😀",
];

interface Input {
  name?: string;
  fields?: Record<string, string>;
  labels?: Record<string, string>;
}

type Attempt = { refused: KilnError } | { files: RenderedFile[] };

/** Renders through the real core; a refusal is returned, any other error thrown. */
async function attempt(reference: string, input: Input): Promise<Attempt> {
  const item = await resolveReference(reference);
  try {
    const { files } = renderItem(engine, item, {
      name: input.name ?? "web",
      fields: input.fields ?? {},
      labels: input.labels ?? {},
      defaultNamespace: "default",
    });
    return { files };
  } catch (error) {
    if (error instanceof KilnError && error.kind === "invalid_request") return { refused: error };
    throw error;
  }
}

/** Counts of both outcomes, so every test can show it exercised both. */
class Tally {
  refused = 0;
  accepted = 0;
}

/**
 * True (and the refusal checked: kind, reference, field named, no NUL) when `result` is a
 * refusal; false when files were written, which the caller then checks.
 */
function refusedFor(
  result: Attempt,
  reference: string,
  field: string,
  what: string,
  tally: Tally,
): result is { refused: KilnError } {
  if (!("refused" in result)) {
    tally.accepted += 1;
    return false;
  }
  tally.refused += 1;
  const { message } = result.refused;
  assert.ok(
    message.startsWith(`${reference}: \`${field}`),
    `${what}: the refusal names the field \`${field}\`: ${message}`,
  );
  assert.ok(!message.includes("\u0000"), `${what}: no refusal mark left in the message`);
  return true;
}

/** One YAML document as the `yaml` package reads it: YAML 1.1 and 1.2 agree, no errors. */
function yamlDoc(text: string, what: string): unknown {
  const readings = (["1.1", "1.2"] as const).map((version) => {
    const doc = parseDocument(text, { version, uniqueKeys: true, prettyErrors: false });
    assert.deepEqual(doc.errors, [], `${what}: YAML ${version} errors in:\n${text}`);
    return doc.toJS() as unknown;
  });
  assert.deepEqual(readings[0], readings[1], `${what}: YAML 1.1 and 1.2 differ:\n${text}`);
  return readings[0];
}

/** The files of a render by path. */
function byPath(files: RenderedFile[]): Record<string, string> {
  return Object.fromEntries(files.map((file) => [file.path, file.content]));
}

// --- the automation tool's own readers, run once per test on everything collected ----------

/**
 * The automation tool's own readers, in its own Python: its YAML loader (PyYAML with the tool's
 * constructors) and configparser as it builds it for a config file.
 */
const PYTHON_READER = `
import sys, json, configparser
from ansible.parsing.yaml.loader import AnsibleLoader
out = []
for kind, text in json.load(sys.stdin):
    try:
        if kind == "yaml":
            out.append({"ok": AnsibleLoader(text).get_single_data()})
        else:
            parser = configparser.ConfigParser(inline_comment_prefixes=(";",))
            parser.read_string(text)
            out.append({"ok": {name: dict(parser[name]) for name in parser.sections()}})
    except Exception as error:
        out.append({"error": type(error).__name__ + ": " + str(error)})
print(json.dumps(out, default=str))
`;

/** Whether the automation tool's readers run here (or must: KILN_REQUIRE_TOOLS=1). */
const toolsRun = ansibleSkip() === false;

type Reader = (text: string) => unknown;

interface PythonCheck {
  kind: "yaml" | "cfg";
  /** Every text the check reads; `check` gets a reader over them. */
  texts: string[];
  what: string;
  check: (read: Reader) => void;
}

/** A check that the automation tool reads `text` as exactly `expected`. */
function readsAs(kind: "yaml" | "cfg", text: string, expected: unknown, what: string): PythonCheck {
  return {
    kind,
    texts: [text],
    what,
    check: (read) =>
      assert.deepEqual(read(text), expected, `${what}, as the automation tool reads it:\n${text}`),
  };
}

/** Runs every collected check with the automation tool's readers (one python3 process). */
function pythonChecks(checks: PythonCheck[]): void {
  if (!toolsRun || checks.length === 0) return;
  const inputs = checks.flatMap((check) => check.texts.map((text) => [check.kind, text]));
  const result = spawnSync(ansiblePython(), ["-c", PYTHON_READER], {
    input: json(inputs),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000,
  });
  assert.equal(result.status, 0, `python3 failed: ${result.error?.message ?? result.stderr}`);
  const answers = JSON.parse(result.stdout) as ({ ok: unknown } | { error: string })[];
  let next = 0;
  for (const check of checks) {
    const read = new Map<string, unknown>();
    for (const text of check.texts) {
      const answer = answers[next++] as { ok: unknown } | { error: string };
      assert.ok(
        "ok" in answer,
        `${check.what}: the automation tool cannot read it: ${"error" in answer ? answer.error : ""}\n${text}`,
      );
      read.set(text, answer.ok);
    }
    check.check((text) => read.get(text));
  }
}

/** Runs `check` with the `yaml` package's reader, as YAML 1.1 and as YAML 1.2 (no errors). */
function yamlReaders(check: (read: Reader) => void): void {
  for (const version of ["1.1", "1.2"] as const) {
    check((text) => {
      const doc = parseDocument(text, { version, uniqueKeys: true, prettyErrors: false });
      assert.deepEqual(doc.errors, [], `YAML ${version} errors in:\n${text}`);
      return doc.toJS() as unknown;
    });
  }
}

const scratchDirs: string[] = [];
after(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/** `ansible-inventory --list` of one inventory text. */
function inventoryList(text: string): AnsibleInventoryList {
  return inventoriesList([text]);
}

/** `ansible-inventory -i <file> -i <file> ... --list` of several inventory texts, one run. */
function inventoriesList(texts: readonly string[]): AnsibleInventoryList {
  const dir = mkdtempSync(join(tmpdir(), "kiln-injection-"));
  scratchDirs.push(dir);
  const paths = texts.map((text, index) => {
    const path = join(dir, `inventory-${index}.ini`);
    writeFileSync(path, text);
    return path;
  });
  return ansibleInventoryListAll(paths);
}

// --- Kubernetes -------------------------------------------------------------------------------

/** Ingress and service ports are trimmed (MiniJinja's `trim`: Unicode White_Space) before use. */
const jinjaTrim = (value: string) =>
  value.replace(
    /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g,
    "",
  );
const WHOLE = /^(?:0|[1-9][0-9]*)$/;

/** What a number field must read back as when it is accepted: the number as typed. */
function typedNumber(value: string, fallback: number, what: string): number {
  if (value === "") return fallback;
  assert.match(value.trim(), WHOLE, `${what}: only a whole number is accepted`);
  return Number(value.trim());
}

interface K8sCase {
  name: string;
  fields: Record<string, string>;
  labels: Record<string, string>;
}

function deploymentFor({ name, fields, labels }: K8sCase): unknown {
  const all = { app: name, ...labels };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: fields.namespace ?? "default", labels: all },
    spec: {
      replicas: typedNumber(fields.replicas ?? "1", 1, "replicas"),
      selector: { matchLabels: { app: all.app } },
      template: {
        metadata: { labels: all },
        spec: {
          containers: [
            {
              name,
              image: fields.image,
              ports: [{ containerPort: typedNumber(fields.port ?? "80", 80, "port") }],
            },
          ],
        },
      },
    },
  };
}

/** A port that is all digits (after trimming) is a number, anything else a name. */
function portOf(value: string): number | string {
  const trimmed = jinjaTrim(value);
  return /^[0-9]*$/.test(trimmed) ? typedNumber(trimmed, 80, "port") : trimmed;
}

function serviceFor({ name, fields, labels }: K8sCase): unknown {
  const all = { app: name, ...labels };
  const port = typedNumber(fields.port ?? "80", 80, "port");
  const target = fields.target_port ? portOf(fields.target_port) : port;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: fields.namespace ?? "default", labels: all },
    spec: {
      selector: all,
      ports: [{ port, targetPort: target, protocol: "TCP" }],
    },
  };
}

function ingressFor({ name, fields, labels }: K8sCase): unknown {
  const port = portOf(fields.port || "80");
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name, namespace: fields.namespace ?? "default", labels: { app: name, ...labels } },
    spec: {
      rules: [
        {
          host: fields.host || `${name}.example.com`,
          http: {
            paths: [
              {
                path: fields.path || "/",
                pathType: "Prefix",
                backend: {
                  service: {
                    name: fields.service || name,
                    port: typeof port === "number" ? { number: port } : { name: port },
                  },
                },
              },
            ],
          },
        },
      ],
    },
  };
}

const K8S: {
  reference: string;
  fields: string[];
  base: Record<string, string>;
  expected: (input: K8sCase) => unknown;
}[] = [
  {
    reference: "k8s/deployment",
    fields: ["image", "replicas", "port", "namespace"],
    base: { image: "nginx:1.27" },
    expected: deploymentFor,
  },
  {
    reference: "k8s/service",
    fields: ["port", "target_port", "namespace"],
    base: {},
    expected: serviceFor,
  },
  {
    reference: "k8s/ingress",
    fields: ["host", "path", "service", "port", "namespace"],
    base: {},
    expected: ingressFor,
  },
];

describe("hostile values in the Kubernetes components", () => {
  it("regression: a port of `80\\n              hostPort: 22` cannot add hostPort to the Deployment", async () => {
    const result = await attempt("k8s/deployment", {
      fields: { image: "nginx:1.27", port: PORT_EXPLOIT },
    });
    assert.ok("refused" in result, "the render is refused");
    // refused before rendering: the field declares the `port` format (src/core/validate.ts)
    assert.equal(
      result.refused.message,
      'k8s/deployment: `port` must be a whole number from 1 to 65535 (a port number), written in digits; got "80\\n              hostPort: 22"',
    );
    // the same for every number field: replicas, the service's port, the servers' count
    for (const [reference, field, fields] of [
      ["k8s/deployment", "replicas", { image: "nginx", replicas: PORT_EXPLOIT }],
      ["k8s/service", "port", { port: PORT_EXPLOIT }],
      ["k8s/service", "target_port", { target_port: "08080" }],
      ["k8s/ingress", "port", { port: "0080" }],
      ["infra/cloud-a", "count", { region: "r", size: "s", count: '1\n  user_data = "x"' }],
      ["infra/cloud-b", "count", { region: "r", size: "s", count: "three" }],
    ] as const) {
      const other = await attempt(reference, { fields });
      assert.ok("refused" in other, `${reference} ${field}`);
      assert.match(
        other.refused.message,
        new RegExp(`^${reference}: \`${field}\` must be a whole number`),
      );
    }
    // a target port or an ingress port that is not a number must be a port name (the fields
    // declare `port-or-name`): anything else is refused before rendering
    for (const [reference, field, fields] of [
      ["k8s/service", "target_port", { target_port: "8080\n      nodePort: 30000" }],
      ["k8s/ingress", "port", { port: "80\n                  name: x" }],
    ] as const) {
      const other = await attempt(reference, { fields });
      assert.ok("refused" in other, `${reference} ${field}`);
      assert.match(
        other.refused.message,
        new RegExp(`^${reference}: \`${field}\` must be a whole number .* or a port name`),
      );
    }
    // a port name is text, nothing added
    for (const [reference, fields, read] of [
      [
        "k8s/service",
        { target_port: "http-alt" },
        // biome-ignore lint/suspicious/noExplicitAny: the test walks the parsed manifest freely
        (o: any) => o.spec.ports[0].targetPort,
      ],
      [
        "k8s/ingress",
        { port: "web" },
        // biome-ignore lint/suspicious/noExplicitAny: the test walks the parsed manifest freely
        (o: any) => o.spec.rules[0].http.paths[0].backend.service.port.name,
      ],
    ] as const) {
      const named = await attempt(reference, { fields });
      assert.ok("files" in named);
      const object = yamlDoc((named.files[0] as RenderedFile).content, reference);
      validateK8sManifest(object);
      assert.equal(read(object), Object.values(fields)[0]);
    }
  });

  for (const component of K8S) {
    it(`${component.reference}: every field, label and the name read back exactly, or are refused`, async () => {
      const tally = new Tally();
      const python: PythonCheck[] = [];
      const cases: (K8sCase & { field: string })[] = [];
      for (const value of HOSTILE) {
        for (const field of component.fields) {
          cases.push({
            field,
            name: "web",
            fields: { ...component.base, [field]: value },
            labels: {},
          });
        }
        cases.push({
          field: "labels",
          name: "web",
          fields: component.base,
          labels: { [value]: value, tier: value },
        });
        if (value !== "") {
          cases.push({
            field: "labels",
            name: "web",
            fields: component.base,
            labels: { app: value },
          });
          cases.push({ field: "name", name: value, fields: component.base, labels: {} });
        }
      }
      for (const input of cases) {
        const what = `${component.reference} ${input.field} = ${json(input.name === "web" ? (input.fields[input.field] ?? input.labels) : input.name)}`;
        const result = await attempt(component.reference, input);
        if (refusedFor(result, component.reference, input.field, what, tally)) continue;
        assert.equal(result.files.length, 1);
        const content = (result.files[0] as RenderedFile).content;
        const object = yamlDoc(content, what);
        validateK8sManifest(object);
        const expected = component.expected(input);
        assert.deepEqual(object, expected, what);
        python.push(readsAs("yaml", content, expected, what));
      }
      pythonChecks(python);
      assert.ok(tally.refused > 0 && tally.accepted > 0, json(tally));
    });
  }
});

// --- Terraform --------------------------------------------------------------------------------

const TERRAFORM = [
  {
    reference: "infra/cloud-a",
    type: "hcloud_server",
    region: "location",
    size: "server_type",
    labels: true,
  },
  {
    reference: "infra/cloud-b",
    type: "digitalocean_droplet",
    region: "region",
    size: "size",
    labels: false,
  },
];

describe("hostile values in the Terraform components", () => {
  for (const p of TERRAFORM) {
    it(`${p.reference}: every field, label and the name read back exactly through the HCL parser, or are refused`, async () => {
      const tally = new Tally();
      const base = { region: "fsn1", size: "cx22", os_image: "ubuntu-24.04", count: "2" };
      for (const value of HOSTILE) {
        const cases: {
          field: string;
          name: string;
          fields: Record<string, string>;
          labels: Record<string, string>;
        }[] = [
          ...["region", "size", "os_image", "count"].map((field) => ({
            field,
            name: "web",
            fields: { ...base, [field]: value },
            labels: {},
          })),
          { field: "labels", name: "web", fields: base, labels: { [value]: value } },
          { field: "name", name: value || "x", fields: base, labels: {} },
        ];
        for (const input of cases) {
          const what = `${p.reference} ${input.field} = ${json(value)}`;
          const result = await attempt(p.reference, input);
          if (refusedFor(result, p.reference, input.field, what, tally)) continue;
          const content = (result.files[0] as RenderedFile).content;
          // biome-ignore lint/suspicious/noExplicitAny: the test walks the parsed HCL freely
          const hcl = (await parseTerraform(content, "main.tf")) as any;
          assert.deepEqual(
            Object.keys(hcl).sort(),
            ["output", "provider", "resource", "terraform", "variable"],
            what,
          );
          const label = tfIdentifier(input.name);
          assert.deepEqual(Object.keys(hcl.resource), [p.type], what);
          assert.deepEqual(Object.keys(hcl.resource[p.type]), [label], what);
          assert.deepEqual(Object.keys(hcl.output), [`${label}_ipv4`], what);
          const server = hcl.resource[p.type][label][0];
          const literal = (text: string) => hclJsonLiteral(text);
          const read: Record<string, unknown> = {
            count: server.count,
            name: literal(server.name),
            [p.region]: literal(server[p.region]),
            [p.size]: literal(server[p.size]),
            image: literal(server.image),
          };
          const expected: Record<string, unknown> = {
            count: typedNumber(input.fields.count ?? "", 1, "count"),
            name: `${input.name}-\${count.index}`,
            [p.region]: input.fields.region,
            [p.size]: input.fields.size,
            image: input.fields.os_image,
          };
          if (p.labels) {
            read.labels = Object.fromEntries(
              Object.entries(server.labels as Record<string, string>).map(([k, v]) => [
                literal(k),
                literal(v),
              ]),
            );
            expected.labels = { app: input.name, ...input.labels };
          }
          assert.deepEqual(Object.keys(server).sort(), Object.keys(expected).sort(), what);
          assert.deepEqual(read, expected, what);
          // no interpolation or directive but the template's own
          assert.deepEqual(content.match(/(?<!\$)\$\{[^}]*\}/g), ["${count.index}"], what);
          assert.doesNotMatch(content, /(?<!%)%\{/, what);
        }
      }
      assert.ok(tally.refused > 0 && tally.accepted > 0, json(tally));
    });
  }
});

// --- the automation tool's YAML files -----------------------------------------------------------

describe("hostile values in the automation components' YAML files", () => {
  it("automation/k8s-bootstrap: hosts, k8s_version and the name read back exactly, or are refused", async () => {
    const tally = new Tally();
    const python: PythonCheck[] = [];
    const baseline = yamlDoc(
      byPath(
        (
          (await attempt("automation/k8s-bootstrap", {
            fields: { hosts: "k8s", k8s_version: "1.31" },
          })) as { files: RenderedFile[] }
        ).files,
      )["web-k8s-bootstrap.yml"] as string,
      "baseline",
    ) as Record<string, unknown>[];
    for (const value of HOSTILE) {
      for (const [field, input] of [
        ["hosts", { fields: { hosts: value, k8s_version: "1.31" } }],
        ["k8s_version", { fields: { hosts: "k8s", k8s_version: value } }],
        ["name", { name: value || "x", fields: { hosts: "k8s", k8s_version: "1.31" } }],
      ] as const) {
        const what = `k8s-bootstrap ${field} = ${json(value)}`;
        const result = await attempt("automation/k8s-bootstrap", input);
        if (refusedFor(result, "automation/k8s-bootstrap", field, what, tally)) continue;
        const file = result.files[0] as RenderedFile;
        const plays = yamlDoc(file.content, what);
        const play = { ...(baseline[0] as Record<string, unknown>) };
        const vars = { ...(play.vars as Record<string, unknown>) };
        const name = "name" in input ? input.name : "web";
        play.name = `Prepare Kubernetes nodes (${name})`;
        // a JSON-looking hosts value is a list or map of groups, which the tool takes
        const hosts = input.fields.hosts;
        play.hosts = /^\s*[[{]/.test(hosts) ? safeJson(hosts) : hosts;
        vars.k8s_version = input.fields.k8s_version;
        play.vars = vars;
        assert.deepEqual(plays, [play], what);
        python.push(readsAs("yaml", file.content, [play], what));
      }
    }
    pythonChecks(python);
    assert.ok(tally.accepted > 0, json(tally));
  });

  it("automation/common-role and automation/role: timezone and description read back exactly", async () => {
    const tally = new Tally();
    const python: PythonCheck[] = [];
    const common = byPath(
      ((await attempt("automation/common-role", { name: "common" })) as { files: RenderedFile[] })
        .files,
    );
    const role = byPath(
      ((await attempt("automation/role", { name: "r" })) as { files: RenderedFile[] }).files,
    );
    for (const value of HOSTILE) {
      const what = `timezone = ${json(value)}`;
      const result = await attempt("automation/common-role", {
        name: "common",
        fields: { timezone: value },
      });
      if (!refusedFor(result, "automation/common-role", "timezone", what, tally)) {
        const files = byPath(result.files);
        for (const path of Object.keys(common)) {
          if (!path.includes("/defaults/"))
            assert.equal(files[path], common[path], `${what}: ${path} unchanged`);
        }
        const defaults = files["roles/common/defaults/main.yml"] as string;
        const expected = {
          ...(yamlDoc(common["roles/common/defaults/main.yml"] as string, "baseline") as object),
          common_timezone: safeJsonIfValued(value),
        };
        assert.deepEqual(yamlDoc(defaults, what), expected, what);
        python.push(readsAs("yaml", defaults, expected, what));
      }
      const described = await attempt("automation/role", {
        name: "r",
        fields: { description: value },
      });
      if (
        !refusedFor(
          described,
          "automation/role",
          "description",
          `description = ${json(value)}`,
          tally,
        )
      ) {
        const files = byPath(described.files);
        for (const path of Object.keys(role)) {
          if (!path.includes("/meta/")) assert.equal(files[path], role[path]);
        }
        const meta = files["roles/r/meta/main.yml"] as string;
        const expected = {
          galaxy_info: { description: safeJsonIfValued(value) },
          dependencies: [],
        };
        assert.deepEqual(yamlDoc(meta, `description = ${json(value)}`), expected);
        python.push(readsAs("yaml", meta, expected, `description = ${json(value)}`));
      }
    }
    pythonChecks(python);
    assert.ok(tally.accepted > 0, json(tally));
  });

  it("automation/site: names and paths read back exactly", async () => {
    const tally = new Tally();
    const python: PythonCheck[] = [];
    for (const value of HOSTILE.filter((v) => v !== "")) {
      const what = `site playbooks = ${json(value)}`;
      const result = await attempt("automation/site", {
        name: "site",
        fields: { playbooks: json([{ name: value, path: value }, value]) },
      });
      if (refusedFor(result, "automation/site", "playbooks", what, tally)) continue;
      const content = (result.files[0] as RenderedFile).content;
      const expected = [{ name: value, import_playbook: value }, { import_playbook: value }];
      assert.deepEqual(yamlDoc(content, what), expected, what);
      python.push(readsAs("yaml", content, expected, what));
    }
    pythonChecks(python);
    assert.equal(tally.refused, 0, "no site value needs refusing");
  });

  /** How the automation tool reads a var's value: a whole number as typed is that number. */
  function asVarReads(value: unknown): unknown {
    return typeof value === "string" && /^-?(?:0|[1-9][0-9]*)$/.test(value) ? Number(value) : value;
  }

  it("automation/group-vars: var keys and values read back exactly; raw YAML stays in place or is refused", async () => {
    const tally = new Tally();
    const python: PythonCheck[] = [];
    // every hostile value as a value, and as a key, in one file
    const vars: Record<string, unknown> = {};
    HOSTILE.forEach((value, index) => {
      vars[`v${index}`] = value;
      vars[value] = index;
    });
    Object.assign(vars, { list: [...HOSTILE], map: { nested: [...HOSTILE] }, nothing: null });
    const all = await attempt("automation/group-vars", {
      fields: { group: "g", vars: json(vars) },
    });
    assert.ok(!refusedFor(all, "automation/group-vars", "vars", "every value", tally));
    const content = (all.files[0] as RenderedFile).content;
    // a var's value that is a whole number as typed is written as that number (yaml_var)
    const read = Object.fromEntries(
      Object.entries(vars).map(([key, value]) => [key, asVarReads(value)]),
    );
    assert.deepEqual(yamlDoc(content, "vars"), read);
    python.push(readsAs("yaml", content, read, "vars"));
    // a key too long for YAML readers is refused, one that fits is written
    const long = await attempt("automation/group-vars", {
      fields: { group: "g", vars: json({ ["k".repeat(1025)]: 1 }) },
    });
    assert.ok(refusedFor(long, "automation/group-vars", "vars", "long key", tally));
    assert.match(long.refused.message, /1024 characters/);

    // raw YAML after the vars lines: each hostile value on its own, and as a key's value
    const raws = [
      ...HOSTILE,
      ...HOSTILE.map((value) => `extra: ${value}`),
      "a: 1\r\nb: 2\r\n",
      "a: 1\rb: 2",
      "a: [\n",
      'a: "open\n',
      "  indented: 1",
      "list:\n  - x\n---\nother: 1",
      "a: 1\n...\n",
      "<<: {merged: 1}",
      "a: &x 1\nb: *x",
      "packages:\n  - nginx\n  - certbot\n",
    ];
    for (const raw of raws) {
      const what = `group-vars yaml = ${json(raw)}`;
      const result = await attempt("automation/group-vars", {
        fields: { group: "g", vars: json({ a0: "x" }), yaml: raw },
      });
      if (refusedFor(result, "automation/group-vars", "yaml", what, tally)) continue;
      const file = (result.files[0] as RenderedFile).content;
      // the file reads as the vars lines plus what the text reads as on its own, in every reader
      const check = (read: Reader) => {
        const alone = read(raw) ?? {};
        assert.ok(typeof alone === "object" && !Array.isArray(alone), `${what}: a mapping`);
        assert.deepEqual(read(file), { a0: "x", ...alone }, `${what}:\n${file}`);
      };
      yamlReaders(check);
      python.push({ kind: "yaml", texts: [file, raw], what, check });
    }
    pythonChecks(python);
    assert.ok(tally.refused > 0 && tally.accepted > 0, json(tally));
  });

  it("automation/playbook: names, hosts, tags, conditions, role vars and task lists read back exactly, or are refused", async () => {
    const tally = new Tally();
    const python: PythonCheck[] = [];
    for (const value of HOSTILE.filter((v) => v !== "")) {
      const plays = [
        {
          name: value,
          hosts: value,
          tags: [value, "x"],
          roles: [
            value,
            { role: value, when: value, tags: [value], vars: { [value]: value, v: [value] } },
          ],
        },
      ];
      const what = `playbook plays = ${json(value)}`;
      const result = await attempt("automation/playbook", {
        name: "p",
        fields: { plays: json(plays) },
      });
      if (refusedFor(result, "automation/playbook", "plays", what, tally)) continue;
      const content = (result.files[0] as RenderedFile).content;
      const roleVars = { [value]: asVarReads(value), v: [value] };
      const expected = [
        {
          ...plays[0],
          roles: [value, { role: value, when: value, tags: [value], vars: roleVars }],
          become: true,
        },
      ];
      assert.deepEqual(yamlDoc(content, what), expected, what);
      python.push(readsAs("yaml", content, expected, what));
      // the legacy fields
      const legacy = await attempt("automation/playbook", {
        name: "p",
        fields: { hosts: value, roles: json([value]) },
      });
      if (!refusedFor(legacy, "automation/playbook", "hosts", `${what} (legacy)`, tally)) {
        const text = (legacy.files[0] as RenderedFile).content;
        const legacyPlay = [
          { name: "p", hosts: safeJsonIfValued(value), become: true, roles: [value] },
        ];
        assert.deepEqual(yamlDoc(text, `${what} (legacy)`), legacyPlay);
      }
    }
    // task lists are YAML text the user writes: they stay the task list, or are refused
    const tasks: [string, string | undefined][] = [
      ["- a\r- hosts: all\r  tasks: []", undefined],
      ["- a\u2028- hosts: all", undefined],
      ["- a\u0085- hosts: all", undefined],
      ["- debug: [", "]"],
      ['- debug: "', '"'],
      ["- a\n---\n- b", undefined],
      ["- a\n...\n", undefined],
      [
        "- name: x\n  debug: {msg: ok}",
        "- name: y\n  debug:\n    msg: |\n      two\n\n      lines\n",
      ],
      ["  - a", undefined],
      ["roles:\n  - evil", "hosts: all"],
      ["- a\n- hosts: all", undefined],
      ["- a\n\n\n  \n", undefined],
      ...HOSTILE.filter((v) => jinjaTrim(v) !== "").map((v): [string, undefined] => [v, undefined]),
    ];
    for (const [pre, post] of tasks) {
      const play: Record<string, unknown> = {
        name: "t",
        hosts: "all",
        pre_tasks: pre,
        roles: ["r"],
      };
      if (post !== undefined) play.post_tasks = post;
      const what = `playbook pre_tasks = ${json(pre)}, post_tasks = ${json(post)}`;
      const result = await attempt("automation/playbook", {
        name: "p",
        fields: { plays: json([play]) },
      });
      if (refusedFor(result, "automation/playbook", "plays", what, tally)) continue;
      const content = (result.files[0] as RenderedFile).content;
      // the play reads as its keys with each task list as it reads on its own, in every reader
      const check = (read: Reader) => {
        const expected: Record<string, unknown> = {
          name: "t",
          hosts: "all",
          become: true,
          pre_tasks: read(pre),
          roles: ["r"],
        };
        if (post !== undefined) expected.post_tasks = read(post);
        assert.deepEqual(read(content), [expected], `${what}:\n${content}`);
      };
      yamlReaders(check);
      python.push({
        kind: "yaml",
        texts: post === undefined ? [content, pre] : [content, pre, post],
        what,
        check,
      });
    }
    pythonChecks(python);
    assert.ok(tally.refused > 0 && tally.accepted > 0, json(tally));
  });
});

/** A value as the template context gives it: JSON-looking text becomes the list or map. */
function safeJson(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? parsed : text;
  } catch {
    return text;
  }
}
function safeJsonIfValued(text: string): unknown {
  return /^\s*[[{]/.test(text) ? safeJson(text) : text;
}

// --- cm.cfg --------------------------------------------------------------------------------------

describe("hostile values in automation/config (cm.cfg)", () => {
  it("inventory and roles_path read back exactly through configparser, or are refused", async () => {
    const tally = new Tally();
    const python: PythonCheck[] = [];
    for (const value of HOSTILE.filter((v) => v !== "")) {
      for (const field of ["inventory", "roles_path"]) {
        const what = `cm.cfg ${field} = ${json(value)}`;
        const result = await attempt("automation/config", {
          name: "cm",
          fields: { [field]: value },
        });
        if (refusedFor(result, "automation/config", field, what, tally)) continue;
        const content = (result.files[0] as RenderedFile).content;
        const expected = { defaults: { roles_path: "roles", [field]: value } };
        assert.deepEqual(
          content.split("\n").filter(Boolean).length,
          Object.keys(expected.defaults).length + 1,
          what,
        );
        python.push(readsAs("cfg", content, expected, what));
      }
    }
    pythonChecks(python);
    assert.ok(tally.refused > 0 && tally.accepted > 0, json(tally));
  });
});

// --- the INI inventory ---------------------------------------------------------------------------

/** A host as `ansible-inventory --list` shows it with the component's defaults. */
const DEFAULTS = { cm_user: "root", cm_port: 22 };
/** How the automation tool reads a value kiln wrote with ini_value: whole numbers are numbers. */
const iniRead = (value: string): unknown =>
  /^-?(?:0|[1-9][0-9]*)$/.test(value) ? Number(value) : value;
/** The same for a component field, which is a list or map when it is JSON-looking text. */
const fieldRead = (value: string): unknown => {
  const parsed = safeJsonIfValued(value);
  return typeof parsed === "string" ? iniRead(parsed) : parsed;
};

interface InventoryCase {
  what: string;
  field: string;
  fields: Record<string, string>;
  /** Groups and their hosts, children and vars as `--list` must show them. */
  groups: Record<string, { hosts?: string[]; children?: string[]; vars?: Record<string, unknown> }>;
  /** Every host's variables as `--list` must show them (group vars merged in). */
  hosts: Record<string, Record<string, unknown>>;
}

describe("hostile values in automation/inventory, read by ansible-inventory", () => {
  it("regression: a host name holding `[all:vars]` and ssh_common_args is refused, never read as a variable", {
    skip: ansibleSkip(),
  }, async () => {
    for (const hosts of [
      [{ group: "web", members: [{ name: HOST_EXPLOIT, cm_host: "192.0.2.11" }] }],
      [{ group: "web", members: [HOST_EXPLOIT] }],
      [{ group: HOST_EXPLOIT, members: ["web-1"] }],
      [
        { group: "app", children: [HOST_EXPLOIT] },
        { group: "web", members: ["web-1"] },
      ],
      [{ group: "web", members: [{ name: "web-1", vars: { [HOST_EXPLOIT]: "x" } }] }],
      [{ group: "web", members: ["web-1"], vars: { [HOST_EXPLOIT]: "x" } }],
    ]) {
      const result = await attempt("automation/inventory", { fields: { hosts: json(hosts) } });
      assert.ok("refused" in result, `refused: ${json(hosts)}`);
      assert.match(
        result.refused.message,
        /^automation\/inventory: `hosts` has a (group|host|variable) name "web-1\\n\[all:vars\]\\nansible_ssh_common_args=/,
      );
      assert.match(
        result.refused.message,
        /cannot hold: it holds a space, a line break or a control character/,
      );
    }
    // as a host address it is no address: refused by the field's format first
    const address = await attempt("automation/inventory", {
      fields: { hosts: json([{ group: "web", members: [{ cm_host: HOST_EXPLOIT }] }]) },
    });
    assert.ok("refused" in address);
    assert.match(
      address.refused.message,
      /^automation\/inventory: `hosts\[0\]\.members\[0\]\.cm_host` must be a host address: /,
    );
    // as a value (not a host address) it is data: written as a Python literal, read back as
    // that one string
    const result = await attempt("automation/inventory", {
      fields: {
        hosts: json([
          {
            group: "web",
            members: [{ name: "web-1", cm_host: "192.0.2.11", vars: { note: HOST_EXPLOIT } }],
            vars: { motd: HOST_EXPLOIT },
          },
        ]),
        default_user: HOST_EXPLOIT,
      },
    });
    assert.ok("files" in result);
    const list = inventoryList((result.files[0] as RenderedFile).content);
    assert.deepEqual(list._meta.hostvars, {
      "web-1": {
        cm_host: "192.0.2.11",
        cm_user: HOST_EXPLOIT,
        cm_port: 22,
        note: HOST_EXPLOIT,
        motd: HOST_EXPLOIT,
      },
    });
    assert.ok(!JSON.stringify(list).includes('"ansible_ssh_common_args"'));
  });

  it("group, host, child and variable names, values and defaults read back exactly, or are refused", {
    skip: ansibleSkip(),
  }, async () => {
    const tally = new Tally();
    const cases: InventoryCase[] = [];
    HOSTILE.forEach((value, i) => {
      const g = `g${i}`;
      const h = `h${i}`;
      const groupOf = (name: string, hosts: string[], extra: object = {}) => ({
        [name]: { hosts, ...extra },
      });
      // names: a group, a host (by name and by address), a child, a host variable, a group variable
      // (an empty group, host or child name is skipped by the template, an empty variable name
      // refused)
      if (value !== "") {
        cases.push({
          what: `group name ${json(value)}`,
          field: "hosts",
          fields: { hosts: json([{ group: value, members: [h] }]) },
          groups: groupOf(value, [h]),
          hosts: { [h]: DEFAULTS },
        });
        cases.push({
          what: `host name ${json(value)}`,
          field: "hosts",
          fields: { hosts: json([{ group: g, members: [{ name: value, cm_host: "192.0.2.1" }] }]) },
          groups: groupOf(g, [value]),
          hosts: { [value]: { cm_host: "192.0.2.1", ...DEFAULTS } },
        });
        cases.push({
          what: `host address as the name ${json(value)}`,
          field: "hosts",
          fields: { hosts: json([{ group: g, members: [{ cm_host: value }] }]) },
          groups: groupOf(g, [value]),
          hosts: { [value]: { cm_host: iniRead(value), ...DEFAULTS } },
        });
        cases.push({
          what: `child name ${json(value)}`,
          field: "hosts",
          fields: {
            hosts: json([
              { group: `p${i}`, children: [value] },
              { group: value, members: [h] },
            ]),
          },
          groups: { [`p${i}`]: { children: [value] }, ...groupOf(value, [h]) },
          hosts: { [h]: DEFAULTS },
        });
      }
      cases.push({
        what: `host variable name ${json(value)}`,
        field: "hosts",
        fields: {
          hosts: json([{ group: `v${g}`, members: [{ name: `v${h}`, vars: { [value]: "x" } }] }]),
        },
        groups: groupOf(`v${g}`, [`v${h}`]),
        hosts: { [`v${h}`]: { ...DEFAULTS, [value]: "x" } },
      });
      cases.push({
        what: `group variable name ${json(value)}`,
        field: "hosts",
        fields: { hosts: json([{ group: `w${g}`, members: [`w${h}`], vars: { [value]: "x" } }]) },
        groups: groupOf(`w${g}`, [`w${h}`], { vars: { [value]: "x" } }),
        hosts: { [`w${h}`]: { ...DEFAULTS, [value]: "x" } },
      });
      // values: host keys, host and group variables, the defaults
      const member = {
        name: `x${h}`,
        cm_host: value,
        cm_user: value,
        cm_port: value,
        ssh_key_file: value,
        vars: { k: value, l: [value], m: { [value]: value } },
      };
      const written = (key: string) => (value === "" ? {} : { [key]: iniRead(value) });
      cases.push({
        what: `host values ${json(value)}`,
        field: "hosts",
        fields: {
          hosts: json([{ group: `x${g}`, members: [member], vars: { gk: value, gn: null } }]),
        },
        groups: groupOf(`x${g}`, [`x${h}`], { vars: { gk: iniRead(value), gn: null } }),
        hosts: {
          [`x${h}`]: {
            ...written("cm_host"),
            ...written("cm_user"),
            ...written("cm_port"),
            ...written("cm_ssh_private_key_file"),
            k: iniRead(value),
            l: [value],
            m: { [value]: value },
            gk: iniRead(value),
            gn: null,
          },
        },
      });
      cases.push({
        what: `default_user and default_port ${json(value)}`,
        field: "default_",
        fields: {
          hosts: json([{ group: `d${g}`, members: [`d${h}`] }]),
          default_user: value,
          default_port: value,
        },
        groups: groupOf(`d${g}`, [`d${h}`]),
        // fields of the component: JSON-looking text arrives as a list or map, written as one
        hosts: {
          [`d${h}`]: value === "" ? {} : { cm_user: fieldRead(value), cm_port: fieldRead(value) },
        },
      });
    });

    // render each case on its own (a refusal is per case); read the accepted ones of each kind
    // together, one file per kind (names differ within a kind). Kinds whose names cannot clash
    // share one ansible-inventory run (one -i a file): the kinds that name a group or a host by
    // the hostile value each run alone (the same value as a group in one and a host in another
    // would clash), the rest name their own groups and hosts (v, w, x, d before g<i> and h<i>)
    // and join the group-name run.
    const runOf = (kind: string): string =>
      ["host name", "host address as the name", "child name"].includes(kind) ? kind : "shared";
    const batches = new Map<string, { cases: InventoryCase[]; texts: Map<string, string[]> }>();
    for (const c of cases) {
      const result = await attempt("automation/inventory", { name: "inv", fields: c.fields });
      if (refusedFor(result, "automation/inventory", c.field, c.what, tally)) continue;
      const kind = c.what.replace(/ ".*$/s, "");
      const batch = batches.get(runOf(kind)) ?? { cases: [], texts: new Map<string, string[]>() };
      batches.set(runOf(kind), batch);
      batch.cases.push(c);
      const texts = batch.texts.get(kind) ?? [];
      batch.texts.set(kind, texts);
      texts.push((result.files[0] as RenderedFile).content);
    }
    let read = 0;
    for (const batch of batches.values()) {
      // the kinds this run read, to name in a failure
      const kind = [...batch.texts.keys()].join(", ");
      const list = inventoriesList([...batch.texts.values()].map((texts) => texts.join("\n")));
      // a host without variables is left out of `_meta.hostvars`
      const expectedHosts = Object.fromEntries(
        batch.cases
          .flatMap((c) => Object.entries(c.hosts))
          .filter(([, vars]) => Object.keys(vars).length > 0),
      );
      assert.deepEqual(list._meta.hostvars, expectedHosts, kind);
      const groups = Object.keys(list).filter(
        (k) => k !== "_meta" && k !== "all" && k !== "ungrouped",
      );
      const expectedGroups: InventoryCase["groups"] = Object.assign(
        {},
        ...batch.cases.map((c) => c.groups),
      );
      assert.deepEqual(groups.sort(), Object.keys(expectedGroups).sort(), kind);
      for (const [name, group] of Object.entries(expectedGroups)) {
        const found = list[name] as { hosts?: string[]; children?: string[] };
        assert.deepEqual(
          found.hosts ?? [],
          group.hosts ?? [],
          `${kind}: group ${json(name)} hosts`,
        );
        assert.deepEqual(
          found.children ?? [],
          group.children ?? [],
          `${kind}: group ${json(name)} children`,
        );
      }
      // nothing the values did not name: no variable like ssh_common_args anywhere
      for (const vars of Object.values(list._meta.hostvars)) {
        for (const name of Object.keys(vars))
          assert.doesNotMatch(name, /ssh_common_args|^ansible_/, kind);
      }
      read += batch.cases.length;
    }
    assert.ok(tally.refused > 0 && read > HOSTILE.length, json({ ...tally, read }));
  });
});
