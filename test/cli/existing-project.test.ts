// The blunt commands in an existing project, from the real binary: `setup --dry-run` shows the
// whole plan (and which tracked files carry hand edits, kept by the merge) even where the real
// run needs --force, then exits as that run would; `setup --force` keeps the hand edits of the
// files kiln.lock tracks and the kiln.lock entries of components the preset does not hold; `add` over a file kiln.lock tracks names `kiln update
// <component>/<name>` after the refusal, and `add --force` names every file whose hand edits it
// discarded.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cleanUp, ensureBuilt, kiln, setUpProject, tree, write } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

interface LockJson {
  components: { name: string; component: string; files: { path: string; sha256: string }[] }[];
}

function lockOf(dir: string): LockJson {
  return JSON.parse(readFileSync(join(dir, "kiln.lock"), "utf8")) as LockJson;
}

/** A k8s-web-app project whose api deployment has a hand edit (replicas 7). */
function editedProject(): { dir: string; edited: string } {
  const dir = setUpProject("k8s-web-app");
  const path = "k8s/api-deployment.yaml";
  const original = readFileSync(join(dir, path), "utf8");
  const edited = original.replace(/replicas: \d+/, "replicas: 7");
  assert.notEqual(edited, original);
  write(dir, path, edited);
  return { dir, edited };
}

const PLAN = [
  "unchanged k8s/frontend-deployment.yaml",
  "unchanged k8s/frontend-service.yaml",
  "unchanged k8s/frontend-ingress.yaml",
  "keep      k8s/api-deployment.yaml  (edited since kiln wrote it: your edits kept, the new render changes nothing in it)",
  "unchanged k8s/api-service.yaml",
  "unchanged k8s/api-ingress.yaml",
  "unchanged k8s/worker-deployment.yaml",
];

describe("setup in an existing project", () => {
  it("--dry-run shows the whole plan with the hand-edited file kept, then refuses as the real run would", () => {
    const { dir } = editedProject();
    const before = tree(dir);
    const dry = kiln(["setup", "k8s-web-app", "--dry-run", "--verbose"], dir);
    assert.equal(dry.status, 1, dry.stderr);
    assert.equal(
      dry.stdout,
      `${[
        ...PLAN,
        "unchanged kiln.toml",
        "dry run: nothing was written (0 new, 0 overwrite, 8 unchanged; your edits kept in 1 file kiln.lock tracks) - run again with --force and without --dry-run to write",
      ].join("\n")}\n`,
    );
    // the real run's refusal, word for word
    const real = kiln(["setup", "k8s-web-app"], dir);
    assert.equal(real.status, 1);
    assert.equal(dry.stderr, real.stderr);
    assert.equal(
      dry.stderr,
      "error: k8s/api-deployment.yaml already exists - pass --force to overwrite\n" +
        "  kiln.lock tracks it as a file of deployment/api: with --force the new render is merged into it and your edits are kept\n",
    );
    assert.deepEqual(tree(dir), before);
    // with --force the dry run is the plan of a run that goes through
    const forced = kiln(["setup", "k8s-web-app", "--dry-run", "--force"], dir);
    assert.equal(forced.status, 0, forced.stderr);
    assert.match(forced.stdout, /- run again without --dry-run to write\n$/);
    assert.deepEqual(tree(dir), before);
  });

  it("--dry-run where kiln.toml differs: kiln.toml in the plan, and the refusal names it", () => {
    const { dir } = editedProject();
    const toml = readFileSync(join(dir, "kiln.toml"), "utf8");
    write(dir, "kiln.toml", toml.replace(/^name = .*$/m, 'name = "renamed"'));
    const dry = kiln(["setup", "k8s-web-app", "--dry-run"], dir);
    assert.equal(dry.status, 1);
    assert.match(dry.stdout, /^overwrite kiln\.toml$/m);
    assert.match(
      dry.stdout,
      /\(0 new, 1 overwrite, 7 unchanged; your edits kept in 1 file kiln\.lock tracks\)/,
    );
    assert.match(
      dry.stderr,
      /^error: kiln\.toml already exists - pass --force to overwrite\n {2}this folder is already a kiln project/,
    );
    assert.equal(dry.stderr, kiln(["setup", "k8s-web-app"], dir).stderr);
  });

  it("--force keeps the hand edits of a file kiln.lock tracks and the lock entries of later components", () => {
    const { dir, edited } = editedProject();
    assert.equal(
      kiln(["add", "k8s/deployment", "--name", "billing", "--image", "b:1"], dir).status,
      0,
    );
    const billing = lockOf(dir).components.find((entry) => entry.name === "billing");
    const run = kiln(["setup", "k8s-web-app", "--force", "--verbose"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /^kept {6}k8s\/api-deployment\.yaml {2}\(edited since kiln wrote it: your edits kept, the new render changes nothing in it\)$/m,
    );
    assert.doesNotMatch(run.stdout, /discarded/);
    assert.equal(readFileSync(join(dir, "k8s/api-deployment.yaml"), "utf8"), edited);
    const lock = lockOf(dir);
    assert.deepEqual(
      lock.components.map((entry) => `${entry.name} ${entry.component}`),
      [
        "api k8s/deployment",
        "api k8s/ingress",
        "api k8s/service",
        "billing k8s/deployment",
        "frontend k8s/deployment",
        "frontend k8s/ingress",
        "frontend k8s/service",
        "worker k8s/deployment",
      ],
    );
    assert.deepEqual(
      lock.components.find((entry) => entry.name === "billing"),
      billing,
    );
    assert.ok(readFileSync(join(dir, "k8s/billing-deployment.yaml"), "utf8").includes("b:1"));
    // the status of the kept component is what it was: its file unchanged
    assert.match(
      kiln(["status", "--all"], dir).stdout,
      /^ {2}unchanged {2}k8s\/billing-deployment\.yaml$/m,
    );
  });
});

describe("add over a file kiln.lock tracks", () => {
  it("the refusal is followed by the kiln update that keeps the hand edits", () => {
    const { dir, edited } = editedProject();
    const before = tree(dir);
    const run = kiln(["add", "k8s/deployment", "--name", "api", "--image", "a:2"], dir);
    assert.equal(run.status, 1);
    assert.equal(
      run.stderr,
      "error: k8s/api-deployment.yaml already exists - pass --force to overwrite\n" +
        "  kiln.lock tracks it as a file of deployment/api, edited since kiln wrote it: `kiln update deployment/api` (the new values as its options) merges into it and keeps your edits; --force overwrites them\n",
    );
    assert.deepEqual(tree(dir), before);
    assert.equal(readFileSync(join(dir, "k8s/api-deployment.yaml"), "utf8"), edited);
    // an untouched tracked file: the same command, without edits to keep
    const service = kiln(["add", "k8s/service", "--name", "api", "--port", "81"], dir);
    assert.equal(
      service.stderr,
      "error: k8s/api-service.yaml already exists - pass --force to overwrite\n" +
        "  kiln.lock tracks it as a file of service/api: `kiln update service/api` (the new values as its options) renders it again\n",
    );
    // a file kiln.lock does not track: the refusal alone
    write(dir, "k8s/web-service.yaml", "mine\n");
    assert.equal(
      kiln(["add", "k8s/service", "--name", "web"], dir).stderr,
      "error: k8s/web-service.yaml already exists - pass --force to overwrite\n",
    );
  });

  it("--force overwrites as before and names the file whose hand edits it discarded", () => {
    const { dir, edited } = editedProject();
    const run = kiln(["add", "k8s/deployment", "--name", "api", "--image", "a:2", "--force"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      "overwrote k8s/api-deployment.yaml  (edited since kiln wrote it: the edits were discarded)\n" +
        "note: discarded the hand edits of 1 file kiln.lock tracks: k8s/api-deployment.yaml\n" +
        "added deployment/api: 1 file in k8s/ (1 overwritten)\n",
    );
    const after = readFileSync(join(dir, "k8s/api-deployment.yaml"), "utf8");
    assert.notEqual(after, edited);
    assert.doesNotMatch(after, /replicas: 7/);
    assert.match(after, /image: a:2/);
    // an untouched tracked file overwritten: nothing to name
    const service = kiln(["add", "k8s/service", "--name", "api", "--port", "81", "--force"], dir);
    assert.equal(
      service.stdout,
      "overwrote k8s/api-service.yaml\nadded service/api: 1 file in k8s/ (1 overwritten)\n",
    );
  });
});
