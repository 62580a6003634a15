// kiln mcp, the command line's half: its options, checked, as the settings the MCP server runs
// with, and `--print-config <client>`, answered here without loading the server. The program's
// entry (src/main.ts) hands the settings to the server (src/mcp/mcp-server.ts), which loads the
// MCP SDK: no other command pays for it.
import { flag, stringOption, UsageError } from "../args.ts";
import { MCP, MCP_CLIENTS } from "../command-list.ts";
import { type ClientConfig, clientConfig } from "../mcp-client-config.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";

export function help(): string {
  return commandHelp(MCP, {
    title: "serve kiln's tools to coding agents over the Model Context Protocol",
    about: `Speaks MCP on stdin and stdout, for a coding agent that starts it: stdout carries only the
protocol, and what a command would print (its report, its warnings) is in the tool's answer.
Works on the project it is started in, found as every project command finds it.
The tools list, search, view and render items, and check, show the status and the diff of the
project and plan what add and setup would write; they write nothing. With --allow-writes it
also offers add, update and remove, which write as the commands do: all or nothing, inside the
project only. Ends when stdin closes. docs/mcp.md lists every tool.`,
    examples: [
      "kiln mcp --print-config claude",
      "kiln mcp --print-config vscode --allow-writes",
      "kiln mcp --allow-writes",
    ],
  });
}

export interface McpSettings {
  allowWrites: boolean;
}

/** The server's settings, or the configuration snippet `--print-config` asks for. */
export function settingsFrom(argv: string[]): McpSettings & { printConfig?: ClientConfig } {
  const { parsed } = parseCommand(argv, MCP);
  const allowWrites = flag(parsed, "allow-writes");
  const client = stringOption(parsed, "print-config");
  if (client === undefined) return { allowWrites };
  const known = MCP_CLIENTS.find((name) => name === client);
  if (known === undefined) {
    throw new UsageError(
      `unknown client \`${client}\` for --print-config - one of: ${MCP_CLIENTS.join(", ")}`,
    );
  }
  return { allowWrites, printConfig: clientConfig(known, allowWrites) };
}

/** Prints a client's snippet: on stdout, alone, to paste; the file it goes in on stderr. */
export function printConfig(config: ClientConfig, output: Output): number {
  output.note(`add this to ${config.file}:`);
  output.verbatim(config.text);
  return 0;
}
