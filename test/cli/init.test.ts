// kiln init: kiln.toml and the output folder.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, statSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cleanUp, ensureBuilt, kiln, tempDir, tree, write } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

describe("kiln init", () => {
  it("never creates its output folder inside .git or through a link that leads out", () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".git"));
    for (const folder of [".git", ".GIT/hooks", "k8s/.git", ".git."]) {
      const run = kiln(["init", "--dir", folder], dir);
      assert.equal(run.status, 1, `${folder}: ${run.stderr}`);
      assert.match(run.stderr, /\.git/);
    }
    const outside = tempDir();
    symlinkSync(outside, join(dir, "lnk"));
    const linked = kiln(["init", "--dir", "lnk/sub"], dir);
    assert.equal(linked.status, 1, linked.stderr);
    assert.match(linked.stderr, /leads outside the project/);
    assert.equal(existsSync(join(outside, "sub")), false);
    assert.equal(existsSync(join(dir, "kiln.toml")), false);
  });

  it("writes kiln.toml with the defaults and creates k8s/", () => {
    const dir = tempDir();
    const run = kiln(["init"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, "");
    const name = basename(dir);
    assert.equal(
      run.stdout,
      `created kiln.toml: project ${name}, namespace default, files go to k8s/\n` +
        "next: `kiln list` to see the components, then `kiln add <reference> --name <name>`\n",
    );
    assert.deepEqual(tree(dir), {
      "k8s/": "",
      "kiln.toml": `[project]\nname = "${name}"\ndefault_namespace = "default"\noutput_dir = "k8s"\n`,
    });
  });

  it("takes --name, --dir and --namespace", () => {
    const dir = tempDir();
    const run = kiln(["init", "--name", "shop", "--dir", "deploy/k8s", "--namespace", "prod"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(tree(dir), {
      "deploy/": "",
      "deploy/k8s/": "",
      "kiln.toml":
        '[project]\nname = "shop"\ndefault_namespace = "prod"\noutput_dir = "deploy/k8s"\n',
    });
  });

  it("refuses an existing kiln.toml without --force (exit 1) and replaces it with --force", () => {
    const dir = tempDir();
    write(dir, "kiln.toml", "# mine\n");
    const refused = kiln(["init", "--name", "x"], dir);
    assert.equal(refused.status, 1);
    assert.equal(refused.stdout, "");
    assert.equal(refused.stderr, "error: kiln.toml already exists - pass --force to overwrite\n");
    assert.deepEqual(tree(dir), { "kiln.toml": "# mine\n" });

    const forced = kiln(["init", "--name", "x", "--force"], dir);
    assert.equal(forced.status, 0, forced.stderr);
    assert.match(forced.stdout, /^updated kiln.toml: project x,/);
    assert.match(tree(dir)["kiln.toml"] as string, /name = "x"/);
  });

  it("refuses when a file stands where the output folder goes, writing nothing", () => {
    const dir = tempDir();
    write(dir, "k8s", "not a folder\n");
    const run = kiln(["init"], dir);
    assert.equal(run.status, 1);
    assert.equal(
      run.stderr,
      "error: cannot create the output folder `k8s` - a file of that name is in the way\n" +
        "  pass another folder with --dir, or move that file\n",
    );
    assert.deepEqual(tree(dir), { k8s: "not a folder\n" });
  });

  it("keeps an output folder that already exists", () => {
    const dir = tempDir();
    write(dir, "k8s/mine.yaml", "kind: Mine\n");
    assert.equal(kiln(["init"], dir).status, 0);
    assert.equal(statSync(join(dir, "k8s")).isDirectory(), true);
    assert.equal(tree(dir)["k8s/mine.yaml"], "kind: Mine\n");
  });
});
