// kiln status, diff and update from the real binary, in temporary projects: vendor, edit by
// hand, change upstream (a URL item served v1 then v2 by a local server; a file item edited),
// then see and merge the change. Each scenario asserts file bytes and kiln.lock.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { unlinkSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { inflateRawSync } from "node:zlib";
import {
  cleanUp,
  copyOfBuilt,
  ensureBuilt,
  kiln,
  kilnAsync,
  lockFolder,
  project,
  tempDir,
  tree,
  unlockFolder,
  write,
  writeJson,
} from "./helpers.ts";

/** The URL item, v1 then v2: v2 changes the second line of the template. */
const TEMPLATE_V1 = "kind: Cache\nname: {{ name }}\nsize: small\nimage: {{ image }}\nend: true\n";
const TEMPLATE_V2 = "kind: Cache\nname: {{ name }}\nsize: large\nimage: {{ image }}\nend: true\n";
let served = TEMPLATE_V1;
let server: Server;
let base = "";

before(async () => {
  ensureBuilt();
  server = createServer((request, response) => {
    if (request.url !== "/cache.json") {
      response.statusCode = 404;
      response.end();
      return;
    }
    response.end(
      JSON.stringify({
        name: "cache",
        category: "remote",
        fields: [{ name: "image", required: true }],
        files: [{ path: "{{ name }}-cache.yaml", template: served }],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.close();
  cleanUp();
});

interface LockJson {
  components: {
    name: string;
    fields: Record<string, string>;
    fingerprint: string;
    files: { path: string; sha256: string; base: string; conflicted?: true }[];
  }[];
}
const lockOf = (dir: string) => JSON.parse(tree(dir)["kiln.lock"] as string) as LockJson;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const baseOf = (encoded: string) => inflateRawSync(Buffer.from(encoded, "base64")).toString("utf8");
/** A hash of every file and folder of the project: equal means nothing at all changed. */
const treeHash = (dir: string) => sha256(JSON.stringify(tree(dir)));

/** A project with a file item `items/note.json` vendored as `n`. */
function fileItemProject(template: string, path = "notes/{{ name }}.md") {
  // the add runs once per template and path in this file; each test gets its own copy
  return copyOfBuilt(JSON.stringify(["note item", template, path]), () => {
    const dir = project();
    writeJson(dir, "items/note.json", {
      name: "note",
      category: "test",
      fields: [{ name: "title", default: "T" }],
      files: [{ path, template }],
    });
    const run = kiln(["add", "items/note.json", "--name", "n"], dir);
    assert.equal(run.status, 0, run.stderr);
    return dir;
  });
}

function changeItem(dir: string, template: string, path = "notes/{{ name }}.md") {
  writeJson(dir, "items/note.json", {
    name: "note",
    category: "test",
    fields: [{ name: "title", default: "T" }],
    files: [{ path, template }],
  });
}

const NOTE_V1 = "# {{ title }}\nline a\nline b\nline c\nline d\n";

describe("kiln status", () => {
  it("unchanged, modified, missing, changed upstream, and files no component owns", () => {
    const dir = project();
    assert.equal(kiln(["add", "k8s/service", "--name", "web"], dir).status, 0);
    assert.equal(kiln(["add", "k8s/service", "--name", "db"], dir).status, 0);
    changeItem(dir, NOTE_V1);
    assert.equal(kiln(["add", "items/note.json", "--name", "n"], dir).status, 0);
    write(dir, "k8s/web-service.yaml", "edited\n");
    write(dir, "k8s/stray.yaml", "x\n");
    changeItem(dir, `${NOTE_V1}line e\n`);
    const clean = kiln(["status", "--all"], dir);
    assert.equal(clean.status, 0, clean.stderr);
    assert.match(clean.stdout, /^ {2}unchanged {2}k8s\/db-service\.yaml$/m);
    assert.match(clean.stdout, /^ {2}modified {3}k8s\/web-service\.yaml$/m);
    assert.match(clean.stdout, /^ {2}unchanged {2}k8s\/notes\/n\.md {2}\(changed upstream\)$/m);
    assert.match(clean.stdout, /^ {2}unowned {4}k8s\/stray\.yaml$/m);
    // kiln's own files are not "unowned", and nothing was written
    assert.doesNotMatch(clean.stdout, /unowned +(items|kiln)/);

    unlinkSync(join(dir, "k8s/db-service.yaml"));
    const json = kiln(["status", "--json"], dir);
    assert.equal(json.status, 0);
    const status = JSON.parse(json.stdout) as {
      components: { name: string; files: { path: string; local: string; upstream: string }[] }[];
      unowned: string[];
    };
    const files = Object.fromEntries(
      status.components.flatMap((c) => c.files.map((f) => [f.path, `${f.local}/${f.upstream}`])),
    );
    assert.deepEqual(files, {
      "k8s/db-service.yaml": "missing/unchanged",
      "k8s/notes/n.md": "unchanged/changed",
      "k8s/web-service.yaml": "modified/unchanged",
    });
    assert.deepEqual(status.unowned, ["k8s/stray.yaml"]);
  });

  it("without kiln.lock: a clear error", () => {
    const dir = project();
    const run = kiln(["status"], dir);
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /^error: no kiln\.lock found in .* - kiln records what `kiln add` and `kiln setup` vendor in it\n/,
    );
  });
});

describe("kiln diff", () => {
  it("--exit-code: 0 when nothing would change, 1 with the unified diff when something would", () => {
    const dir = fileItemProject(NOTE_V1);
    const clean = kiln(["diff", "--exit-code"], dir);
    assert.equal(clean.status, 0, clean.stderr);
    assert.equal(clean.stdout, "");
    changeItem(dir, NOTE_V1.replace("line b", "line B"));
    const before = treeHash(dir);
    const drift = kiln(["diff", "--exit-code"], dir);
    assert.equal(drift.status, 1);
    assert.equal(
      drift.stdout,
      "--- a/k8s/notes/n.md\n+++ b/k8s/notes/n.md\n@@ -1,5 +1,5 @@\n # T\n line a\n-line b\n+line B\n line c\n line d\n",
    );
    // without --exit-code a difference is no failure; --json gives the same patch
    assert.equal(kiln(["diff"], dir).status, 0);
    const json = JSON.parse(kiln(["diff", "n", "--json"], dir).stdout) as {
      differs: boolean;
      files: { path: string; action: string; patch: string }[];
    };
    assert.equal(json.differs, true);
    assert.deepEqual(
      json.files.map((f) => [f.path, f.action, f.patch]),
      [["k8s/notes/n.md", "replaced", drift.stdout]],
    );
    assert.equal(treeHash(dir), before, "diff writes nothing");
    const unknown = kiln(["diff", "nope"], dir);
    assert.equal(unknown.status, 1);
    assert.equal(
      unknown.stderr,
      "error: no component named `nope` in kiln.lock\n  its components: n\n",
    );
  });

  it("<preset>: what kiln setup of the preset would write against the disk, in both directions", () => {
    const dir = tempDir();
    // an empty folder: every file of the preset, and kiln.toml, would be added
    const empty = kiln(["diff", "k8s-web-app", "--exit-code", "--json"], dir);
    assert.equal(empty.status, 1, empty.stderr);
    const added = JSON.parse(empty.stdout) as {
      differs: boolean;
      files: { path: string; action: string; component?: string; name?: string }[];
      notInPreset: string[];
    };
    assert.equal(added.differs, true);
    assert.ok(added.files.every((file) => file.action === "added"));
    assert.ok(
      added.files.some((file) => file.path === "kiln.toml" && file.component === undefined),
    );
    assert.ok(
      added.files.some(
        (file) =>
          file.path === "k8s/frontend-deployment.yaml" &&
          file.component === "k8s/deployment" &&
          file.name === "frontend",
      ),
    );
    assert.deepEqual(tree(dir), {}, "diff writes nothing");
    // set up from it: no difference, exit 0, nothing printed
    assert.equal(kiln(["setup", "k8s-web-app"], dir).status, 0);
    const same = kiln(["diff", "k8s-web-app", "--exit-code"], dir);
    assert.equal(same.status, 0, same.stderr);
    assert.equal(same.stdout, "");
    // a hand edit is a difference; a file of the user's own is listed and is none
    const path = join(dir, "k8s/frontend-deployment.yaml");
    write(
      dir,
      "k8s/frontend-deployment.yaml",
      `${tree(dir)["k8s/frontend-deployment.yaml"]}# mine\n`,
    );
    write(dir, "k8s/notes.txt", "my notes\n");
    const before = treeHash(dir);
    const edited = kiln(["diff", "k8s-web-app", "--exit-code"], dir);
    assert.equal(edited.status, 1, edited.stderr);
    assert.match(
      edited.stdout,
      /^--- a\/k8s\/frontend-deployment\.yaml\n\+\+\+ b\/k8s\/frontend-deployment\.yaml\n@@ [^\n]+ @@\n(?: [^\n]*\n)+-# mine\n# k8s\/notes\.txt: not written by the preset \(left as it is\)\n$/,
    );
    assert.equal(treeHash(dir), before, "diff writes nothing");
    unlinkSync(path);
    assert.equal(
      kiln(["diff", "k8s-web-app", "--exit-code"], dir).status,
      1,
      "a missing file differs",
    );
  });

  it("<preset>: a recorded component's name wins; --preset reads the argument as a preset", () => {
    const dir = tempDir();
    assert.equal(kiln(["setup", "single-server"], dir).status, 0);
    // a component named like a built-in template is the component
    const named = kiln(
      ["add", "k8s/deployment", "--name", "k8s-web-app", "--image", "nginx:1.27"],
      dir,
    );
    assert.equal(named.status, 0, named.stderr);
    const asName = kiln(["diff", "k8s-web-app", "--exit-code"], dir);
    assert.equal(asName.status, 0, asName.stderr);
    const asPreset = kiln(["diff", "k8s-web-app", "--preset", "--exit-code", "--json"], dir);
    assert.equal(asPreset.status, 1, asPreset.stderr);
    assert.ok(
      (JSON.parse(asPreset.stdout) as { files: { path: string }[] }).files.some(
        (file) => file.path === "k8s/frontend-deployment.yaml",
      ),
    );
    const two = kiln(["diff", "a", "b", "--preset"], dir);
    assert.equal(two.status, 2);
    assert.match(two.stderr, /--preset takes exactly one preset/);
  });
});

describe("kiln update", () => {
  it("a URL item v1 then v2: an edited file merges cleanly, exact bytes, lock moves on", async () => {
    served = TEMPLATE_V1;
    const dir = project();
    const add = await kilnAsync(
      ["add", `${base}/cache.json`, "--name", "c", "--image", "redis:7"],
      dir,
    );
    assert.equal(add.status, 0, add.stderr);
    const v1 = tree(dir)["k8s/c-cache.yaml"] as string;
    assert.equal(v1, "kind: Cache\nname: c\nsize: small\nimage: redis:7\nend: true\n");
    write(dir, "k8s/c-cache.yaml", `${v1}# mine\n`);
    const fingerprint = lockOf(dir).components[0]?.fingerprint;

    served = TEMPLATE_V2;
    const status = await kilnAsync(["status"], dir);
    assert.match(status.stdout, /^ {2}modified {3}k8s\/c-cache\.yaml {2}\(changed upstream\)$/m);
    const run = await kilnAsync(["update"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      "merged    k8s/c-cache.yaml\nupdated 1 component: 1 merged - kiln.lock records the new state\n",
    );
    const merged = "kind: Cache\nname: c\nsize: large\nimage: redis:7\nend: true\n# mine\n";
    assert.equal(tree(dir)["k8s/c-cache.yaml"], merged);
    const [entry] = lockOf(dir).components;
    assert.notEqual(entry?.fingerprint, fingerprint);
    // the new base is the new render, not the merged file
    assert.equal(baseOf(entry?.files[0]?.base as string), merged.replace("# mine\n", ""));
    // nothing more to do
    const again = await kilnAsync(["diff", "--exit-code"], dir);
    assert.equal(again.status, 0, again.stdout);
  });

  it("an untouched file is replaced; `update api --image` keeps the other recorded values", () => {
    const dir = project();
    const add = kiln(
      [
        "add",
        "k8s/deployment",
        "--name",
        "api",
        "--replicas",
        "2",
        "--port",
        "8080",
        "--label",
        "tier=backend",
        "--image",
        "acme/api:1.4",
      ],
      dir,
    );
    assert.equal(add.status, 0, add.stderr);
    const original = tree(dir)["k8s/api-deployment.yaml"] as string;
    write(
      dir,
      "k8s/api-deployment.yaml",
      original.replace("spec:\n  replicas", "spec:\n  # keep me\n  replicas"),
    );
    const run = kiln(["update", "api", "--image", "acme/api:1.5"], dir);
    assert.equal(run.status, 0, run.stderr);
    const updated = tree(dir)["k8s/api-deployment.yaml"] as string;
    assert.equal(
      updated,
      original
        .replace("acme/api:1.4", "acme/api:1.5")
        .replace("spec:\n  replicas", "spec:\n  # keep me\n  replicas"),
    );
    assert.match(updated, /replicas: 2\n/);
    assert.match(updated, /containerPort: 8080\n/);
    assert.match(updated, /tier: backend\n/);
    assert.deepEqual(lockOf(dir).components[0]?.fields, {
      image: "acme/api:1.5",
      port: "8080",
      replicas: "2",
    });
    // --set and friends need a name
    const unnamed = kiln(["update", "--image", "x"], dir);
    assert.equal(unnamed.status, 2);
  });

  it("overlapping edits conflict: nothing is written, each conflict listed", () => {
    const dir = fileItemProject(NOTE_V1);
    write(dir, "k8s/notes/n.md", "# T\nline a\nline b (mine)\nline c\nline d\n");
    changeItem(dir, NOTE_V1.replace("line b", "line b (new)"));
    const before = treeHash(dir);
    const run = kiln(["update"], dir);
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    assert.equal(
      run.stderr,
      "error: 1 conflict in 1 file - nothing was written\n" +
        "  k8s/notes/n.md: yours line 3, new line 3\n" +
        "      yours | line b (mine)\n" +
        "      new   | line b (new)\n" +
        "  run again with --conflicts=markers to write conflict markers, or --ours / --theirs to take one side; `kiln diff` shows the whole change\n",
    );
    assert.equal(treeHash(dir), before);
  });

  it("--conflicts=markers writes git-style markers, records the file as conflicted and exits 1", () => {
    const dir = fileItemProject(NOTE_V1);
    write(dir, "k8s/notes/n.md", "# T\nline a\nline b (mine)\nline c\nline d\n");
    changeItem(dir, NOTE_V1.replace("line b", "line b (new)"));
    const run = kiln(["update", "--conflicts=markers"], dir);
    // like git merge: the files are written, and the run says there is work left
    assert.equal(run.status, 1);
    assert.equal(
      run.stdout,
      "conflict  k8s/notes/n.md  (1 conflict: markers written - resolve them)\nupdated 1 component: 1 conflict - kiln.lock records the new state\n",
    );
    assert.equal(
      run.stderr,
      "error: 1 conflict in 1 file written with markers - resolve them\n" +
        "  k8s/notes/n.md\n" +
        "  keep what you want between `<<<<<<< yours` and `>>>>>>> kiln update` and delete the marker lines; `kiln status` lists the files as conflicted until then\n",
    );
    assert.equal(
      tree(dir)["k8s/notes/n.md"],
      "# T\nline a\n<<<<<<< yours\nline b (mine)\n=======\nline b (new)\n>>>>>>> kiln update\nline c\nline d\n",
    );
    assert.equal(lockOf(dir).components[0]?.files[0]?.conflicted, true);
    assert.match(kiln(["status"], dir).stdout, /^ {2}conflicted k8s\/notes\/n\.md$/m);
    // the next update refuses until the markers are gone
    const blocked = kiln(["update"], dir);
    assert.equal(blocked.status, 1);
    assert.match(blocked.stderr, /still has the conflict markers of the last update/);
    // resolved by hand: the next update records it, no longer conflicted
    write(dir, "k8s/notes/n.md", "# T\nline a\nline b (both)\nline c\nline d\n");
    assert.equal(kiln(["update"], dir).status, 0);
    assert.equal(lockOf(dir).components[0]?.files[0]?.conflicted, undefined);
    assert.equal(tree(dir)["k8s/notes/n.md"], "# T\nline a\nline b (both)\nline c\nline d\n");
  });

  it("--ours and --theirs take one side in each conflicting region, the rest merged, and print what they dropped", () => {
    for (const [option, line, dropped] of [
      ["--ours", "line b (mine)", "    dropped the new render's line 3:\n      | line b (new)\n"],
      ["--theirs", "line b (new)", "    dropped your line 3:\n      | line b (mine)\n"],
    ] as const) {
      const dir = fileItemProject(NOTE_V1);
      write(dir, "k8s/notes/n.md", "# T\nline a\nline b (mine)\nline c\nline d\nmine too\n");
      changeItem(
        dir,
        NOTE_V1.replace("line b", "line b (new)").replace("# {{ title }}", "# {{ title }}!"),
      );
      const run = kiln(["update", option], dir);
      assert.equal(run.status, 0, run.stderr);
      // every hunk of the side not taken is named, with its lines
      assert.equal(
        run.stdout,
        `conflict  k8s/notes/n.md  (1 conflict settled with ${option === "--ours" ? "your" : "the new"} lines)\n${dropped}updated 1 component: 1 conflict - kiln.lock records the new state\n`,
      );
      assert.equal(
        tree(dir)["k8s/notes/n.md"],
        `# T!\nline a\n${line}\nline c\nline d\nmine too\n`,
      );
      assert.equal(lockOf(dir).components[0]?.files[0]?.conflicted, undefined);
    }
    const dir = fileItemProject(NOTE_V1);
    const both = kiln(["update", "--ours", "--theirs"], dir);
    assert.equal(both.status, 2);
  });

  it("a changed field value is merged into an edited file; a path move keeps the edits", () => {
    const dir = fileItemProject(NOTE_V1, "{{ title }}/{{ name }}.md");
    assert.ok(tree(dir)["k8s/T/n.md"]);
    write(dir, "k8s/T/n.md", "# T\nline a\nline b\nline c\nline d\nmy line\n");
    const run = kiln(["update", "n", "--set", "title=Moved"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^merged {4}k8s\/T\/n\.md -> k8s\/Moved\/n\.md$/m);
    const files = tree(dir);
    assert.equal(files["k8s/T/n.md"], undefined);
    assert.equal(files["k8s/Moved/n.md"], "# Moved\nline a\nline b\nline c\nline d\nmy line\n");
    const [entry] = lockOf(dir).components;
    assert.deepEqual(entry?.fields, { title: "Moved" });
    assert.deepEqual(
      entry?.files.map((f) => f.path),
      ["k8s/Moved/n.md"],
    );
  });

  it("--name renames one component: its files move with the edits, the lock follows; a taken name or --set name is refused", () => {
    const dir = project();
    const add = (args: string[]) => assert.equal(kiln(["add", ...args], dir).status, 0);
    add(["k8s/deployment", "--name", "api", "--image", "nginx:1.27", "--replicas", "2"]);
    add(["k8s/service", "--name", "api"]);
    add(["k8s/deployment", "--name", "other", "--image", "nginx:1.27"]);
    write(dir, "k8s/api-deployment.yaml", `${tree(dir)["k8s/api-deployment.yaml"]}# mine\n`);
    const asField = kiln(["update", "api", "--set", "name=web"], dir);
    assert.equal(asField.status, 2);
    assert.match(
      asField.stderr,
      /name is the component's name, not a field: rename it with --name/,
    );
    const taken = kiln(["update", "deployment/api", "--name", "other"], dir);
    assert.equal(taken.status, 1);
    assert.match(taken.stderr, /kiln\.lock already has a k8s\/deployment named `other`/);
    const before = tree(dir);
    const renamed = kiln(["update", "deployment/api", "--name", "web"], dir);
    assert.equal(renamed.status, 0, renamed.stderr);
    assert.match(renamed.stdout, /k8s\/api-deployment\.yaml -> k8s\/web-deployment\.yaml/);
    const service = kiln(["update", "service/api", "--name", "web"], dir);
    assert.equal(service.status, 0, service.stderr);
    const after = tree(dir);
    assert.equal(after["k8s/api-deployment.yaml"], undefined);
    assert.equal(after["k8s/api-service.yaml"], undefined);
    assert.equal(
      after["k8s/web-deployment.yaml"],
      (before["k8s/api-deployment.yaml"] as string).replace(/\bapi\b/g, "web"),
      "the new name rendered, the replicas kept and the hand edit carried along",
    );
    assert.match(after["k8s/web-deployment.yaml"] as string, /replicas: 2\n[\s\S]*# mine\n$/);
    const lock = JSON.parse(after["kiln.lock"] as string) as {
      components: { name: string; component: string; files: { path: string }[] }[];
    };
    assert.deepEqual(
      lock.components.map((entry) => [entry.name, entry.component, entry.files[0]?.path]),
      [
        ["other", "k8s/deployment", "k8s/other-deployment.yaml"],
        ["web", "k8s/deployment", "k8s/web-deployment.yaml"],
        ["web", "k8s/service", "k8s/web-service.yaml"],
      ],
    );
    assert.equal(kiln(["diff", "--exit-code"], dir).status, 0, "nothing left to update");
  });

  it("a failure mid-update leaves every file and the lock as they were", (t) => {
    const dir = project();
    changeItem(dir, "a {{ title }}\n", "a/{{ name }}.md");
    assert.equal(kiln(["add", "items/note.json", "--name", "one"], dir).status, 0);
    writeJson(dir, "items/other.json", {
      name: "other",
      category: "test",
      fields: [{ name: "title", default: "T" }],
      files: [{ path: "b/{{ name }}.md", template: "b {{ title }}\n" }],
    });
    assert.equal(kiln(["add", "items/other.json", "--name", "two"], dir).status, 0);
    changeItem(dir, "a2 {{ title }}\n", "a/{{ name }}.md");
    writeJson(dir, "items/other.json", {
      name: "other",
      category: "test",
      fields: [{ name: "title", default: "T" }],
      files: [{ path: "b/{{ name }}.md", template: "b2 {{ title }}\n" }],
    });
    const before = treeHash(dir);
    if (!lockFolder(join(dir, "k8s", "b"))) {
      t.skip("cannot make a folder refuse writes here");
      return;
    }
    const run = kiln(["update"], dir);
    unlockFolder(join(dir, "k8s", "b"));
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^error: could not write `k8s\/b\/two\.md`/);
    assert.equal(treeHash(dir), before);
    // and once the folder takes writes again, the same update goes through
    assert.equal(kiln(["update"], dir).status, 0);
    assert.equal(tree(dir)["k8s/a/one.md"], "a2 T\n");
    assert.equal(tree(dir)["k8s/b/two.md"], "b2 T\n");
  });
});

describe("kiln remove", () => {
  it("deletes the component's files and its lock entry; an edited file needs --force", () => {
    const dir = project();
    assert.equal(kiln(["add", "k8s/deployment", "--name", "api", "--image", "x"], dir).status, 0);
    assert.equal(kiln(["add", "k8s/service", "--name", "api"], dir).status, 0);
    assert.equal(kiln(["add", "k8s/service", "--name", "web"], dir).status, 0);
    write(dir, "k8s/api-service.yaml", "edited\n");
    const before = treeHash(dir);
    const refused = kiln(["remove", "api"], dir);
    assert.equal(refused.status, 1);
    assert.equal(
      refused.stderr,
      "error: k8s/api-service.yaml was edited since kiln wrote it - pass --force to remove it anyway\n  `git diff` shows the edits (`kiln diff` shows what an update would change); nothing was removed\n",
    );
    assert.equal(treeHash(dir), before);
    const run = kiln(["remove", "api", "--force"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      "removed   k8s/api-deployment.yaml\nremoved   k8s/api-service.yaml\nremoved api: 2 files - kiln.lock no longer records its 2 components\n",
    );
    const files = tree(dir);
    assert.equal(files["k8s/api-deployment.yaml"], undefined);
    assert.equal(files["k8s/api-service.yaml"], undefined);
    assert.ok(files["k8s/web-service.yaml"]);
    assert.deepEqual(
      lockOf(dir).components.map((c) => c.name),
      ["web"],
    );
    const unknown = kiln(["remove", "api"], dir);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /^error: no component named `api` in kiln\.lock\n/);
  });
});

describe("kiln check without a preset", () => {
  it("checks the project's recorded components, as kiln check <preset> checks a preset", () => {
    const dir = tempDir();
    assert.equal(kiln(["setup", "multi-tier-platform"], dir).status, 0);
    const ofPreset = kiln(["check", "multi-tier-platform", "--json"], dir);
    const ofProject = kiln(["check", "--json"], dir);
    assert.equal(ofProject.status, ofPreset.status, ofProject.stderr);
    // the project's answer adds what it read from disk: every file, none edited, all read
    const { files, edited, unread, ...findings } = JSON.parse(ofProject.stdout);
    assert.deepEqual(findings, JSON.parse(ofPreset.stdout));
    assert.deepEqual({ files, edited, unread }, { files: 77, edited: [], unread: [] });
    const text = kiln(["check"], dir);
    assert.match(text.stdout, /^checked the project \(kiln\.lock\): 35 components, /m);
    const none = kiln(["check"], project());
    assert.equal(none.status, 1);
    assert.match(none.stderr, /^error: no kiln\.lock found/);
    assert.equal(kiln(["check", "a", "b"], dir).status, 2);
  });
});

describe("kiln preset export", () => {
  it("writes the project back as a preset whose setup gives the same files and lock", () => {
    const dir = tempDir();
    assert.equal(kiln(["setup", "k8s-web-app"], dir).status, 0);
    assert.equal(
      kiln(["add", "k8s/service", "--name", "extra", "--namespace", "ops"], dir).status,
      0,
    );
    const exported = kiln(["preset", "export"], dir);
    assert.equal(exported.status, 0, exported.stderr);
    const manifest = JSON.parse(exported.stdout) as {
      project: Record<string, string>;
      components: { name: string; fields: Record<string, string> }[];
    };
    assert.deepEqual(manifest.project, { name: "web-app", namespace: "web", outputDir: "k8s" });
    assert.equal(manifest.components.length, 8);
    const written = kiln(["preset", "export", "--output", "shop.preset.json"], dir);
    assert.equal(written.status, 0, written.stderr);
    assert.equal(written.stdout, "created   shop.preset.json\n");
    assert.equal(tree(dir)["shop.preset.json"], exported.stdout);
    assert.equal(kiln(["preset", "export", "--output", "kiln.toml"], dir).status, 1);

    const other = tempDir();
    write(other, "shop.preset.json", exported.stdout);
    assert.equal(kiln(["setup", "./shop.preset.json"], other).status, 0);
    const source = tree(dir);
    const copy = tree(other);
    for (const path of Object.keys(source).filter((p) => p.startsWith("k8s/"))) {
      assert.equal(copy[path], source[path], path);
    }
    assert.equal(copy["kiln.toml"], source["kiln.toml"]);
    assert.equal(copy["kiln.lock"], source["kiln.lock"]);
    assert.equal(kiln(["preset", "import"], dir).status, 2);
  });
});

describe("a run killed part-way (SIGKILL)", () => {
  it("the next kiln command that writes rolls back the update before doing anything else", () => {
    const dir = project();
    changeItem(dir, "a {{ title }}\nx\ny\nz\n", "a/{{ name }}.md");
    assert.equal(kiln(["add", "items/note.json", "--name", "one"], dir).status, 0);
    assert.equal(kiln(["add", "items/note.json", "--name", "two"], dir).status, 0);
    write(dir, "k8s/a/two.md", "a T\nx\ny\nz\nmine\n");
    changeItem(dir, "a2 {{ title }}\nx\ny\nz\n", "a/{{ name }}.md");
    const before = treeHash(dir);
    // killed after its first file: one file new, the other old, the lock old
    const killed = kiln(["update"], dir, { KILN_TEST_CRASH_AFTER_WRITES: "1" });
    assert.equal(killed.status, null);
    assert.notEqual(treeHash(dir), before);
    assert.ok(tree(dir)[".kiln-journal.json"]);
    // a command that only reads says so, and replays nothing
    const killedTree = treeHash(dir);
    const status = kiln(["status"], dir);
    assert.match(
      status.stderr,
      /^note: a kiln run in this folder was interrupted part-way \(\.kiln-journal\.json is here\) - its files may be half-written until a command that writes \(kiln add, apply, init, remove, setup or update\) rolls it back\n/,
    );
    assert.equal(treeHash(dir), killedTree);
    // a command that writes rolls it back first, before it plans (here: then fails)
    const next = kiln(["update", "nosuch"], dir);
    assert.equal(next.status, 1, next.stderr);
    assert.match(
      next.stderr,
      /^note: a kiln run in this folder was interrupted part-way - rolled back the 3 files it was changing \(\.kiln-journal\.json removed\)\nerror: no component named `nosuch`/,
    );
    assert.equal(treeHash(dir), before);
    // and the update then goes through
    assert.equal(kiln(["update"], dir).status, 0);
    assert.equal(tree(dir)["k8s/a/one.md"], "a2 T\nx\ny\nz\n");
    assert.equal(tree(dir)["k8s/a/two.md"], "a2 T\nx\ny\nz\nmine\n");
  });

  it("a killed setup leaves no file, folder or lock behind once the next command ran", () => {
    const dir = tempDir();
    write(dir, "keep.txt", "keep\n");
    const before = treeHash(dir);
    const killed = kiln(["setup", "k8s-web-app"], dir, { KILN_TEST_CRASH_AFTER_WRITES: "3" });
    assert.equal(killed.status, null);
    const killedTree = treeHash(dir);
    assert.equal(kiln(["presets"], dir).status, 0);
    assert.equal(treeHash(dir), killedTree, "a command that only reads replays nothing");
    assert.equal(kiln(["setup", "k8s-web-app", "--dry-run"], dir).status, 0);
    assert.equal(treeHash(dir), before);
  });
});
