// The dashboard's project model: preset in and out, file names, the files the zip holds, the
// architecture graph, conflicts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { serializeProjectConfig } from "../../src/core/project.ts";
import { findConflicts } from "../../web/src/model/conflicts.ts";
import { kilnToml, projectFiles, zipFileName } from "../../web/src/model/files.ts";
import { buildGraph, traceFrom } from "../../web/src/model/graph.ts";
import {
  blankProject,
  presetFileName,
  presetFromProject,
  projectFromPreset,
  stageOf,
  uniqueName,
} from "../../web/src/model/project.ts";

const presetText = (name: string) =>
  readFileSync(new URL(`../../src/core/presets/${name}.preset.json`, import.meta.url), "utf8");

describe("project model", () => {
  it("a preset goes in and comes out with the same components and settings", () => {
    const text = presetText("web-and-database");
    const project = projectFromPreset(text);
    const original = JSON.parse(text) as Record<string, unknown> & {
      components: Record<string, unknown>[];
    };
    const out = presetFromProject(project);
    assert.deepEqual(out.project, original.project);
    assert.deepEqual(
      out.components,
      original.components.map((c) => ({ fields: {}, labels: {}, ...c })),
    );
    assert.equal(out.name, original.name);
  });

  it("rejects what is not a preset, with the reason", () => {
    assert.throws(() => projectFromPreset("[]"), /JSON object/);
    assert.throws(() => projectFromPreset("{}"), /components/);
    assert.throws(
      () =>
        projectFromPreset({
          components: [{ reference: "k8s/service", name: "s", fields: { port: 80 } }],
        }),
      /fields\.port: invalid type: 80, expected a string/,
    );
  });

  it("names downloads after the project, kiln-project when unnamed", () => {
    const project = blankProject({ name: "shop", namespace: "default", outputDir: "k8s" });
    assert.equal(presetFileName(project), "shop.preset.json");
    assert.equal(zipFileName(project), "shop.zip");
    const unnamed = { ...project, project: { ...project.project, name: null } };
    assert.equal(presetFileName(unnamed), "kiln-project.preset.json");
    assert.equal(presetFromProject(unnamed).name, "kiln-project");
    assert.deepEqual(presetFromProject(unnamed).project, {
      namespace: "default",
      outputDir: "k8s",
    });
  });

  it("stages and unique names", () => {
    assert.equal(stageOf("infra/cloud-a"), "provision");
    assert.equal(stageOf("automation/group-vars"), "inventory");
    assert.equal(stageOf("automation/k8s-bootstrap"), "configure");
    assert.equal(stageOf("k8s/ingress"), "deploy");
    assert.equal(stageOf("https://example.com/x.json"), "other");
    const project = projectFromPreset(presetText("k8s-web-app"));
    assert.equal(uniqueName(project, "k8s/deployment", "api"), "api-2");
    assert.equal(uniqueName(project, "k8s/deployment", "new"), "new");
  });
});

describe("project files (the zip)", () => {
  const project = blankProject({ name: "demo", namespace: "web", outputDir: "out/" });

  it("puts files under the output folder and kiln.toml as setup writes it", () => {
    const files = projectFiles(project, [
      [{ path: "./a.yaml", content: "a\n" }],
      [{ path: "b/c.yml", content: "c" }],
    ]);
    assert.deepEqual(
      files.map((f) => f.path),
      ["out/a.yaml", "out/b/c.yml", "kiln.toml"],
    );
    assert.equal(
      kilnToml(project),
      serializeProjectConfig({ name: "demo", defaultNamespace: "web", outputDir: "out/" }),
    );
  });

  it("applies setup's path rules", () => {
    assert.throws(
      () => projectFiles(project, [[{ path: "a", content: "" }], [{ path: "./a", content: "" }]]),
      /two files rendered to the same path: `\.\/a`/,
    );
    assert.throws(
      () => projectFiles(project, [[{ path: "/etc/x", content: "" }]]),
      /absolute paths are not allowed/,
    );
    assert.throws(
      () => projectFiles(project, [[{ path: "a/../../x", content: "" }]]),
      /escapes the target directory/,
    );
  });
});

describe("conflicts", () => {
  it("finds paths another component writes, skipping the one being edited", () => {
    const others = [
      [{ path: "a.yaml", content: "old" }],
      undefined,
      [{ path: "b.yaml", content: "x" }],
    ];
    assert.deepEqual(findConflicts([{ path: "./a.yaml", content: "new" }], others), [
      { path: "./a.yaml", existing: 0, existingContent: "old", incomingContent: "new" },
    ]);
    assert.deepEqual(findConflicts([{ path: "a.yaml", content: "new" }], others, 0), []);
  });
});

describe("architecture graph", () => {
  it("links groups, group vars, plays, site, roles and the k8s chain", () => {
    const json = (value: unknown) => JSON.stringify(value);
    const graph = buildGraph([
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
    ]);
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
});
