// The dashboard's project model: preset in and out, file names, the files the zip holds,
// conflicts. (Stages, editors and the graph: catalogue-meta.test.ts.)
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { KilnError } from "../../src/core/errors.ts";
import { serializeProjectConfig } from "../../src/core/project/kiln-toml.ts";
import { parseLock } from "../../src/core/project/lock-format.ts";
import { parsePreset } from "../../src/core/project/preset-manifest.ts";
import { decodeBaseText, encodeBase } from "../../src/node/lock-compression.ts";
import { findConflicts } from "../../web/src/model/conflicts.ts";
import {
  type ItemRecords,
  projectConfig,
  projectFiles,
  renderProjectFiles,
  ZipRefused,
  zipFileName,
} from "../../web/src/model/files.ts";
import {
  blankProject,
  defaultComponentName,
  presetFileName,
  presetFromProject,
  presetText,
  projectFromPreset,
  uniqueName,
} from "../../web/src/model/project.ts";
import { itemFilePath } from "../../web/src/model/project-lock.ts";

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
    // the default automation profile is left unset, as the file had it
    assert.deepEqual(out.project, {
      ...(original.project as object),
      automationProfile: undefined,
    });
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
    assert.deepEqual(project.project, {
      name: null,
      namespace: "default",
      outputDir: "deploy",
      automationProfile: "cm",
    });
  });

  it("the automation tool profile: read from the preset, written back only when `ansible`, and in kiln.toml", () => {
    const ansible = projectFromPreset(
      '{"project": {"automationProfile": "ansible"}, "components": []}',
    );
    assert.equal(ansible.project.automationProfile, "ansible");
    assert.equal(presetFromProject(ansible).project?.automationProfile, "ansible");
    assert.match(
      projectFiles(ansible, []).find((file) => file.path === "kiln.toml")?.content ?? "",
      /^automation_profile = "ansible"$/m,
    );
    const plain = projectFromPreset('{"components": []}');
    assert.equal(plain.project.automationProfile, "cm");
    assert.equal(presetFromProject(plain).project?.automationProfile, undefined);
    assert.doesNotMatch(projectFiles(plain, [])[0]?.content ?? "", /automation_profile/);
    assert.throws(
      () => projectFromPreset('{"project": {"automationProfile": "chef"}, "components": []}'),
      /project\.automationProfile: unknown variant `chef`, expected `cm` or `ansible`/,
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
      automationProfile: undefined,
    });
  });

  it("unique names", () => {
    const project = projectFromPreset(presetSource("k8s-web-app"));
    assert.equal(uniqueName(project, "k8s/deployment", "api"), "api-2");
    assert.equal(uniqueName(project, "k8s/deployment", "new"), "new");
  });
});

describe("a new component's default name", () => {
  const unnamed = blankProject({ name: null, namespace: "default", outputDir: "k8s" });
  const shop = blankProject({ name: "shop", namespace: "default", outputDir: "k8s" });

  it("never repeats the kind the file name already says (no deployment-deployment.yaml)", () => {
    assert.equal(defaultComponentName(unnamed, "k8s/deployment", "deployment", "deploy"), "web");
    assert.equal(defaultComponentName(shop, "k8s/service", "service", "deploy"), "web");
    assert.equal(
      defaultComponentName(shop, "automation/inventory", "inventory", "inventory"),
      "shop",
    );
    assert.equal(defaultComponentName(unnamed, "automation/role", "role", "configure"), "app");
    assert.equal(defaultComponentName(unnamed, "./items/cache.json", "cache", "other"), "app");
  });

  it("keeps an item's own name when it is not its kind, and stays unique per reference", () => {
    assert.equal(defaultComponentName(unnamed, "@acme/redis", "cache", "other"), "cache");
    const withWeb = {
      ...unnamed,
      components: [{ id: "1", reference: "k8s/deployment", name: "web", fields: {}, labels: {} }],
    };
    assert.equal(defaultComponentName(withWeb, "k8s/deployment", "deployment", "deploy"), "web-2");
    assert.equal(defaultComponentName(withWeb, "k8s/service", "service", "deploy"), "web");
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

  it("refuses the whole zip, naming each file, when files are ones other tools run as code", () => {
    const atRoot = { ...project, project: { ...project.project, outputDir: "." } };
    assert.throws(
      () =>
        projectFiles(atRoot, [
          one("a.yaml"),
          one(".envrc"),
          one(".vscode/tasks.json"),
          one("Makefile"),
        ]),
      (error: unknown) => {
        assert.ok(error instanceof ZipRefused);
        assert.deepEqual(error.files, [
          {
            path: ".envrc",
            pattern: ".envrc",
            runBy: "direnv runs it when a shell enters the folder",
          },
          {
            path: ".vscode/tasks.json",
            pattern: ".vscode/",
            runBy: "VS Code runs its tasks and loads its settings",
          },
          {
            path: "Makefile",
            pattern: "Makefile, makefile, GNUmakefile (at the project root)",
            runBy: "make runs it",
          },
        ]);
        return true;
      },
    );
    // in the output folder too, as setup sees it from the project root
    assert.throws(
      () => projectFiles(project, [one("sub/.envrc")]),
      (error: unknown) => error instanceof ZipRefused && error.files[0]?.path === "out/sub/.envrc",
    );
    // a Makefile below the root is no file `make` runs by itself
    assert.deepEqual(
      projectFiles(project, [one("Makefile")]).map((file) => file.path),
      ["out/Makefile", "kiln.toml"],
    );
  });

  it("renders through the renderer it is given, kiln.lock last; the first failure names its component", async () => {
    const withTwo = projectFromPreset({
      project: { outputDir: "k8s", namespace: "shop" },
      components: [
        { reference: "k8s/service", name: "api", labels: { tier: "web" } },
        { reference: "https://example.com/x.json", name: "x", fields: { size: "2" } },
      ],
    });
    const seen: string[] = [];
    const asked: string[][] = [];
    // the bases as the service makes them (POST /api/lock/bases runs this same code)
    const bases = async (contents: readonly string[]) => contents.map(encodeBase);
    const records: ItemRecords = async (references) => {
      asked.push([...references]);
      return new Map(
        references.map((reference) => [
          reference,
          {
            component: reference.startsWith("https:") ? "custom/x" : reference,
            source: { type: "url" as const, url: reference },
            fingerprint: `sha256:${reference.length}`,
          },
        ]),
      );
    };
    const files = await renderProjectFiles(
      withTwo,
      async (component, input) => {
        seen.push(`${component.name} ${input.defaultNamespace}`);
        return { files: [{ path: `${component.name}.yaml`, content: component.reference }] };
      },
      { records, bases },
    );
    assert.deepEqual(seen, ["api shop", "x shop"]);
    assert.deepEqual(asked, [["k8s/service", "https://example.com/x.json"]]);
    assert.deepEqual(
      files.map((f) => f.path),
      ["k8s/api.yaml", "k8s/x.yaml", "kiln.toml", "kiln.lock"],
    );
    // the lock records each component with its values, the namespace and its files' hashes
    const lock = parseLock(files[3]?.content ?? "");
    assert.deepEqual(
      lock.components.map((entry) => [
        entry.name,
        entry.component,
        entry.namespace,
        entry.fields,
        entry.labels,
        entry.files.map((file) => [file.path, file.sha256, decodeBaseText(file.base)]),
      ]),
      [
        [
          "api",
          "k8s/service",
          "shop",
          {},
          { tier: "web" },
          [
            [
              "k8s/api.yaml",
              createHash("sha256").update("k8s/service").digest("hex"),
              "k8s/service",
            ],
          ],
        ],
        [
          "x",
          "custom/x",
          "shop",
          { size: "2" },
          {},
          [
            [
              "k8s/x.yaml",
              createHash("sha256").update("https://example.com/x.json").digest("hex"),
              "https://example.com/x.json",
            ],
          ],
        ],
      ],
    );
    await assert.rejects(
      renderProjectFiles(
        withTwo,
        async (component) => {
          if (component.name === "x") throw new Error("failed to fetch registry item");
          return { files: [] };
        },
        { records, bases },
      ),
      { message: "https://example.com/x.json “x” does not render: failed to fetch registry item" },
    );
    // a refused field is named in the form's words, not with the CLI's flag
    await assert.rejects(
      renderProjectFiles(
        withTwo,
        async (component) => {
          if (component.name === "api") {
            throw new KilnError("invalid_request", "--port is required for k8s/service", "", {
              field: "port",
              path: "",
              rule: "missing",
              expected: "is required",
              code: "required",
              params: {},
            });
          }
          return { files: [] };
        },
        { records, bases },
      ),
      { message: "k8s/service “api” does not render: Port is required" },
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

describe("where a lock's item file is", () => {
  it("are found from the answer: the item file itself, or the project's folder joined", () => {
    assert.equal(
      itemFilePath("./items/note.json", "/home/me/shop"),
      "/home/me/shop/items/note.json",
    );
    assert.equal(
      itemFilePath("./items/note.json", " /home/me/shop/ "),
      "/home/me/shop/items/note.json",
    );
    assert.equal(itemFilePath("items/note.json", "/srv/x/note.json"), "/srv/x/note.json");
  });
});
