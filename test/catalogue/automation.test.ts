// The eight automation components of the built-in catalogue: metadata, the exact text of every
// format the spec gives, YAML that parses for awkward values, and the real automation tool
// (ansible-core) reading the inventories and syntax-checking a small rendered project.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { parse as parseYaml } from "yaml";
import { iniHostValue, iniValue, pythonLiteral } from "../../src/core/filters.ts";
import { toItemView } from "../../src/core/item.ts";
import { type RenderedFile, renderItem } from "../../src/core/render-item.ts";
import { builtinRenderer } from "../../src/node/builtin-renderer.ts";
import { resolveReference } from "../../src/node/resolve-reference.ts";
import {
  ansibleHostVars,
  ansibleInventoryGraph,
  ansibleInventoryList,
  ansibleSkip,
  ansibleSyntaxCheckAll,
} from "../tools/ansible.ts";

// the renderer kiln itself renders built-ins with: the compiled templates, or the sandboxed
// engine under KILN_ENGINE=sandbox (CI runs these suites both ways)
const engine = builtinRenderer();
const json = (value: unknown) => JSON.stringify(value);

/** Renders a component through the real core: resolution, context, engine. */
async function render(
  reference: string,
  name: string,
  fields: Record<string, string> = {},
): Promise<RenderedFile[]> {
  const item = await resolveReference(reference);
  return renderItem(engine, item, { name, fields, defaultNamespace: "default" }).files;
}

/** The one file a single-file component renders. */
async function renderOne(
  reference: string,
  name: string,
  fields: Record<string, string> = {},
): Promise<RenderedFile> {
  const files = await render(reference, name, fields);
  assert.equal(files.length, 1);
  return files[0] as RenderedFile;
}

/** Parses YAML the way both kinds of reader do (1.2, and 1.1 like PyYAML) and checks they agree. */
function yamlDoc(text: string): unknown {
  const v12 = parseYaml(text);
  const v11 = parseYaml(text, { version: "1.1" });
  assert.deepEqual(v11, v12, `YAML 1.1 and 1.2 read this differently:\n${text}`);
  return v12;
}

const scratchDirs: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "kiln-automation-"));
  scratchDirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

function writeFiles(dir: string, files: RenderedFile[]): void {
  for (const file of files) {
    const path = join(dir, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.content);
  }
}

/** Values that need quoting somewhere: YAML indicators, INI comment markers, Python literals. */
const AWKWARD = [
  "hello world",
  " padded ",
  "",
  "a#b",
  "#lead",
  "semi;colon",
  ";lead",
  "a=b",
  "key: value",
  "it's",
  'say "hi"',
  "back\\slash",
  "tab\there",
  "new\nline",
  "*star",
  "&anchor",
  "!tag",
  "%percent",
  "@at",
  "`tick`",
  "|pipe",
  ">fold",
  "- dash",
  "---",
  "yes",
  "no",
  "on",
  "true",
  "True",
  "None",
  "null",
  "~",
  "1.31",
  "1.20",
  "007",
  "0x1f",
  "1e3",
  "1_000",
  "+1",
  "-x",
  "...",
  "1,2",
  "[1, 2]",
  "{'a': 1}",
  "{{ jinja }}",
  "$HOME",
  "10.0.0.1",
  "1.2.3",
  "2024-01-01",
  "ünïcödé ✓",
  "line\u2028separator",
];

describe("automation catalogue metadata", () => {
  const expected = {
    "automation/k8s-bootstrap": {
      name: "k8s-bootstrap",
      category: "automation",
      title: "Kubernetes node bootstrap",
      description:
        "Installs a container runtime and cluster tools (kubeadm, kubelet, kubectl) on target hosts.",
      reference: "automation/k8s-bootstrap",
      fields: [
        {
          name: "hosts",
          required: true,
          default: null,
          description: "Inventory group to prepare, or `all`.",
          example: "k8s",
          options: [],
        },
        {
          name: "k8s_version",
          required: true,
          default: null,
          description:
            "Kubernetes minor release whose package repository is used; kubelet, kubeadm and kubectl are installed and held at it (1.31, v1.31 or a full 1.31.2).",
          example: "1.31",
          options: [],
        },
      ],
      files: ["{{ name }}-k8s-bootstrap.yml"],
    },
    "automation/inventory": {
      name: "inventory",
      category: "automation",
      title: "Inventory",
      description: "Hosts, groups, nesting and shared vars for existing servers.",
      reference: "automation/inventory",
      fields: [
        {
          name: "hosts",
          required: true,
          default: null,
          description:
            "JSON array of groups, written in order: {group, members: [{name, cm_host, cm_user, cm_port, ssh_key_file, vars}], children: [group names], vars: {key: value}}. A host may appear in several groups.",
          example: json([
            {
              group: "web",
              members: [
                { name: "web-1", cm_host: "192.0.2.11" },
                { name: "web-2", cm_host: "192.0.2.12", cm_port: 2222 },
              ],
              vars: { http_port: 80 },
            },
            { group: "app", children: ["web"] },
          ])
            .replaceAll(",", ", ")
            .replaceAll('":', '": '),
          options: [],
        },
        {
          name: "default_user",
          required: false,
          default: "root",
          description:
            'Login user for hosts without a cm_user key; a host with cm_user null or "" gets no user.',
          example: null,
          options: [],
        },
        {
          name: "default_port",
          required: false,
          default: "22",
          description:
            'SSH port for hosts without a cm_port key; a host with cm_port null or "" gets no port.',
          example: null,
          options: [],
        },
      ],
      files: ["{{ name }}-inventory.ini"],
    },
    "automation/group-vars": {
      name: "group-vars",
      category: "automation",
      title: "Group variables",
      description: "Variables for one inventory group.",
      reference: "automation/group-vars",
      fields: [
        {
          name: "group",
          required: true,
          default: null,
          description:
            "Inventory group the variables apply to (`all` for every host); names the output file.",
          example: "web",
          options: [],
        },
        {
          name: "vars",
          required: false,
          default: null,
          description:
            "JSON object of simple key/value pairs, written one `key: value` line each, keys alphabetical.",
          example: '{"http_port": 80, "server_name": "www.example.com"}',
          options: [],
        },
        {
          name: "yaml",
          required: false,
          default: null,
          description:
            "Raw YAML written as-is after the vars lines, for nested values. Do not repeat a key from vars.",
          example: "packages:\n  - nginx\n  - certbot\n",
          options: [],
        },
        {
          name: "layout",
          required: false,
          default: "file",
          description:
            "`file` writes group_vars/<group>.yml; `dir` writes group_vars/<group>/main.yml, leaving room for more files (such as a vault) beside it.",
          example: "dir",
          options: [],
        },
      ],
      files: ['group_vars/{{ group }}{% if layout == "dir" %}/main{% endif %}.yml'],
    },
    "automation/common-role": {
      name: "common-role",
      category: "automation",
      title: "Common role",
      description:
        "A starter host-hygiene role: base packages, timezone, swap and a templated message of the day.",
      reference: "automation/common-role",
      fields: [
        {
          name: "timezone",
          required: false,
          default: "UTC",
          description: "IANA time zone for the hosts.",
          example: "Europe/Berlin",
          options: [],
        },
      ],
      files: [
        "roles/{{ name }}/tasks/main.yml",
        "roles/{{ name }}/defaults/main.yml",
        "roles/{{ name }}/handlers/main.yml",
        "roles/{{ name }}/templates/motd.j2",
      ],
    },
    "automation/role": {
      name: "role",
      category: "automation",
      title: "Role",
      description: "An empty role (tasks, defaults, handlers, meta) to fill in.",
      reference: "automation/role",
      fields: [
        {
          name: "description",
          required: false,
          default: "",
          description: "What the role does; written to meta/main.yml.",
          example: "Installs and configures nginx for the web tier.",
          options: [],
        },
      ],
      files: [
        "roles/{{ name }}/tasks/main.yml",
        "roles/{{ name }}/defaults/main.yml",
        "roles/{{ name }}/handlers/main.yml",
        "roles/{{ name }}/meta/main.yml",
      ],
    },
    "automation/playbook": {
      name: "playbook",
      category: "automation",
      title: "Playbook",
      description: "One or more plays, each running roles on an inventory group.",
      reference: "automation/playbook",
      fields: [
        {
          name: "hosts",
          required: false,
          default: null,
          description: "Legacy: inventory group of the single play, used when plays is empty.",
          example: "web",
          options: [],
        },
        {
          name: "roles",
          required: false,
          default: null,
          description:
            "Legacy: JSON array of role names for the single play, used when plays is empty.",
          example: '["common", "nginx"]',
          options: [],
        },
        {
          name: "plays",
          required: false,
          default: null,
          description:
            "JSON list of plays: {name, hosts, become (default true), tags, pre_tasks, roles, post_tasks}. A role is a name, {role}, or {role, when, tags, vars}; pre_tasks and post_tasks are YAML task lists as text.",
          example:
            '[{"name": "Web tier", "hosts": "web", "tags": ["web"], "roles": ["common", {"role": "nginx", "when": "nginx_enabled | bool"}]}]',
          options: [],
        },
        {
          name: "folder",
          required: false,
          default: null,
          description: "Folder the playbook is written to; empty means the project root.",
          example: "playbooks",
          options: [],
        },
      ],
      files: ["{% if folder %}{{ folder }}/{% endif %}{{ name }}.yml"],
    },
    "automation/site": {
      name: "site",
      category: "automation",
      title: "Site playbook",
      description: "The entry point that imports playbooks in order.",
      reference: "automation/site",
      fields: [
        {
          name: "playbooks",
          required: true,
          default: null,
          description:
            "JSON array of {name, path}, imported in order; paths are relative to this file.",
          example:
            '[{"name": "Base setup", "path": "playbooks/bootstrap.yml"}, {"name": "Web tier", "path": "playbooks/web.yml"}]',
          options: [],
        },
      ],
      files: ["{{ name }}.yml"],
    },
    "automation/config": {
      name: "config",
      category: "automation",
      title: "Automation config",
      description:
        "A tool configuration file (cm.cfg) pointing the automation tool at the inventory and roles, so playbooks in subfolders find them.",
      reference: "automation/config",
      fields: [
        {
          name: "inventory",
          required: false,
          default: null,
          description: "Inventory file, relative to cm.cfg; the line is left out when empty.",
          example: "platform-inventory.ini",
          options: [],
        },
        {
          name: "roles_path",
          required: false,
          default: "roles",
          description: "Folder (or colon-separated folders) holding the roles, relative to cm.cfg.",
          example: null,
          options: [],
        },
      ],
      files: ["cm.cfg"],
    },
  };

  for (const [reference, view] of Object.entries(expected)) {
    it(`${reference}: title, description, fields and output paths`, async () => {
      assert.deepEqual(toItemView(await resolveReference(reference)), view);
    });
  }

  it("every example of a JSON-valued field is valid JSON", async () => {
    for (const [reference, field] of [
      ["automation/inventory", "hosts"],
      ["automation/group-vars", "vars"],
      ["automation/playbook", "roles"],
      ["automation/playbook", "plays"],
      ["automation/site", "playbooks"],
    ] as const) {
      const item = await resolveReference(reference);
      const example = item.fields.find((f) => f.name === field)?.example;
      assert.doesNotThrow(() => JSON.parse(example as string), `${reference} ${field}`);
    }
  });

  it("required fields fail with the spec's message", async () => {
    await assert.rejects(render("automation/inventory", "x"), {
      message: "--hosts is required for automation/inventory",
    });
    await assert.rejects(render("automation/site", "x"), {
      message: "--playbooks is required for automation/site",
    });
    await assert.rejects(render("automation/group-vars", "x"), {
      message: "--group is required for automation/group-vars",
    });
    await assert.rejects(render("automation/k8s-bootstrap", "x", { hosts: "all" }), {
      message: "--k8s_version is required for automation/k8s-bootstrap",
    });
  });
});

describe("INI value filters", () => {
  it("plain values stay bare; integers stay bare and read as numbers", () => {
    for (const plain of ["deploy", "10.0.0.1", "web-1.example.com", "/home/a/.ssh/id", "1.2.3"])
      assert.equal(iniValue(plain), plain);
    assert.equal(iniValue("22"), "22");
    assert.equal(iniValue(2222), "2222");
    assert.equal(iniValue(""), "");
  });
  it("anything the tool would read differently becomes a Python string literal", () => {
    assert.equal(iniValue("hello world"), "'hello world'");
    assert.equal(iniValue("1.31"), "'1.31'");
    assert.equal(iniValue("True"), "'True'");
    assert.equal(iniValue("..."), "'...'");
    assert.equal(iniValue("it's\n"), "'it\\'s\\n'");
  });
  it("host-line values get shlex double quotes around the literal", () => {
    assert.equal(iniHostValue("hello world"), "\"'hello world'\"");
    assert.equal(iniHostValue('a "b" \\'), '"\'a \\"b\\" \\\\\\\\\'"');
    assert.equal(iniHostValue("plain"), "plain");
  });
  it("JSON values become Python literals", () => {
    assert.equal(pythonLiteral({ a: [1, true, null], b: "x" }), "{'a': [1, True, None], 'b': 'x'}");
    assert.equal(pythonLiteral(new Map([["k", false]])), "{'k': False}");
  });
});

describe("automation/inventory", () => {
  const rulesHosts = [
    {
      group: "rules",
      members: [
        { name: "missing", cm_host: "192.0.2.1" },
        { name: "nulls", cm_host: "192.0.2.2", cm_user: null, cm_port: null },
        { name: "empties", cm_host: "192.0.2.3", cm_user: "", cm_port: "" },
        { name: "values", cm_host: "192.0.2.4", cm_user: "admin", cm_port: 2222 },
        { name: "string-port", cm_user: "ops", cm_port: "2200" },
      ],
    },
  ];

  it('cm_user/cm_port: key missing takes the default, null or "" writes nothing, a value is written', async () => {
    const file = await renderOne("automation/inventory", "rules", { hosts: json(rulesHosts) });
    assert.equal(file.path, "rules-inventory.ini");
    assert.equal(
      file.content,
      [
        "[rules]",
        "missing cm_host=192.0.2.1 cm_user=root cm_port=22",
        "nulls cm_host=192.0.2.2",
        "empties cm_host=192.0.2.3",
        "values cm_host=192.0.2.4 cm_user=admin cm_port=2222",
        "string-port cm_user=ops cm_port=2200",
        "",
      ].join("\n"),
    );
    const custom = await renderOne("automation/inventory", "rules", {
      hosts: json(rulesHosts),
      default_user: "deploy",
      default_port: "2022",
    });
    assert.match(custom.content, /^missing cm_host=192\.0\.2\.1 cm_user=deploy cm_port=2022$/m);
  });

  const platform = [
    {
      group: "web",
      members: [
        {
          name: "web-1",
          cm_host: "192.0.2.11",
          ssh_key_file: "~/.ssh/web",
          vars: { zone: "a", http_port: 8080, Alpha: "x" },
        },
        { name: "shared", cm_host: "192.0.2.99", cm_user: null },
      ],
      vars: { server_name: "www.example.com", workers: 4 },
    },
    {
      group: "db",
      members: [{ name: "shared", cm_host: "192.0.2.99", cm_user: null }, "db-2"],
    },
    { group: "app", children: ["web", "db"], vars: { env: "production" } },
    { group: "all", vars: { ntp: "pool.ntp.org" } },
  ];

  it("writes groups in order: hosts, children and vars sections, host vars alphabetical", async () => {
    const file = await renderOne("automation/inventory", "platform", {
      hosts: json(platform),
      default_user: "deploy",
    });
    assert.equal(
      file.content,
      `[web]
web-1 cm_host=192.0.2.11 cm_user=deploy cm_port=22 cm_ssh_private_key_file=~/.ssh/web Alpha=x http_port=8080 zone=a
shared cm_host=192.0.2.99 cm_port=22

[web:vars]
server_name=www.example.com
workers=4

[db]
shared cm_host=192.0.2.99 cm_port=22
db-2 cm_user=deploy cm_port=22

[app:children]
web
db

[app:vars]
env=production

[all]

[all:vars]
ntp=pool.ntp.org
`,
    );
  });

  it("an empty hosts list renders an empty inventory; a value that is not a list is refused", async () => {
    assert.equal((await renderOne("automation/inventory", "x", { hosts: "[]" })).content, "");
    // `hosts` declares its shape (a JSON Schema): text that is not a list never renders
    await assert.rejects(renderOne("automation/inventory", "x", { hosts: "web-1" }), {
      message:
        'automation/inventory: `hosts` must be an array; got the text "web-1" (JSON text starts with `[` or `{`)',
    });
  });

  it("ansible-inventory reads the groups, children and host vars", {
    skip: ansibleSkip(),
  }, async () => {
    const dir = scratch();
    const file = await renderOne("automation/inventory", "platform", {
      hosts: json(platform),
      default_user: "deploy",
    });
    writeFiles(dir, [file]);
    const path = join(dir, file.path);
    assert.equal(
      ansibleInventoryGraph(path),
      `@all:
  |--@ungrouped:
  |--@app:
  |  |--@web:
  |  |  |--web-1
  |  |  |--shared
  |  |--@db:
  |  |  |--shared
  |  |  |--db-2
`,
    );
    const list = ansibleInventoryList(path);
    assert.deepEqual(list._meta.hostvars["web-1"], {
      cm_host: "192.0.2.11",
      cm_user: "deploy",
      cm_port: 22,
      cm_ssh_private_key_file: "~/.ssh/web",
      Alpha: "x",
      http_port: 8080,
      zone: "a",
      server_name: "www.example.com",
      workers: 4,
      env: "production",
      ntp: "pool.ntp.org",
    });
    assert.deepEqual(list._meta.hostvars.shared, {
      cm_host: "192.0.2.99",
      cm_port: 22,
      server_name: "www.example.com",
      workers: 4,
      env: "production",
      ntp: "pool.ntp.org",
    });
  });

  it("awkward values round-trip exactly through host lines and :vars sections", {
    skip: ansibleSkip(),
  }, async () => {
    const values: Record<string, unknown> = {};
    AWKWARD.forEach((value, index) => {
      values[`v${String(index).padStart(2, "0")}`] = value;
    });
    // JSON values that are not strings keep their type
    Object.assign(values, {
      n_int: 8080,
      n_float: 1.5,
      n_neg: -3,
      b_true: true,
      b_false: false,
      z_null: null,
      l_list: ["a b", 1, { k: "it's" }],
      m_map: { "key with space": [true, null] },
    });
    const awkwardHost = "awkward";
    const hosts = [
      {
        group: "hostline",
        members: [
          {
            name: awkwardHost,
            cm_host: "web-1.example.com",
            cm_user: "o'brien",
            cm_port: "2222",
            ssh_key_file: "/keys/id ed25519",
            vars: values,
          },
        ],
      },
      { group: "varsline", members: ["plain"], vars: values },
    ];
    const dir = scratch();
    const file = await renderOne("automation/inventory", "awkward", { hosts: json(hosts) });
    writeFiles(dir, [file]);
    const path = join(dir, file.path);
    // both hosts from one run of the tool (a host without variables would be left out)
    const hostvars = ansibleInventoryList(path)._meta.hostvars;
    assert.deepEqual(hostvars[awkwardHost] ?? {}, {
      ...values,
      cm_host: "web-1.example.com",
      cm_user: "o'brien",
      cm_port: 2222,
      cm_ssh_private_key_file: "/keys/id ed25519",
    });
    assert.deepEqual(hostvars.plain ?? {}, {
      ...values,
      cm_user: "root",
      cm_port: 22,
    });
  });

  it("decimal integer strings are written bare and read as numbers, as INI users expect", {
    skip: ansibleSkip(),
  }, async () => {
    const dir = scratch();
    const file = await renderOne("automation/inventory", "ints", {
      hosts: json([{ group: "g", members: [{ name: "h", vars: { port: "8080", neg: "-1" } }] }]),
    });
    assert.equal(file.content, "[g]\nh cm_user=root cm_port=22 neg=-1 port=8080\n");
    writeFiles(dir, [file]);
    assert.deepEqual(ansibleHostVars(join(dir, file.path), "h"), {
      cm_user: "root",
      cm_port: 22,
      neg: -1,
      port: 8080,
    });
  });
});

describe("automation/group-vars", () => {
  it("writes ---, the vars lines (alphabetical), then the yaml text as-is", async () => {
    const file = await renderOne("automation/group-vars", "db", {
      group: "db",
      vars: json({ postgres_version: "16", listen: "*", max_connections: 200, ssl: true }),
      yaml: "postgres_databases:\n  - name: app\n    owner: app\n",
    });
    assert.equal(file.path, "group_vars/db.yml");
    assert.equal(
      file.content,
      `---
listen: "*"
max_connections: 200
postgres_version: 16
ssl: true
postgres_databases:
  - name: app
    owner: app
`,
    );
    assert.deepEqual(yamlDoc(file.content), {
      listen: "*",
      max_connections: 200,
      postgres_version: 16,
      ssl: true,
      postgres_databases: [{ name: "app", owner: "app" }],
    });
  });

  it("a var that is a whole number as typed is that number; decimals, 0755 and the like stay strings", async () => {
    const typed = { port: "8080", neg: "-1", zero: "0" };
    const strings = { version: "1.20", octal: "0755", big: "1e3", plus: "+1", under: "1_000" };
    const file = await renderOne("automation/group-vars", "g", {
      group: "g",
      vars: json({ ...typed, ...strings }),
    });
    assert.match(file.content, /^port: 8080$/m);
    assert.match(file.content, /^version: "1\.20"$/m);
    assert.deepEqual(yamlDoc(file.content), { port: 8080, neg: -1, zero: 0, ...strings });
  });

  it("layout dir writes group_vars/<group>/main.yml; anything else a file", async () => {
    const dir = await renderOne("automation/group-vars", "x", { group: "all", layout: "dir" });
    assert.equal(dir.path, "group_vars/all/main.yml");
    assert.equal(dir.content, "---\n");
    const other = await renderOne("automation/group-vars", "x", { group: "web", layout: "flat" });
    assert.equal(other.path, "group_vars/web.yml");
  });

  it("yaml without a final newline gets one; vars alone end with their last line", async () => {
    const file = await renderOne("automation/group-vars", "x", { group: "g", yaml: "a: 1" });
    assert.equal(file.content, "---\na: 1\n");
    const vars = await renderOne("automation/group-vars", "x", {
      group: "g",
      vars: json({ b: "x" }),
    });
    assert.equal(vars.content, "---\nb: x\n");
  });

  it("awkward values and nested values read back exactly under YAML 1.1 and 1.2", async () => {
    const vars: Record<string, unknown> = {};
    AWKWARD.forEach((value, index) => {
      vars[`v${index}`] = value;
    });
    Object.assign(vars, {
      y: "n",
      list: ["yes", "a: b", 1],
      map: { "#k": "it's", n: null },
      nothing: null,
      on: "off",
    });
    const file = await renderOne("automation/group-vars", "x", { group: "g", vars: json(vars) });
    assert.deepEqual(yamlDoc(file.content), vars);
  });
});

describe("automation/common-role", () => {
  it("writes tasks, defaults, handlers and a motd template under roles/<name>", async () => {
    const files = await render("automation/common-role", "common");
    assert.deepEqual(
      files.map((f) => f.path),
      [
        "roles/common/tasks/main.yml",
        "roles/common/defaults/main.yml",
        "roles/common/handlers/main.yml",
        "roles/common/templates/motd.j2",
      ],
    );
    for (const file of files.filter((f) => f.path.endsWith(".yml"))) yamlDoc(file.content);
    const defaults = yamlDoc(files[1]?.content as string) as Record<string, unknown>;
    assert.equal(defaults.common_timezone, "UTC");
  });

  it("the motd template's own {{ }} reach the output untouched", async () => {
    const motd = (await render("automation/common-role", "common"))[3] as RenderedFile;
    assert.match(motd.content, /\{\{ inventory_hostname \}\}/);
    assert.match(motd.content, /\{\{ ansible_managed \| comment \}\}/);
    assert.match(motd.content, /\{\{ common_motd_message \}\}/);
  });

  it("uses only ansible.builtin modules", async () => {
    const files = await render("automation/common-role", "common");
    for (const file of files.slice(0, 3)) {
      if (file.path.includes("/defaults/")) continue;
      assertBuiltinModulesOnly(yamlDoc(file.content) as Task[]);
    }
  });

  it("an awkward timezone is quoted", async () => {
    for (const timezone of ["yes", "Etc/GMT+1", "a: b", "#x"]) {
      const files = await render("automation/common-role", "common", { timezone });
      const defaults = yamlDoc(files[1]?.content as string) as Record<string, unknown>;
      assert.equal(defaults.common_timezone, timezone);
    }
  });
});

describe("automation/role", () => {
  it("writes four main.yml files; the description goes to meta", async () => {
    const files = await render("automation/role", "nginx", {
      description: "Installs nginx: the #1 web server",
    });
    assert.deepEqual(
      files.map((f) => f.path),
      [
        "roles/nginx/tasks/main.yml",
        "roles/nginx/defaults/main.yml",
        "roles/nginx/handlers/main.yml",
        "roles/nginx/meta/main.yml",
      ],
    );
    assert.deepEqual(yamlDoc(files[0]?.content as string), []);
    assert.deepEqual(yamlDoc(files[1]?.content as string), {});
    assert.deepEqual(yamlDoc(files[2]?.content as string), []);
    assert.deepEqual(yamlDoc(files[3]?.content as string), {
      galaxy_info: { description: "Installs nginx: the #1 web server" },
      dependencies: [],
    });
  });

  it("the default description is empty", async () => {
    const meta = (await render("automation/role", "r"))[3] as RenderedFile;
    assert.equal(
      meta.content,
      '---\ngalaxy_info:\n  description: ""\n# Roles that run before this one, for example: [common]\ndependencies: []\n',
    );
  });
});

describe("automation/playbook", () => {
  it("writes plays in order with the spec's keys, role forms, tags and tasks", async () => {
    const plays = [
      {
        name: "Database tier",
        hosts: "db",
        tags: ["db", "postgres"],
        pre_tasks:
          "- name: Wait for the host\n  ansible.builtin.wait_for_connection:\n    timeout: 60\n",
        roles: [
          "common",
          { role: "postgres" },
          { role: "pg_replication", when: "'db_replicas' in group_names" },
          { role: "backup", tags: ["backup"], vars: { backup_hour: 3, backup_target: "s3://x" } },
          { role: "tuning", when: "tune | bool", tags: ["tune"], vars: { level: "high" } },
        ],
        post_tasks: "- name: Done\n  ansible.builtin.debug:\n    msg: done",
      },
      { hosts: "web", become: false, roles: ["nginx"] },
    ];
    const file = await renderOne("automation/playbook", "db", {
      plays: json(plays),
      folder: "playbooks",
    });
    assert.equal(file.path, "playbooks/db.yml");
    assert.equal(
      file.content,
      `---
- name: Database tier
  hosts: db
  become: true
  tags: [db, postgres]
  pre_tasks:
    - name: Wait for the host
      ansible.builtin.wait_for_connection:
        timeout: 60
  roles:
    - common
    - role: postgres
    - role: pg_replication
      when: "'db_replicas' in group_names"
    - role: backup
      tags: [backup]
      vars:
        backup_hour: 3
        backup_target: s3://x
    - role: tuning
      when: tune | bool
      tags: [tune]
      vars:
        level: high
  post_tasks:
    - name: Done
      ansible.builtin.debug:
        msg: done

- name: db
  hosts: web
  roles:
    - nginx
`,
    );
    yamlDoc(file.content);
  });

  it("legacy hosts and roles make one play named after the component, with become", async () => {
    const file = await renderOne("automation/playbook", "web", {
      hosts: "web",
      roles: json(["common", "nginx"]),
    });
    assert.equal(file.path, "web.yml");
    assert.equal(
      file.content,
      "---\n- name: web\n  hosts: web\n  become: true\n  roles:\n    - common\n    - nginx\n",
    );
    const emptyPlays = await renderOne("automation/playbook", "web", {
      hosts: "web",
      roles: json(["common"]),
      plays: "[]",
      folder: "",
    });
    assert.equal(emptyPlays.path, "web.yml");
    assert.equal(
      emptyPlays.content,
      "---\n- name: web\n  hosts: web\n  become: true\n  roles:\n    - common\n",
    );
  });

  it("plays win over the legacy fields", async () => {
    const file = await renderOne("automation/playbook", "p", {
      hosts: "legacy",
      roles: json(["legacy"]),
      plays: json([{ name: "New", hosts: "new", roles: ["r"] }]),
    });
    assert.equal(
      file.content,
      "---\n- name: New\n  hosts: new\n  become: true\n  roles:\n    - r\n",
    );
  });

  it("awkward names, hosts, conditions, tags and vars read back exactly", async () => {
    const plays = AWKWARD.filter((value) => value !== "").map((value) => ({
      name: value,
      hosts: value,
      tags: [value, "x"],
      roles: [value, { role: value, when: value, tags: [value], vars: { [value]: value } }],
    }));
    const file = await renderOne("automation/playbook", "awkward", { plays: json(plays) });
    const doc = yamlDoc(file.content) as Record<string, unknown>[];
    assert.equal(doc.length, plays.length);
    plays.forEach((play, index) => {
      assert.deepEqual(doc[index], {
        name: play.name,
        hosts: play.hosts,
        become: true,
        tags: play.tags,
        roles: [
          play.name,
          { role: play.name, when: play.name, tags: [play.name], vars: { [play.name]: play.name } },
        ],
      });
    });
  });
});

describe("automation/site", () => {
  it("imports playbooks in order after ---", async () => {
    const file = await renderOne("automation/site", "site", {
      playbooks: json([
        { name: "Bootstrap", path: "playbooks/bootstrap.yml" },
        { name: "Web: tier #1", path: "playbooks/web.yml" },
      ]),
    });
    assert.equal(file.path, "site.yml");
    assert.equal(
      file.content,
      `---
- name: Bootstrap
  import_playbook: playbooks/bootstrap.yml
- name: "Web: tier #1"
  import_playbook: playbooks/web.yml
`,
    );
    yamlDoc(file.content);
  });
});

describe("automation/config", () => {
  it("writes cm.cfg: [defaults], inventory when set, roles_path", async () => {
    const file = await renderOne("automation/config", "cm", {
      inventory: "platform-inventory.ini",
    });
    assert.equal(file.path, "cm.cfg");
    assert.equal(
      file.content,
      "[defaults]\ninventory = platform-inventory.ini\nroles_path = roles\n",
    );
    const bare = await renderOne("automation/config", "cm");
    assert.equal(bare.content, "[defaults]\nroles_path = roles\n");
    const custom = await renderOne("automation/config", "cm", {
      inventory: "",
      roles_path: "roles:vendor/roles",
    });
    assert.equal(custom.content, "[defaults]\nroles_path = roles:vendor/roles\n");
  });

  it("doubles % (configparser interpolation) and refuses a value that cannot stay on one line", async () => {
    const file = await renderOne("automation/config", "cm", { inventory: "50%inv.ini" });
    assert.equal(file.content, "[defaults]\ninventory = 50%%inv.ini\nroles_path = roles\n");
    await assert.rejects(renderOne("automation/config", "cm", { inventory: "50%\ninv.ini" }), {
      name: "KilnError",
      kind: "invalid_request",
      message:
        /^automation\/config: `inventory` is "50%\\ninv\.ini", which cm\.cfg cannot hold: it holds a line break/,
    });
  });
});

type Task = Record<string, unknown>;

/** Task keywords of the automation tool that are not module names. */
const TASK_KEYWORDS = new Set([
  "name",
  "when",
  "register",
  "loop",
  "notify",
  "changed_when",
  "failed_when",
  "become",
  "tags",
  "vars",
  "args",
  "ignore_errors",
  "listen",
]);

function assertBuiltinModulesOnly(tasks: Task[]): void {
  for (const task of tasks) {
    const modules = Object.keys(task).filter((key) => !TASK_KEYWORDS.has(key));
    assert.equal(modules.length, 1, `one module per task: ${json(task)}`);
    assert.match(modules[0] as string, /^ansible\.builtin\./, `${task.name}`);
  }
}

describe("automation/k8s-bootstrap", () => {
  it("writes <name>-k8s-bootstrap.yml: one play on the hosts, pinned to the version", async () => {
    const file = await renderOne("automation/k8s-bootstrap", "cluster", {
      hosts: "k8s",
      k8s_version: "1.31",
    });
    assert.equal(file.path, "cluster-k8s-bootstrap.yml");
    const plays = yamlDoc(file.content) as Record<string, unknown>[];
    assert.equal(plays.length, 1);
    const play = plays[0] as Record<string, unknown>;
    assert.equal(play.name, "Prepare Kubernetes nodes (cluster)");
    assert.equal(play.hosts, "k8s");
    assert.equal(play.become, true);
    assert.equal((play.vars as Record<string, unknown>).k8s_version, "1.31");
    const tasks = play.tasks as Task[];
    assertBuiltinModulesOnly(tasks);
    assertBuiltinModulesOnly(play.handlers as Task[]);
    const modules = tasks.flatMap((task) =>
      Object.keys(task).filter((k) => k.startsWith("ansible.")),
    );
    for (const needed of [
      "ansible.builtin.apt_repository",
      "ansible.builtin.dpkg_selections",
      "ansible.builtin.get_url",
      "ansible.builtin.replace",
    ]) {
      assert.ok(modules.includes(needed), `uses ${needed}`);
    }
    assert.match(file.content, /modprobe \{\{ item \}\}/);
    assert.match(file.content, /br_netfilter/);
    assert.match(file.content, /SystemdCgroup = true/);
    assert.match(file.content, /selection: hold/);
  });

  it("awkward hosts and versions are quoted", async () => {
    for (const value of ["yes", "web:&db", "*", "1.20", "!x"]) {
      const file = await renderOne("automation/k8s-bootstrap", "a: b", {
        hosts: value,
        k8s_version: value,
      });
      const play = (yamlDoc(file.content) as Record<string, unknown>[])[0] as Record<
        string,
        unknown
      >;
      assert.equal(play.hosts, value);
      assert.equal(play.name, "Prepare Kubernetes nodes (a: b)");
      assert.equal((play.vars as Record<string, unknown>).k8s_version, value);
    }
  });
});

describe("a small automation project passes the automation tool's syntax check", () => {
  it("inventory, cm.cfg, group vars, roles, playbooks in a subfolder and site", {
    skip: ansibleSkip(),
  }, async () => {
    const dir = scratch();
    const files: RenderedFile[] = [];
    const add = async (reference: string, name: string, fields: Record<string, string> = {}) => {
      files.push(...(await render(reference, name, fields)));
    };
    await add("automation/inventory", "proj", {
      hosts: json([
        { group: "web", members: [{ name: "web-1", cm_host: "192.0.2.11" }] },
        {
          group: "db_primary",
          members: [{ name: "db-1", cm_host: "192.0.2.21", cm_user: "it's me" }],
        },
        { group: "db_replicas", members: [{ name: "db-2", cm_host: "192.0.2.22", cm_port: null }] },
        { group: "db", children: ["db_primary", "db_replicas"], vars: { pg: "16", note: "a # b" } },
        { group: "k8s", members: ["node-1"] },
      ]),
    });
    await add("automation/config", "cm", { inventory: "proj-inventory.ini" });
    await add("automation/group-vars", "all", {
      group: "all",
      layout: "dir",
      vars: json({ ntp: "pool.ntp.org", answer: "yes" }),
    });
    await add("automation/group-vars", "db", {
      group: "db",
      vars: json({ listen: "*" }),
      yaml: "databases:\n  - name: app\n",
    });
    await add("automation/common-role", "common", { timezone: "Europe/Berlin" });
    for (const role of ["nginx", "postgres", "pg_replication", "backup", "first: role"])
      await add("automation/role", role, { description: `The ${role} role` });
    await add("automation/k8s-bootstrap", "cluster", { hosts: "k8s", k8s_version: "v1.31.2" });
    await add("automation/playbook", "bootstrap", {
      folder: "playbooks",
      plays: json([{ name: "Base: every #server", hosts: "all", roles: ["common"] }]),
    });
    await add("automation/playbook", "db", {
      folder: "playbooks",
      plays: json([
        {
          name: "Database tier",
          hosts: "db",
          tags: ["db", "yes"],
          pre_tasks:
            "- name: Wait for the host\n  ansible.builtin.wait_for_connection:\n    timeout: 60\n",
          roles: [
            "postgres",
            { role: "pg_replication", when: "'db_replicas' in group_names" },
            { role: "backup", tags: ["backup"], vars: { backup_hour: 3, backup_note: "a: b" } },
            { role: "first: role" },
          ],
          post_tasks:
            '- name: Report\n  ansible.builtin.debug:\n    msg: "{{ inventory_hostname }} done"\n',
        },
        { name: "Read-only check", hosts: "db_replicas", become: false, roles: [] },
      ]),
    });
    await add("automation/playbook", "web", { hosts: "web", roles: json(["nginx"]) });
    // every awkward value in every place a play takes user text
    await add("automation/playbook", "awkward", {
      folder: "playbooks",
      plays: json(
        AWKWARD.filter((value) => value !== "").map((value) => ({
          name: value,
          // the tool templates `hosts` while parsing: `{{ jinja }}` is an undefined variable there
          hosts: value.includes("{{") ? "web" : value,
          tags: [value, "x"],
          roles: [{ role: "backup", when: value, tags: [value], vars: { awkward_value: value } }],
        })),
      ),
    });
    await add("automation/site", "site", {
      playbooks: json([
        { name: "Bootstrap", path: "playbooks/bootstrap.yml" },
        { name: "Database tier", path: "playbooks/db.yml" },
        { name: "Web", path: "web.yml" },
        { name: "Kubernetes nodes", path: "cluster-k8s-bootstrap.yml" },
      ]),
    });
    writeFiles(dir, files);

    for (const file of files.filter((f) => f.path.endsWith(".yml"))) {
      assert.doesNotThrow(() => yamlDoc(file.content), file.path);
    }
    // one run of the tool checks them all (it fails naming any playbook that fails) and prints
    // a `playbook: <path>` line for each it checked
    const playbooks = [
      "playbooks/bootstrap.yml",
      "playbooks/db.yml",
      "playbooks/awkward.yml",
      "web.yml",
      "cluster-k8s-bootstrap.yml",
      "site.yml",
    ];
    const { stdout } = ansibleSyntaxCheckAll(dir, playbooks);
    for (const playbook of playbooks) {
      assert.match(stdout, new RegExp(`^playbook: ${playbook.replace(".", "\\.")}$`, "m"));
    }
    // cm.cfg points the tool at the inventory: group vars and host vars resolve through it
    const hostVars = ansibleHostVars(join(dir, "proj-inventory.ini"), "db-1");
    assert.equal(hostVars.cm_user, "it's me");
    assert.equal(hostVars.note, "a # b");
    assert.equal(hostVars.pg, 16);
  });
});
