// Writing a plan (write-plan.ts) into the user's tree, all or nothing: each file is written
// atomically (a temporary file in the same folder, then a rename), and when any write fails
// the run is undone - new files and the folders made for them removed, overwritten files
// restored from the bytes read while planning.
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, relative } from "node:path";
import { KilnError } from "../core/errors.ts";
import { shortPath } from "../core/plan.ts";
import { writeAtomically } from "./atomic-write.ts";
import { type JournalChange, missingFolders, removeJournal, writeJournal } from "./journal.ts";
import {
  errorCode,
  type FolderRemoval,
  type RemoveStep,
  reasonFor,
  type Step,
} from "./write-plan.ts";
import { writingDone, writingStarted, writingUndone } from "./write-progress.ts";

/** What the run did, to undo it in reverse order. */
type Undo =
  | { kind: "folder"; path: string }
  | { kind: "new"; path: string }
  | { kind: "overwritten"; path: string; bytes: Buffer; mode: number }
  | { kind: "removed"; path: string; bytes: Buffer; mode: number }
  | { kind: "emptied"; path: string };

/**
 * Creates the missing folders above `file` one by one, journalling each for the undo.
 * `folders` remembers the folders known to exist, so siblings cost no further calls; `missing`
 * holds the folders found missing just before the writes (for the journal), so the one above a
 * new folder is made first instead of after a failed mkdir.
 */
function makeParents(
  file: string,
  journal: Undo[],
  folders: Set<string>,
  missing: ReadonlySet<string>,
): void {
  const folder = dirname(file);
  if (!folders.has(folder)) makeFolder(folder, journal, folders, missing);
}

/**
 * Makes `folder` and the missing folders above it. mkdir first, without a lookup before it: it
 * succeeds only for a folder this run creates (journalled, so the undo removes it), fails with
 * EEXIST for one that is there (a folder, or a link to one, is used as it is; anything else
 * fails the run, as a file in the way of a folder always did) and with ENOENT when the folder
 * above is missing too. A lookup of each new folder first (setup: 76) cost a system call each
 * and answered nothing mkdir does not.
 */
function makeFolder(
  folder: string,
  journal: Undo[],
  folders: Set<string>,
  missing: ReadonlySet<string>,
): void {
  const parent = dirname(folder);
  if (missing.has(parent) && !folders.has(parent)) makeFolder(parent, journal, folders, missing);
  try {
    mkdirSync(folder);
  } catch (error) {
    const code = errorCode(error);
    if (code === "EEXIST" && statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
      folders.add(folder);
      return;
    }
    if (code !== "ENOENT" || parent === folder || folders.has(parent)) throw error;
    makeFolder(parent, journal, folders, missing);
    mkdirSync(folder);
  }
  journal.push({ kind: "folder", path: folder });
  folders.add(folder);
}

/** Undoes the journal in reverse; returns what could not be undone, for the error message. */
function undo(journal: Undo[]): string[] {
  const failures: string[] = [];
  for (const entry of journal.reverse()) {
    try {
      if (entry.kind === "folder") rmdirSync(entry.path);
      else if (entry.kind === "emptied") mkdirSync(entry.path);
      else if (entry.kind === "new") unlinkSync(entry.path);
      else writeAtomically(entry.path, entry.bytes, entry.mode);
    } catch (error) {
      const shown = relative(process.cwd(), entry.path) || ".";
      failures.push(`${shown} (${errorCode(error) ?? (error as Error).name})`);
    }
  }
  return failures;
}

/** Why a write failed: a known reason, else the code; never the system's message with paths. */
function reason(error: unknown): string {
  const code = errorCode(error);
  if (code) return reasonFor(code);
  return `an unexpected error (${(error as Error).name})`;
}

/** The error for a failed write or removal, after the run was undone. */
function failed(display: string, error: unknown, journal: Undo[], verb: string): KilnError {
  const failures = undo(journal);
  const detail =
    failures.length === 0
      ? "nothing was changed: the files written before it were removed or restored"
      : `these could not be undone - check them by hand:\n${failures.map((f) => `  ${f}`).join("\n")}`;
  return new KilnError(
    "internal",
    `could not ${verb} \`${shortPath(display)}\` - ${reason(error)}`,
    detail,
  );
}

/**
 * Tests only (test/cli/quiet-output.test.ts): with KILN_TEST_PAUSE_FIFO naming a FIFO, the run
 * stops after its first write until the test has sent it a signal - it writes a line into the
 * FIFO (which waits for the test to read it: the run is now mid-write), then reads the FIFO
 * (which waits for the test to write, after its signal). A run interrupted mid-write is then
 * tested by that effect, not by a guess at timing.
 */
function pauseForTest(): void {
  const fifo = process.env.KILN_TEST_PAUSE_FIFO;
  if (fifo === undefined || fifo === "") return;
  writeFileSync(fifo, "paused\n");
  readFileSync(fifo);
}

/**
 * Writes the steps in order, then removes `removals`, then the folders they left empty
 * (`emptied`, innermost first; one that holds a file again is left). On any failure everything already
 * written or removed is undone and a KilnError says which file failed and why; the tree is as
 * it was before the run. The journal goes into `journalDir`: the folder kiln runs in, or
 * apply's `--into` folder when that is outside it (every journalled path is below it).
 */
export function commit(
  steps: readonly Step[],
  removals: readonly RemoveStep[] = [],
  journalDir = process.cwd(),
  emptied: readonly FolderRemoval[] = [],
): void {
  const journal: Undo[] = [];
  const folders = new Set<string>();
  // the journal on disk, for a run killed part-way (journal.ts): the next kiln command that
  // writes rolls it back. Written before the first write, removed after the last (or after
  // the undo). Each file with its bytes before the run and a hash of what the run writes, so
  // a replay touches a file only in a state this run can have left it in
  const changing = steps.filter((step) => step.status !== "unchanged");
  const changes: JournalChange[] = [
    ...changing.map((step) => ({
      destination: step.destination,
      original: step.original,
      content: step.content,
    })),
    ...removals.map((removal) => ({
      destination: removal.destination,
      original: removal.original,
    })),
  ];
  if (changes.length > 0) writingStarted();
  // the folders the writes will make (missingFolders looks each up): the journal lists them for
  // a replay, and the writes make each parent before its child
  const missing = new Set(
    changes.length === 0 ? [] : missingFolders(changing.map((step) => step.destination)),
  );
  const journalPath =
    changes.length === 0
      ? undefined
      : writeJournal(
          journalDir,
          changes,
          [...missing],
          emptied.map((folder) => folder.destination),
        );
  const crashAfter = Number(process.env.KILN_TEST_CRASH_AFTER_WRITES ?? Number.NaN);
  let written = 0;
  // While writing, SIGINT/SIGTERM must not kill the process between two files. The writes are
  // synchronous, so a listener only delays the signal until the run is complete (or undone).
  const ignore = () => {};
  process.on("SIGINT", ignore);
  process.on("SIGTERM", ignore);
  try {
    for (const step of steps) {
      if (step.status === "unchanged") continue;
      try {
        makeParents(step.destination, journal, folders, missing);
        if (step.status === "new") {
          // a file that appeared since planning is not ours to replace
          if (lstatSync(step.destination, { throwIfNoEntry: false })) {
            throw Object.assign(new Error("file exists"), { code: "EEXIST" });
          }
          writeAtomically(step.destination, step.content);
          journal.push({ kind: "new", path: step.destination });
        } else {
          const original = step.original as { bytes: Buffer; mode: number };
          writeAtomically(step.destination, step.content, original.mode);
          journal.push({ kind: "overwritten", path: step.destination, ...original });
        }
        // tests only: die here as a SIGKILL would, mid-run (test/cli/lifecycle.test.ts); each
        // removal of a file or an emptied folder counts as a write too
        written += 1;
        if (written === crashAfter) process.kill(process.pid, "SIGKILL");
        if (written === 1) pauseForTest();
      } catch (error) {
        const failure = failed(step.display, error, journal, "write");
        removeJournal(journalPath);
        writingUndone();
        throw failure;
      }
    }
    for (const removal of removals) {
      try {
        unlinkSync(removal.destination);
        journal.push({ kind: "removed", path: removal.destination, ...removal.original });
        written += 1;
        if (written === crashAfter) process.kill(process.pid, "SIGKILL");
      } catch (error) {
        const failure = failed(removal.display, error, journal, "remove");
        removeJournal(journalPath);
        writingUndone();
        throw failure;
      }
    }
    for (const folder of emptied) {
      try {
        rmdirSync(folder.destination);
        journal.push({ kind: "emptied", path: folder.destination });
        written += 1;
        if (written === crashAfter) process.kill(process.pid, "SIGKILL");
      } catch (error) {
        // a file put in it since planning is someone's: the folder stays, and that is no failure
        const code = errorCode(error);
        if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOENT") continue;
        const failure = failed(folder.display, error, journal, "remove");
        removeJournal(journalPath);
        writingUndone();
        throw failure;
      }
    }
    removeJournal(journalPath);
    writingDone(changes.length);
  } finally {
    process.off("SIGINT", ignore);
    process.off("SIGTERM", ignore);
  }
}
