// What a stranger's files can make the CLI read and render: kiln.toml from a cloned repository,
// registry items and presets from files, templates written by anyone. Every case runs the real
// built binary in a fresh folder and must end, with a clear error, in bounded time; every run
// here is killed after RUN_TIMEOUT_MS, so a run without end fails instead of hanging the suite.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { untrustedRenderDeadline } from "../../src/cli/render-component.ts";
import {
  BIN,
  cleanEnv,
  cleanUp,
  ensureBuilt,
  itemFile,
  kilnBackground,
  project,
  type Run,
  tempDir,
  tree,
  write,
  writeJson,
} from "./helpers.ts";

/** Far above what any case needs (the slowest, the render deadline, is 10 s). */
const RUN_TIMEOUT_MS = 60_000;
/** An environment variable whose value must never show up in any output. */
const SECRET = "kiln-test-secret-3f9a";

before(() => ensureBuilt());
after(cleanUp);

/**
 * Runs the binary, killed after RUN_TIMEOUT_MS (status null). The secret goes first in the
 * environment, so it is what /proc/self/environ starts with.
 */
function kiln(args: string[], cwd: string, env: Record<string, string> = {}): Run {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: { KILN_TEST_SECRET: SECRET, ...cleanEnv(env) },
    encoding: "utf8",
    timeout: RUN_TIMEOUT_MS,
    killSignal: "SIGKILL",
    maxBuffer: 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

/** Exit 1 with an `error: ` line matching `pattern`, nothing on stdout, no secret anywhere. */
function fails(run: Run, pattern: RegExp): void {
  assert.equal(run.status, 1, `expected exit 1 in bounded time, got ${run.status}: ${run.stderr}`);
  assert.match(run.stderr, pattern);
  assert.equal(run.stdout, "");
  assert.ok(!`${run.stdout}${run.stderr}`.includes(SECRET), "the output echoes file contents");
  assert.ok(!run.stderr.includes("KILN_TEST_SECRET"), "the output echoes file contents");
}

const PAGEMAP = "/proc/self/pagemap";
/** A regular file that claims 0 bytes and holds hundreds of gigabytes (Linux). */
const noPagemap = existsSync(PAGEMAP) ? false : `${PAGEMAP} is not available here`;
const noEnviron = existsSync("/proc/self/environ") ? false : "/proc/self/environ is not available";

function mkfifo(path: string): boolean {
  try {
    execFileSync("mkfifo", [path], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

/** `{% set a=[1] %}`, doubled 30 times, given to a filter: 2^30 values in JS objects. */
const BOMB = `{% set a=[1] %}${"{% set a=[a,a] %}".repeat(30)}{{ a|yaml }}`;
/** Little memory, much time: a filter's argument converted again and again, outside the fuel. */
const SLOW = `{% set a=[1] %}${"{% set a=[a,a] %}".repeat(16)}{% for i in range(100000) %}{{ (a|yaml)|length }}{% endfor %}`;

/**
 * These renders would run to the deadline: 1 s (KILN_RENDER_TIMEOUT_MS) proves it stops them as
 * well as the default 10 s would, at a tenth of the CPU. The default is checked below.
 */
const SHORT_DEADLINE = { KILN_RENDER_TIMEOUT_MS: "1000" };

describe("renders of components that are not built-in end in bounded time", () => {
  it("the deadline is 10 s unless KILN_RENDER_TIMEOUT_MS sets it; a bad value is a clear error", () => {
    assert.equal(untrustedRenderDeadline({}), 10_000);
    assert.equal(untrustedRenderDeadline({ KILN_RENDER_TIMEOUT_MS: " " }), 10_000);
    assert.equal(untrustedRenderDeadline({ KILN_RENDER_TIMEOUT_MS: "2500" }), 2_500);
    const dir = project();
    itemFile(dir, "ok.json", [{ path: "{{ name }}.txt", template: "x" }]);
    for (const bad of ["0", "1.5", "ten", "600001"]) {
      fails(
        kiln(["add", "ok.json", "--name", "x"], dir, { KILN_RENDER_TIMEOUT_MS: bad }),
        /^error: KILN_RENDER_TIMEOUT_MS must be a whole number of milliseconds from 1 to 600000, got `/,
      );
    }
  });

  it("kiln add: a filter bomb in an item file is stopped (memory), naming the component", () => {
    const dir = project();
    itemFile(dir, "bomb.json", [{ path: "b.txt", template: BOMB }]);
    const run = kiln(["add", "./bomb.json", "--name", "b"], dir, SHORT_DEADLINE);
    fails(
      run,
      /^error: \.\/bomb\.json \(test\/thing\): the render (ran out of memory|took longer than 1000 ms) and was stopped\n/,
    );
    assert.deepEqual(Object.keys(tree(dir)).sort(), ["bomb.json", "kiln.toml"]);
  });

  it("kiln add: a render that runs long on little memory is stopped at the deadline", () => {
    const dir = project();
    itemFile(dir, "slow.json", [{ path: "s.txt", template: SLOW }]);
    const run = kiln(["add", "slow.json", "--name", "s"], dir, SHORT_DEADLINE);
    fails(
      run,
      /^error: slow\.json \(test\/thing\): the render took longer than 1000 ms and was stopped\n/,
    );
    assert.match(run.stderr, /stopped after 1 s \(KILN_RENDER_TIMEOUT_MS sets it\)/);
  });

  it("setup, apply and check: a bomb among a preset's components stops the run, nothing written", () => {
    const dir = tempDir();
    itemFile(dir, "items/bomb.json", [{ path: "b.txt", template: BOMB }]);
    writeJson(dir, "p.preset.json", {
      name: "p",
      components: [
        { reference: "k8s/deployment", name: "web", fields: { image: "nginx:1.27" } },
        { reference: "items/bomb.json", name: "b" },
      ],
    });
    const before = tree(dir);
    const stopped =
      /^error: items\/bomb\.json `b` \(test\/thing\): the render (ran out of memory|took longer than 1000 ms) and was stopped\n/;
    fails(kiln(["setup", "p.preset.json"], dir, SHORT_DEADLINE), stopped);
    fails(kiln(["apply", "p.preset.json", "--into", "out"], dir, SHORT_DEADLINE), stopped);
    fails(kiln(["check", "p.preset.json"], dir, SHORT_DEADLINE), stopped);
    assert.deepEqual(tree(dir), before);
  });

  it("items from files still render (in the worker) exactly as before", () => {
    const dir = project({ namespace: "shop" });
    itemFile(dir, "ok.json", [{ path: "{{ name }}.txt", template: "ns: {{ namespace }}\n" }]);
    const run = kiln(["add", "ok.json", "--name", "x"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, "created   k8s/x.txt\nadded thing/x: 1 file in k8s/ (1 created)\n");
    assert.equal(tree(dir)["k8s/x.txt"], "ns: shop\n");
  });
});

describe("kiln.toml is read only as a regular file of at most 1 MiB", () => {
  const addArgs = ["add", "k8s/deployment", "--name", "web", "--image", "nginx:1.27"];

  it("a link to /dev/zero is refused", () => {
    const dir = tempDir();
    symlinkSync("/dev/zero", join(dir, "kiln.toml"));
    fails(kiln(addArgs, dir), /^error: kiln\.toml is not a regular file - /);
  });

  it("a FIFO is refused without waiting for a writer", (t) => {
    const dir = tempDir();
    if (!mkfifo(join(dir, "kiln.toml"))) return t.skip("mkfifo is not available");
    fails(kiln(addArgs, dir), /^error: kiln\.toml is not a regular file - /);
  });

  it("a file that claims 0 bytes and holds more is read only up to the cap", {
    skip: noPagemap,
  }, () => {
    const dir = tempDir();
    symlinkSync(PAGEMAP, join(dir, "kiln.toml"));
    fails(kiln(addArgs, dir), /^error: kiln\.toml is larger than 1048576 bytes - /);
  });

  it("a kiln.toml over 1 MiB is refused", () => {
    const dir = tempDir();
    write(dir, "kiln.toml", `[project]\nname = "x"\n${"#".repeat(1024 * 1024)}\n`);
    fails(kiln(addArgs, dir), /^error: kiln\.toml is larger than 1048576 bytes - /);
  });

  it("a TOML error says where, never what the file holds", { skip: noEnviron }, () => {
    const dir = tempDir();
    symlinkSync("/proc/self/environ", join(dir, "kiln.toml"));
    fails(
      kiln(addArgs, dir),
      /^error: kiln\.toml is not valid TOML - .*\n {2}line \d+, column \d+: /,
    );
  });
});

/**
 * The core's reader stops at the cap, or fails on pagemap's refusal of a read of odd length
 * (EINVAL): either way the read ends at once, with an error.
 */
function refusedPagemap(name: string): RegExp {
  const file = name.replaceAll(".", "\\.");
  return new RegExp(`^error: (${file} is larger than 10485760 bytes|could not read \`${file}\`)`);
}

describe("item and preset files are read only as regular files of at most 10 MiB", () => {
  it("kiln add: a device and a file that claims 0 bytes are refused", { skip: noPagemap }, () => {
    const dir = project();
    symlinkSync("/dev/zero", join(dir, "zero.json"));
    symlinkSync(PAGEMAP, join(dir, "pagemap.json"));
    fails(kiln(["add", "zero.json", "--name", "z"], dir), /^error: .*zero\.json/);
    fails(kiln(["add", "pagemap.json", "--name", "p"], dir), refusedPagemap("pagemap.json"));
  });

  it("setup, apply and check: such a preset, or such a component in a preset, is refused", {
    skip: noPagemap,
  }, () => {
    const dir = tempDir();
    symlinkSync(PAGEMAP, join(dir, "pagemap.preset.json"));
    symlinkSync(PAGEMAP, join(dir, "pagemap.json"));
    writeJson(dir, "p.preset.json", {
      components: [{ reference: "pagemap.json", name: "p" }],
    });
    for (const command of ["setup", "apply", "check"]) {
      fails(kiln([command, "pagemap.preset.json"], dir), refusedPagemap("pagemap.preset.json"));
    }
    for (const command of ["setup", "apply"]) {
      fails(kiln([command, "p.preset.json"], dir), refusedPagemap("pagemap.json"));
    }
    const check = kiln(["check", "p.preset.json"], dir);
    assert.equal(check.status, 1, check.stderr);
    assert.match(check.stdout, /pagemap\.json(` \(EINVAL\)| is larger than 10485760 bytes)/);
  });
});

describe("parse errors never echo the file", () => {
  it("kiln add /proc/self/environ: not JSON, at line 1, column 1", { skip: noEnviron }, () => {
    const dir = project();
    fails(
      kiln(["add", "/proc/self/environ", "--name", "e"], dir),
      /^error: \/proc\/self\/environ is not a valid registry item\n {2}not JSON: line 1, column 1: expected a value/,
    );
  });

  it("setup, apply and check /proc/self/environ: the same for presets", { skip: noEnviron }, () => {
    const dir = tempDir();
    for (const command of ["setup", "apply", "check"]) {
      fails(
        kiln([command, "/proc/self/environ"], dir),
        /^error: \/proc\/self\/environ is not a valid preset manifest\n {2}not JSON: line 1, column 1: /,
      );
    }
  });

  it("a JSON error further in says where and what was expected", () => {
    const dir = project();
    write(dir, "broken.json", `{\n  "name": "x",\n  "token": "${SECRET}"\n  "files": []\n}\n`);
    fails(
      kiln(["add", "broken.json", "--name", "b"], dir),
      /^error: broken\.json is not a valid registry item\n {2}not JSON: line 4, column 3: expected `,` or `}` after a property value\n$/,
    );
  });

  it("a JSON document of the wrong shape names types, not strings", () => {
    const dir = project();
    writeJson(dir, "string.json", SECRET);
    writeJson(dir, "files.json", { name: "x", category: "y", files: [SECRET] });
    fails(
      kiln(["add", "string.json", "--name", "s"], dir),
      /^error: string\.json is not a valid registry item\n {2}invalid type: string, expected struct RegistryItem\n$/,
    );
    fails(
      kiln(["add", "files.json", "--name", "s"], dir),
      /^error: files\.json is not a valid registry item\n {2}files\[0\]: invalid type: string, expected struct File\n$/,
    );
    writeJson(dir, "p.preset.json", { components: [{ reference: SECRET, name: 5 }] });
    fails(
      kiln(["apply", "p.preset.json"], dir),
      /^error: p\.preset\.json is not a valid preset manifest\n {2}components\[0\]\.name: invalid type: integer `5`, expected a string\n$/,
    );
  });

  it("GET /api/registry/inspect of such a file answers without its contents", async () => {
    const dir = tempDir();
    write(dir, "secret.txt", `${SECRET}=1\n`);
    writeJson(dir, "secret.json", { name: "x", category: "y", files: SECRET });
    const server = kilnBackground(["serve", "--port", "0", "--drain-delay", "0"], dir, {
      SERVICE_WORKERS: "1",
    });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let seen = "";
        server.stdout.on("data", (chunk: Buffer) => {
          seen += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(seen);
          if (match) resolve(match[1] as string);
        });
        server.on("exit", () => reject(new Error(`kiln serve exited: ${seen}`)));
      });
      for (const ref of ["secret.txt", "secret.json", join(dir, "secret.txt")]) {
        const response = await fetch(`${base}/api/registry/inspect?ref=${encodeURIComponent(ref)}`);
        const body = await response.text();
        assert.ok(response.status >= 400, `${ref}: ${response.status} ${body}`);
        assert.ok(!body.includes(SECRET), `${ref}: the answer echoes the file: ${body}`);
      }
    } finally {
      server.kill("SIGTERM");
    }
  });
});
