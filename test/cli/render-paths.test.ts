// The CLI renders built-ins, and the `@kiln` items shipped in the package, from templates
// compiled ahead of time; `KILN_ENGINE=sandbox` renders them with the WASM engine. A whole
// project set up both ways comes out byte for byte the same: every vendored file and kiln.lock
// (its hashes and compressed bases) alike. A packaged `@kiln` item renders in kiln's own thread
// (no worker started, as Node's own `NODE_DEBUG=worker` log shows); the same item with other
// bytes in the package, or its bytes added as a file, renders in the sandbox's worker.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { builtinPresets } from "../../src/node/builtin-presets.ts";
import {
  BIN,
  cleanEnv,
  cleanUp,
  copyOfPackage,
  ensureBuilt,
  kiln,
  REPO,
  tempDir,
  tree,
} from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

/** A project made by `steps` (each a kiln command), with the given engine choice. */
function projectMadeWith(engine: string, steps: string[][]): Record<string, string> {
  const dir = tempDir();
  for (const args of steps) {
    const run = kiln(args, dir, { KILN_ENGINE: engine });
    assert.equal(run.status, 0, `${args.join(" ")}: ${run.stderr}`);
  }
  const files = tree(dir);
  // `kiln init` names the project after its (temporary, random) folder
  delete files["kiln.toml"];
  return files;
}

describe("the compiled path and the engine write the same project", () => {
  for (const preset of builtinPresets()) {
    it(`kiln setup ${preset.name}: every file and kiln.lock byte for byte`, () => {
      const steps = [["setup", preset.name]];
      const compiled = projectMadeWith("", steps);
      assert.ok(Object.keys(compiled).includes("kiln.lock"));
      assert.deepEqual(compiled, projectMadeWith("sandbox", steps));
    });
  }

  it("kiln add with awkward values: the same files, kiln.lock and refusal", () => {
    const steps = [
      ["init"],
      [
        "add",
        "k8s/deployment",
        "--name",
        "web",
        "--image",
        "nginx:1.27",
        "--set",
        'labels={"tier":"a: b"}',
      ],
      ["add", "k8s/service", "--name", "web", "--set", "target_port=http"],
      [
        "add",
        "automation/inventory",
        "--name",
        "inv",
        "--set",
        'hosts=[{"group":"web","members":["a",{"name":"b","cm_port":2222,"vars":{"x":null,"y":"it\'s"}}],"vars":{"z":1.5}}]',
      ],
      [
        "add",
        "automation/group-vars",
        "--name",
        "web-vars",
        "--set",
        "group=web",
        "--set",
        'vars={"b":[1,"on"],"a":{"k":null}}',
        "--set",
        "yaml=c: 1\n",
      ],
      [
        "add",
        "automation/playbook",
        "--name",
        "site-web",
        "--set",
        'plays=[{"hosts":"web","roles":"a, b","become":"no","tags":["x,y"]}]',
      ],
    ];
    assert.deepEqual(projectMadeWith("", steps), projectMadeWith("sandbox", steps));
    const refused = [
      "add",
      "k8s/deployment",
      "--name",
      "w",
      "--image",
      "x",
      "--set",
      "replicas=three",
    ];
    const dir = tempDir();
    kiln(["init"], dir);
    const compiled = kiln(refused, dir, { KILN_ENGINE: "" });
    const engine = kiln(refused, dir, { KILN_ENGINE: "sandbox" });
    assert.notEqual(compiled.status, 0);
    assert.deepEqual(compiled, engine);
  });
});

/** `kiln <args>` in `cwd` with Node's worker log on: the run, and whether it started a worker. */
function runLoggingWorkers(args: string[], cwd: string, bin = BIN) {
  const run = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    env: cleanEnv({ NODE_DEBUG: "worker" }),
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  return { run, startedWorker: /^WORKER \d+: .*create new worker/m.test(run.stderr) };
}

const AWS_VALUES = ["--name", "web", "--set", "region=eu-central-1", "--set", "size=t3.micro"];

describe("@kiln's packaged items render like the built-ins", () => {
  it("kiln add @kiln/aws-server renders in kiln's own thread, writing what the engine writes", () => {
    const steps = [["init"], ["add", "@kiln/aws-server", ...AWS_VALUES, "--set", "count=2"]];
    const compiled = projectMadeWith("", steps);
    assert.deepEqual(compiled, projectMadeWith("sandbox", steps));
    const dir = tempDir();
    kiln(["init"], dir);
    const { startedWorker } = runLoggingWorkers(["add", "@kiln/aws-server", ...AWS_VALUES], dir);
    assert.equal(startedWorker, false, "no worker thread for a packaged @kiln item");
  });

  it("the same item with other bytes in the package, or added as a file, renders in the sandbox", () => {
    // a copy of the built package whose aws-server file (and its index entry) says something else
    const root = copyOfPackage();
    const kilnDir = join(root, "dist", "registries", "kiln");
    const original = readFileSync(join(kilnDir, "aws-server@1.0.0.json"), "utf8");
    const changed = original.replace("AWS EC2 servers", "AWS EC2 servers (changed)");
    assert.notEqual(changed, original);
    for (const file of ["aws-server.json", "aws-server@1.0.0.json"]) {
      writeFileSync(join(kilnDir, file), changed);
    }
    const digest = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
    const index = readFileSync(join(kilnDir, "registry.json"), "utf8");
    writeFileSync(join(kilnDir, "registry.json"), index.replace(digest(original), digest(changed)));
    const bin = join(root, "dist", "cli", "main.js");
    const changedDir = tempDir();
    kiln(["init"], changedDir);
    const viaChanged = runLoggingWorkers(
      ["add", "@kiln/aws-server", ...AWS_VALUES],
      changedDir,
      bin,
    );
    assert.equal(viaChanged.startedWorker, true, "changed bytes render in the sandbox's worker");
    const fileDir = tempDir();
    kiln(["init"], fileDir);
    const file = join(REPO, "dist", "registries", "kiln", "aws-server.json");
    const viaFile = runLoggingWorkers(["add", file, ...AWS_VALUES], fileDir);
    assert.equal(
      viaFile.startedWorker,
      true,
      "a file with the packaged bytes renders in the worker",
    );
    // the same files either way: only where they were rendered differs
    const packagedDir = tempDir();
    kiln(["init"], packagedDir);
    kiln(["add", "@kiln/aws-server", ...AWS_VALUES], packagedDir);
    const files = (dir: string) => {
      const all = tree(dir);
      return Object.fromEntries(Object.entries(all).filter(([path]) => path.endsWith(".tf")));
    };
    assert.deepEqual(files(changedDir), files(packagedDir));
    assert.deepEqual(files(fileDir), files(packagedDir));
  });
});
