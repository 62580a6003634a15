// scripts/run-tests.mjs ends with a line per kind of real-tool test it skipped locally (the
// browser, the automation tool, SSH, terraform), and when KILN_REQUIRE_TOOLS=1, where a missing
// tool fails instead, only with the optional terraform's. Run as the real script over a
// stand-in test file, with chromium pointed at a path that does not exist and a PATH without
// the tools. Its test files start without NODE_EXTRA_CA_CERTS, set aside for the npm that needs
// it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { REPO } from "../cli/helpers.ts";

const emptyBin = mkdtempSync(join(tmpdir(), "kiln-no-tools-"));
const STAND_IN = "test/scripts/fixtures/needs-tools.mjs";
const TERRAFORM_STAND_IN = "test/scripts/fixtures/needs-terraform.mjs";

/** The `skip` option of the run with the real tools: a reason when one is missing locally. */
function toolsHereSkip(): string | false {
  if (process.env.KILN_REQUIRE_TOOLS === "1") return false; // CI has them all: run, and fail if not
  const here = spawnSync("sh", [
    "-c",
    'command -v ansible-playbook && command -v ansible-inventory && command -v ssh-keygen && [ -x /usr/bin/chromium ] && [ -x /usr/sbin/sshd ] && [ "$(id -u)" = 0 ]',
  ]);
  return here.status === 0
    ? false
    : "skipped: chromium, ansible-core or openssh is missing here, or not root";
}

function runTests(env: Record<string, string>, standIn = STAND_IN) {
  const result = spawnSync(process.execPath, ["scripts/run-tests.mjs", standIn], {
    cwd: REPO,
    encoding: "utf8",
    env: { ...process.env, KILN_REQUIRE_TOOLS: "", ...env },
  });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trimEnd().split("\n");
}

describe("the test summary names the real-tool tests skipped for a missing tool", () => {
  after(() => rmSync(emptyBin, { recursive: true, force: true }));
  const missing = { PATH: emptyBin, KILN_TEST_CHROMIUM_PATH: join(emptyBin, "chromium") };

  it("at the end of a local run without chromium and ansible", () => {
    const lines = runTests(missing);
    const summary = lines.slice(-3);
    assert.equal(
      summary[0],
      "browser tests skipped: chromium not installed (apt-get install chromium)",
    );
    assert.equal(
      summary[1],
      "automation tool checks skipped: ansible-inventory and ansible-playbook not installed (apt-get install ansible-core)",
    );
    assert.match(summary[2] as string, /^SSH connection tests skipped: /);
  });

  it("not with KILN_REQUIRE_TOOLS=1, where a missing tool fails its tests instead", () => {
    const lines = runTests({ ...missing, KILN_REQUIRE_TOOLS: "1" });
    assert.ok(!lines.some((line) => line.includes("skipped:")), lines.join("\n"));
  });

  it("terraform's syntax checks, also with KILN_REQUIRE_TOOLS=1: terraform is optional", () => {
    const line =
      "Terraform syntax checks (terraform fmt) skipped: terraform not installed (optional)";
    for (const required of ["", "1"]) {
      const lines = runTests({ ...missing, KILN_REQUIRE_TOOLS: required }, TERRAFORM_STAND_IN);
      assert.equal(lines[lines.length - 1], line, `KILN_REQUIRE_TOOLS=${required}`);
      assert.equal(lines.filter((each) => each.includes("skipped:")).length, 1, lines.join("\n"));
    }
  });

  it("not when the tools are there", { skip: toolsHereSkip() }, () => {
    const lines = runTests({});
    assert.ok(!lines.some((line) => line.includes("skipped:")), lines.join("\n"));
  });
});

describe("npm test's static checks run beside the test files and fail the run like a test", () => {
  /** A folder whose package.json has the given typecheck and deadcode scripts, and one test. */
  function projectWithChecks(typecheck: string, deadcode: string): string {
    const folder = mkdtempSync(join(tmpdir(), "kiln-static-checks-"));
    writeFileSync(
      join(folder, "package.json"),
      JSON.stringify({ name: "stand-in", scripts: { typecheck, deadcode } }),
    );
    symlinkSync(join(REPO, "node_modules"), join(folder, "node_modules"));
    writeFileSync(
      join(folder, "passes.test.mjs"),
      'import { test } from "node:test";\ntest("passes", () => {});\n',
    );
    return folder;
  }

  function runWithChecks(folder: string) {
    return spawnSync(
      process.execPath,
      [join(REPO, "scripts/run-tests.mjs"), "--with-static-checks", "passes.test.mjs"],
      { cwd: folder, encoding: "utf8", env: { ...process.env, KILN_TEST_NO_BUILD: "1" } },
    );
  }

  it("a failing check fails the run, and its output is printed after the tests", () => {
    const folder = projectWithChecks("echo src/a.ts: error TS2322 && exit 2", "echo ok");
    try {
      const result = runWithChecks(folder);
      assert.equal(result.status, 1, result.stdout + result.stderr);
      const lines = result.stdout.split("\n");
      const error = lines.indexOf("src/a.ts: error TS2322");
      assert.ok(error > lines.findIndex((line) => line.includes("test file in")), result.stdout);
      assert.match(
        result.stdout,
        /npm run typecheck: FAILED \(exit 2\) in [\d.]+ s, beside the tests/,
      );
      assert.match(result.stdout, /npm run deadcode: passed in [\d.]+ s, beside the tests/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("passing checks and tests pass the run", () => {
    const folder = projectWithChecks("true", "true");
    try {
      const result = runWithChecks(folder);
      assert.equal(result.status, 0, result.stdout + result.stderr);
      assert.match(result.stdout, /npm run typecheck: passed in [\d.]+ s, beside the tests/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

/**
 * This environment as a terminal's, plus `extra`: without NODE_TEST_CONTEXT, which node's test
 * runner sets for the files it runs and under which a nested `node --test` runs no file.
 */
function topLevelRun(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  // the summary's "N at a time" is the concurrency, at most the runs: fixed here, whatever the
  // machine's cores or the caller's KILN_TEST_CONCURRENCY
  return { ...env, KILN_TEST_CONCURRENCY: "8", ...extra };
}

describe("the test processes start without NODE_EXTRA_CA_CERTS, which Node 20 parses at every start", () => {
  it("it is set aside as KILN_TEST_EXTRA_CA_CERTS, for the npm of the package test", () => {
    const folder = mkdtempSync(join(tmpdir(), "kiln-test-env-"));
    const certificates = join(folder, "extra-ca.pem");
    const seen = join(folder, "seen.json");
    writeFileSync(certificates, "");
    // the stand-in test writes down what its process was given
    writeFileSync(
      join(folder, "env.test.mjs"),
      [
        'import { writeFileSync } from "node:fs";',
        'import { test } from "node:test";',
        'test("env", () => {',
        "  const { NODE_EXTRA_CA_CERTS, KILN_TEST_EXTRA_CA_CERTS } = process.env;",
        `  writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ NODE_EXTRA_CA_CERTS, KILN_TEST_EXTRA_CA_CERTS }));`,
        "});",
        "",
      ].join("\n"),
    );
    try {
      const result = spawnSync(
        process.execPath,
        ["scripts/run-tests.mjs", join(folder, "env.test.mjs")],
        {
          cwd: REPO,
          encoding: "utf8",
          env: topLevelRun({ KILN_TEST_NO_BUILD: "1", NODE_EXTRA_CA_CERTS: certificates }),
        },
      );
      assert.equal(result.status, 0, result.stdout + result.stderr);
      assert.deepEqual(JSON.parse(readFileSync(seen, "utf8")), {
        KILN_TEST_EXTRA_CA_CERTS: certificates,
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("the test files of test/core, web, node and cli share processes, unless a file changes a global", () => {
  /**
   * A folder with test/core/{a,b,c,d}.test.ts, each writing down its process's id; c replaces a
   * global, as a file that stubs fetch does, and d asks for a process of its own. Runs the
   * runner there; the ids and the summary line.
   */
  function runStandIns(options: string[]): { pids: Record<string, number>; summary: string } {
    const folder = mkdtempSync(join(tmpdir(), "kiln-shared-process-"));
    symlinkSync(join(REPO, "node_modules"), join(folder, "node_modules"));
    // ES modules, as this project's test files are (the runner loads only tsx's ESM half)
    writeFileSync(join(folder, "package.json"), '{"type": "module"}\n');
    const core = join(folder, "test", "core");
    mkdirSync(core, { recursive: true });
    const own: Record<string, string> = {
      c: "globalThis.fetch = async () => new Response('stub');",
      d: "// own process: it waits out a real deadline",
    };
    for (const name of ["a", "b", "c", "d"]) {
      writeFileSync(
        join(core, `${name}.test.ts`),
        [
          'import { writeFileSync } from "node:fs";',
          'import { test } from "node:test";',
          own[name] ?? "",
          `test("${name}", () => writeFileSync(${JSON.stringify(join(folder, `${name}.pid`))}, String(process.pid)));`,
          "",
        ].join("\n"),
      );
    }
    try {
      const result = spawnSync(
        process.execPath,
        [join(REPO, "scripts/run-tests.mjs"), ...options, "test/core"],
        { cwd: folder, encoding: "utf8", env: topLevelRun({ KILN_TEST_NO_BUILD: "1" }) },
      );
      assert.equal(result.status, 0, result.stdout + result.stderr);
      const pids = Object.fromEntries(
        ["a", "b", "c", "d"].map((name) => [
          name,
          Number(readFileSync(join(folder, `${name}.pid`), "utf8")),
        ]),
      );
      const summary = result.stdout.split("\n").find((line) => line.includes("test files in"));
      return { pids, summary: summary ?? result.stdout };
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }

  it("test/core's files run in one process; one that replaces a global or asks for its own in its own", () => {
    const { pids, summary } = runStandIns([]);
    assert.equal(pids.a, pids.b, "a and b share a process");
    assert.notEqual(pids.c, pids.a, "c, which replaces fetch, has its own");
    assert.notEqual(pids.d, pids.a, "d, which asks for one, has its own");
    assert.match(
      summary,
      /^4 test files in \d+:\d\d \(wall time, 3 at a time; 2 of them in 1 shared process\); the slowest:$/,
    );
  });

  it("--own-processes gives each file its own", () => {
    const { pids, summary } = runStandIns(["--own-processes"]);
    assert.equal(new Set([pids.a, pids.b, pids.c, pids.d]).size, 4);
    assert.match(summary, /^4 test files in \d+:\d\d \(wall time, 4 at a time\); the slowest:$/);
  });
});
