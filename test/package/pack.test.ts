// The package as users install it: `npm pack` of this tree, installed into an empty prefix from
// the tarball (its dependencies from the registry, as `npm install -g kiln` would), then the
// installed `kiln` runs: --version, setup of the largest preset, and serve --ui with the
// dashboard answering. Needs the build (`npm test` builds first) and the npm registry.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import { REPO } from "../cli/helpers.ts";

const scratch = mkdtempSync(join(tmpdir(), "kiln-pack-"));
const prefix = join(scratch, "prefix");
const kiln = join(prefix, "bin", "kiln");
const version = (
  JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }
).version;

/**
 * This environment, with the CA certificates the test runner set aside put back
 * (scripts/run-tests.mjs): npm reaches the registry, perhaps through a proxy that needs them.
 */
function withCaCerts(): NodeJS.ProcessEnv {
  const extraCaCerts = process.env.KILN_TEST_EXTRA_CA_CERTS;
  return extraCaCerts === undefined
    ? process.env
    : { ...process.env, NODE_EXTRA_CA_CERTS: extraCaCerts };
}

function run(command: string, args: string[], cwd: string, env = process.env) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout: 300_000, env });
  assert.equal(result.status, 0, `${command} ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

describe("the packed package, installed into an empty prefix", () => {
  before(() => {
    // the build is npm test's; --ignore-scripts so packing never builds again
    run("npm", ["pack", "--ignore-scripts", "--pack-destination", scratch], REPO, withCaCerts());
    const tarball = readdirSync(scratch).find((name) => name.endsWith(".tgz")) as string;
    run(
      "npm",
      [
        "install",
        "--global",
        "--prefix",
        prefix,
        "--no-audit",
        "--no-fund",
        join(scratch, tarball),
      ],
      scratch,
      withCaCerts(),
    );
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it("ships both JSON Schemas, where a file's $schema can name them", () => {
    const schemas = join(prefix, "lib", "node_modules", "kiln", "src", "core", "schemas");
    for (const name of ["preset.schema.json", "registry-item.schema.json"]) {
      const schema = JSON.parse(readFileSync(join(schemas, name), "utf8")) as { $schema: string };
      assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema", name);
    }
  });

  it("ships @kiln, kiln's own registry, built: its index and each item file", () => {
    const registry = join(prefix, "lib", "node_modules", "kiln", "dist", "registries", "kiln");
    const index = JSON.parse(readFileSync(join(registry, "registry.json"), "utf8")) as {
      name: string;
      items: { name: string; version: string }[];
    };
    assert.equal(index.name, "kiln");
    assert.ok(index.items.length >= 6, "the six server items");
    for (const item of index.items) {
      const text = readFileSync(join(registry, `${item.name}@${item.version}.json`), "utf8");
      assert.equal(readFileSync(join(registry, `${item.name}.json`), "utf8"), text);
    }
  });

  it("kiln --version", () => {
    assert.equal(run(kiln, ["--version"], scratch), `kiln ${version}\n`);
  });

  it("kiln setup multi-tier-platform writes the whole project", () => {
    const dir = mkdtempSync(join(scratch, "project-"));
    const output = run(kiln, ["setup", "multi-tier-platform"], dir);
    assert.match(output, /77 files/);
    assert.ok(readdirSync(join(dir, "infra")).length > 0);
    assert.match(readFileSync(join(dir, "kiln.toml"), "utf8"), /^\[project\]$/m);
  });

  it("kiln mcp answers initialize with the MCP SDK bundled in (no SDK among the dependencies)", () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    };
    // stdin closes after the message, which ends the server once it has answered
    const result = spawnSync(kiln, ["mcp"], {
      cwd: scratch,
      input: `${JSON.stringify(initialize)}\n`,
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(result.status, 0, result.stderr);
    const answer = JSON.parse(result.stdout) as { id: number; result: { serverInfo: unknown } };
    assert.deepEqual(answer.result.serverInfo, { name: "kiln", version });
    const installed = join(prefix, "lib", "node_modules", "kiln", "node_modules");
    assert.equal(readdirSync(installed).includes("@modelcontextprotocol"), false);
  });

  it("kiln serve --ui answers the API and the dashboard", async () => {
    const child = spawn(kiln, ["serve", "--ui", "--port", "0", "--drain-delay", "0"], {
      cwd: scratch,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).on("line", resolve);
        child.on("exit", (code) => reject(new Error(`serve exited with ${code}`)));
      });
      const base = /^kiln listening on (\S+)$/.exec(line)?.[1] as string;
      assert.equal(await (await fetch(`${base}/api/health`)).text(), "ok");
      const page = await fetch(`${base}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<div id="app"|<script/);
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });
});
