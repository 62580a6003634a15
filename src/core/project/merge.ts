// The three-way merge of one vendored file: base = what kiln wrote last time, ours = the file
// on disk (the user's edits), theirs = the new render. Line by line, lines kept with their line
// ends so the result is exact to the byte; the diff3 algorithm (Khanna, Kunal and Pierce, as GNU
// diff3, git and node-diff3 have it) over two diffs, base -> ours and base -> theirs, each a
// bounded Myers diff (src/core/line-diff.ts): a file whose diffs pass the bound is not merged
// (mergeWithinBound answers undefined) and the caller says so - it is never merged for minutes.
// Pure: runs in the browser too.
import { KilnError } from "../errors.ts";
import { boundedDiff, LineNumbering, MAX_EDIT_LINES, splitLines } from "../line-diff.ts";

export { splitLines };

/** How a conflict is settled: not at all (the caller stops), with markers, or by one side. */
export type ConflictResolution = "stop" | "markers" | "ours" | "theirs";

/** One region both sides changed differently. Line numbers are 1-based and inclusive. */
export interface Conflict {
  /** The lines of the file on disk (yours) in conflict; `end < start` for none (a deletion). */
  ours: { start: number; end: number; lines: string[] };
  /** The lines of the new render in conflict. */
  theirs: { start: number; end: number; lines: string[] };
  /**
   * Where in the file's structure, for a conflict the structural merge found (yaml-merge.ts,
   * ini-merge.ts): `spec.template.spec.containers[name=api].image`; then `lines` are each
   * side's value there.
   */
  keyPath?: string | undefined;
}

export interface MergeResult {
  /** The merged text: with markers for each conflict unless settled by `ours`/`theirs`. */
  text: string;
  conflicts: Conflict[];
  /** The pairs of markers written, when not one per conflict (a structural merge's). */
  markers?: number | undefined;
}

/** The labels of git-style markers kiln writes. */
export const MARKER_OURS = "<<<<<<< yours";
export const MARKER_SPLIT = "=======";
export const MARKER_THEIRS = ">>>>>>> kiln update";

/** A run of lines ending in a line end, so a marker that follows starts a line of its own. */
function closed(lines: readonly string[]): string[] {
  const last = lines.at(-1);
  if (last === undefined || last.endsWith("\n")) return [...lines];
  return [...lines.slice(0, -1), `${last}\n`];
}

/**
 * How many pairs of marker lines a text holds: lines that are exactly `<<<<<<< yours` and
 * `>>>>>>> kiln update`, paired (the fewer of the two). Each conflict kiln writes adds one pair.
 */
export function markerPairs(text: string): number {
  let opening = 0;
  let closing = 0;
  for (const line of splitLines(text)) {
    const bare = line.replace(/\r?\n$/, "");
    if (bare === MARKER_OURS) opening++;
    else if (bare === MARKER_THEIRS) closing++;
  }
  return Math.min(opening, closing);
}

/**
 * Does a file hold markers of a conflict kiln wrote? Lines like them can be the file's own (an
 * item's template may hold them, or the user's lines): `ownPairs` says how many pairs its own
 * lines held when kiln wrote the markers (kiln.lock records it), and the file holds kiln's
 * markers while it has more than that - resolving a conflict removes one pair.
 */
export function hasConflictMarkers(text: string, ownPairs = 0): boolean {
  return markerPairs(text) > ownPairs;
}

/** The error for a file whose merge passes the bound of its diffs. */
export function tooDifferentError(path: string): KilnError {
  return new KilnError(
    "invalid_request",
    `${path} is too different to merge automatically - use --ours/--theirs or resolve by hand`,
    `nothing was written: your file or the new render changes more of what kiln wrote last time than kiln merges line by line (${MAX_EDIT_LINES} lines inserted and deleted, fewer in files of tens of thousands of lines); --ours keeps your file whole, --theirs takes the new render whole`,
  );
}

/** Where one side (ours or theirs) changed the base: a run of base lines replaced by its own. */
interface Hunk {
  side: "ours" | "theirs";
  baseStart: number;
  baseLength: number;
  sideStart: number;
  sideLength: number;
}

/** The hunks of a diff from the base to one side: each run of lines between kept lines. */
function hunksOf(changes: NonNullable<ReturnType<typeof boundedDiff>>, side: Hunk["side"]): Hunk[] {
  const hunks: Hunk[] = [];
  let baseAt = 0;
  let sideAt = 0;
  let current: Hunk | undefined;
  for (const change of changes) {
    if (!change.added && !change.removed) {
      current = undefined;
      baseAt += change.count;
      sideAt += change.count;
      continue;
    }
    if (current === undefined) {
      current = { side, baseStart: baseAt, baseLength: 0, sideStart: sideAt, sideLength: 0 };
      hunks.push(current);
    }
    if (change.removed) {
      current.baseLength += change.count;
      baseAt += change.count;
    } else {
      current.sideLength += change.count;
      sideAt += change.count;
    }
  }
  return hunks;
}

/** Two runs of lines with the same lines: the same change on both sides is not a conflict. */
function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, index) => line === b[index]);
}

/**
 * Merges `ours` and `theirs`, both derived from `base`. Changes on one side only are taken;
 * the same change on both is taken once; different changes to the same lines are conflicts,
 * settled as `resolution` says (`stop` and `markers` both give the text with markers).
 * Undefined when a side's diff from the base passes editBound() (src/core/line-diff.ts).
 *
 * The regions are node-diff3's diff3MergeRegions and diff3Merge (excludeFalseConflicts), line
 * for line, written out here because node-diff3 takes no other diff than its own LCS - the one
 * that is cubic on repeated lines - and no well-kept package merges over a bounded diff: given
 * the same two diffs it gives node-diff3's result.
 */
export function mergeWithinBound(
  base: string,
  ours: string,
  theirs: string,
  resolution: ConflictResolution,
): MergeResult | undefined {
  const baseLines = splitLines(base);
  const sides = { ours: splitLines(ours), theirs: splitLines(theirs) };
  const numbering = new LineNumbering();
  const baseNumbers = numbering.of(baseLines);
  const toOurs = boundedDiff(baseNumbers, numbering.of(sides.ours));
  if (toOurs === undefined) return undefined;
  const toTheirs = boundedDiff(baseNumbers, numbering.of(sides.theirs));
  if (toTheirs === undefined) return undefined;
  // by where they start in the base; a stable sort, so ours first where both start together
  const hunks = [...hunksOf(toOurs, "ours"), ...hunksOf(toTheirs, "theirs")].sort(
    (x, y) => x.baseStart - y.baseStart,
  );
  const out: string[] = [];
  const conflicts: Conflict[] = [];
  let baseAt = 0;
  for (let first = 0; first < hunks.length; ) {
    const hunk = hunks[first] as Hunk;
    const regionStart = hunk.baseStart;
    let regionEnd = hunk.baseStart + hunk.baseLength;
    // every hunk that starts within (or right at the end of) the region joins it
    let next = first + 1;
    for (; next < hunks.length; next++) {
      const joining = hunks[next] as Hunk;
      if (joining.baseStart > regionEnd) break;
      regionEnd = Math.max(regionEnd, joining.baseStart + joining.baseLength);
    }
    for (let line = baseAt; line < regionStart; line++) out.push(baseLines[line] as string);
    if (next - first === 1) {
      // one side alone changed these lines: its lines are taken
      const lines = sides[hunk.side];
      for (let line = hunk.sideStart; line < hunk.sideStart + hunk.sideLength; line++) {
        out.push(lines[line] as string);
      }
    } else {
      // both changed them: each side's span of the region, its hunks' bounds corrected for the
      // base lines the other side's hunks add to the region
      const bounds = {
        ours: {
          sideStart: sides.ours.length,
          sideEnd: -1,
          baseStart: baseLines.length,
          baseEnd: -1,
        },
        theirs: {
          sideStart: sides.theirs.length,
          sideEnd: -1,
          baseStart: baseLines.length,
          baseEnd: -1,
        },
      };
      for (const joined of hunks.slice(first, next)) {
        const bound = bounds[joined.side];
        bound.sideStart = Math.min(joined.sideStart, bound.sideStart);
        bound.sideEnd = Math.max(joined.sideStart + joined.sideLength, bound.sideEnd);
        bound.baseStart = Math.min(joined.baseStart, bound.baseStart);
        bound.baseEnd = Math.max(joined.baseStart + joined.baseLength, bound.baseEnd);
      }
      const span = (side: Hunk["side"]) => {
        const bound = bounds[side];
        const start = bound.sideStart + (regionStart - bound.baseStart);
        const end = bound.sideEnd + (regionEnd - bound.baseEnd);
        return { start, lines: sides[side].slice(start, end) };
      };
      const a = span("ours");
      const b = span("theirs");
      if (sameLines(a.lines, b.lines)) out.push(...a.lines);
      else {
        conflicts.push({
          ours: { start: a.start + 1, end: a.start + a.lines.length, lines: a.lines },
          theirs: { start: b.start + 1, end: b.start + b.lines.length, lines: b.lines },
        });
        if (resolution === "ours") out.push(...a.lines);
        else if (resolution === "theirs") out.push(...b.lines);
        else {
          out.push(
            `${MARKER_OURS}\n`,
            ...closed(a.lines),
            `${MARKER_SPLIT}\n`,
            ...closed(b.lines),
            `${MARKER_THEIRS}\n`,
          );
        }
      }
    }
    baseAt = regionEnd;
    first = next;
  }
  for (let line = baseAt; line < baseLines.length; line++) out.push(baseLines[line] as string);
  return { text: out.join(""), conflicts };
}

/** mergeWithinBound, with the error that names `path` when the merge passes the bound. */
export function mergeThreeWay(
  base: string,
  ours: string,
  theirs: string,
  resolution: ConflictResolution,
  path = "the file",
): MergeResult {
  const merged = mergeWithinBound(base, ours, theirs, resolution);
  if (merged === undefined) throw tooDifferentError(path);
  return merged;
}
