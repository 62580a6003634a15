// What a command loads, and how. A one-shot command's time over `node -e 0` is largely what it
// loads, so the modules that a command renders and writes without stay unloaded: the global Web
// Crypto object (a module of its own; the hashing kiln.lock needs comes from node:crypto), the
// fs promise API (only a component or preset read from a local file needs it) and node:v8 (its
// flags tune the engine's WASM, which built-ins rendered on the compiled path never load). And a command's
// bundle file is compiled from the V8 code cache the build wrote beside it, when the cache was
// made from its bytes. Read from the process's own lists at exit, for the real binary. And the MCP
// SDK is in the bundle file only `kiln mcp` loads.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  cleanEnv,
  cleanUp,
  copyOfPackage,
  ensureBuilt,
  project,
  REPO,
  tempDir,
  tree,
  write,
} from "./helpers.ts";

before(ensureBuilt);
after(cleanUp);

interface Loaded {
  /** Node's own modules, as process.moduleLoadList names them. */
  modules: string[];
  /** The files Node's module loader required (require.cache). */
  required: string[];
  stdout: string;
}

/** What `node <bin> <args>` in `cwd` loaded (the built binary unless `bin` says otherwise). */
function loadedBy(args: string[], cwd: string, bin = join(REPO, "dist", "cli", "main.js")): Loaded {
  const probeDir = tempDir();
  const listFile = join(probeDir, "loaded.json");
  const probe = write(
    probeDir,
    "probe.cjs",
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(listFile)}, JSON.stringify({ modules: process.moduleLoadList, required: Object.keys(require.cache) })));\n`,
  );
  const run = spawnSync(process.execPath, ["--require", probe, bin, ...args], {
    cwd,
    env: cleanEnv(),
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  const { modules, required } = JSON.parse(readFileSync(listFile, "utf8")) as Omit<
    Loaded,
    "stdout"
  >;
  return { modules, required, stdout: run.stdout };
}

describe("Node modules a rendering command loads", () => {
  const cases: [string, () => { args: string[]; cwd: string }][] = [
    [
      "kiln setup multi-tier-platform",
      () => ({ args: ["setup", "multi-tier-platform"], cwd: tempDir() }),
    ],
    [
      "kiln add k8s/deployment",
      () => ({
        args: ["add", "k8s/deployment", "--name", "web", "--image", "nginx:1.27"],
        cwd: project(),
      }),
    ],
  ];
  for (const [label, prepare] of cases) {
    it(`${label} loads neither Web Crypto, the fs promise API nor node:v8 (no engine to tune), only node:crypto's hashing`, () => {
      const { args, cwd } = prepare();
      const loaded = loadedBy(args, cwd).modules;
      // the probe sees what the command does load: node:crypto, for kiln.lock's hashes
      assert.ok(loaded.includes("NativeModule crypto"), "node:crypto is loaded");
      assert.ok(!loaded.includes("NativeModule internal/crypto/webcrypto"), "Web Crypto is not");
      assert.ok(!loaded.includes("NativeModule fs/promises"), "fs/promises is not");
      // V8's start-up flags are for the engine's WASM, which the compiled path never loads
      assert.ok(!loaded.includes("NativeModule v8"), "node:v8 is not");
    });
  }
});

/** A copy of the built CLI (dist/ with package.json and node_modules beside it) to change. */
function copyOfBuild(): string {
  return join(copyOfPackage(), "dist", "cli");
}

describe("the bundle's code caches (dist/cli/<file>.cache)", () => {
  const setupFile = (cli: string) => join(cli, "setup.js");

  it("a command's file is compiled from the cache made from its bytes, not required", () => {
    const loaded = loadedBy(["setup", "multi-tier-platform"], tempDir());
    assert.ok(
      loaded.required.some((file) => file.endsWith("main.js")),
      "the probe sees main.js",
    );
    assert.ok(!loaded.required.includes(join(REPO, "dist", "cli", "setup.js")));
  });

  it("every file loaded through a code cache is ASCII, so V8 holds its source as one byte a character", () => {
    // one character beyond ASCII (a micro sign in a regular expression, which esbuild leaves as
    // it is) made setup.js's 207 KB source a two-byte string, read and hashed at every start
    const cli = join(REPO, "dist", "cli");
    const registry = join(REPO, "dist", "core", "registry");
    const cached = [
      ...readdirSync(cli).map((name) => join(cli, name)),
      ...readdirSync(registry).map((name) => join(registry, name)),
    ].filter((file) => file.endsWith(".cache"));
    assert.ok(cached.length >= 10, `${cached.length} caches`);
    for (const cache of cached) {
      // read as latin1: each byte one character, a byte beyond ASCII one of U+0080-U+00FF
      const source = readFileSync(cache.slice(0, -".cache".length), "latin1");
      const beyond = source.search(/[\u0080-\u00ff]/);
      assert.equal(
        beyond,
        -1,
        `${cache}: ${JSON.stringify(source.slice(beyond - 40, beyond + 10))}`,
      );
    }
  });

  it("every cache the build wrote is accepted by V8, and those of the files add and setup load were made after real runs (they hold the functions a run calls, not only the top level)", () => {
    // in a plain node (no V8 flags of the test runner's): for each cache, whether V8 accepts it,
    // and the size of its V8 data against a cache made right after compiling the same file
    const files = [
      ...readdirSync(join(REPO, "dist", "cli"))
        .filter((name) => name.endsWith(".js.cache"))
        .map((name) => join(REPO, "dist", "cli", name.slice(0, -".cache".length))),
      join(REPO, "dist", "core", "registry", "compiled-templates.cjs"),
      join(REPO, "dist", "core", "registry", "field-validators.cjs"),
    ];
    const probe = `const { readFileSync } = require("node:fs");
const { Script } = require("node:vm");
const wrap = (source) => "(function (exports, require, module, __filename, __dirname) {" + source + "\\n})";
const out = {};
for (const file of ${JSON.stringify(files)}) {
  const source = readFileSync(file, "utf8");
  const cache = readFileSync(file + ".cache");
  const cachedData = cache.subarray(cache.indexOf(10) + 1);
  const script = new Script(wrap(source), { filename: file, cachedData });
  const fresh = new Script(wrap(source), { filename: file }).createCachedData().length;
  out[file.split("/").pop()] = { rejected: script.cachedDataRejected, shipped: cachedData.length, fresh };
}
process.stdout.write(JSON.stringify(out));`;
    const run = spawnSync(process.execPath, ["-e", probe], { env: cleanEnv(), encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const caches = JSON.parse(run.stdout) as Record<
      string,
      { rejected: boolean; shipped: number; fresh: number }
    >;
    for (const [name, cache] of Object.entries(caches)) {
      assert.equal(cache.rejected, false, `V8 refused the cache of ${name}`);
    }
    // a run of add or setup calls hundreds of the file's functions: a cache made after it is
    // well over one and a half times one of the top level alone
    for (const name of [
      "main-body.js",
      "add.js",
      "setup.js",
      "compiled-templates.cjs",
      "field-validators.cjs",
    ]) {
      const cache = caches[name];
      assert.ok(cache && cache.shipped > 1.5 * cache.fresh, `${name}: ${JSON.stringify(cache)}`);
    }
  });

  it("a cache made from other bytes is not used: the file is required, and writes the same", () => {
    const cli = copyOfBuild();
    const cache = readFileSync(`${setupFile(cli)}.cache`);
    // another file's hash (the lengths stay as they are, which is all V8 itself would check)
    writeFileSync(
      `${setupFile(cli)}.cache`,
      Buffer.concat([Buffer.from("0".repeat(64)), cache.subarray(64)]),
    );
    const withCache = tempDir();
    const without = tempDir();
    const cached = loadedBy(["setup", "multi-tier-platform"], withCache);
    const required = loadedBy(["setup", "multi-tier-platform"], without, join(cli, "main.js"));
    assert.ok(required.required.includes(setupFile(cli)));
    assert.equal(required.stdout, cached.stdout);
    assert.deepEqual(tree(without), tree(withCache));
  });

  it("a cache whose V8 data has one byte changed (same length, same hash line) is not used: the file is required, and writes the same", () => {
    const cli = copyOfBuild();
    const cache = readFileSync(`${setupFile(cli)}.cache`);
    // V8 checks only lengths in a release build: a damaged byte must be caught by kiln's hash
    const middle = 65 + Math.floor((cache.length - 65) / 2);
    cache[middle] = (cache[middle] ?? 0) ^ 0xff;
    writeFileSync(`${setupFile(cli)}.cache`, cache);
    const withCache = tempDir();
    const damaged = tempDir();
    const cached = loadedBy(["setup", "multi-tier-platform"], withCache);
    const required = loadedBy(["setup", "multi-tier-platform"], damaged, join(cli, "main.js"));
    assert.ok(required.required.includes(setupFile(cli)), "setup.js is required, not compiled");
    assert.equal(required.stdout, cached.stdout);
    assert.deepEqual(tree(damaged), tree(withCache));
  });

  it("a cache V8 refuses changes nothing: the file compiles from its source, and writes the same; the build's check fails on it", () => {
    const cli = copyOfBuild();
    const source = readFileSync(setupFile(cli), "utf8");
    const cache = readFileSync(`${setupFile(cli)}.cache`);
    // the right hash of the source and data, but V8's data cut short: V8 rejects it and
    // compiles the source
    const data = cache.subarray(65, 65 + 16);
    const hash = createHash("sha256").update(source).update(data).digest("hex");
    writeFileSync(`${setupFile(cli)}.cache`, Buffer.concat([Buffer.from(`${hash}\n`), data]));
    const withCache = tempDir();
    const refused = tempDir();
    const cached = loadedBy(["setup", "multi-tier-platform"], withCache);
    const compiled = loadedBy(["setup", "multi-tier-platform"], refused, join(cli, "main.js"));
    assert.ok(!compiled.required.includes(setupFile(cli)), "setup.js is compiled with the cache");
    assert.equal(compiled.stdout, cached.stdout);
    assert.deepEqual(tree(refused), tree(withCache));
    // the check the build runs after making the caches stops it on such a cache
    const check = spawnSync(
      process.execPath,
      [join(REPO, "scripts", "check-code-caches.cjs"), setupFile(cli), join(cli, "add.js")],
      { env: cleanEnv(), encoding: "utf8" },
    );
    assert.equal(check.status, 1);
    assert.equal(check.stderr, `${setupFile(cli)}.cache: V8 rejected it\n`);
  });
});

describe("the MCP SDK is loaded by kiln mcp alone", () => {
  // a string only the SDK's protocol code holds: where it is, the SDK is
  const SDK_MARK = "notifications/initialized";

  it("only mcp-server.js of the bundle holds the SDK", () => {
    const cli = join(REPO, "dist", "cli");
    const holding = readdirSync(cli).filter(
      (name) => name.endsWith(".js") && readFileSync(join(cli, name), "utf8").includes(SDK_MARK),
    );
    assert.deepEqual(holding, ["mcp-server.js"]);
  });

  it("kiln list and kiln mcp --print-config run without mcp-server.js; kiln mcp needs it", () => {
    const cli = copyOfBuild();
    rmSync(join(cli, "mcp-server.js"));
    rmSync(join(cli, "mcp-server.js.cache"), { force: true });
    const bin = join(cli, "main.js");
    const cwd = tempDir();
    const kilnCopy = (args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], {
        cwd,
        env: cleanEnv(),
        encoding: "utf8",
        input: "",
      });
    assert.equal(kilnCopy(["list"]).status, 0);
    assert.equal(kilnCopy(["mcp", "--print-config", "claude"]).status, 0);
    assert.notEqual(kilnCopy(["mcp"]).status, 0);
  });
});
