// What `kiln update` says about its merges: each conflict, at its key path when the merge was by
// structure (`spec.template.spec.containers[name=api].image: yours a, new b`) or at its lines;
// and, when --ours or --theirs settled conflicts, every hunk the side not taken lost - so no
// line is dropped without a word. Also the files of `kiln update --json`, and the errors that
// stop a run at its conflicts - `kiln update`'s, and `kiln setup`'s and `kiln apply`'s when they
// merge into files kiln.lock tracks.

import { KilnError } from "../core/errors.ts";
import { plural } from "../core/plural.ts";
import type { FileOutcome } from "../core/project/file-outcomes.ts";
import type { Conflict, ConflictResolution } from "../core/project/merge.ts";
import type { ComponentUpdate } from "./lifecycle.ts";

/** The most lines of a discarded hunk printed; the rest are counted. */
const SHOWN_LINES = 10;

/** One hunk a side taken discarded: whose it was, where, and its text. */
export interface Discarded {
  /** `yours` (the file on disk, dropped by --theirs) or `new` (the render, dropped by --ours). */
  side: "yours" | "new";
  keyPath?: string | undefined;
  /** The lines it held in that side's file (1-based, inclusive; `end < start` for none). */
  lines?: { start: number; end: number } | undefined;
  /** The text dropped, line ends kept; empty when that side had nothing there. */
  text: string;
}

/** Lines shown without their line ends, one value on one line. */
const bare = (lines: readonly string[]) => lines.map((line) => line.replace(/\r?\n$/, ""));

/** A value as a conflict line shows it: its one line, or its first and how many more. */
function inline(lines: readonly string[]): string {
  if (lines.length === 0) return "(removed)";
  const [first = ""] = bare(lines);
  const cut = first.length > 100 ? `${first.slice(0, 100)}...` : first;
  return lines.length === 1 ? cut : `${cut} ... (${lines.length - 1} more lines)`;
}

/** The line of a structural conflict: `<path>: <key path>: yours <value>, new <value>`. */
export function keyPathConflictLine(path: string, conflict: Conflict): string {
  return `${path}: ${conflict.keyPath}: yours ${inline(conflict.ours.lines)}, new ${inline(conflict.theirs.lines)}`;
}

/** The hunks a resolution by one side dropped from a file's conflicts. */
export function discardedOf(outcome: FileOutcome, resolution: ConflictResolution): Discarded[] {
  if (outcome.action !== "conflict" || (resolution !== "ours" && resolution !== "theirs")) {
    return [];
  }
  const side = resolution === "ours" ? "new" : "yours";
  return outcome.conflicts.map((conflict) => {
    const dropped = resolution === "ours" ? conflict.theirs : conflict.ours;
    return {
      side,
      keyPath: conflict.keyPath,
      lines:
        conflict.keyPath === undefined ? { start: dropped.start, end: dropped.end } : undefined,
      text: dropped.lines.join(""),
    };
  });
}

const range = ({ start, end }: { start: number; end: number }): string =>
  end < start ? `after line ${end}` : start === end ? `line ${start}` : `lines ${start}-${end}`;

/** A short excerpt of conflicting lines: at most three, each cut at 100 characters. */
function excerpt(lines: readonly string[]): string[] {
  const shown = lines.slice(0, 3).map((line) => {
    const text = line.replace(/\r?\n$/, "");
    return text.length > 100 ? `${text.slice(0, 100)}...` : text;
  });
  if (lines.length > 3) shown.push(`... (${lines.length - 3} more)`);
  return shown.length === 0 ? ["(no lines)"] : shown;
}

/**
 * The error that stops a run with conflicts: each file, its key path and values or its ranges
 * and excerpts, then `hint` - what the command offers to settle them.
 */
export function conflictError(conflicted: readonly FileOutcome[], hint: string): KilnError {
  const count = conflicted.reduce((sum, outcome) => sum + outcome.conflicts.length, 0);
  const lines: string[] = [];
  for (const outcome of conflicted) {
    for (const conflict of outcome.conflicts) {
      // merged by structure: the key path and both values say it all
      if (conflict.keyPath !== undefined) {
        lines.push(keyPathConflictLine(outcome.path, conflict));
        continue;
      }
      lines.push(`${outcome.path}: yours ${range(conflict.ours)}, new ${range(conflict.theirs)}`);
      for (const line of excerpt(conflict.ours.lines)) lines.push(`    yours | ${line}`);
      for (const line of excerpt(conflict.theirs.lines)) lines.push(`    new   | ${line}`);
    }
  }
  lines.push(hint);
  return new KilnError(
    "invalid_request",
    `${plural(count, "conflict")} in ${plural(conflicted.length, "file")} - nothing was written`,
    lines.join("\n"),
  );
}

/**
 * The error that stops a run with files it cannot merge line by line: a file's own error (too
 * different, or its base in kiln.lock refused) when it is the only one, else each listed (a
 * refused base with its way out) and what --ours/--theirs would do.
 */
export function unmergedError(unmerged: readonly FileOutcome[]): KilnError {
  const reasons = unmerged.flatMap((outcome) => (outcome.unmerged ? [outcome.unmerged] : []));
  const [first] = reasons;
  if (reasons.length === 1 && first !== undefined) {
    return new KilnError(first.error.kind, first.error.message, first.error.detail);
  }
  const lines = reasons.flatMap(({ reason, error }) =>
    reason === "base-refused" && error.detail
      ? [error.message, `    ${error.detail}`]
      : [error.message],
  );
  lines.push(
    "nothing was written - --ours keeps each of these files as it is, --theirs takes the new render of each whole",
  );
  return new KilnError(
    "invalid_request",
    `${plural(reasons.length, "file")} cannot be merged automatically - use --ours/--theirs or resolve by hand`,
    lines.join("\n"),
  );
}

/** What the report prints under a file for the hunks dropped: where, then the text. */
export function discardedLines(discarded: readonly Discarded[]): string[] {
  return discarded.flatMap((hunk) => {
    const whose = hunk.side === "yours" ? "your" : "the new render's";
    const where = hunk.keyPath ?? (hunk.lines ? range(hunk.lines) : "");
    const lines = bare(hunk.text === "" ? [] : hunk.text.replace(/\n$/, "").split("\n"));
    const shown = lines.slice(0, SHOWN_LINES).map((line) => `      | ${line}`);
    if (lines.length > SHOWN_LINES)
      shown.push(`      ... (${lines.length - SHOWN_LINES} more lines)`);
    if (lines.length === 0) shown.push("      (nothing: that side had no lines here)");
    return [`    dropped ${whose} ${where}:`, ...shown];
  });
}

/** `kiln update --json`: each file's outcome and what a side taken dropped from it. */
export function updateJson(updates: readonly ComponentUpdate[], resolution: ConflictResolution) {
  return {
    files: updates.flatMap((update) =>
      update.outcomes.map((outcome) => ({
        component: update.entry.component,
        name: update.entry.name,
        path: outcome.path,
        ...(outcome.from ? { from: outcome.from } : {}),
        action: outcome.action,
        conflicts: outcome.conflicts.map((conflict) => ({
          ...(conflict.keyPath === undefined ? {} : { keyPath: conflict.keyPath }),
          yours: {
            start: conflict.ours.start,
            end: conflict.ours.end,
            text: conflict.ours.lines.join(""),
          },
          new: {
            start: conflict.theirs.start,
            end: conflict.theirs.end,
            text: conflict.theirs.lines.join(""),
          },
        })),
        discarded: discardedOf(outcome, resolution),
      })),
    ),
  };
}
