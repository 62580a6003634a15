// What the commands say about an interrupted run. A command that writes rolls it back first
// (src/node/journal.ts checks and replays the journal) and says what it put back. A command
// that only reads prints a note when a run was interrupted in its folder: the files there may
// be half-written until a command that writes rolls the run back. Only an lstat - the journal
// is neither read nor replayed then - so a stranger's journal costs a read-only command nothing.
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { JOURNAL_FILE } from "../core/config.ts";
import { rollBackInterruptedRun } from "../node/journal.ts";
import type { Output } from "./output.ts";

/** The commands that roll an interrupted run back, as the note names them. */
const WRITING_COMMANDS = "kiln add, apply, init, remove, setup or update";

export function noteInterruptedRun(dir: string, output: Output): void {
  let present: boolean;
  try {
    present = lstatSync(join(dir, JOURNAL_FILE), { throwIfNoEntry: false }) !== undefined;
  } catch {
    return;
  }
  if (!present) return;
  output.note(
    `note: a kiln run in this folder was interrupted part-way (${JOURNAL_FILE} is here) - its files may be half-written until a command that writes (${WRITING_COMMANDS}) rolls it back`,
  );
}

/** Rolls back a run killed part-way in `dir` (see src/node/journal.ts) and says so on stderr. */
export function recoverInterruptedRun(dir: string, output: Output): void {
  const rolledBack = rollBackInterruptedRun(dir);
  if (rolledBack === undefined) return;
  const { shown, folder, files } = rolledBack;
  const what = files === 1 ? "the file" : `the ${files} files`;
  output.note(
    `note: a kiln run in ${folder} was interrupted part-way - rolled back ${what} it was changing (${shown} removed)`,
  );
}
