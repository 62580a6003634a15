// Helpers for the CLI tests: they run the REAL built binary (dist/cli/main.js, the file that
// package.json's "bin" names) in fresh temporary folders, the way a user would.
//
// The binary is built once per test run: `npm test` builds everything before the tests, and
// when a developer runs `node scripts/run-tests.mjs test/cli` with a missing or stale bundle
// (older than src/cli, src/core or the bundle script, or overwritten by build:core's tsc),
// the first test file to start rebuilds it (the bundle script only, about a second) while
// the other files wait on a lock folder. KILN_TEST_NO_BUILD=1 turns this off.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = join(REPO, "dist", "cli", "main.js");

function newestMtime(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(
    stats.mtimeMs,
    ...readdirSync(path).map((entry) => newestMtime(join(path, entry))),
  );
}

function isStale(): boolean {
  // `npm run build:core` (tsc) compiles src/cli into dist/cli too, over the bundle, leaving
  // dist/cli/commands/ behind; the bundle script clears the folder, so that marks tsc output
  if (existsSync(join(REPO, "dist", "cli", "commands"))) return true;
  let built: number;
  try {
    built = statSync(BIN).mtimeMs;
  } catch {
    return true;
  }
  const sources = [
    "src/main.ts",
    "src/cli",
    "src/mcp",
    "src/node",
    "src/core",
    "scripts/bundle-cli.mjs",
  ].map((path) => newestMtime(join(REPO, path)));
  return Math.max(...sources) > built;
}

/**
 * dist/server and dist/sandbox (tsc's output, with the core and its Node half) are what `kiln
 * serve` runs and where the CLI's render worker for file and URL items comes from: stale when
 * missing or older than their sources.
 */
function isServerStale(): boolean {
  let built: number;
  try {
    built = Math.min(
      statSync(join(REPO, "dist", "sandbox", "render-worker.js")).mtimeMs,
      statSync(join(REPO, "dist", "server", "serve-command.js")).mtimeMs,
    );
  } catch {
    return true;
  }
  const sources = ["src/core", "src/node", "src/sandbox", "src/server"];
  return Math.max(...sources.map((path) => newestMtime(join(REPO, path)))) > built;
}

/**
 * Builds what the CLI tests run, one builder at a time: dist/server (build:core, tsc) when it is
 * stale, as `kiln serve` and file or URL items need, then the dist/cli bundle when it is.
 */
export function ensureBuilt(): void {
  if (process.env.KILN_TEST_NO_BUILD === "1") return;
  if (isServerStale()) {
    withLock(() => {
      if (!isServerStale()) return;
      try {
        execFileSync("npm", ["run", "build:core"], { cwd: REPO, stdio: "pipe" });
      } catch (error) {
        // tsc still emits when another part of the tree has a type error; what counts is
        // whether the server came out (the type check itself is `npm run typecheck`'s job)
        if (!existsSync(join(REPO, "dist", "server", "serve-command.js"))) throw error;
      }
    });
  }
  if (!isStale()) return;
  withLock(() => {
    if (isStale()) {
      execFileSync(process.execPath, ["scripts/bundle-cli.mjs"], { cwd: REPO, stdio: "pipe" });
    }
  });
}

function withLock(work: () => void): void {
  const lock = join(REPO, ".tmp", "cli-build.lock");
  mkdirSync(dirname(lock), { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock} is held for too long - remove it`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Polls `probe` every `everyMs` until it holds, for a test that waits for an effect (a cache
 * emptied, a service ready) instead of a guessed delay; fails naming `what` after `ms`, a
 * fail-safe far beyond what a busy machine needs.
 */
export async function waitFor(
  what: string,
  probe: () => boolean | Promise<boolean>,
  { ms = 30_000, everyMs = 5 }: { ms?: number; everyMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Environment without colour hints from the developer's shell, so output is plain text. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  // kiln honours the proxy variables, and the tests' servers are on loopback: a proxy the
  // machine sets must not carry them (the proxy tests set their own)
  for (const name of [
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
  ]) {
    delete env[name];
  }
  delete env.KILN_OFFLINE;
  return { ...env, ...extra };
}

export function kiln(args: string[], cwd: string, env: Record<string, string> = {}): Run {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: cleanEnv(env),
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Like `kiln`, without blocking this process (so a server in the test can answer it). */
export function kilnAsync(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: cleanEnv(env),
      stdio: "pipe",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** The binary started in the background (for `kiln serve`), `env` added to its environment. */
export function kilnBackground(args: string[], cwd: string, env: Record<string, string> = {}) {
  return spawn(process.execPath, [BIN, ...args], { cwd, env: cleanEnv(env), stdio: "pipe" });
}

const made: string[] = [];

/** A fresh empty folder under the system's temporary folder; removed by `cleanUp`. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "kiln-cli-test-"));
  made.push(dir);
  return dir;
}

/**
 * A copy of the built package as installed (package.json and dist/, its dependencies linked
 * beside it) in a temporary folder, for a test that changes the package's own files; the
 * copy's root.
 */
export function copyOfPackage(): string {
  ensureBuilt();
  const root = tempDir();
  cpSync(join(REPO, "dist"), join(root, "dist"), { recursive: true });
  cpSync(join(REPO, "package.json"), join(root, "package.json"));
  symlinkSync(join(REPO, "node_modules"), join(root, "node_modules"));
  return root;
}

export function cleanUp(): void {
  for (const dir of made.splice(0)) {
    unlockAll(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every file (and symbolic link, as `-> target`) below `dir`: relative path to content. */
export function tree(dir: string): Record<string, string> {
  const result: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      const key = relative(dir, path);
      if (entry.isSymbolicLink()) result[key] = `-> ${readlinkSync(path)}`;
      else if (entry.isDirectory()) {
        result[`${key}/`] = "";
        walk(path);
      } else result[key] = readFileSync(path, "utf8");
    }
  };
  walk(dir);
  return result;
}

export function write(dir: string, path: string, content: string): string {
  const full = join(dir, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
  return full;
}

export function writeJson(dir: string, path: string, value: unknown): string {
  return write(dir, path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Makes a folder refuse new entries, mid-run style: the test's binary writes other files first
 * and fails on this one. Root ignores permission bits, so as root the folder is made immutable
 * (`chattr +i`, which stops root too); otherwise it is made read-only. Returns false when
 * neither works here (the caller skips), after checking with a real write that it holds.
 */
const locked = new Set<string>();
export function lockFolder(dir: string): boolean {
  const isRoot = process.getuid?.() === 0;
  try {
    if (isRoot) execFileSync("chattr", ["+i", dir], { stdio: "pipe" });
    else chmodSync(dir, 0o555);
  } catch {
    return false;
  }
  locked.add(dir);
  try {
    writeFileSync(join(dir, ".probe"), "");
  } catch {
    return true;
  }
  rmSync(join(dir, ".probe"), { force: true });
  unlockFolder(dir);
  return false;
}

export function unlockFolder(dir: string): void {
  if (!locked.delete(dir)) return;
  if (process.getuid?.() === 0) execFileSync("chattr", ["-i", dir], { stdio: "pipe" });
  else chmodSync(dir, 0o755);
}

function unlockAll(under: string): void {
  for (const dir of [...locked]) if (dir.startsWith(under)) unlockFolder(dir);
}

/** A kiln project in a fresh folder: kiln.toml with these settings, nothing else. */
export function project(settings: { outputDir?: string; namespace?: string } = {}): string {
  const dir = tempDir();
  write(
    dir,
    "kiln.toml",
    `[project]\nname = "demo"\ndefault_namespace = "${settings.namespace ?? "default"}"\noutput_dir = "${settings.outputDir ?? "k8s"}"\n`,
  );
  return dir;
}

/** Per starting point, the folder where it was built once in this test process. */
const builtOnce = new Map<string, string>();

/**
 * A fresh folder holding a copy of the starting point `key`, the folder `build` makes and
 * returns the first time the key is asked for in this test file; later calls copy that folder
 * recursively into a new one. For tests whose starting point is the result of kiln commands
 * (not the commands themselves): the copy is byte for byte what the commands wrote, since kiln
 * writes nothing that depends on the folder it runs in (no absolute paths, no times) and reads
 * file contents, never their times. `build` must make the same files every time for its key.
 */
export function copyOfBuilt(key: string, build: () => string): string {
  let seed = builtOnce.get(key);
  if (seed === undefined || !existsSync(seed)) {
    seed = build();
    builtOnce.set(key, seed);
  }
  const dir = tempDir();
  cpSync(seed, dir, { recursive: true });
  return dir;
}

/**
 * A fresh folder holding exactly what `kiln setup <preset>` writes into an empty folder, for
 * tests whose starting point is a set-up project (not the setup itself): setup runs once per
 * preset and test file, each call gets a copy (see `copyOfBuilt`).
 */
export function setUpProject(preset: string): string {
  return copyOfBuilt(`setup ${preset}`, () => {
    const seed = tempDir();
    const setup = kiln(["setup", preset], seed);
    if (setup.status !== 0) {
      throw new Error(`kiln setup ${preset} failed (exit ${setup.status}): ${setup.stderr}`);
    }
    return seed;
  });
}

/** A registry-item JSON file whose files have the given paths and templates. */
export function itemFile(
  dir: string,
  path: string,
  files: { path: string; template: string }[],
  fields: unknown[] = [],
): string {
  writeJson(dir, path, { name: "thing", category: "test", fields, files });
  return path;
}

/**
 * A FIFO at `path` with a writer blocked in open() until something opens the FIFO for reading:
 * the effect that shows whether kiln opened it (a non-blocking open of a FIFO returns at once,
 * so no hang shows it, but it still wakes the writer). `stillBlocked()` reads the writer's
 * /proc/<pid>/wchan: `wait_for_partner` while it waits, something else once it was woken.
 * Linux only (`FIFO_PROBE_SKIP` says why not elsewhere); `stop()` kills the writer.
 */
export async function blockedFifoWriter(
  path: string,
): Promise<{ stillBlocked: () => boolean; stop: () => void }> {
  execFileSync("mkfifo", [path], { stdio: "pipe" });
  const writer = spawn("sh", ["-c", 'exec 3>"$1"', "sh", path], { stdio: "ignore" });
  const wchan = () => {
    try {
      return readFileSync(`/proc/${writer.pid}/wchan`, "utf8");
    } catch {
      return "";
    }
  };
  const stop = () => {
    writer.kill("SIGKILL");
  };
  // the writer reaches its open() soon after it starts; wait for that, at most 30 s
  for (let tries = 0; wchan() !== "wait_for_partner"; tries++) {
    if (tries >= 1200) {
      stop();
      throw new Error(`the FIFO writer never blocked in open() (wchan: ${wchan() || "none"})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { stillBlocked: () => wchan() === "wait_for_partner", stop };
}

/** Why the FIFO probe cannot run here, or false when it can. */
export const FIFO_PROBE_SKIP =
  process.platform === "linux" && existsSync("/proc/self/wchan")
    ? false
    : "the FIFO probe reads /proc/<pid>/wchan (Linux)";

/**
 * A preset of one component from a local item file (`items/evil.json`) that writes `paths`,
 * each holding "x\n", with the preset's project settings (`outputDir`, ...); its file name. The
 * item renders in the sandbox's worker, as a stranger's does.
 */
export function presetOf(
  dir: string,
  paths: string[],
  projectSettings?: Record<string, string>,
  presetFile = "run.preset.json",
): string {
  itemFile(
    dir,
    "items/evil.json",
    paths.map((path) => ({ path, template: "x\n" })),
  );
  writeJson(dir, presetFile, {
    name: presetFile.replace(/\.preset\.json$/, ""),
    ...(projectSettings ? { project: projectSettings } : {}),
    components: [{ reference: "items/evil.json", name: "c" }],
  });
  return presetFile;
}
