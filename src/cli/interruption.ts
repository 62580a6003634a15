// Ctrl-C (SIGINT) and SIGTERM in a command that writes, and the one line that says what the
// interrupted run left. Before the first write the run stops at once: `interrupted - nothing was
// written`. The writes themselves are synchronous (src/node/write-commit.ts), so a signal that
// comes while they run is only seen once they are all done (or undone after a failure): the run
// then ends with `interrupted - all N files were written`, after its report. Either way the exit
// status is the shell's for the signal (130 for SIGINT, 143 for SIGTERM), and the line is
// printed even with -q: it is what the user must know about the files.
import { plural } from "../core/plural.ts";
import { writeProgress } from "../node/write-progress.ts";
import { forTerminal, writeFd } from "./output.ts";

const SIGNALS = ["SIGINT", "SIGTERM"] as const;
type Signal = (typeof SIGNALS)[number];

/** The exit status a shell gives a process the signal stopped: 128 + its number. */
const STATUS_FOR: Record<Signal, number> = { SIGINT: 130, SIGTERM: 143 };

const NOTHING_WRITTEN = "interrupted - nothing was written";

/** The line for a run interrupted after its writes: how many files they changed. */
function allWrittenLine(files: number): string {
  return files === 0
    ? NOTHING_WRITTEN
    : `interrupted - all ${files === 1 ? "1 file was" : `${plural(files, "file")} were`} written`;
}

function printLine(line: string): void {
  writeFd(2, `${forTerminal(line)}\n`);
}

/** Lets the event loop turn twice, so that a signal that came during synchronous writes is seen. */
async function signalsDelivered(): Promise<void> {
  // the first turn may end right after the phase it started in; the second has a poll phase,
  // where the signal's notification (written by libuv's handler into its pipe) is read
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
}

export interface InterruptionGuard {
  /**
   * After the command: when a signal came once its writes had begun, says what was written
   * (after `flush`, so the report comes first) and returns the signal's exit status; else the
   * command's own `status`.
   */
  finish(status: number, flush: () => void): Promise<number>;
}

/**
 * Holds SIGINT and SIGTERM for a command that writes, from its start to its end. A signal
 * before the first write ends the run there (nothing to undo: no file was touched); one after
 * is remembered and reported by `finish`.
 */
export function guardInterruptions(): InterruptionGuard {
  let received: Signal | undefined;
  const listener = (signal: Signal) => {
    received ??= signal;
    if (writeProgress().phase !== "planning") return;
    printLine(NOTHING_WRITTEN);
    process.exit(STATUS_FOR[signal]);
  };
  for (const signal of SIGNALS) process.on(signal, listener);
  return {
    async finish(status, flush) {
      await signalsDelivered();
      for (const signal of SIGNALS) process.off(signal, listener);
      if (received === undefined) return status;
      const progress = writeProgress();
      // a failed write was undone, and its error said so
      if (progress.phase === "undone") return status;
      flush();
      printLine(progress.phase === "written" ? allWrittenLine(progress.files) : NOTHING_WRITTEN);
      return STATUS_FOR[received];
    },
  };
}
