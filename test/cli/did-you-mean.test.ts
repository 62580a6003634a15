// A typo gets the nearest known name, wherever it is made: commands, options, references,
// presets, component names of kiln.lock, and kiln.toml keys (an unknown key is an error, never
// ignored).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cleanUp, ensureBuilt, kiln, project, tempDir, write } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

describe("did you mean", () => {
  it("commands, options, references and presets are answered with the nearest known name", () => {
    const dir = tempDir();
    const command = kiln(["ad"], dir);
    assert.equal(command.status, 2);
    assert.equal(
      command.stderr,
      "error: unknown command `ad`; did you mean `add`?\nrun `kiln --help` to see the commands\n",
    );
    const option = kiln(["render", "k8s/deployment", "--name", "a", "--imag", "x"], dir);
    assert.equal(option.status, 2);
    assert.match(option.stderr, /^error: unknown option `--imag`; did you mean `--image`\?\n/);
    const reference = kiln(["render", "k8s/deploymnet", "--name", "a"], dir);
    assert.equal(reference.status, 1);
    assert.match(
      reference.stderr,
      /^error: `k8s\/deploymnet` is not a built-in component .*\n {2}did you mean `k8s\/deployment`\?\n/,
    );
    const preset = kiln(["render", "k8s-web-ap", "--preset"], dir);
    assert.equal(preset.status, 1);
    assert.match(
      preset.stderr,
      /^error: `k8s-web-ap` is not a preset template.*\n {2}did you mean `k8s-web-app`\?\n/,
    );
  });

  it("a component name of kiln.lock is answered with the nearest recorded one", () => {
    const dir = project();
    const added = kiln(["add", "k8s/deployment", "--name", "api", "--image", "x"], dir);
    assert.equal(added.status, 0, added.stderr);
    const status = kiln(["status", "apj"], dir);
    assert.equal(status.status, 1);
    assert.equal(
      status.stderr,
      "error: no component named `apj` in kiln.lock\n  did you mean `api`? its components: api\n",
    );
  });

  it("an unknown kiln.toml key is an error naming the file, line, nearest key and known keys", () => {
    const dir = tempDir();
    write(dir, "kiln.toml", '[project]\nname = "shop"\noutputdir = "deploy"\n');
    const run = kiln(["add", "k8s/deployment", "--name", "api", "--image", "x"], dir);
    assert.equal(run.status, 1);
    assert.equal(
      run.stderr,
      "error: kiln.toml, line 3: unknown key `outputdir` in [project]; did you mean `output_dir`? - fix it or run `kiln init --force`\n  the keys of [project]: name, default_namespace, output_dir, automation_profile\n",
    );
    assert.equal(existsSync(join(dir, "k8s")), false, "nothing was written to the default folder");
  });
});
