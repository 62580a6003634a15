// What the MCP front is given to do its work: the CLI's commands, each run in-process with its
// output kept (src/cli/captured-run.ts), composed in src/main.ts so this front never imports
// the command line. Every tool is one such run: the same parsing, path rules and all-or-nothing
// writes as the command a person types, answered as data (src/core/command-run.ts).

import type { CommandRun } from "../core/command-run.ts";

/** Runs the kiln command `name` with `argv` (the arguments after its name). */
export type RunCommand = (name: string, argv: string[]) => Promise<CommandRun>;

export interface McpHost {
  runCommand: RunCommand;
}
