// What the MCP front is given to do its work: the CLI's commands, each run in-process with its
// output kept (src/cli/captured-run.ts), composed in src/main.ts so this front never imports
// the command line. Every tool is one such run: the same parsing, path rules and all-or-nothing
// writes as the command a person types, answered as data. The shapes below are declared here
// and in cli/captured-run.ts alike, since neither front imports the other; main.ts hands one to
// the other, so the type check there fails the moment they disagree.

/** One file of a writing command's run (with --dry-run: what it would do). */
export interface RunFile {
  /** From the project root. */
  path: string;
  action: "new" | "overwrite" | "unchanged";
  content: string;
}

/** Why a command failed: the error's kind (`usage` for a wrong call), message and detail. */
export interface RunFailure {
  kind: string;
  message: string;
  detail?: string;
}

export interface CommandRun {
  /** The exit status the CLI would have: 0, 1 (failed), 2 (usage). */
  status: number;
  stdout: string;
  stderr: string;
  failure?: RunFailure;
  files: RunFile[];
  removed: string[];
}

/** Runs the kiln command `name` with `argv` (the arguments after its name). */
export type RunCommand = (name: string, argv: string[]) => Promise<CommandRun>;

export interface McpHost {
  runCommand: RunCommand;
}
