// What the lifecycle commands (status, diff, update, remove, check) read and fetch when kiln.lock,
// an item's next version or the tree is a stranger's: every path they read passes the rules of
// a write first (never outside the project, through a link that leads out, in `.git`, a device
// or FIFO, a file over 64 MiB) and is reported as `refused`, never read or hashed; the URLs of
// one run are fetched each once, within one bound for the whole run. Every run is the real
// binary, killed after RUN_TIMEOUT_MS, so a hang fails instead of holding the suite.
// own process: a test waits out the real 30 s URL deadline of a run; in a process shared with
// other test files (scripts/run-tests.mjs) they would wait with it.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { deflateRawSync } from "node:zlib";
import {
  BIN,
  blockedFifoWriter,
  cleanEnv,
  cleanUp,
  ensureBuilt,
  FIFO_PROBE_SKIP,
  type Run,
  tempDir,
  tree,
  write,
  writeJson,
} from "./helpers.ts";

/** Far above what any run here needs (the URL deadline is 30 s); a hang fails at this. */
const RUN_TIMEOUT_MS = 90_000;
/** A value in the environment of every run: /proc/self/environ starts with it. */
const SECRET = "kiln-env-canary-5b2e";
/** What the files outside the project hold: neither may ever be printed. */
const OUTSIDE_TEXT = "outside-secret-text-91c4\n";
/** The cap on a file kiln reads back from the tree (MAX_VENDORED_FILE_BYTES). */
const CAP = 64 * 1024 * 1024;

before(() => ensureBuilt());
after(cleanUp);

function childEnv(): NodeJS.ProcessEnv {
  return { KILN_TEST_SECRET: SECRET, ...cleanEnv() };
}

function kiln(args: string[], cwd: string): Run {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: childEnv(),
    encoding: "utf8",
    timeout: RUN_TIMEOUT_MS,
    killSignal: "SIGKILL",
    maxBuffer: 16 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

/** `kiln` without blocking this process, so a server of the test can answer it. */
function kilnAsync(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: childEnv() });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Nothing kiln printed holds a byte of a file outside the project or of its environment. */
function leaksNothing(run: Run, also: readonly string[] = []): void {
  const printed = `${run.stdout}${run.stderr}`;
  for (const secret of [SECRET, "KILN_TEST_SECRET", OUTSIDE_TEXT.trim(), ...also]) {
    assert.ok(!printed.includes(secret), `the output holds ${secret}:\n${printed}`);
  }
}

/** Nothing leaked, exit 1 after the report, the refusal error naming each path. */
function refuses(run: Run, paths: readonly string[], also: readonly string[] = []): void {
  leaksNothing(run, also);
  assert.equal(run.status, 1, `expected exit 1, got ${run.status}: ${run.stderr}`);
  assert.match(run.stderr, /^error: \d+ paths? refused - kiln does not read or write (it|them)/m);
  for (const path of paths) assert.ok(run.stderr.includes(`  ${path}: `), `${path}: ${run.stderr}`);
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * A project in `<root>/proj` beside `<root>/outside-secret.txt`, with a file item
 * (items/note.json) vendored as each of `names` (`k8s/<name>.md`).
 */
function vendoredProject(names: readonly string[] = ["n"]): { root: string; dir: string } {
  const root = tempDir();
  write(root, "outside-secret.txt", OUTSIDE_TEXT);
  const dir = join(root, "proj");
  write(dir, "kiln.toml", '[project]\nname = "demo"\noutput_dir = "k8s"\n');
  noteItem(dir, []);
  for (const name of names) {
    const add = kiln(["add", "items/note.json", "--name", name], dir);
    assert.equal(add.status, 0, add.stderr);
  }
  return { root, dir };
}

/** items/note.json: `{{ name }}.md` and any further files. */
function noteItem(dir: string, more: { path: string; template: string }[]): void {
  writeJson(dir, "items/note.json", {
    name: "note",
    category: "test",
    files: [{ path: "{{ name }}.md", template: "# {{ name }}\nline a\n" }, ...more],
  });
}

interface StatusJson {
  components: {
    name: string;
    files: { path: string; local: string; upstream: string; reason?: string }[];
    added: string[];
    refused: { path: string; reason: string }[];
  }[];
  unowned: string[];
  urls?: { url: string; state: string; reason?: string }[];
}

interface DiffJson {
  differs: boolean;
  files: { path: string; action: string; patch: string; reason?: string }[];
}

const ENVIRON = "../../../../../../../../proc/self/environ";
/** ENVIRON under the output folder `k8s`, from the project root. */
const ENVIRON_IN_PROJECT = "../../../../../../../proc/self/environ";

describe("an item's next version that adds files outside the project", () => {
  it("diff, status and update never read them: each is refused", {
    skip: !existsSync("/proc/self/environ") && "no /proc/self/environ",
  }, () => {
    const { root, dir } = vendoredProject();
    noteItem(dir, [
      { path: ENVIRON, template: "x\n" },
      { path: "../../outside-secret.txt", template: "y\n" },
    ]);
    const refusedPaths = [ENVIRON_IN_PROJECT, "../outside-secret.txt"];
    const before = tree(root);

    const diff = kiln(["diff", "--exit-code"], dir);
    refuses(diff, refusedPaths);
    for (const path of refusedPaths) {
      assert.ok(diff.stdout.includes(`# ${path}: refused - refusing to write`), diff.stdout);
    }
    const diffJson = kiln(["diff", "--json"], dir);
    refuses(diffJson, refusedPaths);
    const files = (JSON.parse(diffJson.stdout) as DiffJson).files;
    assert.deepEqual(
      files.map((file) => [file.path, file.action, file.patch]),
      refusedPaths.map((path) => [path, "refused", ""]),
    );
    assert.match(files[1]?.reason ?? "", /it escapes the target directory/);

    const status = kiln(["status"], dir);
    refuses(status, refusedPaths);
    assert.match(
      status.stdout,
      /^ {2}refused {4}\.\.\/outside-secret\.txt {2}\(from the newest item: /m,
    );
    const statusJson = kiln(["status", "--json"], dir);
    refuses(statusJson, refusedPaths);
    const [component] = (JSON.parse(statusJson.stdout) as StatusJson).components;
    assert.deepEqual(component?.added, []);
    assert.deepEqual(
      component?.refused.map((refusal) => refusal.path),
      refusedPaths,
    );

    for (const args of [["update"], ["update", "--force", "--theirs"]]) {
      refuses(kiln(args, dir), refusedPaths);
    }
    assert.deepEqual(tree(root), before, "nothing was written, inside or outside the project");
  });
});

describe("a kiln.lock edited to record paths outside the project", () => {
  /** n1 at `../outside-secret.txt` (its hash a right guess), n2 at an absolute path, n3 in .git. */
  function editedLock() {
    const { root, dir } = vendoredProject(["n1", "n2", "n3"]);
    write(dir, ".git/config", "[core]\n\tsecret = git-config-canary\n");
    const lock = JSON.parse(readFileSync(join(dir, "kiln.lock"), "utf8")) as {
      components: { name: string; files: { path: string; sha256: string; base: string }[] }[];
    };
    const fileOf = (name: string) =>
      lock.components.find((entry) => entry.name === name)?.files[0] as {
        path: string;
        sha256: string;
        base: string;
      };
    // the right guess of what the outside file holds: status used to say `unchanged`
    Object.assign(fileOf("n1"), {
      path: "../outside-secret.txt",
      sha256: sha256(OUTSIDE_TEXT),
      base: deflateRawSync(OUTSIDE_TEXT).toString("base64"),
    });
    fileOf("n2").path = join(root, "outside-secret.txt");
    fileOf("n3").path = ".git/config";
    writeJson(dir, "kiln.lock", lock);
    return {
      root,
      dir,
      paths: ["../outside-secret.txt", join(root, "outside-secret.txt"), ".git/config"],
    };
  }

  it("status and diff report each path refused, never read or hashed", () => {
    const { root, dir, paths } = editedLock();
    const before = tree(root);
    const status = kiln(["status", "--json"], dir);
    refuses(status, paths, ["git-config-canary"]);
    const files = (JSON.parse(status.stdout) as StatusJson).components.flatMap((c) => c.files);
    assert.deepEqual(
      files.map((file) => [file.path, file.local]),
      paths.map((path) => [path, "refused"]),
    );
    assert.match(
      files[0]?.reason ?? "",
      /^refusing to write `\.\.\/outside-secret\.txt` - it escapes the target directory$/,
    );
    assert.match(files[1]?.reason ?? "", /absolute paths are not allowed$/);
    assert.match(files[2]?.reason ?? "", /kiln never writes to `\.git` or inside it$/);
    const text = kiln(["status"], dir);
    refuses(text, paths, ["git-config-canary"]);
    assert.match(text.stdout, /^ {2}refused {4}\.\.\/outside-secret\.txt {2}\(refusing to write /m);
    assert.match(text.stdout, /: 3 refused; /);

    const diff = kiln(["diff"], dir);
    refuses(diff, paths, ["git-config-canary"]);
    assert.deepEqual(tree(root), before);
  });

  it("update and remove touch none of them, and say so", () => {
    const { root, dir, paths } = editedLock();
    const before = tree(root);
    refuses(kiln(["update"], dir), paths, ["git-config-canary"]);
    for (const [index, name] of ["n1", "n2", "n3"].entries()) {
      for (const args of [
        ["remove", name],
        ["remove", name, "--force"],
      ]) {
        const run = kiln(args, dir);
        refuses(run, [paths[index] as string], ["git-config-canary"]);
        assert.match(run.stderr, /; nothing was removed\n/);
      }
    }
    assert.deepEqual(tree(root), before, "nothing was removed or written");
  });
});

describe("tracked files replaced by links, a FIFO or a huge file", () => {
  it("a link to a file outside the project or to /etc/passwd is refused", () => {
    const { root, dir } = vendoredProject(["a", "b"]);
    write(root, "secret.txt", OUTSIDE_TEXT);
    rmSync(join(dir, "k8s/a.md"));
    rmSync(join(dir, "k8s/b.md"));
    symlinkSync("../../secret.txt", join(dir, "k8s/a.md"));
    symlinkSync("/etc/passwd", join(dir, "k8s/b.md"));
    const before = tree(root);
    const paths = ["k8s/a.md", "k8s/b.md"];
    const passwd = existsSync("/etc/passwd") ? ["root:"] : [];
    for (const args of [
      ["status"],
      ["status", "--json"],
      ["diff"],
      ["diff", "--json"],
      ["update"],
    ]) {
      const run = kiln(args, dir);
      refuses(run, paths, passwd);
      assert.match(
        run.stderr,
        /k8s\/a\.md: refusing to write `k8s\/a\.md` - it escapes the target directory/,
      );
    }
    refuses(kiln(["remove", "a", "--force"], dir), ["k8s/a.md"], passwd);
    refuses(kiln(["remove", "b"], dir), ["k8s/b.md"], passwd);
    assert.deepEqual(tree(root), before, "the links and what they point at are as they were");
  });

  it("kiln diff <preset>: a link in the tree is refused, not followed", () => {
    const root = tempDir();
    write(root, "secret.txt", OUTSIDE_TEXT);
    const dir = join(root, "proj");
    write(dir, ".keep", "");
    assert.equal(kiln(["setup", "k8s-web-app"], dir).status, 0);
    rmSync(join(dir, "k8s/frontend-deployment.yaml"));
    symlinkSync("../../secret.txt", join(dir, "k8s/frontend-deployment.yaml"));
    const run = kiln(["diff", "k8s-web-app", "--json"], dir);
    refuses(run, ["k8s/frontend-deployment.yaml"]);
    const files = (JSON.parse(run.stdout) as DiffJson).files;
    assert.deepEqual(
      files.filter((file) => file.action === "refused").map((file) => file.path),
      ["k8s/frontend-deployment.yaml"],
    );
  });

  it("an output folder that is a link out of the project: nothing below it is read or listed", () => {
    const { root, dir } = vendoredProject(["a"]);
    write(root, "elsewhere/a.md", OUTSIDE_TEXT);
    write(root, "elsewhere/other-name.txt", OUTSIDE_TEXT);
    rmSync(join(dir, "k8s"), { recursive: true });
    symlinkSync("../elsewhere", join(dir, "k8s"));
    const run = kiln(["status", "--json"], dir);
    refuses(run, ["k8s/a.md"]);
    const status = JSON.parse(run.stdout) as StatusJson;
    assert.deepEqual(status.unowned, [], "names of a folder outside the project are not listed");
  });

  it("a FIFO is refused without being opened, and nothing waits for a writer", {
    skip: FIFO_PROBE_SKIP,
  }, async () => {
    const { dir } = vendoredProject(["a"]);
    rmSync(join(dir, "k8s/a.md"));
    const writer = await blockedFifoWriter(join(dir, "k8s/a.md"));
    try {
      for (const args of [["status"], ["diff"], ["update"], ["remove", "a", "--force"]]) {
        const run = await kilnAsync(args, dir);
        refuses(run, ["k8s/a.md"]);
        assert.match(
          run.stderr,
          /k8s\/a\.md: cannot write `k8s\/a\.md` - it is a named pipe \(FIFO\), not a regular file/,
        );
        assert.ok(
          writer.stillBlocked(),
          `kiln ${args.join(" ")} opened the FIFO (its writer woke)`,
        );
      }
    } finally {
      writer.stop();
    }
    assert.ok(lstatSync(join(dir, "k8s/a.md")).isFIFO(), "the FIFO is where it was");
  });

  it("a file over 64 MiB is refused, not read", () => {
    const { dir } = vendoredProject(["a"]);
    // sparse: CAP + 1 bytes that take no room on the disk
    const fd = openSync(join(dir, "k8s/a.md"), "w");
    ftruncateSync(fd, CAP + 1);
    closeSync(fd);
    for (const args of [["status"], ["diff"], ["update"], ["remove", "a", "--force"]]) {
      const run = kiln(args, dir);
      refuses(run, ["k8s/a.md"]);
      assert.match(
        run.stderr,
        /k8s\/a\.md: `k8s\/a\.md` is larger than 67108864 bytes - kiln reads it only up to that size/,
      );
    }
    assert.equal(lstatSync(join(dir, "k8s/a.md")).size, CAP + 1);
  });
});

/** A local HTTP server that counts every request by path; `answer` decides what it sends. */
async function countingServer(
  answer: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ base: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(request.url ?? "");
    answer(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A project whose kiln.lock records one URL component per reference (no files yet). */
function urlProject(references: readonly [name: string, url: string][]): string {
  const dir = tempDir();
  write(dir, "kiln.toml", '[project]\nname = "demo"\noutput_dir = "k8s"\n');
  writeJson(dir, "kiln.lock", {
    version: 1,
    components: references.map(([name, url]) => ({
      name,
      component: "remote/thing",
      reference: url,
      source: { type: "url", url },
      fingerprint: "sha256:0",
      fields: {},
      labels: {},
      namespace: "default",
      files: [],
    })),
  });
  return dir;
}

const ITEM = JSON.stringify({
  name: "thing",
  category: "remote",
  files: [{ path: "{{ name }}.yaml", template: "name: {{ name }}\n" }],
});

describe("the URLs of one run are bounded as a whole", () => {
  it("each URL is fetched once, and at most 32 different URLs: the others are named, not fetched", async () => {
    const server = await countingServer((_request, response) => response.end(ITEM));
    try {
      const shared = `${server.base}/shared.json`;
      const distinct = Array.from({ length: 40 }, (_, index) => {
        const number = String(index).padStart(2, "0");
        return [`c${number}`, `${server.base}/item-${number}.json`] as [string, string];
      });
      // a1..a3 share one URL and come first in the lock's order (by name)
      const dir = urlProject([["a1", shared], ["a2", shared], ["a3", shared], ...distinct]);
      const notFetched = distinct.slice(31).map(([, url]) => url);

      const run = await kilnAsync(["status", "--json"], dir);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(server.seen.length, 32, "one request per URL, 32 URLs at most");
      assert.equal(server.seen.filter((path) => path === "/shared.json").length, 1);
      const status = JSON.parse(run.stdout) as StatusJson;
      const urls = status.urls ?? [];
      assert.equal(urls.length, 41);
      assert.deepEqual(
        urls.filter((url) => url.state === "not fetched").map((url) => url.url),
        notFetched,
      );
      assert.ok(urls.slice(0, 32).every((url) => url.state === "fetched"));
      assert.equal(
        urls.at(-1)?.reason,
        "a run of kiln fetches at most 32 different URLs, and this one names more",
      );
      // the components of those URLs: upstream unknown, with the spec's fetch message
      const c39 = status.components.find((component) => component.name === "c39") as unknown as {
        error?: string;
      };
      assert.equal(c39.error, `failed to fetch registry item from ${notFetched.at(-1)}`);

      const text = await kilnAsync(["status"], dir);
      assert.equal(text.status, 0, text.stderr);
      assert.match(text.stdout, /^URLs of the newest items$/m);
      assert.ok(text.stdout.includes(`  fetched     ${shared}\n`), text.stdout);
      assert.ok(
        text.stdout.includes(`  not fetched ${notFetched[0]}  (a run of kiln fetches at most 32`),
      );

      const seenBefore = server.seen.length;
      const diff = await kilnAsync(["diff"], dir);
      assert.equal(diff.status, 1);
      assert.equal(server.seen.length - seenBefore, 32);
      assert.match(diff.stderr, /^error: failed to fetch registry items from 9 URLs\n/);
      for (const url of notFetched) {
        assert.ok(diff.stderr.includes(`  ${url}: not fetched: a run of kiln fetches at most 32`));
      }

      const check = await kilnAsync(["check", "--json"], dir);
      assert.equal(server.seen.length - seenBefore, 64, "kiln check is bounded the same way");
      const checked = JSON.parse(check.stdout) as { urls?: { state: string }[] };
      assert.equal(checked.urls?.filter((url) => url.state === "not fetched").length, 9);
    } finally {
      await server.close();
    }
  });

  it("URLs that never answer end the run within its deadline, the rest named as not fetched", async () => {
    // never answers: each request waits until the test closes the server
    const server = await countingServer(() => undefined);
    try {
      const references = Array.from({ length: 25 }, (_, index) => {
        const number = String(index).padStart(2, "0");
        return [`c${number}`, `${server.base}/slow-${number}.json`] as [string, string];
      });
      const dir = urlProject(references);
      const run = await kilnAsync(["status", "--json"], dir);
      // before, status fetched them one after the other: 25 x 10 s, killed at RUN_TIMEOUT_MS
      assert.equal(run.status, 0, run.stderr);
      const urls = (JSON.parse(run.stdout) as StatusJson).urls ?? [];
      assert.equal(urls.length, 25);
      // at most 8 at a time, and three rounds of 10 s fill the 30 s
      assert.ok(server.seen.length <= 24, `${server.seen.length} requests`);
      assert.equal(new Set(server.seen).size, server.seen.length, "each URL at most once");
      assert.ok(urls.every((url) => url.state !== "fetched"));
      for (const url of urls) {
        const path = new URL(url.url).pathname;
        if (url.state === "not fetched") {
          assert.ok(!server.seen.includes(path), `${path} was not to be fetched`);
          assert.equal(url.reason, "the run's URL fetches took 30 s in all, the most kiln allows");
        } else {
          assert.match(
            url.reason ?? "",
            /^(no answer within 10000 ms|stopped: the run's URL fetches took 30 s in all, the most kiln allows)$/,
          );
        }
      }
      assert.ok(
        urls.some((url) => url.state === "not fetched"),
        "the deadline left some unfetched",
      );
    } finally {
      await server.close();
    }
  });
});
