// What `kiln update` says about its merges: each conflict, at its key path when the merge was by
// structure (`spec.template.spec.containers[name=api].image: yours a, new b`) or at its lines;
// and, when --ours or --theirs settled conflicts, every hunk the side not taken lost - so no
// line is dropped without a word. Also the files of `kiln update --json`.

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
