// What one kiln command run in-process gives back, as data: its exit status, what it printed,
// why it failed, the files it wrote or removed, its warnings and its `--json` document. The CLI makes these (src/cli/captured-run.ts)
// and the MCP front answers with them (src/mcp/); the shape lives here, below both fronts, so
// neither imports the other.

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
  /** The files the run wrote or would write; kiln's own bookkeeping (kiln.lock) left out. */
  files: RunFile[];
  /** The files the run removed, from the project root. */
  removed: string[];
  /** Each warning the run printed, without `warning: ` (the whole message, every line of it). */
  warnings: string[];
  /** The document a `--json` run printed, as the value it serialised; undefined when none. */
  document?: unknown;
}
