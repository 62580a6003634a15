// What the dashboard reads from the catalogue metadata instead of knowing components by name:
// the stage a component goes in, the structured editor a field gets, and the architecture graph
// drawn from the core's project facts. Built-ins and custom items that declare the same
// metadata get the same treatment.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ItemMeta, parseRegistryItem, toItemMetaView } from "../../src/core/item.ts";
import { catalogueEntry } from "../../src/core/project/facts.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { buildGraph, type GraphComponent, traceFrom } from "../../web/src/model/graph.ts";
import { legacyPlayFields } from "../../web/src/model/legacy-fields.ts";
import { stageOf } from "../../web/src/model/project.ts";
import { structuredKind } from "../../web/src/ui/editors/kind.ts";

/** The built-in catalogue's metadata, as the dashboard gets it from GET /api/registry/meta. */
const catalogue = builtinRegistry().items.map(toItemMetaView);
const builtin = (reference: string) => catalogueEntry(reference, catalogue);
const json = (value: unknown) => JSON.stringify(value);

/** A custom registry item's metadata, as GET /api/registry/meta?ref= gives it. */
function customMeta(item: Record<string, unknown>): ItemMeta {
  const parsed = parseRegistryItem({ category: "custom", files: [], ...item }, "item.json");
  return parsed.meta as ItemMeta;
}

/** Components with their catalogue metadata, as the dashboard hands them to the graph. */
const withMeta = (components: Omit<GraphComponent, "meta">[]): GraphComponent[] =>
  components.map((component) => ({ ...component, meta: builtin(component.reference) }));

describe("stages", () => {
  it("built-ins go where their component.json says", () => {
    assert.equal(stageOf(builtin("infra/cloud-a")), "provision");
    assert.equal(stageOf(builtin("automation/group-vars")), "inventory");
    assert.equal(stageOf(builtin("automation/k8s-bootstrap")), "configure");
    assert.equal(stageOf(builtin("k8s/ingress")), "deploy");
    assert.equal(stageOf(builtin("other/ingress")), "deploy", "resolved by name, as render does");
    assert.equal(stageOf(builtin("https://example.com/x.json")), "other");
  });

  it("a custom item goes where it declares, and to `other` when it declares nothing", () => {
    assert.equal(stageOf(customMeta({ name: "x", kiln: { stage: "inventory" } })), "inventory");
    assert.equal(stageOf(customMeta({ name: "x" })), "other");
    assert.equal(stageOf(customMeta({ name: "x", kiln: { stage: "later" } })), "other");
  });
});

describe("structured editors", () => {
  it("built-ins: the fields component.json marks", () => {
    const editors = Object.fromEntries(
      catalogue.flatMap((entry) =>
        Object.keys(entry.editors).map((field) => [
          `${entry.reference}.${field}`,
          structuredKind(entry, field),
        ]),
      ),
    );
    assert.deepEqual(editors, {
      "automation/inventory.hosts": "inventory",
      "automation/group-vars.vars": "vars",
      "automation/playbook.plays": "plays",
      "automation/site.playbooks": "site",
    });
    assert.equal(structuredKind(builtin("automation/playbook"), "roles"), undefined);
  });

  it("a custom item that declares an editor gets it; an unknown editor is none", () => {
    const meta = customMeta({
      name: "machines",
      fields: [
        { name: "machines", editor: "inventory" },
        { name: "steps", editor: "wizard" },
        { name: "plain" },
      ],
    });
    assert.equal(structuredKind(meta, "machines"), "inventory");
    assert.equal(structuredKind(meta, "steps"), undefined);
    assert.equal(structuredKind(meta, "plain"), undefined);
    assert.equal(structuredKind(undefined, "hosts"), undefined, "metadata not loaded yet");
    assert.equal(structuredKind(meta, "constructor"), undefined);
  });
});

describe("architecture graph", () => {
  it("links groups, group vars, plays, site, roles and the k8s chain", () => {
    const graph = buildGraph(
      withMeta([
        {
          reference: "automation/inventory",
          name: "inv",
          fields: {
            hosts: json([
              { group: "web", members: [{ name: "w" }] },
              { group: "app", children: ["web"] },
            ]),
          },
          labels: {},
        },
        { reference: "automation/group-vars", name: "web", fields: { group: "web" }, labels: {} },
        {
          reference: "automation/playbook",
          name: "deploy",
          fields: {
            folder: "playbooks",
            plays: json([{ hosts: "app", roles: ["nginx", "missing"] }]),
          },
          labels: {},
        },
        { reference: "automation/role", name: "nginx", fields: {}, labels: {} },
        {
          reference: "automation/site",
          name: "site",
          fields: { playbooks: json([{ name: "d", path: "playbooks/deploy.yml" }]) },
          labels: {},
        },
        { reference: "k8s/deployment", name: "api", fields: { image: "x" }, labels: {} },
        { reference: "k8s/service", name: "api", fields: {}, labels: {} },
        { reference: "k8s/ingress", name: "api", fields: {}, labels: {} },
      ]),
    );
    const edges = graph.edges.map((e) => `${e.source} ${e.target}`).sort();
    assert.deepEqual(edges, [
      "c:1 group:web",
      "c:2 c:3",
      "c:2 group:app",
      "c:2 missing:role:missing",
      "c:4 c:2",
      "c:6 c:5",
      "c:7 c:6",
      "group:app group:web",
    ]);
    assert.equal(graph.nodes.find((n) => n.id === "group:web")?.component, 0);
    assert.deepEqual([...traceFrom(graph, "c:6")].sort(), ["c:5", "c:6", "c:7"]);
  });

  it("draws a targeted playbook, servers, the config's inventory and missing pieces", () => {
    const graph = buildGraph(
      withMeta([
        {
          reference: "automation/inventory",
          name: "inv",
          fields: { hosts: json([{ group: "k8s", children: ["cp"] }, { group: "cp" }]) },
          labels: {},
          files: ["inv-inventory.ini"],
        },
        {
          reference: "automation/config",
          name: "cm",
          fields: { inventory: "./inv-inventory.ini" },
          labels: {},
        },
        {
          reference: "automation/k8s-bootstrap",
          name: "nodes",
          fields: { hosts: "k8s:gpu" },
          labels: {},
        },
        { reference: "infra/cloud-a", name: "edge", fields: { count: "3" }, labels: {} },
        {
          reference: "automation/site",
          name: "site",
          fields: {
            playbooks: json([
              { name: "n", path: "nodes-k8s-bootstrap.yml" },
              { name: "x", path: "x.yml" },
            ]),
          },
          labels: {},
        },
        {
          reference: "k8s/ingress",
          name: "shop",
          fields: { host: "shop.example.com" },
          labels: {},
        },
        { reference: "./custom.json", name: "thing", fields: {}, labels: {} },
      ]),
    );
    const kinds = Object.fromEntries(graph.nodes.map((n) => [n.id, [n.kind, n.detail]]));
    assert.deepEqual(kinds["c:2"], ["bootstrap", "runs on k8s:gpu"]);
    assert.deepEqual(kinds["c:3"], ["server", "servers × 3"]);
    assert.deepEqual(kinds["c:5"], ["ingress", "shop.example.com"]);
    assert.deepEqual(kinds["c:6"], ["other", "./custom.json"]);
    const edges = graph.edges.map((e) => `${e.source} ${e.target} ${e.label}`).sort();
    assert.deepEqual(edges, [
      "c:1 group:k8s inventory",
      "c:2 group:k8s runs on",
      "c:2 missing:group:gpu runs on",
      "c:4 c:2 imports",
      "c:4 missing:pb:x.yml imports",
      "c:5 missing:svc:shop routes to",
      "group:k8s group:cp child",
    ]);
  });

  it("agrees with the checks: a role vendored by a file, a play aimed at a host", () => {
    const graph = buildGraph(
      withMeta([
        {
          reference: "automation/inventory",
          name: "inv",
          fields: { hosts: json([{ group: "web", members: [{ name: "w1" }] }]) },
          labels: {},
        },
        {
          reference: "automation/playbook",
          name: "p",
          fields: { plays: json([{ hosts: "w1:nowhere", roles: ["tls"] }]) },
          labels: {},
        },
        {
          reference: "./tls-role.json",
          name: "t",
          fields: {},
          labels: {},
          files: ["roles/tls/tasks/main.yml"],
        },
      ]),
    );
    assert.deepEqual(graph.edges.map((e) => `${e.source} ${e.target}`).sort(), [
      "c:1 c:2",
      "c:1 missing:group:nowhere",
    ]);
  });

  it("a custom item declared an inventory draws its groups", () => {
    const meta = customMeta({
      name: "machines",
      fields: [{ name: "machines" }],
      kiln: { kind: "inventory", facts: { groups: "machines" } },
    });
    const graph = buildGraph([
      {
        reference: "./machines.json",
        name: "m",
        fields: { machines: json([{ group: "db", members: [{ name: "d1" }] }]) },
        labels: {},
        meta,
      },
      {
        reference: "automation/playbook",
        name: "p",
        fields: { hosts: "db" },
        labels: {},
        meta: builtin("automation/playbook"),
      },
    ]);
    assert.deepEqual(
      graph.nodes.find((n) => n.id === "group:db"),
      {
        id: "group:db",
        kind: "group",
        lane: "inventory",
        label: "db",
        detail: "group · 1 host",
        component: 0,
      },
    );
    assert.deepEqual(
      graph.edges.map((e) => `${e.source} ${e.target}`),
      ["c:1 group:db"],
    );
  });
});

describe("a playbook's legacy single-play fields", () => {
  it("are the hosts and roles facts of an item with a plays editor", () => {
    assert.deepEqual([...legacyPlayFields(builtin("automation/playbook"))].sort(), [
      "hosts",
      "roles",
    ]);
    const custom = customMeta({
      name: "pb",
      fields: [{ name: "target" }, { name: "list", editor: "plays" }],
      kiln: { kind: "playbook", facts: { plays: "list", hosts: "target" } },
    });
    assert.deepEqual([...legacyPlayFields(custom)], ["target"]);
  });

  it("are none in an item without a plays editor, or while its metadata loads", () => {
    assert.equal(legacyPlayFields(builtin("automation/k8s-bootstrap")).size, 0);
    assert.equal(legacyPlayFields(builtin("k8s/deployment")).size, 0);
    assert.equal(legacyPlayFields(undefined).size, 0);
  });
});
