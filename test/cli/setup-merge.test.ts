// setup and apply over files kiln.lock tracks, from the real binary: with --force the new render
// is merged into a hand-edited file three ways, as `kiln update` merges (an env block under the
// image survives an image bump from a preset), a conflict stops the run with nothing written,
// --theirs settles it and prints what it dropped; without --force the spec's refusal stands,
// followed by what --force would do. apply merges the same way and leaves kiln.lock alone.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { validateK8sManifest } from "../tools/k8s-schema.ts";
import {
  cleanUp,
  ensureBuilt,
  kiln,
  REPO,
  setUpProject,
  tree,
  write,
  writeJson,
} from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

const API = "k8s/api-deployment.yaml";
const IMAGE = "ghcr.io/example/api:1.0.0";

interface LockJson {
  components: {
    name: string;
    component: string;
    fields: Record<string, string>;
    files: { path: string; sha256: string }[];
  }[];
}

const read = (dir: string, path: string) => readFileSync(join(dir, path), "utf8");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function apiEntry(dir: string) {
  const lock = JSON.parse(read(dir, "kiln.lock")) as LockJson;
  return lock.components.find((c) => c.name === "api" && c.component === "k8s/deployment");
}

/** The built-in k8s-web-app preset with the api deployment's image replaced, as a file in `dir`. */
function bumpedPreset(dir: string, file: string, image: string): string {
  const text = readFileSync(join(REPO, "src/core/presets/k8s-web-app.preset.json"), "utf8");
  assert.ok(text.includes(IMAGE));
  writeJson(dir, file, JSON.parse(text.replace(IMAGE, image)));
  return `./${file}`;
}

/** A k8s-web-app project whose api deployment has an env block right under the image. */
function projectWithEnv(): { dir: string; rendered: string; edited: string } {
  const dir = setUpProject("k8s-web-app");
  const rendered = read(dir, API);
  const edited = rendered.replace(
    `          image: ${IMAGE}\n`,
    `          image: ${IMAGE}\n          env:\n            - name: LOG_LEVEL\n              value: debug\n`,
  );
  assert.notEqual(edited, rendered);
  write(dir, API, edited);
  return { dir, rendered, edited };
}

const UNCHANGED = (except: string) =>
  [
    "k8s/frontend-deployment.yaml",
    "k8s/frontend-service.yaml",
    "k8s/frontend-ingress.yaml",
    API,
    "k8s/api-service.yaml",
    "k8s/api-ingress.yaml",
    "k8s/worker-deployment.yaml",
  ].map((path) => (path === API ? except : `unchanged ${path}`));

describe("setup --force over a hand-edited file kiln.lock tracks", () => {
  it("merges the preset's new image into it and keeps the env block; a conflict writes nothing, --theirs settles it", () => {
    const { dir, rendered, edited } = projectWithEnv();
    const bump = bumpedPreset(dir, "bump.preset.json", "ghcr.io/example/api:1.1.0");

    // the dry run shows the merge, then refuses as the run without --force does
    const before = tree(dir);
    const dry = kiln(["setup", bump, "--dry-run", "--verbose"], dir);
    assert.equal(dry.status, 1);
    assert.equal(
      dry.stdout,
      `${[
        ...UNCHANGED(
          `merge     ${API}  (edited since kiln wrote it: the new render merged in, your edits kept)`,
        ),
        "unchanged kiln.toml",
        "dry run: nothing was written (0 new, 1 overwrite, 7 unchanged; your edits kept in 1 file kiln.lock tracks) - run again with --force and without --dry-run to write",
      ].join("\n")}\n`,
    );
    assert.equal(
      dry.stderr,
      `error: ${API} already exists - pass --force to overwrite\n` +
        "  kiln.lock tracks it as a file of deployment/api: with --force the new render is merged into it and your edits are kept\n",
    );
    assert.deepEqual(tree(dir), before);

    const run = kiln(["setup", bump, "--force", "--verbose"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      `${[
        ...UNCHANGED(
          `merged    ${API}  (edited since kiln wrote it: the new render merged in, your edits kept)`,
        ),
        "unchanged kiln.toml",
        "set up k8s-web-app: 7 files in k8s/ and kiln.toml - next: review the files, then `kiln add <reference> --name <name>` to add more",
      ].join("\n")}\n`,
    );
    // the user's file with the one value changed: every other byte as it was
    const merged = read(dir, API);
    assert.equal(merged, edited.replace(IMAGE, "ghcr.io/example/api:1.1.0"));
    validateK8sManifest(parse(merged));
    // the lock records the new values and the new render as the next base, not the merged file
    const entry = apiEntry(dir);
    assert.equal(entry?.fields.image, "ghcr.io/example/api:1.1.0");
    assert.equal(
      entry?.files[0]?.sha256,
      sha256(rendered.replace(IMAGE, "ghcr.io/example/api:1.1.0")),
    );

    // the user and the preset both change the image: nothing is written, the key path named
    write(dir, API, merged.replace("api:1.1.0", "api:hand"));
    const bump2 = bumpedPreset(dir, "bump2.preset.json", "ghcr.io/example/api:1.2.0");
    const conflicted = tree(dir);
    const stopped = kiln(["setup", bump2, "--force"], dir);
    assert.equal(stopped.status, 1);
    assert.equal(stopped.stdout, "");
    assert.equal(
      stopped.stderr,
      "error: 1 conflict in 1 file - nothing was written\n" +
        `  ${API}: spec.template.spec.containers[name=api].image: yours ghcr.io/example/api:hand, new ghcr.io/example/api:1.2.0\n` +
        "  run again with --ours or --theirs to take one side in each conflict (the side dropped is printed), or change that value in your file first\n",
    );
    assert.deepEqual(tree(dir), conflicted);

    // --theirs takes the new image, keeps the env block, and names the value it dropped
    const theirs = kiln(["setup", bump2, "--force", "--theirs"], dir);
    assert.equal(theirs.status, 0, theirs.stderr);
    assert.equal(
      theirs.stdout.split("\n").slice(0, 3).join("\n"),
      `conflict  ${API}  (1 conflict settled with the new lines)\n` +
        "    dropped your spec.template.spec.containers[name=api].image:\n" +
        "      | ghcr.io/example/api:hand",
    );
    assert.equal(read(dir, API), edited.replace(IMAGE, "ghcr.io/example/api:1.2.0"));
    assert.equal(apiEntry(dir)?.fields.image, "ghcr.io/example/api:1.2.0");
  });
});

describe("apply --force into a project's output folder", () => {
  it("merges into a file kiln.lock tracks, keeps the edits and leaves kiln.lock as it was; a conflict writes nothing, --ours keeps your value", () => {
    const { dir, edited } = projectWithEnv();
    const bump = bumpedPreset(dir, "bump.preset.json", "ghcr.io/example/api:1.1.0");
    const lock = read(dir, "kiln.lock");

    // without --force the spec's refusal, then what --force does to a tracked file
    const before = tree(dir);
    const refused = kiln(["apply", bump, "--into", "k8s"], dir);
    assert.equal(refused.status, 1);
    assert.equal(
      refused.stderr,
      `error: ${API} already exists - pass --force to overwrite\n` +
        "  kiln.lock tracks it as a file of deployment/api: with --force the new render is merged into it and your edits are kept\n",
    );
    assert.deepEqual(tree(dir), before);

    const run = kiln(["apply", bump, "--into", "k8s", "--force", "--verbose"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      `${[
        ...UNCHANGED(
          `merged    ${API}  (edited since kiln wrote it: the new render merged in, your edits kept)`,
        ),
        "applied k8s-web-app: 7 files in k8s/",
      ].join("\n")}\n`,
    );
    assert.equal(read(dir, API), edited.replace(IMAGE, "ghcr.io/example/api:1.1.0"));
    // apply writes no lock: its base is still what setup wrote, so the file reads as edited
    assert.equal(read(dir, "kiln.lock"), lock);

    // the file (image 1.1.0 against the lock's 1.0.0) and a preset with another image conflict
    const bump2 = bumpedPreset(dir, "bump2.preset.json", "ghcr.io/example/api:1.2.0");
    const merged = tree(dir);
    const stopped = kiln(["apply", bump2, "--into", "k8s", "--force"], dir);
    assert.equal(stopped.status, 1);
    assert.equal(
      stopped.stderr,
      "error: 1 conflict in 1 file - nothing was written\n" +
        `  ${API}: spec.template.spec.containers[name=api].image: yours ghcr.io/example/api:1.1.0, new ghcr.io/example/api:1.2.0\n` +
        "  run again with --ours or --theirs to take one side in each conflict (the side dropped is printed), or change that value in your file first\n",
    );
    assert.deepEqual(tree(dir), merged);

    // --ours keeps your image, takes everything else, and names the new value it dropped
    const ours = kiln(["apply", bump2, "--into", "k8s", "--force", "--ours"], dir);
    assert.equal(ours.status, 0, ours.stderr);
    assert.equal(
      ours.stdout.split("\n").slice(0, 3).join("\n"),
      `conflict  ${API}  (1 conflict settled with your lines)\n` +
        "    dropped the new render's spec.template.spec.containers[name=api].image:\n" +
        "      | ghcr.io/example/api:1.2.0",
    );
    assert.deepEqual(tree(dir), merged);
    assert.equal(read(dir, "kiln.lock"), lock);
  });
});
