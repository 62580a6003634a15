// The dashboard's project model: preset in and out, file names, the files the zip holds, the
// architecture graph, conflicts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parsePreset } from "../../src/core/project/preset.ts";
import { serializeProjectConfig } from "../../src/core/project.ts";
import { findConflicts } from "../../web/src/model/conflicts.ts";
import {
  projectConfig,
  projectFiles,
  renderProjectFiles,
  zipFileName,
} from "../../web/src/model/files.ts";
import { buildGraph, traceFrom } from "../../web/src/model/graph.ts";
import {
  blankProject,
  presetFileName,
  presetFromProject,
  presetText,
  projectFromPreset,
  stageOf,
  uniqueName,
} from "../../web/src/model/project.ts";

const presetSource = (name: string) =>
  readFileSync(new URL(`../../src/core/presets/${name}.preset.json`, import.meta.url), "utf8");

describe("project model", () => {
  it("a preset goes in and comes out with the same components and settings", () => {
    const text = presetSource("web-and-database");
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

  it("rejects what is not a preset with the core's reason (the CLI's detail)", () => {
    assert.throws(
      () => projectFromPreset("[]"),
      /^ShapeError: invalid type: sequence, expected struct Preset$/,
    );
    assert.throws(() => projectFromPreset("{}"), /missing field `components`/);
    assert.throws(() => projectFromPreset('{"components": ['), /line 1, column 17/);
    assert.throws(
      () =>
        projectFromPreset({
          components: [{ reference: "k8s/service", name: "s", fields: { port: 80 } }],
        }),
      /components\[0\]\.fields\.port: invalid type: integer `80`, expected a string/,
    );
  });

  it("a file the dashboard writes is the preset setup reads", () => {
    const project = projectFromPreset(presetSource("multi-tier-platform"), {});
    const text = presetText(project);
    assert.deepEqual(parsePreset(text, "x"), presetFromProject(project));
    assert.equal(projectFromPreset(text).components.length, 35);
  });

  it("a preset without settings takes the defaults it is opened with", () => {
    const project = projectFromPreset('{"components": []}', { outputDir: "deploy" });
    assert.deepEqual(project.project, { name: null, namespace: "default", outputDir: "deploy" });
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
    const project = projectFromPreset(presetSource("k8s-web-app"));
    assert.equal(uniqueName(project, "k8s/deployment", "api"), "api-2");
    assert.equal(uniqueName(project, "k8s/deployment", "new"), "new");
  });
});

describe("project files (the zip)", () => {
  const project = blankProject({ name: "demo", namespace: "web", outputDir: "out/" });

  const one = (path: string, content = "") => ({ files: [{ path, content }] });

  it("puts files under the output folder and kiln.toml as setup writes it", () => {
    const files = projectFiles(project, [one("./a.yaml", "a\n"), one("b/c.yml", "c")]);
    assert.deepEqual(
      files.map((f) => f.path),
      ["out/a.yaml", "out/b/c.yml", "kiln.toml"],
    );
    assert.equal(
      files.at(-1)?.content,
      serializeProjectConfig({ name: "demo", defaultNamespace: "web", outputDir: "out/" }),
    );
    assert.equal(
      projectConfig({ ...project, project: { ...project.project, name: null } }).name,
      "kiln-project",
    );
  });

  it("applies setup's path rules", () => {
    assert.throws(
      () => projectFiles(project, [one("a"), one("./a")]),
      /two files rendered to the same path: `\.\/a`/,
    );
    assert.throws(() => projectFiles(project, [one("/etc/x")]), /absolute paths are not allowed/);
    assert.throws(() => projectFiles(project, [one("a/../../x")]), /escapes the target directory/);
    assert.throws(
      () =>
        projectFiles({ ...project, project: { ...project.project, outputDir: ".git" } }, [
          one("a"),
        ]),
      /refusing to write into `\.git`/,
    );
  });

  it("renders through the renderer it is given; the first failure names its component", async () => {
    const withTwo = projectFromPreset({
      project: { outputDir: "k8s", namespace: "shop" },
      components: [
        { reference: "k8s/service", name: "api" },
        { reference: "https://example.com/x.json", name: "x" },
      ],
    });
    const seen: string[] = [];
    const files = await renderProjectFiles(withTwo, async (component, input) => {
      seen.push(`${component.name} ${input.defaultNamespace}`);
      return { files: [{ path: `${component.name}.yaml`, content: component.reference }] };
    });
    assert.deepEqual(seen, ["api shop", "x shop"]);
    assert.deepEqual(
      files.map((f) => f.path),
      ["k8s/api.yaml", "k8s/x.yaml", "kiln.toml"],
    );
    await assert.rejects(
      renderProjectFiles(withTwo, async (component) => {
        if (component.name === "x") throw new Error("failed to fetch registry item");
        return { files: [] };
      }),
      { message: "https://example.com/x.json “x” does not render: failed to fetch registry item" },
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
