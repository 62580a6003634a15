// Runs node's test runner over test/**/*.test.ts (Node 20's --test takes no globs), several
// files at a time, then prints the run's wall time with its slowest files, and says which
// real-tool tests were skipped for a missing tool (scripts/skipped-tools.mjs), so a local run
// that passed without the browser or the automation tool says so at the end.
//
// Each test file runs in its own process (the runner's default), but the files of test/core,
// test/web, test/node and test/cli share one process per dozen files, and the browser files of
// test/e2e one per three (with its service and browser: test/e2e/harness.ts), unless a
// file replaces a global, changes the environment or working folder, mocks, or hooks every test
// (see needsOwnProcess): a process of its own costs each file about 0.4 s of CPU (Node, tsx,
// the test runner, the modules it imports) where most of these files' tests take less, and a
// service and a browser 2 s more; the suite is bound by the CPU (measured, each run under a
// cpuacct cgroup: test/core, test/web and test/node 56.5 s of CPU in a process per file, 40.3 s
// sharing; test/cli 138.9 s and 124.7 s; test/e2e 93.3 s and 85.3 s).
// Their tests run pure code or the built binary in folders of their own, and a test waits for
// its binary (spawnSync), so a shared process loses no parallelism a file had; the browser
// files, long, go three to a process. The service, catalogue and MCP files keep a process each:
// they are few and long, and run services whose waits overlap best side by side; and the
// service's files share state in the process (tried: test/server in two processes failed
// inline-render's held-worker test).
// `--own-processes` gives every file its own, to rule out one file's effect on another.
//
// Files are independent (each makes its own temporary folders and listens on port 0), so they
// run side by side: the default is twice the cores, since most of a test's time is spent
// waiting for the processes it starts. KILN_TEST_CONCURRENCY overrides it (1 runs the files one after another). The
// longest files start first, so no long file starts last and holds up the end of the run: by
// their times in the last run here (.tmp/test-times.json), else browser tests first (each
// starts Chromium and a service) and then the larger files.
//
// The tests run the built dist/ (the CLI binary, the service, the dashboard): when it is older
// than its sources it is built first, once, before any file starts (KILN_TEST_NO_BUILD=1 skips
// this), so no test builds it while the others use it.
//
// test/stress/ (long load runs that assert correctness, never speed) is left out unless named:
// `npm run test:stress` runs it, one file at a time (`--one-at-a-time`: each load run has the
// machine to itself, as much as CI gives it).
//
// `--with-static-checks` (what `npm test` passes) runs the type check and knip beside the test
// files instead of before them: both are CPU work of about 17 s, and the test files leave a
// core idle for part of the run while they wait for the processes they start (measured: a
// fresh clone's `npm test` 243 s with them before; beside, 496 s measured once, on a fresh
// clone while other work kept the load average at 14, so not like for like). Their output is
// printed after the tests, and a failing check fails the run like a failing test.
//
// The test processes, and so everything they start, run without NODE_EXTRA_CA_CERTS (kept as
// KILN_TEST_EXTRA_CA_CERTS; see testEnvironment).
//
// Usage: node scripts/run-tests.mjs [--one-at-a-time] [--with-static-checks] [--own-processes]
//                                   [folder-or-file ...]
//        (default: test/ without test/stress/)
import { spawn, spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { buildIsStale } from "./build-state.mjs";
import { skippedToolLines } from "./skipped-tools.mjs";

const STRESS = join("test", "stress");

function collect(path, skipStress) {
  if (statSync(path).isFile()) return [path];
  if (skipStress && (path === STRESS || path.endsWith(`${sep}${STRESS}`))) return [];
  return readdirSync(path, { withFileTypes: true })
    .flatMap((entry) => {
      const child = join(path, entry.name);
      if (entry.isDirectory()) return collect(child, skipStress);
      return entry.name.endsWith(".test.ts") ? [child] : [];
    })
    .sort();
}

/** Test files in parallel: 1 when asked, else KILN_TEST_CONCURRENCY, else twice the cores. */
function concurrency(oneAtATime) {
  if (oneAtATime) return 1;
  const asked = Number.parseInt(process.env.KILN_TEST_CONCURRENCY ?? "", 10);
  return Number.isInteger(asked) && asked > 0 ? asked : availableParallelism() * 2;
}

function minutesAndSeconds(ms) {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** A JSON file of file -> milliseconds; {} when missing or unreadable. */
function readTimes(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return {};
  }
}

/** Where the last run's times are kept, to start the longest files first next time. */
const REMEMBERED_TIMES = join(".tmp", "test-times.json");

/** A file's expected time: the last run's, else browser tests first, then by size. */
function fileWeight(path, remembered) {
  const ms = remembered[resolve(path)];
  if (typeof ms === "number") return ms;
  const browser = path.includes(`${sep}e2e${sep}`) ? 1e9 : 0;
  return browser + statSync(path).size;
}

/**
 * Longest first, by the expected times of their files (the test runner reports each test under
 * its own file, also in a shared process, so that is what the last run's times hold).
 */
function longestFirst(runs) {
  const remembered = readTimes(REMEMBERED_TIMES);
  const weight = (run) => run.files.reduce((sum, file) => sum + fileWeight(file, remembered), 0);
  return [...runs].sort((a, b) => weight(b) - weight(a));
}

/**
 * The folders whose test files share processes, and how many files at most share one: pure code
 * or the built binary run and waited for, a dozen; the browser files, which are long, three
 * (they share the process's service and browser too: test/e2e/harness.ts).
 */
const SHARED_FOLDERS = new Map([
  [join("test", "core"), 12],
  [join("test", "web"), 12],
  [join("test", "node"), 12],
  [join("test", "cli"), 12],
  [join("test", "e2e"), 3],
]);

/** What a test file does that would reach the tests of other files in its process. */
const OWN_PROCESS_SIGNS = [
  /globalThis\.\w+\s*=[^=]/, // replaces a global (fetch, a storage)
  /process\.env(\.\w+|\[[^\]]+\])\s*=[^=]/, // sets a variable of the environment
  /delete process\.env|Object\.assign\(process\.env/,
  /process\.chdir/,
  /\bmock\./, // node:test's mocks of timers and modules
  /^(beforeEach|afterEach)\(/m, // a hook at the top level runs around every test of the process
  // said in so many words: a file that waits out a real deadline would hold up the files after it
  /^\/\/ own process: /m,
];

/**
 * Whether a test file must have a process of its own: it replaces a global (`globalThis.fetch =
 * ...`), changes the environment or the working folder, mocks, or hooks every test: in a shared
 * process that would reach the other files' tests. Or it says so in a line `// own process:
 * <why>` (a test that waits out a real 30 s deadline: alone, other files run in its wait).
 */
function needsOwnProcess(path) {
  const source = readFileSync(path, "utf8");
  return OWN_PROCESS_SIGNS.some((sign) => sign.test(source));
}

/**
 * A folder of this run's own for the entry files of its shared processes (another run in the
 * same checkout writes its own, whatever files it was given), removed when the run ends.
 */
/** The start of the name of each run's folder of shared entry files, under .tmp. */
const SHARED_DIR_NAME = "shared-test-processes-";

let sharedDir;
function sharedEntriesDir() {
  if (sharedDir === undefined) {
    mkdirSync(".tmp", { recursive: true });
    sharedDir = mkdtempSync(join(".tmp", SHARED_DIR_NAME));
  }
  return sharedDir;
}

/** `files` dealt into `count` lists of similar expected time, the longest first. */
function dealt(files, count) {
  const remembered = readTimes(REMEMBERED_TIMES);
  const lists = Array.from({ length: count }, () => ({ files: [], weight: 0 }));
  const byWeight = files
    .map((file) => ({ file, weight: fileWeight(file, remembered) }))
    .sort((a, b) => b.weight - a.weight);
  for (const { file, weight } of byWeight) {
    const lightest = lists.reduce((best, list) => (list.weight < best.weight ? list : best));
    lightest.files.push(file);
    lightest.weight += weight;
  }
  return lists.map((list) => list.files.sort()).filter((list) => list.length > 0);
}

/**
 * What the test runner runs: a file alone, or the files of a shared folder together in one
 * process through an entry file that imports them (static imports: every test is registered
 * before the first one runs, as in a file of its own).
 */
function testRuns(files, ownProcesses) {
  const groups = new Map();
  const runs = [];
  for (const file of files) {
    const folder = relative(process.cwd(), dirname(resolve(file)));
    if (ownProcesses || !SHARED_FOLDERS.has(folder) || needsOwnProcess(file)) {
      runs.push({ path: file, files: [file] });
    } else groups.set(folder, [...(groups.get(folder) ?? []), file]);
  }
  for (const [folder, members] of groups) {
    // dealt to processes of similar expected time, so a folder's heavier files still run side
    // by side (a folder run alone keeps its parallelism)
    const count = Math.ceil(members.length / (SHARED_FOLDERS.get(folder) ?? 1));
    for (const [index, together] of dealt(members, count).entries()) {
      if (together.length === 1) {
        runs.push({ path: together[0], files: together });
        continue;
      }
      const dir = sharedEntriesDir();
      const entry = join(dir, `${folder.split(sep).join("-")}-${index + 1}.mjs`);
      const imports = together.map(
        (file) => `import ${JSON.stringify(relative(dir, file).split(sep).join("/"))};`,
      );
      writeFileSync(
        entry,
        `// test files of ${folder} in one process (scripts/run-tests.mjs writes this)\n${imports.join("\n")}\n`,
      );
      runs.push({
        path: entry,
        files: together,
      });
    }
  }
  return runs;
}

/** Keeps this run's times beside the earlier ones (files not run keep theirs). */
function rememberTimes(msByFile) {
  mkdirSync(".tmp", { recursive: true });
  // a shared process's entry file appears only when it failed to load its files: not a test file
  const testFiles = Object.entries(msByFile).filter(([file]) => !file.includes(SHARED_DIR_NAME));
  writeFileSync(
    REMEMBERED_TIMES,
    JSON.stringify({ ...readTimes(REMEMBERED_TIMES), ...Object.fromEntries(testFiles) }, null, 1),
  );
}

/** The slowest files of the run (their tests' own time, not the wall time), for the summary. */
function slowestFiles(msByFile, count) {
  return Object.entries(msByFile)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([file, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${relative(process.cwd(), file)}`,
    );
}

/**
 * The environment of the test processes and the static checks: this one, with NODE_EXTRA_CA_CERTS
 * moved to KILN_TEST_EXTRA_CA_CERTS. Node 20 reads and parses the certificates that variable
 * names at every start, whether the process talks TLS or not: about 50 ms of CPU for a system
 * bundle (measured: `node -e 0` 22 ms without, 72 ms with), at each of the ~1,300 Node starts of
 * a run (every `kiln` a test runs is one). Nothing the tests start talks TLS but the npm of the
 * package test, which puts the variable back from KILN_TEST_EXTRA_CA_CERTS.
 */
function testEnvironment(env) {
  const { NODE_EXTRA_CA_CERTS: extraCaCerts, ...rest } = env;
  return extraCaCerts === undefined ? rest : { ...rest, KILN_TEST_EXTRA_CA_CERTS: extraCaCerts };
}

const TEST_ENV = testEnvironment(process.env);

/** The checks `--with-static-checks` runs beside the tests: npm scripts of package.json. */
const STATIC_CHECKS = ["typecheck", "deadcode"];

/**
 * Starts an npm script with its output kept (printed after the tests, so it does not mix with
 * theirs); resolves to its name, exit status, output and seconds taken.
 */
function startCheck(script) {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const begun = performance.now();
  const child = spawn(npm, ["run", "-s", script], {
    stdio: ["ignore", "pipe", "pipe"],
    env: TEST_ENV,
  });
  const output = [];
  child.stdout.on("data", (chunk) => output.push(chunk));
  child.stderr.on("data", (chunk) => output.push(chunk));
  return new Promise((done) => {
    child.on("close", (status) =>
      done({
        script,
        status: status ?? 1,
        output: Buffer.concat(output).toString("utf8"),
        seconds: (performance.now() - begun) / 1000,
      }),
    );
  });
}

/** Runs a command with the terminal as its output and TEST_ENV; resolves to its exit status. */
function runInherited(command, args) {
  const child = spawn(command, args, { stdio: "inherit", env: TEST_ENV });
  return new Promise((done) => child.on("close", (status) => done(status ?? 1)));
}

const OPTIONS = new Set(["--one-at-a-time", "--with-static-checks", "--own-processes"]);
const oneAtATime = process.argv.includes("--one-at-a-time");
const withStaticChecks = process.argv.includes("--with-static-checks");
const ownProcesses = process.argv.includes("--own-processes");
const roots = process.argv.slice(2).filter((arg) => !OPTIONS.has(arg));
const files = (roots.length > 0 ? roots : ["test"]).flatMap((root) =>
  collect(root, roots.length === 0),
);
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}
if (process.env.KILN_TEST_NO_BUILD !== "1" && buildIsStale()) {
  console.error("tests: dist/ is older than its sources - building first (npm run build)");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const build = spawnSync(npm, ["run", "build"], { stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const runs = longestFirst(testRuns(files, ownProcesses));
const shared = runs.filter((run) => run.files.length > 1);
const parallel = Math.min(concurrency(oneAtATime), runs.length);
const timesDir = mkdtempSync(join(tmpdir(), "kiln-test-times-"));
const timesPath = join(timesDir, "times.json");
const started = performance.now();
const checks = withStaticChecks ? STATIC_CHECKS.map(startCheck) : [];
// tsx's ESM half only: the test files and what they import are ES modules, and leaving out its
// CommonJS hooks saves ~0.1 s of CPU in each of the ~100 test processes
const testStatus = await runInherited(process.execPath, [
  "--import",
  "tsx/esm",
  "--test",
  `--test-concurrency=${parallel}`,
  "--test-reporter=spec",
  "--test-reporter-destination=stdout",
  `--test-reporter=${new URL("./test-timing-reporter.mjs", import.meta.url)}`,
  `--test-reporter-destination=${timesPath}`,
  ...runs.map((run) => run.path),
]);
if (testStatus !== 0 && shared.length > 0) {
  // a file that fails to load fails its whole shared process, whose name is only its entry
  // file: say which files each entry held, and keep the entries to run one by hand
  console.log("\nthe shared processes of this run, by entry file (kept for a failed run):");
  for (const run of shared) {
    console.log(
      `  ${run.path}: ${run.files.map((file) => relative(process.cwd(), file)).join(", ")}`,
    );
  }
}
const checkResults = await Promise.all(checks);
const wall = performance.now() - started;
const msByFile = readTimes(timesPath);
rememberTimes(msByFile);
const slowest = slowestFiles(msByFile, 5);
rmSync(timesDir, { recursive: true, force: true });
if (sharedDir !== undefined && testStatus === 0)
  rmSync(sharedDir, { recursive: true, force: true });
const sharing =
  shared.length === 0
    ? ""
    : `; ${shared.reduce((sum, run) => sum + run.files.length, 0)} of them in ${shared.length} shared ${shared.length === 1 ? "process" : "processes"}`;
console.log(
  `\n${files.length} test ${files.length === 1 ? "file" : "files"} in ${minutesAndSeconds(wall)} (wall time, ${parallel} at a time${sharing}); the slowest:`,
);
for (const line of slowest) console.log(line);
for (const line of skippedToolLines(files)) console.log(line);
for (const check of checkResults) {
  const verdict = check.status === 0 ? "passed" : `FAILED (exit ${check.status})`;
  if (check.status !== 0 || check.output.trim() !== "") console.log(`\n${check.output.trimEnd()}`);
  console.log(
    `npm run ${check.script}: ${verdict} in ${check.seconds.toFixed(1)} s, beside the tests`,
  );
}
const checksFailed = checkResults.some((check) => check.status !== 0);
process.exit(testStatus !== 0 ? testStatus : checksFailed ? 1 : 0);
