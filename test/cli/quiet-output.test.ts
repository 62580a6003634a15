// Quiet by default, complete on request: `status` lists only the files with something to say
// (`--all` every file), the writing commands list the files they change (`-v` the unchanged
// ones too) and a summary, `-q` prints errors only, and a run stopped by Ctrl-C or SIGTERM says
// what it left: `interrupted - nothing was written` or `interrupted - all N files were written`.
// The real binary in temporary folders; interruptions are real signals, sent when an effect
// shows where the run is (a request to a local server, a FIFO the run waits on), never on a timer.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  BIN,
  cleanEnv,
  cleanUp,
  ensureBuilt,
  kiln,
  project,
  type Run,
  setUpProject,
  tempDir,
  tree,
} from "./helpers.ts";

/** The summary line of `kiln status` on an untouched k8s-web-app project. */
const ALL_UNCHANGED =
  "7 components, 7 files: 7 unchanged; 0 changed upstream; 0 files not recorded\n";

before(() => ensureBuilt());
after(() => cleanUp());

describe("kiln status lists only what is not unchanged", () => {
  it("prints just the summary when every file is as kiln wrote it", () => {
    const dir = setUpProject("k8s-web-app");
    const run = kiln(["status"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, ALL_UNCHANGED);
  });

  it("prints the edited and the missing file under their components, then the summary", () => {
    const dir = setUpProject("k8s-web-app");
    appendFileSync(join(dir, "k8s/api-service.yaml"), "# mine\n");
    rmSync(join(dir, "k8s/worker-deployment.yaml"));
    const run = kiln(["status"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      [
        "api k8s/service",
        "  modified   k8s/api-service.yaml",
        "worker k8s/deployment",
        "  missing    k8s/worker-deployment.yaml",
        "7 components, 7 files: 5 unchanged, 1 modified, 1 missing; 0 changed upstream; 0 files not recorded",
        "",
      ].join("\n"),
    );
  });

  it("--all lists every component and file, the unchanged ones too", () => {
    const dir = setUpProject("k8s-web-app");
    appendFileSync(join(dir, "k8s/api-service.yaml"), "# mine\n");
    const run = kiln(["status", "--all"], dir);
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.equal(lines.filter((line) => line.startsWith("  unchanged  ")).length, 6);
    assert.ok(lines.includes("  modified   k8s/api-service.yaml"), run.stdout);
    assert.equal(lines.filter((line) => !line.startsWith("  ")).length, 7 + 1, run.stdout);
    assert.ok(lines.includes("frontend k8s/ingress"), run.stdout);
  });

  it("--json stays complete: every file, unchanged ones included", () => {
    const dir = setUpProject("k8s-web-app");
    const run = kiln(["status", "--json"], dir);
    assert.equal(run.status, 0, run.stderr);
    const answer = JSON.parse(run.stdout) as { components: { files: { local: string }[] }[] };
    const files = answer.components.flatMap((component) => component.files);
    assert.equal(files.length, 7);
    assert.ok(files.every((file) => file.local === "unchanged"));
  });
});

describe("the writing commands list the files they change, -v the others too", () => {
  it("an update that changes nothing prints one line", () => {
    const dir = setUpProject("k8s-web-app");
    appendFileSync(join(dir, "k8s/api-service.yaml"), "# mine\n");
    const run = kiln(["update"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      "updated 7 components: 6 unchanged, 1 kept - kiln.lock records the new state\n",
    );
  });

  it("an update lists the file it changes; --verbose also the unchanged and kept ones", () => {
    const dir = setUpProject("k8s-web-app");
    appendFileSync(join(dir, "k8s/api-service.yaml"), "# mine\n");
    const quiet = kiln(["update", "deployment/api", "--image", "ghcr.io/acme/api:2"], dir);
    assert.equal(quiet.status, 0, quiet.stderr);
    assert.equal(
      quiet.stdout,
      "updated   k8s/api-deployment.yaml\nupdated 1 component: 1 updated - kiln.lock records the new state\n",
    );
    const verbose = kiln(["update", "-v"], dir);
    assert.equal(verbose.status, 0, verbose.stderr);
    const lines = verbose.stdout.trimEnd().split("\n");
    assert.ok(lines.includes("kept      k8s/api-service.yaml"), verbose.stdout);
    assert.ok(lines.includes("unchanged k8s/frontend-ingress.yaml"), verbose.stdout);
    assert.equal(lines.length, 7 + 1);
  });

  it("setup again lists only the files it writes; --verbose the unchanged ones too", () => {
    const dir = setUpProject("k8s-web-app");
    rmSync(join(dir, "k8s/worker-deployment.yaml"));
    const again = kiln(["setup", "k8s-web-app", "--force"], dir);
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual(again.stdout.split("\n").slice(0, 2), [
      "created   k8s/worker-deployment.yaml",
      "set up k8s-web-app: 7 files in k8s/ and kiln.toml - next: review the files, then `kiln add <reference> --name <name>` to add more",
    ]);
    const verbose = kiln(["setup", "k8s-web-app", "--verbose"], dir);
    assert.equal(verbose.status, 0, verbose.stderr);
    assert.equal(
      verbose.stdout.split("\n").filter((line) => line.startsWith("unchanged ")).length,
      8,
    );
  });

  it("add ends with a summary line; an apply of unchanged files lists none of them", () => {
    const dir = project();
    const run = kiln(["add", "k8s/deployment", "--name", "web", "--image", "nginx"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      "created   k8s/web-deployment.yaml\nadded deployment/web: 1 file in k8s/ (1 created)\n",
    );
    const first = kiln(["apply", "k8s-web-app", "--into", "deploy"], dir);
    assert.equal(first.status, 0, first.stderr);
    const again = kiln(["apply", "k8s-web-app", "--into", "deploy"], dir);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, "applied k8s-web-app: 7 files in deploy/\n");
    const verbose = kiln(["apply", "k8s-web-app", "--into", "deploy", "-v"], dir);
    assert.match(verbose.stdout, /^unchanged deploy\/frontend-deployment\.yaml$/m);
  });
});

describe("-q prints errors only", () => {
  it("prints nothing when setup, add, update and status succeed, and writes all the same", () => {
    const dir = tempDir();
    for (const args of [
      ["setup", "k8s-web-app", "-q"],
      // a warning (an undeclared field) is dropped too
      [
        "add",
        "k8s/deployment",
        "--name",
        "web",
        "--image",
        "nginx",
        "--quiet",
        "--set",
        "replica=3",
      ],
      // -q among other short flags
      ["update", "deployment/web", "-fq", "--image", "nginx:2"],
      ["status", "-q"],
      ["status", "--json", "-q"],
    ]) {
      const run = kiln(args, dir);
      assert.equal(run.status, 0, `${args.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "", args.join(" "));
      assert.equal(run.stderr, "", args.join(" "));
    }
    assert.ok(existsSync(join(dir, "k8s/web-deployment.yaml")));
    assert.ok(existsSync(join(dir, "k8s/worker-deployment.yaml")));
  });

  it("still prints the error, with its detail, and exits as without it", () => {
    const dir = setUpProject("k8s-web-app");
    const run = kiln(["add", "k8s/deployment", "--name", "api", "--image", "x", "-q"], dir);
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    assert.match(
      run.stderr,
      /^error: k8s\/api-deployment\.yaml already exists - pass --force to overwrite\n {2}kiln\.lock tracks it/,
    );
    const usage = kiln(["status", "-q", "--al"], dir);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /^error: unknown option `--al`; did you mean `--all`\?\n/);
  });

  it("is in every command's help and completions, as --verbose and --all are in theirs", () => {
    for (const command of ["init", "add", "setup", "apply", "status", "update", "remove", "list"]) {
      const help = kiln([command, "--help"], tempDir());
      assert.match(help.stdout, /^ {2}-q, --quiet +print errors only/m, command);
    }
    assert.match(kiln(["update", "--help"], tempDir()).stdout, /^ {2}-v, --verbose /m);
    assert.match(kiln(["status", "--help"], tempDir()).stdout, /^ {2}--all /m);
    const bash = kiln(["completion", "bash"], tempDir()).stdout;
    assert.match(bash, /--quiet -q/);
    assert.match(bash, /--verbose -v/);
    assert.match(bash, /--all/);
  });
});

/** The binary started with stdout and stderr collected; `done` resolves when it exits. */
function started(args: string[], cwd: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: cleanEnv(env) });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<Run>((resolve) => {
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
  return { child, done };
}

describe("an interrupted run says what it left", () => {
  let server: Server;
  let base = "";
  /** Called with each request, which the server never answers: the run waits on it. */
  let onRequest: () => void = () => {};

  before(async () => {
    server = createServer(() => onRequest());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal} before the first write: nothing was written, exit ${signal === "SIGINT" ? 130 : 143}`, async () => {
      const dir = setUpProject("k8s-web-app");
      const before = tree(dir);
      // the item's URL is fetched while the run plans: its request shows the run is there
      const run = started(["add", `${base}/item.json`, "--name", "cache"], dir);
      onRequest = () => run.child.kill(signal);
      const result = await run.done;
      assert.equal(result.stderr, "interrupted - nothing was written\n");
      assert.equal(result.stdout, "");
      assert.equal(result.status, signal === "SIGINT" ? 130 : 143);
      assert.deepEqual(tree(dir), before);
    });
  }

  it("SIGINT during the writes: they all finish, then `interrupted - all 9 files were written`", async () => {
    const dir = tempDir();
    const fifo = join(dir, "pause.fifo");
    execFileSync("mkfifo", [fifo]);
    // the run stops after its first write: it writes a line into the FIFO, then reads it
    const run = started(["setup", "k8s-web-app"], dir, { KILN_TEST_PAUSE_FIFO: fifo });
    // a run that ends without pausing fails the test (and frees the read it never answered)
    const paused = await Promise.race([readFile(fifo, "utf8"), run.done.then(() => undefined)]);
    if (paused === undefined) {
      await writeFile(fifo, "");
      assert.fail(`the run ended without pausing: ${JSON.stringify(await run.done)}`);
    }
    assert.equal(paused, "paused\n");
    run.child.kill("SIGINT");
    await writeFile(fifo, "go\n");
    const result = await run.done;
    assert.equal(result.status, 130, result.stderr);
    // the report first, then the line: 7 files, kiln.toml and kiln.lock
    assert.equal(result.stderr, "interrupted - all 9 files were written\n");
    assert.match(result.stdout, /^set up k8s-web-app: 7 files in k8s\//m);
    assert.equal(Object.keys(tree(join(dir, "k8s"))).length, 7);
    assert.ok(existsSync(join(dir, "kiln.lock")));
    assert.ok(!existsSync(join(dir, ".kiln-journal.json")));
    assert.match(readFileSync(join(dir, "kiln.toml"), "utf8"), /name = /);
  });

  it("-q keeps the interrupted line: it is what the user must know", async () => {
    const dir = setUpProject("k8s-web-app");
    const run = started(["add", `${base}/item.json`, "--name", "cache", "-q"], dir);
    onRequest = () => run.child.kill("SIGINT");
    const result = await run.done;
    assert.equal(result.stderr, "interrupted - nothing was written\n");
    assert.equal(result.status, 130);
  });
});
