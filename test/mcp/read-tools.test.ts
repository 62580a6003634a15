// `kiln mcp` without --allow-writes, driven by the MCP SDK's own client over stdio against the
// REAL built binary in a project set up from a preset: it initializes, offers only the tools
// that read, answers each of them with what the matching `kiln <command> --json` prints,
// serves the items and kiln.lock as resources, writes nothing whatever a tool is asked, keeps
// stdout for the protocol and exits cleanly when stdin closes. One server for the file.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  BIN,
  cleanEnv,
  cleanUp,
  ensureBuilt,
  kiln,
  presetOf,
  setUpProject,
  tree,
} from "../cli/helpers.ts";
import { ESCAPING_PATHS, GIT_PATHS } from "../cli/hostile-payloads.ts";
import { callData, callError, type McpSession, startMcp } from "./mcp-client.ts";

const READ_TOOLS = [
  "check_project",
  "diff",
  "explain_check",
  "list_components",
  "plan_add",
  "plan_setup",
  "project_status",
  "render_component",
  "search_items",
  "view_item",
];

let dir: string;
let session: McpSession;

before(async () => {
  ensureBuilt();
  dir = setUpProject("k8s-web-app");
  session = await startMcp(dir);
});

after(async () => {
  await session.close();
  cleanUp();
});

/** `kiln <args>` in the project, its JSON output parsed (the CLI's answer to compare with). */
function cliJson(args: string[]): unknown {
  return JSON.parse(kiln(args, dir).stdout);
}

describe("kiln mcp: the protocol", () => {
  it("initialize names the server kiln, with kiln's version, offering tools and resources", () => {
    const version = readFileSync(join(BIN, "..", "..", "..", "package.json"), "utf8");
    assert.deepEqual(session.client.getServerVersion(), {
      name: "kiln",
      version: (JSON.parse(version) as { version: string }).version,
    });
    const capabilities = session.client.getServerCapabilities();
    assert.ok(capabilities?.tools, "tools");
    assert.ok(capabilities?.resources, "resources");
    assert.match(session.client.getInstructions() ?? "", /started without --allow-writes/);
  });

  it("without --allow-writes only the tools that read are listed, each with input and output schemas", async () => {
    // listing the tools also makes the client check every later answer against its schema
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), READ_TOOLS);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, "object", tool.name);
      assert.equal(tool.outputSchema?.type, "object", tool.name);
      assert.ok(tool.outputSchema?.properties?.error, tool.name);
      assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
    }
  });
});

describe("kiln mcp: the tools that read answer what the commands print", () => {
  it("list_components answers the built-ins as `kiln list --json`", async () => {
    assert.deepEqual(await callData(session, "list_components"), cliJson(["list", "--json"]));
  });

  it("search_items answers the matches as `kiln search --json`, best first", async () => {
    const data = await callData(session, "search_items", { query: "deployment" });
    assert.deepEqual(data, { results: cliJson(["search", "deployment", "--json"]) });
    const [first] = data.results as { reference: string }[];
    assert.equal(first?.reference, "k8s/deployment");
  });

  it("view_item answers an item's fields, files and example render as `kiln view --json`", async () => {
    const data = await callData(session, "view_item", { reference: "k8s/deployment" });
    assert.deepEqual(data, cliJson(["view", "k8s/deployment", "--json"]));
    const fields = data.fields as { name: string; required: boolean }[];
    assert.equal(fields.find((field) => field.name === "image")?.required, true);
  });

  it("render_component answers the files for a name and values, and writes nothing", async () => {
    const before = tree(dir);
    const data = await callData(session, "render_component", {
      reference: "k8s/service",
      name: "web",
      set: { port: "80" },
      labels: { tier: "edge" },
    });
    assert.deepEqual(
      data,
      cliJson([
        "render",
        "k8s/service",
        "--name",
        "web",
        "--port",
        "80",
        "-l",
        "tier=edge",
        "--json",
      ]),
    );
    const [file] = data.files as { path: string; content: string }[];
    assert.equal(file?.path, "web-service.yaml");
    assert.match(file?.content ?? "", /tier: edge/);
    assert.deepEqual(tree(dir), before);
  });

  it("check_project answers the findings on disk as `kiln check --json`, with passed", async () => {
    const data = await callData(session, "check_project");
    assert.equal(data.errors, 0);
    assert.deepEqual(data, { passed: true, ...(cliJson(["check", "--json"]) as object) });
  });

  it("project_status and diff name a file deleted by hand: missing, and restored by an update", async () => {
    rmSync(join(dir, "k8s/worker-deployment.yaml"));
    const status = await callData(session, "project_status", { components: ["worker"] });
    assert.deepEqual(status, cliJson(["status", "worker", "--all", "--json"]));
    const [worker] = status.components as {
      name: string;
      files: { path: string; local: string }[];
    }[];
    assert.deepEqual(
      worker?.files.map((file) => [file.path, file.local]),
      [["k8s/worker-deployment.yaml", "missing"]],
    );
    const diff = await callData(session, "diff");
    assert.deepEqual(diff, cliJson(["diff", "--json"]));
    const [file] = diff.files as { path: string; action: string; patch: string }[];
    assert.equal(diff.differs, true);
    assert.deepEqual([file?.path, file?.action], ["k8s/worker-deployment.yaml", "restored"]);
    assert.match(file?.patch ?? "", /^\+\+\+ b\/k8s\/worker-deployment\.yaml$/m);
    kiln(["update", "worker"], dir);
  });

  it("plan_add answers each file add would write, with contents on request, and writes nothing", async () => {
    const before = tree(dir);
    const data = await callData(session, "plan_add", {
      reference: "k8s/service",
      name: "cache",
      set: { port: "6379" },
      include_contents: true,
    });
    const [file] = data.files as { path: string; action: string; content: string }[];
    assert.deepEqual([file?.path, file?.action], ["k8s/cache-service.yaml", "new"]);
    assert.match(file?.content ?? "", /port: 6379/);
    assert.match((data.report as string[]).at(-1) ?? "", /^dry run: nothing was written \(1 new/);
    // a file already there is planned as what the real run would do: refused without force
    const taken = await callError(session, "plan_add", { reference: "k8s/service", name: "api" });
    assert.equal(taken.kind, "already_exists");
    assert.match(taken.text, /k8s\/api-service\.yaml/);
    const forced = await callData(session, "plan_add", {
      reference: "k8s/service",
      name: "api",
      force: true,
    });
    assert.deepEqual(forced.files, [{ path: "k8s/api-service.yaml", action: "overwrite" }]);
    assert.deepEqual(tree(dir), before);
  });

  it("plan_setup answers the preset's files (all unchanged where it was set up) and writes nothing", async () => {
    const before = tree(dir);
    const data = await callData(session, "plan_setup", { preset: "k8s-web-app" });
    const files = data.files as { path: string; action: string }[];
    assert.ok(files.length >= 7);
    assert.deepEqual(
      files.filter((file) => file.action !== "unchanged"),
      [],
      JSON.stringify(data.report),
    );
    assert.equal("content" in (files[0] ?? {}), false, "contents only on request");
    assert.deepEqual(tree(dir), before);
  });

  it("explain_check answers a rule's severity, meaning and fix; an unknown rule is an error naming the rules", async () => {
    assert.deepEqual(await callData(session, "explain_check", { rule: "role-not-vendored" }), {
      rule: "role-not-vendored",
      severity: "error",
      meaning: "a play uses a role no component writes",
      fix: "add an automation/role component named after the role (the finding's fix adds the catalogue's suggested role), or take the role out of the play's roles",
    });
    const unknown = await callError(session, "explain_check", { rule: "no-such-rule" });
    assert.equal(unknown.kind, "not_found");
    assert.match(
      unknown.text,
      /^error: no check rule `no-such-rule`\n {2}the rules: .*role-not-vendored/,
    );
  });

  it("a tool's failure is a tool error with kiln's message and kind, as the CLI words it", async () => {
    const failure = await callError(session, "view_item", { reference: "k8s/deploymnet" });
    assert.equal(failure.kind, "invalid_request");
    // the text is what the CLI prints on stderr, byte for byte
    assert.equal(`${failure.text}\n`, kiln(["view", "k8s/deploymnet"], dir).stderr);
  });

  it("a warning the command prints (a registry that cannot be read) is a line of the answer's notes", async () => {
    const config = join(dir, "kiln.toml");
    const original = readFileSync(config, "utf8");
    writeFileSync(
      config,
      `${original}\n[registries]\n"@broken" = "http://127.0.0.1:1/r/{name}.json"\n`,
    );
    try {
      const data = await callData(session, "search_items", { query: "deployment" });
      const [note] = data.notes as string[];
      assert.match(note ?? "", /^@broken was not searched: failed to fetch its index/);
      assert.equal((data.results as { reference: string }[])[0]?.reference, "k8s/deployment");
    } finally {
      writeFileSync(config, original);
    }
  });
});

describe("kiln mcp: resources", () => {
  it("lists the built-in items as kiln://item/<reference> and reads one as view_item answers it", async () => {
    const { resources } = await session.client.listResources();
    const uris = resources.map((resource) => resource.uri);
    assert.ok(uris.includes("kiln://item/k8s/deployment"), uris.join(" "));
    assert.ok(uris.includes("kiln://project/kiln.lock"), uris.join(" "));
    const read = await session.client.readResource({ uri: "kiln://item/k8s/deployment" });
    const [content] = read.contents as { text: string }[];
    assert.deepEqual(
      JSON.parse(content?.text ?? ""),
      cliJson(["view", "k8s/deployment", "--json"]),
    );
  });

  it("reads a registry's item by its reference, @ and slashes included", async () => {
    const read = await session.client.readResource({ uri: "kiln://item/@kiln/aws-server" });
    const [content] = read.contents as { text: string; mimeType: string }[];
    assert.equal(content?.mimeType, "application/json");
    const view = JSON.parse(content?.text ?? "") as { reference: string; version: string };
    assert.deepEqual([view.reference, view.version], ["@kiln/aws-server", "1.0.0"]);
  });

  it("reads kiln://project/kiln.lock as the bytes of the project's kiln.lock", async () => {
    const read = await session.client.readResource({ uri: "kiln://project/kiln.lock" });
    const [content] = read.contents as { text: string }[];
    assert.equal(content?.text, readFileSync(join(dir, "kiln.lock"), "utf8"));
  });
});

describe("kiln mcp: without --allow-writes nothing is written", () => {
  it("calling a write tool is refused and leaves every file as it was", async () => {
    const before = tree(dir);
    for (const [name, args] of [
      ["add", { reference: "k8s/service", name: "cache" }],
      ["update", {}],
      ["remove", { component: "api" }],
    ] as const) {
      let refused: string;
      try {
        const result = await session.client.callTool({ name, arguments: args });
        assert.equal(result.isError, true, name);
        refused = JSON.stringify(result.content);
      } catch (error) {
        refused = (error as Error).message;
      }
      assert.match(refused, new RegExp(`Tool ${name} not found`));
    }
    assert.deepEqual(tree(dir), before);
  });

  it("a preset that renders into .git or out of the project is refused by plan_setup, writing nothing", async () => {
    for (const [index, path] of [...GIT_PATHS.slice(0, 3), ...ESCAPING_PATHS].entries()) {
      // the preset and its item in the project, where the preset names its item from
      const preset = presetOf(
        dir,
        ["fine.txt", path],
        { outputDir: "." },
        `evil${index}.preset.json`,
      );
      const before = tree(dir);
      const refused = await callError(session, "plan_setup", { preset, force: true });
      assert.equal(refused.kind, "invalid_request", path);
      assert.match(refused.message, /^refusing to write/, path);
      assert.deepEqual(tree(dir), before, path);
    }
    assert.deepEqual(session.protocolErrors, []);
  });
});

describe("kiln mcp: the process", () => {
  // the timeout is the fail-safe of a server that would not exit: an error instead of a hang
  it("stdout carries only the protocol, a call under way is answered, and the server exits 0 when stdin closes", {
    timeout: 60_000,
  }, async () => {
    const child = spawn(process.execPath, [BIN, "mcp"], { cwd: dir, env: cleanEnv() });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = new Promise<[number | null, string | null]>((resolve) =>
      child.on("exit", (code, signal) => resolve([code, signal])),
    );
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "project_status", arguments: {} },
    });
    child.stdin.end();
    assert.deepEqual(await exited, [0, null]);
    const messages = stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      messages.map((message) => [message.jsonrpc, message.id]),
      [
        ["2.0", 1],
        ["2.0", 2],
      ],
    );
    assert.equal(messages[1].result.isError, undefined);
  });

  it("--print-config prints each client's snippet on stdout and names its file on stderr", () => {
    const expected: Record<string, [string, string]> = {
      claude: [".mcp.json", '"mcpServers"'],
      cursor: [".cursor/mcp.json", '"mcpServers"'],
      vscode: [".vscode/mcp.json", '"servers"'],
      codex: ["~/.codex/config.toml", "[mcp_servers.kiln]"],
      opencode: ["opencode.json", '"mcp"'],
    };
    for (const [client, [file, key]] of Object.entries(expected)) {
      const run = kiln(["mcp", "--print-config", client], dir);
      assert.equal(run.status, 0, client);
      assert.equal(run.stderr, `add this to ${file}:\n`);
      assert.ok(run.stdout.includes(key), `${client}: ${run.stdout}`);
      assert.match(run.stdout, /"kiln", "mcp"\]|"kiln",\n\s+"mcp"\n/, client);
      if (client !== "codex") JSON.parse(run.stdout);
    }
    const writes = kiln(["mcp", "--print-config", "claude", "--allow-writes"], dir);
    assert.deepEqual(
      (JSON.parse(writes.stdout) as { mcpServers: { kiln: { args: string[] } } }).mcpServers.kiln
        .args,
      ["kiln", "mcp", "--allow-writes"],
    );
    const unknown = kiln(["mcp", "--print-config", "emacs"], dir);
    assert.equal(unknown.status, 2);
    assert.match(
      unknown.stderr,
      /^error: unknown client `emacs` for --print-config - one of: claude, cursor, vscode, codex, opencode\n/,
    );
  });
});
