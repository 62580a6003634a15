// How far the writes of this process's run have come: planning (nothing written), writing,
// written (how many files) or undone. write-commit.ts moves it along; the command line reads it
// when Ctrl-C or SIGTERM arrives, to say exactly what the interrupted run left
// (src/cli/interruption.ts).
//
// Kept on globalThis, not in this module: the bundle has a copy of this module in main.js and
// in each command's file, and main.js must read what the command's copy of write-commit.ts set.

export type WritePhase = "planning" | "writing" | "written" | "undone";

interface WriteProgress {
  phase: WritePhase;
  /** Files the finished writes changed on disk: written, replaced or removed. */
  files: number;
}

const PROGRESS_KEY = Symbol.for("kiln.write-progress");

function progress(): WriteProgress {
  const shared = globalThis as { [PROGRESS_KEY]?: WriteProgress };
  shared[PROGRESS_KEY] ??= { phase: "planning", files: 0 };
  return shared[PROGRESS_KEY];
}

/** The first write of a run is about to happen (its journal first). */
export function writingStarted(): void {
  progress().phase = "writing";
}

/** A run's writes are all done: `files` files changed on disk. */
export function writingDone(files: number): void {
  const state = progress();
  state.phase = "written";
  state.files += files;
}

/** A write failed and the run was undone: the error says so, nothing is left written. */
export function writingUndone(): void {
  progress().phase = "undone";
}

/** Where the run is, and how many files its finished writes changed. */
export function writeProgress(): Readonly<WriteProgress> {
  return progress();
}
