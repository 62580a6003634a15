// The architecture graph's lanes, the servers → hosts links, the links that make
// multi-tier-platform one connected picture, and its draw.io export: the file
// is parsed with a real XML parser and every lane, node and edge of the graph model must be in it
// with the right parent, source and target, for every built-in template and for names that
// hold markup; and in French, the links are named in French.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { toItemMetaView } from "../../src/core/item.ts";
import { catalogueEntry } from "../../src/core/project/facts.ts";
import { builtinPresets } from "../../src/node/builtin-presets.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { chooseLanguage } from "../../web/src/i18n/i18n.ts";
import { drawioXml, xmlAttribute } from "../../web/src/model/drawio.ts";
import { buildGraph, type Graph, type GraphComponent } from "../../web/src/model/graph.ts";
import { layoutGraph } from "../../web/src/model/graph-layout.ts";
import { parseDrawio } from "../tools/drawio.ts";

const catalogue = builtinRegistry().items.map(toItemMetaView);
const json = (value: unknown) => JSON.stringify(value);

const withMeta = (components: Omit<GraphComponent, "meta">[]): GraphComponent[] =>
  components.map((component) => ({
    ...component,
    meta: catalogueEntry(component.reference, catalogue),
  }));

function presetComponents(name: string): GraphComponent[] {
  const text = readFileSync(
    new URL(`../../src/core/presets/${name}.preset.json`, import.meta.url),
    "utf8",
  );
  const preset = JSON.parse(text) as { components: Omit<GraphComponent, "meta">[] };
  return withMeta(
    preset.components.map((c) => ({ ...c, labels: c.labels ?? {}, fields: c.fields ?? {} })),
  );
}

const PRESETS = builtinPresets().map((preset) => preset.name);

/** Asserts every lane, node and edge of `graph` is a cell of `xml`, placed and linked right. */
function assertHoldsGraph(xml: string, graph: Graph): void {
  const { cells } = parseDrawio(xml);
  const byId = new Map(cells.map((cell) => [cell.id, cell]));
  assert.equal(byId.size, cells.length, "cell ids are unique");
  assert.equal(cells.length, 2 + graph.lanes.length + graph.nodes.length + graph.edges.length);
  for (const lane of graph.lanes) {
    const cell = byId.get(`lane:${lane.id}`);
    assert.ok(cell, `lane ${lane.id}`);
    assert.equal(cell.parent, "1");
    assert.equal(cell.value, lane.title);
    assert.match(cell.style ?? "", /^swimlane;/);
  }
  for (const node of graph.nodes) {
    const cell = byId.get(node.id);
    assert.ok(cell, `node ${node.id}`);
    assert.equal(cell.vertex, "1");
    assert.equal(cell.parent, `lane:${node.lane}`, `${node.id} sits in its lane`);
    assert.equal(cell.value, `${node.label}\n${node.detail}`);
    assert.match(cell.style ?? "", /html=0/, "labels are plain text");
  }
  for (const edge of graph.edges) {
    const cell = byId.get(edge.id);
    assert.ok(cell, `edge ${edge.id}`);
    assert.equal(cell.edge, "1");
    assert.equal(cell.source, edge.source);
    assert.equal(cell.target, edge.target);
    assert.equal(cell.value, edge.label ?? "");
  }
}

describe("architecture graph lanes", () => {
  it("puts every node in the lane of its stage, and lists the lanes used in stage order", () => {
    const graph = buildGraph(presetComponents("multi-tier-platform"));
    assert.deepEqual(
      graph.lanes.map((lane) => lane.id),
      ["provision", "inventory", "configure", "deploy"],
    );
    const laneOf = (id: string) => graph.nodes.find((node) => node.id === id)?.lane;
    assert.equal(laneOf("c:0"), "provision");
    assert.equal(laneOf("group:web"), "inventory");
    assert.equal(laneOf("c:3"), "inventory", "group vars");
    assert.equal(laneOf("c:7"), "configure", "a playbook");
    assert.equal(laneOf("c:31"), "deploy", "a deployment");
  });

  it("puts a missing target in the lane it would be in", () => {
    const graph = buildGraph(
      withMeta([
        {
          reference: "automation/playbook",
          name: "p",
          fields: { plays: json([{ hosts: "nowhere", roles: ["absent"] }]) },
          labels: {},
        },
        { reference: "k8s/ingress", name: "i", fields: { service: "gone" }, labels: {} },
      ]),
    );
    const laneOf = (id: string) => graph.nodes.find((node) => node.id === id)?.lane;
    assert.equal(laneOf("missing:group:nowhere"), "inventory");
    assert.equal(laneOf("missing:role:absent"), "configure");
    assert.equal(laneOf("missing:svc:gone"), "deploy");
  });
});

describe("cloud servers → the inventory hosts they provision", () => {
  const inventory = (hosts: unknown) => ({
    reference: "automation/inventory",
    name: "inv",
    fields: { hosts: json(hosts) },
    labels: {},
  });
  const servers = (name: string, count: string) => ({
    reference: "infra/cloud-a",
    name,
    fields: { region: "fsn1", size: "cx22", count },
    labels: {},
  });

  it("links the servers to each group holding a host named or addressed <name>-<index>", () => {
    const graph = buildGraph(presetComponents("bootstrap-cluster"));
    const provisions = graph.edges.filter((edge) => edge.label?.startsWith("provisions"));
    assert.deepEqual(
      provisions.map((edge) => [edge.source, edge.target, edge.label]),
      [
        ["c:0", "group:control_plane", "provisions 3 hosts"],
        ["c:1", "group:workers", "provisions 3 hosts"],
      ],
    );
  });

  it("names one or two hosts, matches cm_host too, and only indexes below the count", () => {
    const graph = buildGraph(
      withMeta([
        servers("web", "2"),
        inventory([
          { group: "front", members: [{ name: "web-0" }, { name: "w1", cm_host: "web-1" }] },
          { group: "spare", members: [{ name: "web-2" }, { name: "web-01x" }] },
          { group: "other", members: [{ name: "db-0", cm_host: "10.0.0.1" }] },
        ]),
      ]),
    );
    assert.deepEqual(
      graph.edges.map((edge) => [edge.source, edge.target, edge.label]),
      [["c:0", "group:front", "provisions web-0, w1"]],
    );
  });

  it("draws no provisions link when no host matches (multi-tier-platform's edge servers)", () => {
    const graph = buildGraph(presetComponents("multi-tier-platform"));
    assert.deepEqual(
      graph.edges.filter((edge) => edge.source === "c:0").map((edge) => edge.label),
      ["configured by"],
    );
    const none = buildGraph(
      withMeta([servers("app", "0"), inventory([{ group: "a", members: [{ name: "app-0" }] }])]),
    );
    assert.equal(none.edges.length, 0, "count 0 provisions nothing");
  });
});

/** The groups of nodes joined by edges, whichever way they point (union-find). */
function connectedComponents(graph: Graph): string[][] {
  const parent = new Map(graph.nodes.map((node) => [node.id, node.id]));
  const root = (id: string): string => {
    const up = parent.get(id) ?? id;
    return up === id ? id : root(up);
  };
  for (const edge of graph.edges) parent.set(root(edge.source), root(edge.target));
  const groups = new Map<string, string[]>();
  for (const node of graph.nodes) {
    const key = root(node.id);
    groups.set(key, [...(groups.get(key) ?? []), node.id]);
  }
  return [...groups.values()];
}

describe("one connected picture: servers → their playbook, Kubernetes → the cluster's group", () => {
  it("draws multi-tier-platform as exactly one connected graph", () => {
    const islands = connectedComponents(buildGraph(presetComponents("multi-tier-platform")));
    assert.equal(islands.length, 1, `islands: ${islands.map((ids) => ids.join(" ")).join(" | ")}`);
  });

  it("links servers no host is named after to the playbook of the same name", () => {
    const graph = buildGraph(presetComponents("multi-tier-platform"));
    const edge = graph.edges.find((e) => e.source === "c:0" && e.label === "configured by");
    const playbook = graph.nodes.find((node) => node.id === edge?.target);
    assert.equal(playbook?.label, "edge");
    assert.equal(playbook?.kind, "playbook");
  });

  it("links each deployment to the group the bootstrap targets, else the group named k8s", () => {
    const runsOn = (graph: Graph) =>
      graph.edges
        .filter((edge) => edge.label === "runs on" && edge.source.startsWith("c:"))
        .filter((edge) => graph.nodes.find((n) => n.id === edge.source)?.kind === "deployment")
        .map((edge) => [graph.nodes.find((n) => n.id === edge.source)?.label, edge.target]);
    assert.deepEqual(runsOn(buildGraph(presetComponents("multi-tier-platform"))), [
      ["storefront", "group:k8s"],
      ["api", "group:k8s"],
      ["worker", "group:k8s"],
    ]);
    const bootstrapped = buildGraph(
      withMeta([
        {
          reference: "automation/inventory",
          name: "inv",
          fields: {
            hosts: json([{ group: "nodes", members: [{ name: "n1" }] }, { group: "k8s" }]),
          },
          labels: {},
        },
        {
          reference: "automation/k8s-bootstrap",
          name: "boot",
          fields: { hosts: "nodes" },
          labels: {},
        },
        { reference: "k8s/deployment", name: "web", fields: { image: "nginx" }, labels: {} },
      ]),
    );
    assert.deepEqual(runsOn(bootstrapped), [["web", "group:nodes"]]);
  });
});

describe("draw.io export", () => {
  for (const preset of PRESETS) {
    it(`holds every lane, node and edge of ${preset}`, async () => {
      const graph = buildGraph(presetComponents(preset));
      assert.ok(graph.nodes.length > 0);
      const xml = drawioXml(preset, graph, await layoutGraph(graph));
      assertHoldsGraph(xml, graph);
      assert.equal(parseDrawio(xml).diagramName, preset);
    });
  }

  it("escapes names that hold markup, quotes and line breaks; drops what XML cannot hold", async () => {
    const hostile = `x"/><mxCell id="evil" value='&amp;'\n<script>\u0001`;
    const graph = buildGraph(
      withMeta([
        {
          reference: "automation/playbook",
          name: hostile,
          fields: { plays: json([{ hosts: "all", roles: [hostile] }]) },
          labels: {},
        },
      ]),
    );
    const xml = drawioXml(`project "<&>"`, graph, await layoutGraph(graph));
    assertHoldsGraph(xml, graph.nodes.length > 0 ? clean(graph) : graph);
    assert.equal(parseDrawio(xml).diagramName, `project "<&>"`);
    assert.ok(!parseDrawio(xml).cells.some((cell) => cell.id === "evil"));
  });

  it("xmlAttribute leaves no markup character and keeps line breaks as references", () => {
    assert.equal(
      xmlAttribute(`a&b<c>d"e'f\ng\th\r`),
      "a&amp;b&lt;c&gt;d&quot;e&apos;f&#10;g&#9;h&#13;",
    );
    assert.equal(xmlAttribute("a\u0000b\u001fc\ud800d"), "abcd");
    assert.equal(xmlAttribute("😀"), "😀", "a surrogate pair is kept");
  });
});

/** The graph as a parser reads it back: the characters XML cannot hold are gone. */
function clean(graph: Graph): Graph {
  const strip = (text: string) => text.split("\u0001").join("");
  return {
    lanes: graph.lanes,
    nodes: graph.nodes.map((node) => ({
      ...node,
      id: strip(node.id),
      label: strip(node.label),
      detail: strip(node.detail),
    })),
    edges: graph.edges.map((edge) => ({
      ...edge,
      id: strip(edge.id),
      source: strip(edge.source),
      target: strip(edge.target),
    })),
  };
}

describe("the graph's words follow the interface's language", () => {
  it("in French, every link of every built-in template is named in French (child, vars, role, imports, inventory, selects…)", () => {
    const english = new Set(
      PRESETS.flatMap((name) => buildGraph(presetComponents(name)).edges.map((edge) => edge.label)),
    );
    chooseLanguage("fr");
    try {
      const french = new Set(
        PRESETS.flatMap((name) =>
          buildGraph(presetComponents(name)).edges.map((edge) => edge.label),
        ),
      );
      for (const word of ["child", "vars", "role", "imports", "inventory", "selects"]) {
        assert.ok(english.has(word), `the templates draw a ${word} link`);
      }
      assert.deepEqual(
        [...french].filter((label) => label !== undefined && english.has(label)),
        [],
        "links named in English in the French interface",
      );
      for (const word of ["enfant", "variables", "rôle", "importe", "inventaire", "sélectionne"]) {
        assert.ok(french.has(word), `a French ${word} link`);
      }
    } finally {
      chooseLanguage("en");
    }
  });
});
