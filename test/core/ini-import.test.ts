import assert from "node:assert/strict";
import { describe, it, test } from "node:test";
import { expandHostRange, importIniInventory, tokenizeIniLine } from "../../src/core/ini-import.ts";

describe("INI import", () => {
  it("reads groups, children and vars in file order", () => {
    const result = importIniInventory(`
# web tier
[web]
web-1 cm_host=10.0.0.11 cm_user=deploy
web-2 cm_host=10.0.0.12 cm_port=2222 cm_ssh_private_key_file=~/.ssh/web

[db]
db-1 cm_host=10.0.0.21 role=primary

[app:children]
web
db

[app:vars]
ntp_server = pool.ntp.org
greeting="hello world"
`);
    assert.deepEqual(result.warnings, []);
    assert.deepEqual(result.groups, [
      {
        group: "web",
        members: [
          { name: "web-1", cm_host: "10.0.0.11", cm_user: "deploy", cm_port: null },
          {
            name: "web-2",
            cm_host: "10.0.0.12",
            cm_user: null,
            cm_port: 2222,
            ssh_key_file: "~/.ssh/web",
          },
        ],
      },
      {
        group: "db",
        members: [
          {
            name: "db-1",
            cm_host: "10.0.0.21",
            cm_user: null,
            cm_port: null,
            vars: { role: "primary" },
          },
        ],
      },
      {
        group: "app",
        children: ["web", "db"],
        vars: { ntp_server: "pool.ntp.org", greeting: "hello world" },
      },
    ]);
    assert.equal(result.json, JSON.stringify(result.groups));
  });

  it("merges a host listed in several groups and reports clashes", () => {
    const result = importIniInventory(
      "[web]\nh1 cm_host=10.0.0.1 a=1\n[db]\nh1 b=2\n[cache]\nh1 cm_host=10.0.0.9\n",
    );
    const members = result.groups.map((group) => group.members?.[0]);
    const merged = {
      name: "h1",
      cm_host: "10.0.0.9",
      cm_user: null,
      cm_port: null,
      vars: { a: "1", b: "2" },
    };
    assert.deepEqual(members, [merged, merged, merged]);
    assert.equal(result.warnings.length, 1);
    assert.match(
      result.warnings[0] ?? "",
      /h1: cm_host is `10\.0\.0\.1` in one group and `10\.0\.0\.9`/,
    );
  });

  it("hosts before any section go to ungrouped; child-only groups appear", () => {
    const result = importIniInventory(
      "lonely cm_host=1.2.3.4\n[all:vars]\nx=1\n[k8s:children]\ncp\n",
    );
    assert.deepEqual(
      result.groups.map((group) => group.group),
      ["ungrouped", "all", "k8s", "cp"],
    );
    assert.deepEqual(result.groups[3], { group: "cp" });
  });

  it("expands host ranges", () => {
    assert.deepEqual(expandHostRange("web[01:03].x"), ["web01.x", "web02.x", "web03.x"]);
    assert.deepEqual(expandHostRange("db-[a:c]"), ["db-a", "db-b", "db-c"]);
    assert.deepEqual(expandHostRange("n[1:5:2]"), ["n1", "n3", "n5"]);
    assert.deepEqual(expandHostRange("plain"), ["plain"]);
  });

  it("tokenizes quotes and comments", () => {
    assert.deepEqual(tokenizeIniLine(`h a="b c" d='e' # comment`), ["h", "a=b c", "d=e"]);
    assert.deepEqual(tokenizeIniLine("h url=http://x/#frag"), ["h", "url=http://x/#frag"]);
  });

  it("warns about tokens that are not key=value and skips them", () => {
    const result = importIniInventory("[web]\nh1 stray\n");
    assert.equal(result.warnings.length, 1);
    assert.deepEqual(result.groups[0]?.members?.[0]?.name, "h1");
  });
});

describe("importing what kiln's inventory template writes", () => {
  test("awkward values round-trip: render, import, and get the same hosts JSON back", async () => {
    const { TemplateEngine } = await import("../../src/node/template-engine.ts");
    const { resolveReference } = await import("../../src/node/resolve-reference.ts");
    const { renderItem } = await import("../../src/core/render-item.ts");
    const awkward = [
      "a b",
      "#not-a-comment",
      "it's",
      'say "hi"',
      "x=y",
      "1.31",
      "True",
      "back\\slash",
      "tab\there",
      "ünïcode",
      "semi;colon",
    ];
    const vars = Object.fromEntries(awkward.map((value, index) => [`v${index}`, value]));
    const hosts = [
      {
        group: "web",
        members: [
          { name: "web-1", cm_host: "10.0.0.1", cm_user: "deploy user", cm_port: 2222, vars },
        ],
        vars,
      },
    ];
    const item = await resolveReference("automation/inventory");
    const rendered = renderItem(new TemplateEngine(), item, {
      name: "x",
      fields: { hosts: JSON.stringify(hosts) },
      defaultNamespace: "default",
    });
    const imported = importIniInventory(rendered.files[0]?.content ?? "");
    assert.deepEqual(imported.warnings, []);
    assert.deepEqual(imported.groups, hosts);
  });
});
