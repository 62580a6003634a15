// The spec's five path rules, symbolic links that lead outside, and all or nothing: every rule
// is checked for the whole run before the first write, so a refused run leaves no trace.
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  cleanUp,
  ensureBuilt,
  itemFile,
  kiln,
  project,
  tempDir,
  tree,
  write,
  writeJson,
} from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

/** A preset whose components are local items, one per entry: [item file, its file paths]. */
function presetOf(
  dir: string,
  items: [string, string[]][],
  project?: Record<string, string>,
): string {
  const components = items.map(([file, paths], index) => {
    itemFile(
      dir,
      `items/${file}`,
      paths.map((path) => ({ path, template: `from ${file}\n` })),
    );
    return { reference: `items/${file}`, name: `c${index}` };
  });
  writeJson(dir, "run.preset.json", { name: "run", ...(project ? { project } : {}), components });
  return "run.preset.json";
}

/** Runs and expects a refusal with exactly this message and an untouched folder. */
function refused(dir: string, args: string[], message: string): void {
  const before = tree(dir);
  const run = kiln(args, dir);
  assert.equal(run.status, 1, run.stdout);
  assert.equal(run.stdout, "");
  assert.equal(run.stderr.split("\n")[0], `error: ${message}`);
  assert.deepEqual(tree(dir), before, "nothing was written");
}

describe("rule 1: two files of one item render to the same path", () => {
  it("add refuses", () => {
    const dir = project();
    itemFile(dir, "twice.json", [
      { path: "{{ name }}.yaml", template: "a" },
      { path: "./{{ name }}.yaml", template: "b" },
    ]);
    refused(
      dir,
      ["add", "./twice.json", "--name", "x"],
      "test/thing has two files that both render to `./x.yaml`",
    );
  });
});

describe("rule 2: two files of one run render to the same path", () => {
  for (const command of ["setup", "apply"]) {
    it(`${command} refuses, writing none of the other files`, () => {
      const dir = tempDir();
      const preset = presetOf(dir, [
        ["a.json", ["first.txt", "shared.txt"]],
        ["b.json", ["second.txt", "shared.txt"]],
      ]);
      refused(dir, [command, preset], "two files rendered to the same path: `shared.txt`");
    });
  }

  it("setup refuses a file that would land on its own kiln.toml", () => {
    const dir = tempDir();
    const preset = presetOf(dir, [["a.json", ["kiln.toml"]]], { outputDir: "." });
    // refused as one of kiln's own files before it could meet setup's own kiln.toml
    refused(
      dir,
      ["setup", preset],
      "refusing to write `kiln.toml` - `kiln.toml` is a file kiln keeps for itself (kiln.toml); an item or preset cannot write it",
    );
  });
});

describe("rule 3: absolute paths", () => {
  it("add, setup and apply refuse", () => {
    const dir = project();
    itemFile(dir, "abs.json", [{ path: "/tmp/kiln-should-not-exist.txt", template: "x" }]);
    const message =
      "refusing to write `/tmp/kiln-should-not-exist.txt` - absolute paths are not allowed";
    refused(dir, ["add", "abs.json", "--name", "x"], message);
    const other = tempDir();
    const preset = presetOf(other, [
      ["ok.json", ["fine.txt"]],
      ["abs.json", ["/tmp/kiln-should-not-exist.txt"]],
    ]);
    refused(other, ["setup", preset], message);
    refused(other, ["apply", preset], message);
  });
});

describe("rule 4: climbing above the target at any `..`", () => {
  it("add, setup and apply refuse, even when the path comes back down", () => {
    const dir = project();
    itemFile(dir, "up.json", [{ path: "../k8s/x.txt", template: "x" }]);
    const message = "refusing to write `../k8s/x.txt` - it escapes the target directory";
    refused(dir, ["add", "up.json", "--name", "x"], message);
    const other = tempDir();
    const preset = presetOf(other, [
      ["ok.json", ["fine.txt"]],
      ["up.json", ["a/../../x.txt"]],
    ]);
    const escapes = "refusing to write `a/../../x.txt` - it escapes the target directory";
    refused(other, ["setup", preset], escapes);
    refused(other, ["apply", preset, "--into", "sub"], escapes);
  });

  it("a `..` that stays inside is fine", () => {
    const dir = tempDir();
    const preset = presetOf(dir, [["in.json", ["a/../b.txt"]]]);
    const run = kiln(["apply", preset, "--into", "out"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(tree(dir)["out/b.txt"], "from in.json\n");
  });

  it("setup refuses a preset whose outputDir leaves the project", () => {
    for (const [outputDir, message] of [
      ["../outside", "refusing to write `../outside` - it escapes the target directory"],
      ["/tmp/x", "refusing to write `/tmp/x` - absolute paths are not allowed"],
    ] as const) {
      const dir = tempDir();
      const preset = presetOf(dir, [["ok.json", ["fine.txt"]]], { outputDir });
      refused(dir, ["setup", preset], message);
    }
  });
});

describe("rule 5: an existing file without --force", () => {
  it("setup and apply check every file before writing any", () => {
    const dir = tempDir();
    const preset = presetOf(dir, [
      ["a.json", ["one.txt", "two.txt"]],
      ["b.json", ["deep/last.txt"]],
    ]);
    write(dir, "k8s/deep/last.txt", "keep me\n");
    refused(dir, ["setup", preset], "k8s/deep/last.txt already exists - pass --force to overwrite");
    write(dir, "out/deep/last.txt", "keep me\n");
    refused(
      dir,
      ["apply", preset, "--into", "out"],
      "out/deep/last.txt already exists - pass --force to overwrite",
    );
  });
});

describe("all or nothing: a component that fails to render stops the run", () => {
  it("setup and apply write nothing when the last component misses a required field", () => {
    const dir = tempDir();
    itemFile(
      dir,
      "items/needs.json",
      [{ path: "n.txt", template: "x" }],
      [{ name: "must", required: true }],
    );
    const preset = presetOf(dir, [
      ["a.json", ["one.txt"]],
      ["b.json", ["two.txt"]],
    ]);
    const manifest = JSON.parse(tree(dir)[preset] as string);
    manifest.components.push({ reference: "items/needs.json", name: "late" });
    writeJson(dir, preset, manifest);
    refused(dir, ["setup", preset], "--must is required for test/thing");
    refused(dir, ["apply", preset], "--must is required for test/thing");
  });

  it("a template error stops the run too", () => {
    const dir = tempDir();
    const preset = presetOf(dir, [["a.json", ["one.txt"]]]);
    itemFile(dir, "items/broken.json", [{ path: "b.txt", template: "{% if %}" }]);
    const manifest = JSON.parse(tree(dir)[preset] as string);
    manifest.components.push({ reference: "items/broken.json", name: "b" });
    writeJson(dir, preset, manifest);
    const before = tree(dir);
    const run = kiln(["apply", preset], dir);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^error: /);
    assert.deepEqual(tree(dir), before);
  });
});

describe("symbolic links", () => {
  it("a folder link that leads outside the target is refused as escaping", () => {
    const outside = tempDir();
    const dir = project();
    mkdirSync(join(dir, "k8s"));
    symlinkSync(outside, join(dir, "k8s", "link"));
    itemFile(dir, "via.json", [{ path: "link/x.txt", template: "x" }]);
    refused(
      dir,
      ["add", "via.json", "--name", "x"],
      "refusing to write `link/x.txt` - it escapes the target directory",
    );
    assert.deepEqual(tree(outside), {});
  });

  it("a file link that leads outside is refused, even with --force", () => {
    const outside = tempDir();
    write(outside, "target.txt", "precious\n");
    const dir = tempDir();
    symlinkSync(join(outside, "target.txt"), join(dir, "x.txt"));
    const preset = presetOf(dir, [["a.json", ["fine.txt", "x.txt"]]]);
    refused(
      dir,
      ["apply", preset, "--force"],
      "refusing to write `x.txt` - it escapes the target directory",
    );
    assert.equal(tree(outside)["target.txt"], "precious\n");
  });

  it("a dangling link that would lead outside is refused", () => {
    const outside = tempDir();
    const dir = tempDir();
    symlinkSync(join(outside, "not-yet"), join(dir, "ghost"));
    const preset = presetOf(dir, [["a.json", ["ghost/x.txt"]]]);
    refused(
      dir,
      ["apply", preset],
      "refusing to write `ghost/x.txt` - it escapes the target directory",
    );
    assert.deepEqual(tree(outside), {});
  });

  it("`..` after a link is followed the way the system follows it", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "out", "real", "deeper"), { recursive: true });
    // out/hop -> out/real/deeper: `hop/..` is out/real (the system's reading), not out
    symlinkSync(join(dir, "out", "real", "deeper"), join(dir, "out", "hop"));
    // out/top -> out itself: `top/a/../..` climbs above out
    symlinkSync(join(dir, "out"), join(dir, "out", "top"));
    const ok = presetOf(dir, [["a.json", ["hop/../fine.txt"]]]);
    const run = kiln(["apply", ok, "--into", "out"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(tree(dir)["out/real/fine.txt"], "from a.json\n");
    assert.equal(tree(dir)["out/fine.txt"], undefined);
    const bad = presetOf(dir, [["b.json", ["top/real/../../x.txt"]]]);
    refused(
      dir,
      ["apply", bad, "--into", "out"],
      "refusing to write `top/real/../../x.txt` - it escapes the target directory",
    );
  });

  it("links that stay inside the target are followed", () => {
    const dir = project();
    mkdirSync(join(dir, "k8s", "real"), { recursive: true });
    symlinkSync(join(dir, "k8s", "real"), join(dir, "k8s", "alias"));
    itemFile(dir, "via.json", [{ path: "alias/x.txt", template: "x\n" }]);
    const run = kiln(["add", "via.json", "--name", "x"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      "created   k8s/alias/x.txt\nadded thing/x: 1 file in k8s/ (1 created)\n",
    );
    assert.equal(tree(dir)["k8s/real/x.txt"], "x\n");
  });

  it("an output folder that is itself a link inside the project is the target", () => {
    // a link that leads outside the project is refused: test/cli/hostile-writes.test.ts
    const dir = project();
    mkdirSync(join(dir, "elsewhere"));
    symlinkSync(join(dir, "elsewhere"), join(dir, "k8s"));
    const run = kiln(["add", "k8s/deployment", "--name", "web", "--image", "x"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(Object.keys(tree(join(dir, "elsewhere"))), ["web-deployment.yaml"]);
  });
});

describe("something in the way", () => {
  it("a file where a folder is needed is reported before any write", () => {
    const dir = tempDir();
    write(dir, "roles", "a file\n");
    const preset = presetOf(dir, [["a.json", ["first.txt", "roles/web/tasks.yml"]]]);
    refused(
      dir,
      ["apply", preset],
      "cannot write `roles/web/tasks.yml` - `roles` is a file, not a folder",
    );
  });

  it("a file given as the target folder is reported", () => {
    const dir = tempDir();
    write(dir, "out", "a file\n");
    const preset = presetOf(dir, [["a.json", ["first.txt"]]]);
    refused(
      dir,
      ["apply", preset, "--into", "out"],
      "cannot write into `out` - it is a file, not a folder",
    );
  });

  it("a folder where a file goes is reported before any write, even with --force", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "site.yml"));
    const preset = presetOf(dir, [["a.json", ["first.txt", "site.yml"]]]);
    refused(
      dir,
      ["apply", preset, "--force"],
      "cannot write `site.yml` - a folder of that name is in the way",
    );
  });
});
