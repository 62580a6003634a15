// The MCP tests' client: the SDK's own Client over its stdio transport, spawning the REAL built
// binary (`dist/cli/main.js mcp`) in a project folder, as a coding agent starts it. Anything the
// server writes to stdout that is not the protocol reaches the client as a transport error,
// which `protocolErrors` collects for the tests to assert there were none.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BIN, cleanEnv } from "../cli/helpers.ts";

export interface McpSession {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Errors the client's transport met (a stray line on stdout is one). */
  protocolErrors: Error[];
  /** The server's process id. */
  pid: number;
  close(): Promise<void>;
}

/** Starts `kiln mcp [args]` in `cwd` and connects the SDK's client to it (initialize). */
export async function startMcp(cwd: string, args: string[] = []): Promise<McpSession> {
  const env = Object.fromEntries(
    Object.entries(cleanEnv()).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", ...args],
    cwd,
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "kiln-test", version: "1.0.0" });
  const protocolErrors: Error[] = [];
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    protocolErrors,
    pid: transport.pid as number,
    close: () => client.close(),
  };
}

/** Calls a tool and returns its structured answer; fails the test when the tool failed. */
export async function callData(
  session: McpSession,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const result = (await session.client.callTool({ name, arguments: args })) as CallToolResult;
  assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`);
  const data = result.structuredContent as Record<string, unknown>;
  // the text content is the same data, for clients that read only text
  const [first] = result.content;
  assert.equal(first?.type, "text");
  assert.deepEqual(JSON.parse((first as { text: string }).text), data);
  return data;
}

/** Calls a tool that must fail; returns kiln's error (kind, message, detail) and its text. */
export async function callError(
  session: McpSession,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ kind: string; message: string; detail?: string; text: string }> {
  const result = (await session.client.callTool({ name, arguments: args })) as CallToolResult;
  assert.equal(result.isError, true, `${name} should fail: ${JSON.stringify(result.content)}`);
  const [first] = result.content;
  const text = (first as { text: string }).text;
  const error = (result.structuredContent as { error: { kind: string; message: string } }).error;
  return { ...error, text };
}
