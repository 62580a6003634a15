// A write that fails part-way: the run undoes what it already wrote (new files and the folders
// made for them removed, overwritten files restored with their bytes and mode), so the tree is
// exactly as before. The failure is real: a folder that refuses new entries, made so after
// planning would pass - as root with `chattr +i` (root ignores permission bits), otherwise
// with chmod 555. See lockFolder in helpers.ts.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  cleanUp,
  ensureBuilt,
  itemFile,
  kiln,
  lockFolder,
  tempDir,
  tree,
  unlockFolder,
  write,
  writeJson,
} from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

function presetOf(dir: string, paths: string[], project?: Record<string, string>): string {
  itemFile(
    dir,
    "items/all.json",
    paths.map((path, index) => ({ path, template: `new ${index}\n` })),
  );
  writeJson(dir, "run.preset.json", {
    name: "run",
    ...(project ? { project } : {}),
    components: [{ reference: "items/all.json", name: "x" }],
  });
  return "run.preset.json";
}

/** No temporary files (`.<name>.kiln-<pid>-<n>-<random>.tmp`) anywhere below `dir`. */
function temporaryFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((path) =>
    path.includes(".kiln-"),
  );
}

const canLock = (() => {
  const probe = tempDir();
  const ok = lockFolder(probe);
  if (ok) unlockFolder(probe);
  return ok;
})();
const skip = !canLock && "this machine can make no folder refuse writes (no chattr +i as root)";

describe("rollback when a write fails part-way", { skip }, () => {
  it("apply: new files and new folders are removed, overwritten files restored", () => {
    const dir = tempDir();
    const out = join(dir, "out");
    write(dir, "out/existing.txt", "original\n");
    chmodSync(join(out, "existing.txt"), 0o640);
    mkdirSync(join(out, "locked"));
    const preset = presetOf(dir, [
      "first.txt",
      "existing.txt",
      "made/by/kiln/deep.txt",
      "locked/fails.txt",
      "never.txt",
    ]);
    const before = tree(dir);
    assert.ok(lockFolder(join(out, "locked")));
    const run = kiln(["apply", preset, "--into", "out", "--force"], dir);
    unlockFolder(join(out, "locked"));
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    assert.match(
      run.stderr,
      /^error: could not write `out\/locked\/fails\.txt` - (permission denied \(EACCES\)|operation not permitted \(EPERM\))\n {2}nothing was changed: the files written before it were removed or restored\n$/,
    );
    assert.deepEqual(tree(dir), before);
    assert.equal(statSync(join(out, "existing.txt")).mode & 0o777, 0o640, "mode restored");
    assert.deepEqual(temporaryFiles(dir), []);
  });

  it("apply: a folder kiln cannot make fails the run, and the folders it made are removed", () => {
    const dir = tempDir();
    const out = join(dir, "out");
    mkdirSync(join(out, "locked"), { recursive: true });
    const preset = presetOf(dir, ["first.txt", "made/deep/a.txt", "locked/new/folder/b.txt"]);
    const before = tree(dir);
    assert.ok(lockFolder(join(out, "locked")));
    const run = kiln(["apply", preset, "--into", "out"], dir);
    unlockFolder(join(out, "locked"));
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /^error: could not write `out\/locked\/new\/folder\/b\.txt` - (permission denied \(EACCES\)|operation not permitted \(EPERM\))\n {2}nothing was changed: the files written before it were removed or restored\n$/,
    );
    assert.deepEqual(tree(dir), before);
    assert.deepEqual(readdirSync(out).sort(), ["locked"]);
  });

  it("setup: a failure in the files leaves no kiln.toml and no files", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "k8s", "locked"), { recursive: true });
    const preset = presetOf(dir, ["a.txt", "b/c.txt", "locked/d.txt"]);
    const before = tree(dir);
    assert.ok(lockFolder(join(dir, "k8s", "locked")));
    const run = kiln(["setup", preset], dir);
    unlockFolder(join(dir, "k8s", "locked"));
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^error: could not write `k8s\/locked\/d\.txt` - /);
    assert.deepEqual(tree(dir), before);
    assert.deepEqual(temporaryFiles(dir), []);
  });

  it("setup: kiln.toml is written last, and failing it undoes every file", () => {
    const dir = tempDir();
    const project = join(dir, "project");
    mkdirSync(join(project, "k8s"), { recursive: true });
    write(project, "k8s/b.txt", "old b\n");
    const preset = presetOf(project, ["a.txt", "b.txt", "sub/c.txt"]);
    const before = tree(project);
    // the project folder refuses new entries (kiln.toml), its k8s/ folder does not
    assert.ok(lockFolder(project));
    const run = kiln(["setup", preset, "--force"], project);
    unlockFolder(project);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^error: could not write `kiln\.toml` - .*\n {2}nothing was changed/);
    assert.deepEqual(tree(project), before);
    assert.deepEqual(temporaryFiles(project), []);
  });

  it("add: an overwrite that fails leaves the old file whole", () => {
    const dir = tempDir();
    write(dir, "kiln.toml", '[project]\noutput_dir = "k8s"\n');
    write(dir, "k8s/web-deployment.yaml", "mine\n");
    const before = tree(dir);
    assert.ok(lockFolder(join(dir, "k8s")));
    const run = kiln(["add", "k8s/deployment", "--name", "web", "--image", "x", "--force"], dir);
    unlockFolder(join(dir, "k8s"));
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^error: could not write `k8s\/web-deployment\.yaml` - /);
    assert.deepEqual(tree(dir), before);
  });
});
