// Many calls at once to `kiln mcp --allow-writes`, as an agent that does not wait for one answer
// before sending the next: 60 adds of distinct components and 60 reads (status, plan_add,
// check) sent together, through the MCP SDK's client, to the real binary. Every call must be
// answered, every add must land on disk and in kiln.lock (calls run one after another, so no
// write reads a lock another write is replacing), and the protocol must stay clean. Part of
// `npm run test:stress`: it asserts what is right, never how fast.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cleanUp, ensureBuilt, setUpProject } from "../cli/helpers.ts";
import { type McpSession, startMcp } from "../mcp/mcp-client.ts";

const ADDS = Number(process.env.KILN_MCP_CALLS ?? 60);

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

test("calls sent all at once are each answered, and every add lands in kiln.lock", {
  timeout: 600_000,
}, async () => {
  const call = (name: string, args: Record<string, unknown>) =>
    session.client.callTool({ name, arguments: args }, undefined, {
      timeout: 600_000,
    }) as Promise<CallToolResult>;
  const names = Array.from({ length: ADDS }, (_, index) => `svc${index}`);
  const adds = names.map((name) =>
    call("add", { reference: "k8s/service", name, set: { port: "80" } }),
  );
  const reads = names.map((name, index) =>
    index % 3 === 0
      ? call("project_status", {})
      : index % 3 === 1
        ? call("plan_add", { reference: "k8s/service", name: `plan-${name}` })
        : call("check_project", {}),
  );
  const answers = await Promise.all([...adds, ...reads]);
  for (const [index, answer] of answers.entries()) {
    assert.notEqual(answer.isError, true, `call ${index}: ${JSON.stringify(answer.content)}`);
  }
  const lock = JSON.parse(readFileSync(join(dir, "kiln.lock"), "utf8")) as {
    components: { name: string }[];
  };
  const locked = new Set(lock.components.map((component) => component.name));
  for (const name of names) {
    assert.ok(locked.has(name), `${name} in kiln.lock`);
    assert.ok(existsSync(join(dir, "k8s", `${name}-service.yaml`)), `${name}'s file`);
  }
  assert.deepEqual(session.protocolErrors, []);
});
