// kiln's own files are strangers' input too (issue 19): the three-way merge, the unified diff
// and kiln.lock's bases, from the real binary in temporary projects. Files that made `kiln
// update` and `kiln diff` run for minutes (repeated lines, a file all changed, a DEFLATE bomb
// in the lock) must end with a merge or a clear error naming the file and the bound; and lines
// of an item that look like kiln's conflict markers must not keep a resolved file conflicted.
// Every run is killed after RUN_TIMEOUT_MS - a fail-safe, so a run without end fails instead of
// hanging the suite; nothing here asserts a duration or a memory figure.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import {
  BIN,
  cleanEnv,
  cleanUp,
  ensureBuilt,
  project,
  type Run,
  write,
  writeJson,
} from "./helpers.ts";

/** Far above what any case takes with the bounds (well under a second of merging each). */
const RUN_TIMEOUT_MS = 60_000;

before(() => ensureBuilt());
after(cleanUp);

/** Runs the binary, killed after RUN_TIMEOUT_MS (then status is null). */
function kiln(args: string[], cwd: string): Run {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: cleanEnv(),
    encoding: "utf8",
    timeout: RUN_TIMEOUT_MS,
    killSignal: "SIGKILL",
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

function succeeds(run: Run): void {
  assert.equal(run.status, 0, `expected exit 0 in bounded time, got ${run.status}: ${run.stderr}`);
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const read = (dir: string, path: string) => readFileSync(join(dir, path), "utf8");

interface LockJson {
  components: {
    name: string;
    files: {
      path: string;
      sha256: string;
      base: string;
      conflicted?: true;
      ownMarkerPairs?: number;
    }[];
  }[];
}
const lockOf = (dir: string) => JSON.parse(read(dir, "kiln.lock")) as LockJson;
const baseOf = (encoded: string) => inflateRawSync(Buffer.from(encoded, "base64")).toString("utf8");

/** The file item `items/note.json` with one template; vendored as `k8s/notes/n.md`. */
function noteItem(dir: string, template: string): void {
  writeJson(dir, "items/note.json", {
    name: "note",
    category: "test",
    files: [{ path: "notes/{{ name }}.md", template }],
  });
}

const NOTE = "k8s/notes/n.md";

/** A project with the note item vendored as `n` from `template`. */
function vendored(template: string): string {
  const dir = project();
  noteItem(dir, template);
  succeeds(kiln(["add", "items/note.json", "--name", "n"], dir));
  assert.equal(read(dir, NOTE), template);
  return dir;
}

describe("merging files of repeated lines", () => {
  it("4,000 identical lines, a line added on disk and one upstream: merged", () => {
    const lines = "-\n".repeat(4000);
    const dir = vendored(lines);
    write(dir, NOTE, `mine\n${lines}`);
    noteItem(dir, `${lines}new\n`);
    const run = kiln(["update"], dir);
    succeeds(run);
    assert.match(run.stdout, /^merged {4}k8s\/notes\/n\.md$/m);
    assert.equal(read(dir, NOTE), `mine\n${lines}new\n`);
  });

  it("6,000 `-` lines through add, a hand edit and a new item version: `kiln diff` shows the merge", () => {
    const lines = "-\n".repeat(6000);
    const dir = vendored(lines);
    write(dir, NOTE, `# mine\n${lines}`);
    noteItem(dir, `${lines}# new\n`);
    const run = kiln(["diff", "--exit-code"], dir);
    assert.equal(run.status, 1, `expected exit 1 (it differs) in bounded time: ${run.stderr}`);
    assert.equal(
      run.stdout,
      `--- a/${NOTE}\n+++ b/${NOTE}\n@@ -5998,4 +5998,5 @@\n -\n -\n -\n -\n+# new\n`,
    );
  });
});

describe("files too different to merge or to show line by line", () => {
  const numbered = (word: string, count: number) =>
    Array.from({ length: count }, (_, index) => `${word} ${index}\n`).join("");

  it("20,000 lines all changed upstream: `kiln diff` says so in one line, exit 1; update replaces it", () => {
    const before = numbered("a", 20_000);
    const after = numbered("b", 20_000);
    const dir = vendored(before);
    noteItem(dir, after);
    const run = kiln(["diff", "--exit-code"], dir);
    assert.equal(run.status, 1, `expected exit 1 in bounded time: ${run.stderr}`);
    const bytes = (text: string) => Buffer.byteLength(text);
    assert.equal(
      run.stdout,
      `# ${NOTE} changed too much to show line by line (20000 lines, ${bytes(before)} bytes on disk; 20000 lines, ${bytes(after)} bytes after)\n`,
    );
    const json = JSON.parse(kiln(["diff", "--json"], dir).stdout) as {
      differs: boolean;
      files: { path: string; action: string; patch: string; note?: string }[];
    };
    assert.equal(json.differs, true);
    assert.deepEqual(
      json.files.map((file) => [file.path, file.action, file.patch, file.note?.split(" (")[0]]),
      [[NOTE, "replaced", "", `${NOTE} changed too much to show line by line`]],
    );
    succeeds(kiln(["update"], dir));
    assert.equal(read(dir, NOTE), numbered("b", 20_000));
  });

  it("edits past the merge's bound: the issue's error, nothing written; --ours and --theirs take a side", () => {
    const base = numbered("line", 1200);
    const dir = vendored(base);
    const mine = base.replace(/line/g, "LINE");
    const upstream = base.replace("line 7\n", "line seven\n");
    write(dir, NOTE, mine);
    noteItem(dir, upstream);
    const lockBefore = read(dir, "kiln.lock");

    const stopped = kiln(["update"], dir);
    assert.equal(stopped.status, 1, stopped.stderr);
    assert.match(
      stopped.stderr,
      /^error: k8s\/notes\/n\.md is too different to merge automatically - use --ours\/--theirs or resolve by hand\n {2}nothing was written: .*--ours keeps your file whole, --theirs takes the new render whole\n$/,
    );
    assert.equal(read(dir, NOTE), mine);
    assert.equal(read(dir, "kiln.lock"), lockBefore);
    assert.equal(kiln(["update", "--conflicts=markers"], dir).status, 1);

    const diff = kiln(["diff", "--exit-code"], dir);
    assert.equal(diff.status, 1);
    assert.equal(
      diff.stdout,
      `# ${NOTE} is too different to merge automatically - use --ours/--theirs or resolve by hand\n`,
    );

    const ours = kiln(["update", "--ours"], dir);
    succeeds(ours);
    assert.match(
      ours.stdout,
      /^conflict {2}k8s\/notes\/n\.md {2}\(too different to merge: your file kept whole\)$/m,
    );
    assert.equal(read(dir, NOTE), mine);
    assert.equal(baseOf(lockOf(dir).components[0]?.files[0]?.base as string), upstream);

    // once more, from the same start, the other side
    write(dir, "kiln.lock", lockBefore);
    const theirs = kiln(["update", "--theirs"], dir);
    succeeds(theirs);
    assert.match(theirs.stdout, /\(too different to merge: the new render taken whole\)$/m);
    assert.equal(read(dir, NOTE), upstream);
  });
  it("several files past the bound: each listed in one error, nothing written", () => {
    const dir = project();
    const base = numbered("line", 1200);
    const item = (template: string) =>
      writeJson(dir, "items/pair.json", {
        name: "pair",
        category: "test",
        files: [
          { path: "pair/{{ name }}-a.md", template },
          { path: "pair/{{ name }}-b.md", template },
        ],
      });
    item(base);
    succeeds(kiln(["add", "items/pair.json", "--name", "p"], dir));
    const mine = base.replace(/line/g, "LINE");
    write(dir, "k8s/pair/p-a.md", mine);
    write(dir, "k8s/pair/p-b.md", mine);
    item(base.replace("line 7\n", "line seven\n"));
    const run = kiln(["update"], dir);
    assert.equal(run.status, 1, run.stderr);
    const lines = run.stderr.split("\n");
    assert.equal(
      lines[0],
      "error: 2 files cannot be merged automatically - use --ours/--theirs or resolve by hand",
    );
    for (const path of ["k8s/pair/p-a.md", "k8s/pair/p-b.md"]) {
      assert.ok(
        lines.includes(
          `  ${path} is too different to merge automatically - use --ours/--theirs or resolve by hand`,
        ),
        run.stderr,
      );
    }
    assert.match(
      lines.at(-2) as string,
      /^ {2}nothing was written - --ours keeps each of these files/,
    );
    assert.equal(read(dir, "k8s/pair/p-a.md"), mine);
  });
});

describe("kiln.lock's bases from elsewhere", () => {
  /** A project with `web` (k8s/service) vendored and edited on disk, so an update merges it. */
  function editedService(): { dir: string; path: string; edited: string } {
    const dir = project();
    succeeds(kiln(["add", "k8s/service", "--name", "web"], dir));
    const path = "k8s/web-service.yaml";
    const edited = `${read(dir, path)}# mine\n`;
    write(dir, path, edited);
    return { dir, path, edited };
  }

  /** kiln.lock with the one file's base and hash replaced. */
  function tamper(dir: string, base: string, hash: string): void {
    const lock = lockOf(dir);
    const file = lock.components[0]?.files[0];
    assert.ok(file);
    file.base = base;
    file.sha256 = hash;
    write(dir, "kiln.lock", `${JSON.stringify(lock, null, 2)}\n`);
  }

  it("a base that inflates past 64 MiB (a DEFLATE bomb of a few kilobytes): refused, naming the cap", () => {
    const { dir, path, edited } = editedService();
    // 80 MiB of one line, its true hash: only the inflate cap stops it
    const bomb = "a\n".repeat(40 * 1024 * 1024);
    const compressed = deflateRawSync(Buffer.from(bomb), { level: 9 }).toString("base64");
    assert.ok(compressed.length < 200 * 1024, "the lock stays small");
    tamper(dir, compressed, sha256(bomb));
    const refusal = `kiln.lock: the recorded content of \`${path}\` (component \`web\`) inflates to more than 64 MiB, kiln's limit for one file - fix it (it is in git: \`git checkout kiln.lock\`) or remove it`;

    const diff = kiln(["diff", "--exit-code"], dir);
    assert.equal(diff.status, 1, `expected exit 1 in bounded time: ${diff.stderr}`);
    assert.equal(diff.stdout, `# ${refusal}\n`);

    const update = kiln(["update"], dir);
    assert.equal(update.status, 1, update.stderr);
    assert.equal(
      update.stderr,
      `error: ${refusal}\n  or take one side for that file - \`kiln update web --theirs\` writes the new render, \`--ours\` keeps yours - and the lock records a new base for it\n`,
    );
    assert.equal(read(dir, path), edited);

    // the way out it names: --theirs needs no base, and records a new one
    succeeds(kiln(["update", "web", "--theirs"], dir));
    const file = lockOf(dir).components[0]?.files[0];
    assert.equal(baseOf(file?.base as string), read(dir, path));
    assert.equal(file?.sha256, sha256(read(dir, path)));
    assert.doesNotMatch(read(dir, path), /# mine/);
  });

  it("a base that does not match its hash: refused, naming the file and component; --ours rebuilds it", () => {
    const dir = vendored("a: 1\nb: 2\n");
    const edited = "a: 1\nb: 2\nmine: 3\n";
    write(dir, NOTE, edited);
    noteItem(dir, "a: 10\nb: 2\n");
    const hash = lockOf(dir).components[0]?.files[0]?.sha256 as string;
    tamper(
      dir,
      deflateRawSync(Buffer.from("a: 1\nb: 2\nplanted: true\n")).toString("base64"),
      hash,
    );
    const update = kiln(["update"], dir);
    assert.equal(update.status, 1, update.stderr);
    assert.match(
      update.stderr,
      /^error: kiln\.lock: the recorded content of `k8s\/notes\/n\.md` \(component `n`\) does not match its hash - /,
    );
    assert.equal(read(dir, NOTE), edited);
    succeeds(kiln(["update", "n", "--ours"], dir));
    assert.equal(read(dir, NOTE), edited);
    const file = lockOf(dir).components[0]?.files[0];
    assert.equal(baseOf(file?.base as string), "a: 10\nb: 2\n");
    assert.equal(sha256(baseOf(file?.base as string)), file?.sha256);
  });
});

describe("an item's lines that look like kiln's conflict markers", () => {
  const template = [
    "# notes",
    "<<<<<<< yours",
    "an example of a conflict, in the item itself",
    "=======",
    "the other side of it",
    ">>>>>>> kiln update",
    "setting: 1",
    "",
  ].join("\n");

  it("a conflict resolved by hand is `modified`, not `conflicted` forever; the next update goes on", () => {
    const dir = vendored(template);
    const mine = template.replace("setting: 1", "setting: mine");
    write(dir, NOTE, mine);
    noteItem(dir, template.replace("setting: 1", "setting: 2"));
    // markers written: exit 1, as git merge does, with the files to resolve
    const marked = kiln(["update", "--conflicts=markers"], dir);
    assert.equal(marked.status, 1, marked.stderr);
    assert.match(
      marked.stderr,
      /^error: 1 conflict in 1 file written with markers - resolve them\n/,
    );
    const written = read(dir, NOTE);
    assert.match(
      written,
      /<<<<<<< yours\nsetting: mine\n=======\nsetting: 2\n>>>>>>> kiln update\n$/,
    );
    const file = lockOf(dir).components[0]?.files[0];
    assert.equal(file?.conflicted, true);
    assert.equal(file?.ownMarkerPairs, 1, "the item's own pair is recorded");
    assert.match(kiln(["status"], dir).stdout, /^ {2}conflicted {1}k8s\/notes\/n\.md$/m);
    assert.equal(kiln(["update"], dir).status, 1, "unresolved markers still stop the update");

    // resolved: kiln's markers gone, the item's lookalikes kept
    write(dir, NOTE, mine);
    assert.match(kiln(["status"], dir).stdout, /^ {2}modified {3}k8s\/notes\/n\.md$/m);
    const next = kiln(["update"], dir);
    succeeds(next);
    assert.equal(read(dir, NOTE), mine);
    assert.equal(lockOf(dir).components[0]?.files[0]?.conflicted, undefined);
  });
});
