// What `kiln mcp --print-config <client>` prints: the entry that starts `kiln mcp` in each
// coding agent's MCP configuration file, in that file's own format (JSON, or TOML for Codex),
// and the file it belongs in. The clients are those `shadcn mcp init` sets up. Each entry runs
// kiln through npx, which takes the project's own kiln when it has one and the published
// package otherwise, so the snippet works on any machine the project is checked out on.
import type { MCP_CLIENTS } from "./command-list.ts";

type McpClient = (typeof MCP_CLIENTS)[number];

export interface ClientConfig {
  /** The configuration file the snippet goes into, as the client's documentation names it. */
  file: string;
  /** The snippet, ending with a line break. */
  text: string;
}

/** The command and arguments that start kiln's MCP server (`--allow-writes` when asked). */
function serverCommand(allowWrites: boolean): { command: string; args: string[] } {
  return { command: "npx", args: ["kiln", "mcp", ...(allowWrites ? ["--allow-writes"] : [])] };
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The snippet and file for one client. */
export function clientConfig(client: McpClient, allowWrites: boolean): ClientConfig {
  const server = serverCommand(allowWrites);
  switch (client) {
    case "claude":
      return { file: ".mcp.json", text: json({ mcpServers: { kiln: server } }) };
    case "cursor":
      return { file: ".cursor/mcp.json", text: json({ mcpServers: { kiln: server } }) };
    case "vscode":
      return { file: ".vscode/mcp.json", text: json({ servers: { kiln: server } }) };
    case "codex": {
      // Codex reads TOML; the strings are JSON-quoted, which TOML's basic strings accept as is
      const args = server.args.map((arg) => JSON.stringify(arg)).join(", ");
      return {
        file: "~/.codex/config.toml",
        text: `[mcp_servers.kiln]\ncommand = ${JSON.stringify(server.command)}\nargs = [${args}]\n`,
      };
    }
    case "opencode":
      return {
        file: "opencode.json",
        text: json({
          $schema: "https://opencode.ai/config.json",
          mcp: {
            kiln: { type: "local", command: [server.command, ...server.args], enabled: true },
          },
        }),
      };
  }
}
