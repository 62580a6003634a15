// kiln's catalogue metadata in registry items (`kiln` and per-field `editor`/`format`): parsed
// leniently, so an item valid for an older kiln stays valid; an item that declares nothing reads
// as before; the API view never shows it; every built-in declares it; and the project facts
// read it (fields with defaults, `writes` patterns, CIDR ranges).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseCidr } from "../../src/core/formats.ts";
import {
  type ItemMeta,
  parseRegistryItem,
  toItemMetaView,
  toItemView,
} from "../../src/core/item.ts";
import { projectFacts, writesPath } from "../../src/core/project/facts.ts";
import { STAGE_IDS } from "../../src/core/vocabulary.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";

const minimal = { name: "thing", category: "misc", files: [{ path: "a.txt", template: "x" }] };
const metaOf = (json: Record<string, unknown>): ItemMeta =>
  parseRegistryItem({ ...minimal, ...json }, "x.json").meta as ItemMeta;

describe("catalogue metadata: parsing", () => {
  test("an item that declares nothing gets the defaults", () => {
    assert.deepEqual(metaOf({}), {
      stage: "other",
      kind: null,
      suggest: false,
      writes: null,
      facts: {},
      editors: {},
      formats: {},
      defaults: {},
      profilePaths: {},
    });
  });

  test("a full declaration", () => {
    const meta = metaOf({
      fields: [
        { name: "hosts", editor: "inventory", default: "[]" },
        { name: "net", format: "cidr" },
        { name: "raw", format: "yaml" },
      ],
      kiln: {
        stage: "inventory",
        kind: "inventory",
        suggest: true,
        writes: "{name}.ini",
        facts: { groups: "hosts" },
        profilePaths: { ansible: { "cm.cfg": "ansible.cfg", bad: 3 } },
      },
    });
    assert.deepEqual(meta, {
      stage: "inventory",
      kind: "inventory",
      suggest: true,
      writes: "{name}.ini",
      facts: { groups: "hosts" },
      editors: { hosts: "inventory" },
      formats: { net: "cidr", raw: "yaml" },
      defaults: { hosts: "[]" },
      profilePaths: { ansible: { "cm.cfg": "ansible.cfg" } },
    });
  });

  test("what this kiln does not know is left out, never an invalid item", () => {
    const meta = metaOf({
      fields: [
        { name: "a", editor: "wizard", format: 3 },
        { name: "__proto__", editor: "vars" },
      ],
      kiln: {
        stage: "later",
        kind: "database",
        suggest: "yes",
        writes: 7,
        facts: { groups: 1, plays: "", __proto__: "x", other: "field" },
        version: 2,
      },
    });
    assert.equal(meta.stage, "other");
    assert.equal(meta.kind, null);
    assert.equal(meta.suggest, false);
    assert.equal(meta.writes, null);
    assert.deepEqual(Object.keys(meta.facts), ["other"]);
    assert.deepEqual(Object.keys(meta.editors), ["__proto__"], "an ordinary key");
    assert.equal(Object.getPrototypeOf(meta.editors), Object.prototype);
    assert.deepEqual(metaOf({ kiln: "nonsense" }).facts, {});
  });

  test("the API view is the spec's, whatever the item declares", () => {
    const item = parseRegistryItem(
      { ...minimal, fields: [{ name: "h", editor: "inventory" }], kiln: { stage: "deploy" } },
      "x.json",
    );
    assert.deepEqual(toItemView(item), toItemView({ ...item, meta: undefined }));
    assert.deepEqual(Object.keys(toItemMetaView(item)), [
      "reference",
      "stage",
      "kind",
      "suggest",
      "writes",
      "facts",
      "editors",
      "formats",
      "defaults",
      "profilePaths",
      "dependencies",
    ]);
  });

  test("every built-in declares a stage and a kind, and its facts name its own fields", () => {
    for (const item of builtinRegistry().items) {
      const meta = item.meta as ItemMeta;
      const reference = `${item.category}/${item.name}`;
      assert.ok(STAGE_IDS.includes(meta.stage) && meta.stage !== "other", reference);
      assert.notEqual(meta.kind, null, reference);
      const fields = new Set(item.fields.map((field) => field.name));
      for (const field of [
        ...Object.values(meta.facts),
        ...Object.keys(meta.editors),
        ...Object.keys(meta.formats),
      ]) {
        assert.ok(fields.has(field), `${reference}: ${field} is not one of its fields`);
      }
    }
  });

  test("per kind, at most one built-in is the one checks suggest", () => {
    const suggested = builtinRegistry()
      .items.map((item) => item.meta as ItemMeta)
      .filter((meta) => meta.suggest)
      .map((meta) => meta.kind);
    assert.equal(new Set(suggested).size, suggested.length);
  });
});

describe("project facts: what they read of the metadata", () => {
  test("`writes` fills {name} and fields (defaults included) and drops empty segments", () => {
    const meta = metaOf({
      fields: [
        { name: "folder", default: "" },
        { name: "ext", default: "yml" },
      ],
    });
    const fill = (fields: Record<string, string>) =>
      writesPath("{folder}/{name}.{ext}", { name: "web", fields }, meta);
    assert.equal(fill({}), "web.yml");
    assert.equal(fill({ folder: "play/books/", ext: "yaml" }), "play/books/web.yaml");
    assert.equal(fill({ folder: "./a/../b" }), "b/web.yml");
  });

  test("a fact reads the field's default when the component leaves it out", () => {
    const meta = metaOf({
      fields: [{ name: "n", default: "4" }],
      kiln: { kind: "servers", facts: { count: "n" } },
    });
    const facts = projectFacts({
      components: [
        { reference: "./s.json", name: "a", fields: {}, labels: {}, meta },
        { reference: "./s.json", name: "b", fields: { n: "2" }, labels: {}, meta },
      ],
    });
    assert.deepEqual(
      facts.servers.map((server) => [server.name, server.count]),
      [
        ["a", "4"],
        ["b", "2"],
      ],
    );
  });

  test("CIDRs: IPv4 and IPv6, bare addresses, prefixes; anything else is not a range", () => {
    assert.deepEqual(parseCidr("10.0.1.7/24"), {
      family: 4,
      first: 0x0a000100n,
      last: 0x0a0001ffn,
    });
    assert.deepEqual(parseCidr("192.0.2.1"), { family: 4, first: 0xc0000201n, last: 0xc0000201n });
    assert.deepEqual(parseCidr("2001:db8::/32"), {
      family: 6,
      first: 0x20010db8n << 96n,
      last: (0x20010db8n << 96n) + (1n << 96n) - 1n,
    });
    assert.equal(parseCidr("::ffff:192.0.2.1")?.first, 0xffffc0000201n);
    assert.equal(parseCidr("::/0")?.last, (1n << 128n) - 1n);
    for (const bad of [
      "10.0.0.256/8",
      "10.0.0.0/33",
      "10.0.0/8",
      "1::2::3",
      "x/8",
      "",
      "10.0.0.0/8/8",
    ]) {
      assert.equal(parseCidr(bad), undefined, bad);
    }
  });
});
