// `kiln mcp --allow-writes`, driven by the MCP SDK's own client over stdio against the REAL
// built binary in a project set up from a preset: add, update and remove write as the commands
// do - checked on disk and in kiln.lock - and answer what they wrote; update answers a conflict
// instead of settling it; a stranger's item that renders into `.git`, out of the project or
// into places other tools run as code (the CLI's hostile payloads) is refused with nothing
// written, and no argument an agent sends becomes an option. One server for the file.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  cleanUp,
  ensureBuilt,
  itemFile,
  kiln,
  setUpProject,
  tempDir,
  tree,
} from "../cli/helpers.ts";
import { ESCAPING_PATHS, EXEC_PATHS, EXEC_SPELLINGS, GIT_PATHS } from "../cli/hostile-payloads.ts";
import { callData, callError, type McpSession, startMcp } from "./mcp-client.ts";

let dir: string;
let session: McpSession;

before(async () => {
  ensureBuilt();
  dir = setUpProject("k8s-web-app");
  session = await startMcp(dir, ["--allow-writes"]);
});

after(async () => {
  await session.close();
  cleanUp();
});

interface LockedComponent {
  name: string;
  component: string;
  fields: Record<string, string>;
  files: { path: string }[];
}

function lockedComponents(): LockedComponent[] {
  return (
    JSON.parse(readFileSync(join(dir, "kiln.lock"), "utf8")) as { components: LockedComponent[] }
  ).components;
}

function read(path: string): string {
  return readFileSync(join(dir, path), "utf8");
}

describe("kiln mcp --allow-writes: the writing tools", () => {
  it("lists add, update and remove beside the tools that read", async () => {
    const { tools } = await session.client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ["add", "update", "remove", "plan_add", "diff"]) {
      assert.ok(names.includes(name), name);
    }
    assert.equal(tools.find((tool) => tool.name === "remove")?.annotations?.destructiveHint, true);
  });

  it("add writes the component's files and its kiln.lock entry, and answers each file written", async () => {
    const data = await callData(session, "add", {
      reference: "k8s/service",
      name: "cache",
      set: { port: "6379" },
      labels: { tier: "data" },
    });
    assert.deepEqual(data.files, [{ path: "k8s/cache-service.yaml", action: "new" }]);
    assert.deepEqual(data.report, [
      "created   k8s/cache-service.yaml",
      "added service/cache: 1 file in k8s/ (1 created)",
    ]);
    // the file is the one `kiln render` gives for the same values, in the project's namespace
    const rendered = JSON.parse(
      kiln(
        [
          "render",
          "k8s/service",
          "--name",
          "cache",
          "--port",
          "6379",
          "-l",
          "tier=data",
          "-N",
          "web",
          "--json",
        ],
        dir,
      ).stdout,
    ) as { files: { content: string }[] };
    assert.equal(read("k8s/cache-service.yaml"), rendered.files[0]?.content);
    const entry = lockedComponents().find((component) => component.name === "cache");
    assert.equal(entry?.component, "k8s/service");
    assert.equal(entry?.fields.port, "6379");
    assert.deepEqual(
      entry?.files.map((file) => file.path),
      ["k8s/cache-service.yaml"],
    );
  });

  it("add over a file that is there is refused without force, nothing written", async () => {
    const before = tree(dir);
    const refused = await callError(session, "add", { reference: "k8s/service", name: "api" });
    assert.equal(refused.kind, "already_exists");
    assert.deepEqual(tree(dir), before);
  });

  it("update answers a conflict with the user's edit and writes nothing; markers only when asked", async () => {
    const path = "k8s/api-deployment.yaml";
    writeFileSync(join(dir, path), read(path).replace("replicas: 2", "replicas: 4"));
    const before = tree(dir);
    const conflict = await callError(session, "update", {
      components: ["deployment/api"],
      set: { replicas: "3" },
    });
    assert.equal(conflict.message, "1 conflict in 1 file - nothing was written");
    assert.match(
      conflict.detail ?? "",
      /^k8s\/api-deployment\.yaml: spec\.replicas: yours 4, new 3$/m,
    );
    assert.deepEqual(tree(dir), before);

    // markers are written and the answer is still an error (they must be resolved), holding
    // each file the update wrote
    const marked = (await session.client.callTool({
      name: "update",
      arguments: { components: ["deployment/api"], set: { replicas: "3" }, conflicts: "markers" },
    })) as CallToolResult;
    assert.equal(marked.isError, true);
    const answer = marked.structuredContent as {
      error: { message: string };
      files: { path: string; action: string; conflicts: { keyPath: string }[] }[];
    };
    assert.equal(answer.error.message, "1 conflict in 1 file written with markers - resolve them");
    const [file] = answer.files;
    assert.deepEqual(
      [file?.path, file?.action, file?.conflicts.map((conflict) => conflict.keyPath)],
      [path, "conflict", ["spec.replicas"]],
    );
    assert.match(
      read(path),
      /^<<<<<<< yours\n {2}replicas: 4\n=======\n {2}replicas: 3\n>>>>>>> kiln update$/m,
    );
    assert.equal(
      lockedComponents().find((component) => component.name === "api")?.fields.replicas,
      "3",
    );
  });

  it("update with take settles each conflict for the side named, and answers the lines dropped", async () => {
    const path = "k8s/api-deployment.yaml";
    writeFileSync(
      join(dir, path),
      read(path).replace(/<<<<<<< yours\n.*?>>>>>>> kiln update\n/s, "  replicas: 5\n"),
    );
    const data = await callData(session, "update", {
      components: ["api"],
      set: { replicas: "6" },
      take: "theirs",
    });
    const [file] = data.files as { path: string; action: string }[];
    assert.equal(file?.path, path);
    assert.match(read(path), /^ {2}replicas: 6$/m);
    assert.doesNotMatch(read(path), /replicas: 5/);
  });

  it("remove deletes the component's files and its kiln.lock entry, and answers each file removed", async () => {
    const data = await callData(session, "remove", { component: "service/cache" });
    assert.deepEqual(data.removed, ["k8s/cache-service.yaml"]);
    assert.equal(existsSync(join(dir, "k8s/cache-service.yaml")), false);
    assert.equal(
      lockedComponents().some((component) => component.name === "cache"),
      false,
    );
  });
});

describe("kiln mcp --allow-writes: what a stranger's item cannot make it write", () => {
  /** add of a local item rendering `paths`: refused with `message`, nothing written. */
  async function refusedAdd(paths: string[], message: RegExp): Promise<void> {
    itemFile(
      dir,
      "items/evil.json",
      paths.map((path) => ({ path, template: "x\n" })),
    );
    const before = tree(dir);
    const refused = await callError(session, "add", { reference: "./items/evil.json", name: "c" });
    assert.equal(refused.kind, "invalid_request", paths.join(" "));
    assert.match(refused.message, message, paths.join(" "));
    assert.deepEqual(tree(dir), before, paths.join(" "));
  }

  it("every spelling of .git in a rendered path is refused", async () => {
    for (const path of GIT_PATHS) {
      await refusedAdd(["fine.txt", path], /kiln never writes to `\.git` or inside it/);
    }
  });

  it("paths that leave the project and absolute paths are refused", async () => {
    for (const path of ESCAPING_PATHS) {
      await refusedAdd(
        ["fine.txt", path],
        /escapes the target directory|absolute paths are not allowed/,
      );
    }
  });

  it("places other tools run as code are refused, and no tool can pass --allow-exec-paths", async () => {
    const asCode =
      /other tools run or load (these|it) as code; pass --allow-exec-paths if this is intended$/;
    await refusedAdd(["fine.txt", ...EXEC_PATHS], asCode);
    // each other spelling on its own: some are one file to a case-blind file system
    for (const path of EXEC_SPELLINGS) await refusedAdd(["fine.txt", path], asCode);
    // an option an agent slips in as an argument is not one: the schema drops unknown keys,
    // and a name or reference that looks like an option is taken as the name or reference
    itemFile(dir, "items/evil.json", [{ path: ".envrc", template: "x\n" }]);
    const before = tree(dir);
    const slipped = await callError(session, "add", {
      reference: "./items/evil.json",
      name: "--allow-exec-paths",
      allow_exec_paths: true,
      force: true,
    });
    assert.match(
      slipped.message,
      /^refusing to write `k8s\/\.envrc` - other tools run or load it as code/,
    );
    const asReference = await callError(session, "add", {
      reference: "--allow-exec-paths",
      name: "c",
    });
    assert.match(asReference.message, /^`--allow-exec-paths` is not a built-in component/);
    assert.deepEqual(tree(dir), before);
    assert.deepEqual(session.protocolErrors, []);
  });
});

/** The number of threads of process `pid` (Linux: /proc/<pid>/status); a worker is one. */
function threadsOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^Threads:\s+(\d+)$/m.exec(status)?.[1]);
}

describe("kiln mcp: a failed call leaves no worker behind", () => {
  it("an add of a registry's item that fails before it renders stops the worker it started early", async (t) => {
    // a folder with no kiln.toml: add fails reading the project, after it started the worker
    const session = await startMcp(tempDir(), ["--allow-writes"]);
    t.after(() => session.close());
    // the same failure for a built-in, which starts no worker: the process's idle thread count
    const builtin = await callError(session, "add", { reference: "k8s/service", name: "web" });
    assert.match(builtin.message, /^no kiln\.toml found in /);
    const idle = threadsOf(session.pid);
    const registry = await callError(session, "add", { reference: "@acme/redis", name: "web" });
    assert.match(registry.message, /^no kiln\.toml found in /);
    // the worker's thread ends once it is stopped: wait for that effect (a stopped worker that
    // was still starting ends as soon as it has started), failing after a generous while
    const deadline = Date.now() + 30_000;
    while (threadsOf(session.pid) > idle && Date.now() < deadline) await delay(50);
    assert.equal(threadsOf(session.pid), idle);
  });
});
