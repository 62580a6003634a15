// What add, setup and apply print about the files of a run: one line per file, then a count.
import { plural } from "../core/plural.ts";
import type { Step } from "../node/write-plan.ts";
import { discardedLines } from "./merge-report.ts";
import type { Output } from "./output.ts";
import type { MergeLine } from "./tracked-merge.ts";

const DONE = { new: "created", overwrite: "overwrote", unchanged: "unchanged" } as const;

/**
 * One line per file the run changes (or, with --dry-run, would change); with `verbose` (-v) the
 * unchanged ones too. A file whose bytes stay as they are (also a tracked file whose edits are
 * kept) is left out by default, as it needs no review, unless a side taken dropped lines from
 * it: what is dropped is always printed. A file other tools run or load as code (written
 * because of --allow-exec-paths) says so on its line, and a last line names them all again; so
 * does a file kiln.lock tracks that was edited by hand since kiln wrote it and is overwritten
 * (`edited`: those steps), since the run discards the edits. A tracked file the run merged into
 * (setup, apply: `merged`, by the step's display) has its own word and note, and the hunks a
 * side taken dropped from it under its line.
 */
export function reportSteps(
  output: Output,
  all: readonly Step[],
  dryRun: boolean,
  edited: readonly Step[] = [],
  merged: ReadonlyMap<string, MergeLine> = new Map(),
  verbose = false,
): void {
  output.recorder?.steps(all, dryRun);
  const style = output.out;
  const steps = listed(all);
  for (const step of steps) {
    const merge = merged.get(step.display);
    const dropped = merge !== undefined && merge.discarded.length > 0;
    if (!verbose && step.status === "unchanged" && !dropped) continue;
    if (merge !== undefined) {
      output.line(
        `${style[merge.tone](merge.word.padEnd(9))} ${output.path(step.display)}  ${merge.note}`,
      );
      for (const line of discardedLines(merge.discarded)) output.line(line);
      continue;
    }
    const word = dryRun ? step.status : DONE[step.status];
    const colour =
      step.status === "new" ? style.green : step.status === "overwrite" ? style.yellow : style.dim;
    const exec = step.execRule ? `  ${style.yellow(`(run as code: ${step.execRule.runBy})`)}` : "";
    const discarded = edited.includes(step)
      ? `  ${style.yellow(`(edited since kiln wrote it: the edits ${dryRun ? "would be" : "were"} discarded)`)}`
      : "";
    output.line(`${colour(word.padEnd(9))} ${output.path(step.display)}${discarded}${exec}`);
  }
  const exec = steps.filter((step) => step.execRule !== undefined);
  if (exec.length > 0) {
    output.line(
      `${style.yellow("note:")} ${plural(exec.length, "file")} other tools run or load as code ${dryRun ? "would be" : "were"} written (--allow-exec-paths): ${exec.map((step) => output.path(step.display)).join(", ")} - read ${exec.length === 1 ? "it" : "them"} before you run those tools`,
    );
  }
  if (edited.length > 0) {
    output.line(
      `${style.yellow("note:")} ${dryRun ? "would discard" : "discarded"} the hand edits of ${plural(edited.length, "file")} kiln.lock tracks: ${edited.map((step) => output.path(step.display)).join(", ")}${dryRun ? " - `kiln update <component>/<name>` keeps them" : ""}`,
    );
  }
}

/** The steps a report lists: the files rendered, not kiln's bookkeeping (kiln.lock). */
function listed(steps: readonly Step[]): Step[] {
  return steps.filter((step) => step.quiet !== true);
}

/** `1 new, 0 overwrite, 2 unchanged`: how many files of each kind a run has. */
export function countSteps(all: readonly Step[]): string {
  const steps = listed(all);
  const count = (status: Step["status"]) => steps.filter((step) => step.status === status).length;
  return `${count("new")} new, ${count("overwrite")} overwrite, ${count("unchanged")} unchanged`;
}

/** How a summary counts the files of each status. */
const COUNTED = { new: "created", overwrite: "overwritten", unchanged: "unchanged" } as const;

/** `1 created, 2 unchanged`: what a run did to its files, each kind it did at least once. */
export function doneCounts(all: readonly Step[]): string {
  const steps = listed(all);
  return (["new", "overwrite", "unchanged"] as const)
    .map(
      (status) => [COUNTED[status], steps.filter((step) => step.status === status).length] as const,
    )
    .filter(([, count]) => count > 0)
    .map(([word, count]) => `${count} ${word}`)
    .join(", ");
}

/**
 * The closing line of a dry run: nothing was written, and how to do it for real (`needsForce`:
 * the real run would refuse to overwrite without --force, and the error follows). `merged`:
 * how many files kiln.lock tracks and the user edited the run merges into (setup, apply),
 * counted among the others by what happens to their bytes, and named once more at the end.
 */
export function reportDryRun(
  output: Output,
  steps: readonly Step[],
  needsForce = false,
  merged = 0,
): void {
  const how = needsForce ? "with --force and " : "";
  const edits =
    merged === 0 ? "" : `; your edits kept in ${plural(merged, "file")} kiln.lock tracks`;
  output.line(
    `dry run: nothing was written (${countSteps(steps)}${edits}) - run again ${how}without --dry-run to write`,
  );
}
