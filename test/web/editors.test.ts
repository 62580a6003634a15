// The structured editors read and write the exact JSON the templates expect: an untouched field
// round-trips byte for byte, and each edit changes only what it edits.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import * as inv from "../../web/src/model/inventory.ts";
import {
  detectJsonStyle,
  parseJsonArray,
  parseJsonObject,
  stringifyLike,
  withKey,
} from "../../web/src/model/json-style.ts";
import { fromRows, toRows } from "../../web/src/model/kv.ts";
import * as plays from "../../web/src/model/plays.ts";
import { siteEntryView, updateSiteEntry } from "../../web/src/model/site.ts";

const presetsDir = new URL("../../src/core/presets/", import.meta.url);
const presetNames = JSON.parse(readFileSync(new URL("index.json", presetsDir), "utf8")) as string[];
const presets = presetNames.map(
  (name) =>
    JSON.parse(readFileSync(new URL(`${name}.preset.json`, presetsDir), "utf8")) as {
      components: { reference: string; name: string; fields?: Record<string, string> }[];
    },
);

describe("JSON style", () => {
  it("detects compact, spaced and indented JSON", () => {
    assert.deepEqual(detectJsonStyle('[{"a":1,"b":"x, y: z"}]'), { kind: "compact" });
    assert.deepEqual(detectJsonStyle('[{"a": 1, "b": 2}]'), { kind: "spaced" });
    assert.deepEqual(detectJsonStyle('[\n    {"a": 1}\n]'), { kind: "pretty", indent: 4 });
    assert.deepEqual(detectJsonStyle('{"k": "a,b"}'), { kind: "spaced" });
  });

  it("every JSON-valued field of every built-in preset round-trips byte for byte", () => {
    let checked = 0;
    for (const preset of presets) {
      for (const component of preset.components) {
        for (const [field, text] of Object.entries(component.fields ?? {})) {
          if (!/^\s*[[{]/.test(text)) continue;
          const value: unknown = JSON.parse(text);
          assert.equal(stringifyLike(value, text), text, `${component.name}.${field}`);
          checked += 1;
        }
      }
    }
    assert.ok(checked > 20, `only ${checked} JSON fields found`);
  });

  it("structured views of every preset's inventories, plays and sites write back the same JSON", () => {
    for (const preset of presets) {
      for (const component of preset.components) {
        const kind = component.reference.split("/").pop();
        const fields = component.fields ?? {};
        if (kind === "inventory" && fields.hosts) {
          const parsed = parseJsonArray(fields.hosts);
          assert.ok(parsed.ok);
          // Rewriting each host through the editor's setters with its own values changes nothing.
          let groups: unknown[] = parsed.value;
          groups.forEach((group, index) => {
            const view = inv.groupView(group);
            groups = inv.setChildren(groups, index, view.children.length ? view.children : []);
            view.members.forEach((_host, hostIndex) => {
              groups = inv.updateHost(groups, index, hostIndex, (h) =>
                inv.writeInherited(h, "cm_user", inv.readInherited(h, "cm_user")),
              );
            });
          });
          const before = JSON.parse(fields.hosts) as {
            children?: unknown[];
            members?: { cm_port?: unknown }[];
          }[];
          const hadPortStrings = before.some((g) =>
            g.members?.some((m) => typeof m.cm_port === "string"),
          );
          if (!hadPortStrings) assert.equal(stringifyLike(groups, fields.hosts), fields.hosts);
        }
        if (kind === "playbook" && fields.plays) {
          const parsed = parseJsonArray(fields.plays);
          assert.ok(parsed.ok);
          const next = parsed.value.map((play) => {
            const view = plays.playView(play);
            return plays.updatePlay(play, {
              name: view.name,
              hosts: view.hosts,
              roles: view.roles.map((entry) => plays.updateRoleEntry(entry, {})),
            });
          });
          assert.equal(stringifyLike(next, fields.plays), fields.plays, component.name);
        }
        if (kind === "site" && fields.playbooks) {
          const parsed = parseJsonArray(fields.playbooks);
          assert.ok(parsed.ok);
          const next = parsed.value.map((entry) => updateSiteEntry(entry, siteEntryView(entry)));
          assert.equal(stringifyLike(next, fields.playbooks), fields.playbooks);
        }
      }
    }
  });

  it("parses arrays and objects, and says what is wrong", () => {
    assert.deepEqual(parseJsonArray(undefined), { ok: true, value: [] });
    assert.equal(parseJsonArray("{}").ok, false);
    assert.equal(parseJsonArray("[oops").ok, false);
    assert.deepEqual(parseJsonObject('{"a": "1"}'), { ok: true, value: { a: "1" } });
    assert.equal(parseJsonObject("[]").ok, false);
  });

  it("withKey keeps key order, appends new keys and removes undefined", () => {
    assert.deepEqual(Object.keys(withKey({ a: 1, b: 2, c: 3 }, "b", 9)), ["a", "b", "c"]);
    assert.deepEqual(withKey({ a: 1 }, "z", 2), { a: 1, z: 2 });
    assert.deepEqual(withKey({ a: 1, b: 2 }, "a", undefined), { b: 2 });
  });
});

describe("inventory editor model", () => {
  const text =
    '[{"group": "web", "members": [{"name": "w1", "cm_host": "10.0.0.1", "extra": true}]}, {"group": "app", "children": ["web"], "vars": {"x": "1"}}]';

  it("renaming a group renames it in children too", () => {
    const parsed = parseJsonArray(text);
    assert.ok(parsed.ok);
    const next = inv.renameGroup(parsed.value, 0, "frontend");
    assert.equal(
      stringifyLike(next, text),
      '[{"group": "frontend", "members": [{"name": "w1", "cm_host": "10.0.0.1", "extra": true}]}, {"group": "app", "children": ["frontend"], "vars": {"x": "1"}}]',
    );
  });

  it("removing a group drops it from children", () => {
    const parsed = parseJsonArray(text);
    assert.ok(parsed.ok);
    assert.deepEqual(inv.removeGroup(parsed.value, 0), [
      { group: "app", children: [], vars: { x: "1" } },
    ]);
  });

  it("user and port: default (key missing), none (null), or a value; ports become numbers", () => {
    const host = { name: "h" };
    assert.deepEqual(inv.readInherited(host, "cm_user"), { mode: "default" });
    assert.deepEqual(inv.writeInherited(host, "cm_user", { mode: "none" }), {
      name: "h",
      cm_user: null,
    });
    assert.deepEqual(inv.readInherited({ cm_user: "" }, "cm_user"), { mode: "none" });
    assert.deepEqual(inv.writeInherited(host, "cm_port", { mode: "value", value: "2222" }), {
      name: "h",
      cm_port: 2222,
    });
    assert.deepEqual(
      inv.writeInherited({ name: "h", cm_user: "x" }, "cm_user", { mode: "default" }),
      {
        name: "h",
      },
    );
  });

  it("adds and removes hosts and keeps unknown keys", () => {
    const parsed = parseJsonArray(text);
    assert.ok(parsed.ok);
    let groups = inv.addHost(parsed.value, 0, { name: "w2", cm_host: "10.0.0.2" });
    groups = inv.updateHost(groups, 0, 0, (h) => inv.setHostText(h, "cm_host", "10.9.9.9"));
    assert.deepEqual(inv.groupView(groups[0]).members, [
      { name: "w1", cm_host: "10.9.9.9", extra: true },
      { name: "w2", cm_host: "10.0.0.2" },
    ]);
    groups = inv.removeHost(groups, 0, 0);
    assert.deepEqual(inv.groupsOfHost(groups, "w2"), ["web"]);
    assert.deepEqual(inv.setGroupVars(groups, 1, {})[1], { group: "app", children: ["web"] });
  });
});

describe("plays editor model", () => {
  it("role entries: string, {role, when}, {role}; when makes an object, tags and vars follow", () => {
    assert.equal(plays.updateRoleEntry("nginx", { role: "apache" }), "apache");
    assert.deepEqual(plays.updateRoleEntry("nginx", { when: "x" }), { role: "nginx", when: "x" });
    assert.deepEqual(plays.updateRoleEntry({ role: "r", when: "x" }, { when: "" }), { role: "r" });
    assert.deepEqual(plays.updateRoleEntry({ role: "r" }, { tags: ["a"], vars: { k: "v" } }), {
      role: "r",
      tags: ["a"],
      vars: { k: "v" },
    });
  });

  it("plays: empty text removes a key, become false is written, true is the default", () => {
    const play = { name: "p", hosts: "web", roles: ["a"] };
    assert.deepEqual(plays.updatePlay(play, { become: false }), { ...play, become: false });
    assert.deepEqual(plays.updatePlay({ ...play, become: false }, { become: true }), play);
    assert.deepEqual(plays.updatePlay({ ...play, become: true }, { become: true }), {
      ...play,
      become: true,
    });
    assert.deepEqual(plays.updatePlay(play, { name: "" }), { hosts: "web", roles: ["a"] });
    assert.deepEqual(plays.updatePlay(play, { tags: ["t1", "t2"], preTasks: "- ping:\n" }), {
      ...play,
      tags: ["t1", "t2"],
      pre_tasks: "- ping:\n",
    });
    assert.deepEqual(plays.playView({}).become, true);
    assert.deepEqual(plays.splitList(" a, b ,,c "), ["a", "b", "c"]);
  });
});

describe("key/value rows", () => {
  it("keeps non-string values typed until retyped", () => {
    const original = { a: "x", n: 3, flag: true, list: [1, 2] };
    const rows = toRows(original);
    assert.deepEqual(fromRows(rows, original), original);
    const edited = rows.map((row) => (row.key === "n" ? { ...row, value: "4" } : row));
    assert.deepEqual(fromRows(edited, original), { ...original, n: 4 });
    const text = rows.map((row) => (row.key === "flag" ? { ...row, value: "maybe" } : row));
    assert.equal(fromRows(text, original).flag, "maybe");
    assert.deepEqual(fromRows([{ key: "", value: "x", typed: false }]), {});
  });
});
