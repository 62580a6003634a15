// The note a command that only reads prints when a run was interrupted in its folder: the
// files there may be half-written until a command that writes rolls the run back. Only an
// lstat - the journal is neither read nor replayed here (src/cli/journal.ts does that, for
// commands that write) - so a stranger's journal costs a read-only command nothing.
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { JOURNAL_FILE } from "../core/config.ts";
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
  output.hint(
    `note: a kiln run in this folder was interrupted part-way (${JOURNAL_FILE} is here) - its files may be half-written until a command that writes (${WRITING_COMMANDS}) rolls it back`,
  );
}
