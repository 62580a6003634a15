// The three-way merge of one vendored file: base = what kiln wrote last time, ours = the file
// on disk (the user's edits), theirs = the new render. Line by line with node-diff3 (the
// diff3 algorithm of Khanna, Kunal and Pierce, as GNU diff3 and git use it), lines kept with
// their line ends so the result is exact to the byte. Pure: runs in the browser too.
import { diff3Merge } from "node-diff3";

/** How a conflict is settled: not at all (the caller stops), with markers, or by one side. */
export type ConflictResolution = "stop" | "markers" | "ours" | "theirs";

/** One region both sides changed differently. Line numbers are 1-based and inclusive. */
export interface Conflict {
  /** The lines of the file on disk (yours) in conflict; `end < start` for none (a deletion). */
  ours: { start: number; end: number; lines: string[] };
  /** The lines of the new render in conflict. */
  theirs: { start: number; end: number; lines: string[] };
}

export interface MergeResult {
  /** The merged text: with markers for each conflict unless settled by `ours`/`theirs`. */
  text: string;
  conflicts: Conflict[];
}

/** The labels of git-style markers kiln writes. */
export const MARKER_OURS = "<<<<<<< yours";
export const MARKER_SPLIT = "=======";
export const MARKER_THEIRS = ">>>>>>> kiln update";

/** `text` as lines, each with its own line end (the last may have none): exact to rejoin. */
export function splitLines(text: string): string[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g);
  return lines ?? [];
}

/** A run of lines ending in a line end, so a marker that follows starts a line of its own. */
function closed(lines: readonly string[]): string[] {
  const last = lines.at(-1);
  if (last === undefined || last.endsWith("\n")) return [...lines];
  return [...lines.slice(0, -1), `${last}\n`];
}

/** Does a file hold the markers of a conflict kiln wrote (a line that is exactly one)? */
export function hasConflictMarkers(text: string): boolean {
  const lines = splitLines(text).map((line) => line.replace(/\r?\n$/, ""));
  return lines.includes(MARKER_OURS) && lines.includes(MARKER_THEIRS);
}

/**
 * Merges `ours` and `theirs`, both derived from `base`. Changes on one side only are taken;
 * the same change on both is taken once; different changes to the same lines are conflicts,
 * settled as `resolution` says (`stop` and `markers` both give the text with markers).
 */
export function mergeThreeWay(
  base: string,
  ours: string,
  theirs: string,
  resolution: ConflictResolution,
): MergeResult {
  const regions = diff3Merge(splitLines(ours), splitLines(base), splitLines(theirs), {
    excludeFalseConflicts: true,
  });
  const out: string[] = [];
  const conflicts: Conflict[] = [];
  for (const region of regions) {
    if (region.ok) {
      out.push(...region.ok);
      continue;
    }
    const conflict = region.conflict;
    if (!conflict) continue;
    conflicts.push({
      ours: {
        start: conflict.aIndex + 1,
        end: conflict.aIndex + conflict.a.length,
        lines: conflict.a,
      },
      theirs: {
        start: conflict.bIndex + 1,
        end: conflict.bIndex + conflict.b.length,
        lines: conflict.b,
      },
    });
    if (resolution === "ours") out.push(...conflict.a);
    else if (resolution === "theirs") out.push(...conflict.b);
    else {
      out.push(
        `${MARKER_OURS}\n`,
        ...closed(conflict.a),
        `${MARKER_SPLIT}\n`,
        ...closed(conflict.b),
        `${MARKER_THEIRS}\n`,
      );
    }
  }
  return { text: out.join(""), conflicts };
}
