// The Commands export rebuilds exactly the project: its `kiln init`/`kiln add` lines, and its
// preset file with `kiln setup`, run by a shell with the real built binary as `kiln` in a fresh
// folder, give every file of the zip the dashboard builds for the same project (rendered by a
// real service, the dashboard's own API code), byte for byte, and no other file.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type RunningServer, startServer } from "../../src/server/server.ts";
import { lockSourcesFromApi, renderThroughApi } from "../../web/src/api.ts";
import {
  initAndAddCommands,
  presetSetupCommands,
  projectCommands,
} from "../../web/src/model/commands.ts";
import { renderProjectFiles } from "../../web/src/model/files.ts";
import { blankProject, type Project, projectFromPreset } from "../../web/src/model/project.ts";
import { BIN, cleanEnv, cleanUp, ensureBuilt, tempDir, tree } from "../cli/helpers.ts";

let service: RunningServer;
let shimDir = "";
const pageFetch = globalThis.fetch;

before(async () => {
  ensureBuilt();
  service = await startServer({ port: 0, cwd: tempDir(), log: () => {} });
  // the dashboard asks for `api/...` relative to its page; node has no page, so the service's
  // address is the base, as it is for the page `kiln serve --ui` serves
  globalThis.fetch = (input, init) =>
    pageFetch(typeof input === "string" ? new URL(input, `${service.url}/`) : input, init);
  // `kiln` on the PATH is the real built binary, so the script runs exactly as printed
  shimDir = tempDir();
  writeFileSync(join(shimDir, "kiln"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(shimDir, "kiln"), 0o755);
});

after(async () => {
  globalThis.fetch = pageFetch;
  await service.close();
  cleanUp();
});

/** Runs `script` with bash in a fresh folder (stopping at the first failing line); its files. */
function runScript(script: string): Record<string, string> {
  const dir = tempDir();
  const run = spawnSync("bash", ["-e", "-c", script], {
    cwd: dir,
    env: cleanEnv({ PATH: `${shimDir}:${process.env.PATH ?? ""}` }),
    encoding: "utf8",
  });
  assert.equal(run.status, 0, `${script}\n${run.stdout}\n${run.stderr}`);
  return Object.fromEntries(Object.entries(tree(dir)).filter(([path]) => !path.endsWith("/")));
}

/** The zip's files, as the dashboard builds them. */
async function zipFiles(project: Project): Promise<Record<string, string>> {
  const files = await renderProjectFiles(project, renderThroughApi, lockSourcesFromApi);
  return Object.fromEntries(files.map((file) => [file.path, file.content]));
}

const presetSource = (name: string) =>
  readFileSync(new URL(`../../src/core/presets/${name}.preset.json`, import.meta.url), "utf8");

/**
 * A project of awkward values (quotes, spaces, `$`, backquotes, unicode, JSON, newlines, a name
 * starting with `-`) that uses the ansible names.
 */
function awkwardProject(): Project {
  const project = blankProject({
    name: "l'atelier «café» $HOME",
    namespace: "shop",
    outputDir: "deploy files",
    // the names the real tool reads: `kiln update --profile ansible` closes the commands
    automationProfile: "ansible",
  });
  project.components = [
    {
      id: "a",
      reference: "k8s/deployment",
      name: "web",
      fields: { image: "nginx:1.27", replicas: "2", port: "8080" },
      labels: { team: `Ops & "Café" $HOME \`id\` it's` },
    },
    {
      id: "b",
      reference: "automation/group-vars",
      name: "web",
      fields: {
        group: "web",
        vars: '{"motd": "it\'s \\"quoted\\" — ünïcode $PATH `x`", "ports": [80, 443], "tls": true}',
        // a multi-line value: the newline stays inside the quotes
        yaml: "packages:\n  - nginx\n  - 'certbot'\n",
      },
      labels: {},
    },
    {
      id: "c",
      reference: "automation/inventory",
      name: "-edge",
      fields: {
        hosts: '[{"group": "web", "members": [{"name": "wéb-1", "cm_host": "10.0.0.5"}]}]',
        default_user: "déploi ement",
      },
      labels: {},
    },
  ];
  return project;
}

/** A project named `-x`: its preset file's name reads like an option to `rm`. */
function dashedProject(): Project {
  const dashed = blankProject({ name: "-x", namespace: "default", outputDir: "k8s" });
  dashed.components = [
    { id: "s", reference: "k8s/service", name: "api", fields: { port: "80" }, labels: {} },
  ];
  return dashed;
}

describe("the Commands export rebuilds the project", () => {
  const cases: [string, () => Project][] = [
    ["multi-tier-platform", () => projectFromPreset(presetSource("multi-tier-platform"))],
    [
      "k8s-web-app, unnamed",
      () => ({
        ...projectFromPreset(presetSource("k8s-web-app")),
        project: { ...projectFromPreset(presetSource("k8s-web-app")).project, name: null },
      }),
    ],
    [
      "awkward values (quotes, spaces, unicode, JSON, a name starting with -), the ansible names",
      awkwardProject,
    ],
  ];
  // every zip first, before any script: a script blocks this process (the service's too) for
  // seconds, and the first fetch after it reuses a kept-alive connection whose idle timeout
  // fires as the process resumes (fetch failed, seen under load)
  const zips = new Map<string, Record<string, string>>();
  let dashedZip: Record<string, string> = {};
  before(async () => {
    for (const [title, make] of cases) zips.set(title, await zipFiles(make()));
    dashedZip = await zipFiles(dashedProject());
  });
  for (const [title, make] of cases) {
    it(`init and add lines give the zip's files byte for byte: ${title}`, () => {
      const project = make();
      const expected = zips.get(title);
      const script = initAndAddCommands(project);
      assert.ok(script);
      assert.deepEqual(runScript(script), expected);
    });
  }
  // setup of a preset file is the zip's own rule (test/e2e); here the here-document's quoting
  it("the preset file and setup give the zip's files byte for byte: awkward values", () => {
    const expected = zips.get(cases[2]?.[0] ?? "");
    assert.deepEqual(runScript(presetSetupCommands(awkwardProject())), expected);
  });

  it("the preset file of a project named with a leading `-` is removed by `rm --`, not read as options", async () => {
    const script = presetSetupCommands(dashedProject());
    assert.match(script, /\nrm -- -x\.preset\.json\n$/);
    // the zip's files and nothing else: the preset file is gone
    assert.deepEqual(runScript(script), dashedZip);
  });

  it("the preset route is offered only when it is shorter than the init and add lines", () => {
    const small = blankProject({ name: "shop", namespace: "default", outputDir: "k8s" });
    small.components = [
      { id: "x", reference: "k8s/service", name: "api", fields: { port: "80" }, labels: {} },
    ];
    assert.deepEqual(projectCommands(small), {
      commands:
        "kiln init --name shop --dir k8s --namespace default\nkiln add k8s/service --name api --set port=80\n",
      preset: undefined,
    });
    // each ' costs four characters in the shell ('\'') and one in JSON
    const quoted = blankProject({ name: "shop", namespace: "default", outputDir: "k8s" });
    quoted.components = [
      {
        id: "y",
        reference: "k8s/deployment",
        name: "api",
        fields: { image: "nginx", note: "'".repeat(400) },
        labels: {},
      },
    ];
    const both = projectCommands(quoted);
    assert.ok(both.commands && both.preset && both.preset.length < both.commands.length);
    // an empty project with the ansible names has no init line that says so: the preset only
    const empty = blankProject({
      name: "shop",
      namespace: "default",
      outputDir: "k8s",
      automationProfile: "ansible",
    });
    assert.equal(projectCommands(empty).commands, undefined);
    assert.ok(projectCommands(empty).preset?.includes('"automationProfile": "ansible"'));
  });
});
