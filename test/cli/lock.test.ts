// kiln.lock from the real binary: add and setup record what they vendor in the same
// all-or-nothing write as the files; apply never writes it; a failed run leaves the old lock;
// a lock from a newer kiln is refused. And idempotent presets: setup and apply of a preset
// whose files are already on disk byte for byte succeed without --force.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import {
  cleanUp,
  ensureBuilt,
  itemFile,
  kiln,
  lockFolder,
  project,
  setUpProject,
  tempDir,
  tree,
  unlockFolder,
  write,
  writeJson,
} from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

interface LockJson {
  version: number;
  components: {
    name: string;
    component: string;
    reference: string;
    source: Record<string, string>;
    fingerprint: string;
    fields: Record<string, string>;
    labels: Record<string, string>;
    namespace: string;
    automationProfile?: string;
    files: { path: string; sha256: string; base: string; template: number; conflicted?: true }[];
  }[];
}

function readLockJson(dir: string): LockJson {
  const text = tree(dir)["kiln.lock"];
  assert.ok(text !== undefined, "kiln.lock was written");
  return JSON.parse(text) as LockJson;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const base = (encoded: string) => inflateRawSync(Buffer.from(encoded, "base64")).toString("utf8");

/** The tree without kiln.lock, as the tests from before the lock compare it. */
function withoutLock(dir: string): Record<string, string> {
  const { "kiln.lock": _lock, ...rest } = tree(dir);
  return rest;
}

describe("kiln.lock: written by add and setup, never by apply", () => {
  it("add records the component, its values and each file's hash and content; output unchanged", () => {
    const dir = project();
    const run = kiln(
      [
        "add",
        "k8s/deployment",
        "--name",
        "api",
        "--image",
        "nginx:1.27",
        "--replicas",
        "2",
        "--label",
        "tier=backend",
      ],
      dir,
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      "created   k8s/api-deployment.yaml\nadded deployment/api: 1 file in k8s/ (1 created)\n",
    );
    const lock = readLockJson(dir);
    assert.equal(lock.version, 1);
    const [api] = lock.components;
    assert.ok(api);
    assert.equal(api.name, "api");
    assert.equal(api.component, "k8s/deployment");
    assert.equal(api.reference, "k8s/deployment");
    assert.equal(api.source.type, "builtin");
    assert.match(api.source.kiln as string, /^\d+\.\d+\.\d+/);
    assert.match(api.fingerprint, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(api.fields, { image: "nginx:1.27", replicas: "2" });
    assert.deepEqual(api.labels, { tier: "backend" });
    assert.equal(api.namespace, "default");
    assert.equal(api.automationProfile, undefined);
    const content = tree(dir)["k8s/api-deployment.yaml"] as string;
    assert.deepEqual(
      api.files.map((f) => [f.path, f.sha256, base(f.base), f.template]),
      [["k8s/api-deployment.yaml", sha256(content), content, 0]],
    );

    // a second component joins the lock; components sorted by name
    assert.equal(kiln(["add", "k8s/service", "--name", "aaa", "--port", "80"], dir).status, 0);
    assert.deepEqual(
      readLockJson(dir).components.map((c) => `${c.name} ${c.component}`),
      ["aaa k8s/service", "api k8s/deployment"],
    );
    // add --force of the same component replaces its entry
    const again = kiln(
      ["add", "k8s/deployment", "--name", "api", "--image", "nginx:1.28", "--force"],
      dir,
    );
    assert.equal(again.status, 0, again.stderr);
    const after = readLockJson(dir).components.find((c) => c.name === "api");
    assert.deepEqual(after?.fields, { image: "nginx:1.28" });
    assert.equal(readLockJson(dir).components.length, 2);
  });

  it("add --dry-run writes no lock; a file item is recorded with its path", () => {
    const dir = project();
    itemFile(dir, "items/note.json", [{ path: "{{ name }}.md", template: "# {{ name }}\n" }]);
    const dry = kiln(["add", "items/note.json", "--name", "n", "--dry-run"], dir);
    assert.equal(dry.status, 0, dry.stderr);
    assert.equal(tree(dir)["kiln.lock"], undefined);
    assert.match(dry.stdout, /\(1 new, 0 overwrite, 0 unchanged\)/);
    assert.equal(kiln(["add", "items/note.json", "--name", "n"], dir).status, 0);
    const [note] = readLockJson(dir).components;
    assert.deepEqual(note?.source, { type: "file", path: "items/note.json" });
    assert.equal(note?.component, "test/thing");
  });

  it("setup records every component of the preset; its output is what it always was", () => {
    const dir = tempDir();
    const run = kiln(["setup", "k8s-web-app"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stdout, /kiln\.lock/);
    const lock = readLockJson(dir);
    const files = lock.components.flatMap((c) => c.files.map((f) => f.path)).sort();
    const written = Object.keys(withoutLock(dir)).filter(
      (p) => p.startsWith("k8s/") && !p.endsWith("/"),
    );
    assert.deepEqual(files, written.sort());
    for (const component of lock.components) {
      assert.equal(component.namespace, "web");
      for (const file of component.files) {
        assert.equal(base(file.base), tree(dir)[file.path], file.path);
      }
    }
    // the same bytes as setup of the same preset elsewhere: the lock is stable
    const other = tempDir();
    assert.equal(kiln(["setup", "k8s-web-app"], other).status, 0);
    assert.equal(tree(other)["kiln.lock"], tree(dir)["kiln.lock"]);
  });

  it("each base is a fresh level-9 raw DEFLATE of its file, whatever kiln compressed before it", () => {
    // kiln compresses a preset's contents one after another with one reused compressor; the
    // dashboard's zip compresses each with a fresh one, and both locks must be the same bytes
    const dir = setUpProject("multi-tier-platform");
    const files = tree(dir);
    const bases = readLockJson(dir).components.flatMap((component) => component.files);
    assert.ok(bases.length >= 77, `${bases.length} files`);
    for (const file of bases) {
      const content = files[file.path];
      assert.ok(content !== undefined, file.path);
      const fresh = deflateRawSync(Buffer.from(content, "utf8"), { level: 9 }).toString("base64");
      assert.equal(file.base, fresh, file.path);
    }
  });

  it("apply writes no lock, and never touches an existing one", () => {
    const dir = tempDir();
    assert.equal(kiln(["apply", "k8s-web-app"], dir).status, 0);
    assert.equal(tree(dir)["kiln.lock"], undefined);
    const proj = project();
    assert.equal(kiln(["add", "k8s/service", "--name", "s"], proj).status, 0);
    const lock = tree(proj)["kiln.lock"];
    assert.equal(kiln(["apply", "k8s-web-app", "--into", "k8s"], proj).status, 0);
    assert.equal(tree(proj)["kiln.lock"], lock);
  });

  it("a run that fails part-way leaves the old lock (and the old files)", (t) => {
    const dir = project();
    assert.equal(kiln(["add", "k8s/service", "--name", "web"], dir).status, 0);
    itemFile(dir, "items/two.json", [
      { path: "a/{{ name }}.txt", template: "a\n" },
      { path: "b/{{ name }}.txt", template: "b\n" },
    ]);
    write(dir, "k8s/b/keep.txt", "keep\n");
    const before = tree(dir);
    if (!lockFolder(join(dir, "k8s", "b"))) {
      t.skip("cannot make a folder refuse writes here");
      return;
    }
    const run = kiln(["add", "items/two.json", "--name", "x"], dir);
    unlockFolder(join(dir, "k8s", "b"));
    assert.equal(run.status, 1);
    assert.match(run.stderr, /could not write `k8s\/b\/x\.txt`/);
    assert.deepEqual(tree(dir), before);
  });

  it("a lock written by a newer kiln is refused before anything is written; a broken one too", () => {
    const dir = project();
    write(dir, "kiln.lock", '{"version": 99, "components": []}\n');
    const run = kiln(["add", "k8s/service", "--name", "web"], dir);
    assert.equal(run.status, 1);
    assert.equal(
      run.stderr,
      "error: this kiln.lock was written by a newer kiln - upgrade kiln\n  it has format version 99; this kiln reads versions up to 2\n",
    );
    assert.equal(tree(dir)["k8s/web-service.yaml"], undefined);
    write(dir, "kiln.lock", "not json");
    const broken = kiln(["add", "k8s/service", "--name", "web"], dir);
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /^error: kiln\.lock is not valid JSON - fix it/);
  });
});

describe("idempotent presets", () => {
  it("setup of the same preset again: every file unchanged, no --force needed", () => {
    const dir = tempDir();
    assert.equal(kiln(["setup", "k8s-web-app"], dir).status, 0);
    const before = tree(dir);
    const again = kiln(["setup", "k8s-web-app", "--verbose"], dir);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^unchanged k8s\/frontend-deployment\.yaml$/m);
    assert.match(again.stdout, /^unchanged kiln\.toml$/m);
    assert.doesNotMatch(again.stdout, /^(created|overwrote)/m);
    assert.deepEqual(tree(dir), before);
    const dry = kiln(["setup", "k8s-web-app", "--dry-run"], dir);
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /\(0 new, 0 overwrite, 8 unchanged\)/);
  });

  it("apply of the same preset again succeeds; only a file that would change needs --force", () => {
    const dir = tempDir();
    assert.equal(kiln(["apply", "k8s-web-app"], dir).status, 0);
    const again = kiln(["apply", "k8s-web-app", "--verbose"], dir);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^unchanged api-ingress\.yaml$/m);
    write(dir, "api-ingress.yaml", "edited\n");
    const before = tree(dir);
    const dry = kiln(["apply", "k8s-web-app", "--dry-run"], dir);
    const real = kiln(["apply", "k8s-web-app"], dir);
    for (const run of [dry, real]) {
      assert.equal(run.status, 1);
      assert.equal(run.stdout, "");
      assert.equal(
        run.stderr,
        "error: api-ingress.yaml already exists - pass --force to overwrite\n",
      );
    }
    assert.deepEqual(tree(dir), before);
    const forcedDry = kiln(["apply", "k8s-web-app", "--dry-run", "--force"], dir);
    assert.match(forcedDry.stdout, /\(0 new, 1 overwrite, 6 unchanged\)/);
    const forced = kiln(["apply", "k8s-web-app", "--force"], dir);
    assert.equal(forced.status, 0);
    assert.deepEqual(
      forced.stdout.split("\n").filter((line) => !line.startsWith("unchanged")),
      ["overwrote api-ingress.yaml", "applied k8s-web-app: 7 files in the current folder", ""],
    );
  });

  it("setup over a different kiln.toml or lock still needs --force, with the spec's message", () => {
    const dir = tempDir();
    writeJson(dir, "p.preset.json", {
      name: "p",
      components: [{ reference: "k8s/service", name: "s" }],
    });
    assert.equal(kiln(["setup", "./p.preset.json"], dir).status, 0);
    write(dir, "kiln.toml", '[project]\nname = "other"\n');
    const refused = kiln(["setup", "./p.preset.json"], dir);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /^error: kiln\.toml already exists - pass --force to overwrite\n/);
  });
});
