// `kiln mcp`: kiln's operations as a Model Context Protocol server over stdio, with the official
// SDK, for coding agents. stdout carries the protocol only: every command runs in-process with
// its output kept (command-host.ts) and answered as tool results. The tools that write are
// registered only with --allow-writes, so without it a client cannot even name them. Calls run
// one at a time, as commands typed one after another: each works on the files the one before
// left. The server ends when stdin closes, after the call under way has finished.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CommandRun } from "../core/command-run.ts";
import { readVersion } from "../node/version.ts";
import type { McpHost } from "./command-host.ts";
import { registerResources } from "./resources.ts";
import { registerCatalogueTools } from "./tools/catalogue-tools.ts";
import { registerProjectTools } from "./tools/project-tools.ts";
import { registerWriteTools } from "./tools/write-tools.ts";

export interface McpServerSettings {
  allowWrites: boolean;
}

const INSTRUCTIONS = `kiln vendors infrastructure files (Kubernetes manifests, Terraform, automation files) rendered from templates into this project, and records them in kiln.lock.
Find an item with search_items or list_components, read it with view_item, try it with render_component, and see what adding it would write with plan_add (plan_setup for a preset).
check_project, project_status and diff read the project as it is on disk; explain_check tells what a finding's rule means and how to fix it.`;

const WRITES_ON = `
add, update and remove write into the project, all or nothing; update answers conflicts instead of settling them.`;

const WRITES_OFF = `
This server was started without --allow-writes: it writes nothing. Give the user the kiln command to run instead (plan_add shows what it writes).`;

/** One call after the other: each command starts when the one before has finished. */
function serialized(runCommand: McpHost["runCommand"]): McpHost["runCommand"] {
  let last: Promise<unknown> = Promise.resolve();
  return (name, argv) => {
    const next: Promise<CommandRun> = last.then(() => runCommand(name, argv));
    last = next.catch(() => undefined);
    return next;
  };
}

/** Serves until stdin closes; resolves to the exit status (0). */
export async function runMcpServer(settings: McpServerSettings, host: McpHost): Promise<number> {
  const server = new McpServer(
    { name: "kiln", version: readVersion() },
    { instructions: INSTRUCTIONS + (settings.allowWrites ? WRITES_ON : WRITES_OFF) },
  );
  let running: Promise<unknown> = Promise.resolve();
  const runCommand = serialized(host.runCommand);
  const tracked: McpHost = {
    runCommand: (name, argv) => {
      const run = runCommand(name, argv);
      running = run.catch(() => undefined);
      return run;
    },
  };
  registerCatalogueTools(server, tracked);
  registerProjectTools(server, tracked);
  if (settings.allowWrites) registerWriteTools(server, tracked);
  registerResources(server, tracked);

  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  await server.connect(transport);
  await closed;
  // a write under way finishes (all or nothing) before the process ends
  await running;
  await server.close();
  return 0;
}
