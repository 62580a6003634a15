// Line diffs whose work has a bound, for the three-way merge (src/core/project/merge.ts) and
// `kiln diff`'s unified diff. The files compared are strangers' input - an item's render, a
// lock's base, the files of a checkout - so no diff may run on: node-diff3's Hunt-McIlroy LCS
// is cubic on repeated lines (4,000 identical lines and one edit a side: 75 s) and Myers'
// algorithm unbounded is quadratic in the number of changed lines (20,000 changed lines: 72 s).
//
// Myers' O(ND) algorithm, the `diff` package's diffArrays with its maxEditLength, over lines
// numbered so that equal lines get the same number: comparing two lines is comparing two
// numbers, whatever their length. A diff stops once it needs more than editBound() inserted
// and deleted lines: MAX_EDIT_LINES, fewer on long files so that its comparisons stay within
// MAX_LINE_COMPARISONS. Both are counts, not times: a file is diffed or refused the same way on
// every machine. Pure: no Node API.
import {
  type ArrayChange,
  diffArrays,
  FILE_HEADERS_ONLY,
  formatPatch,
  type StructuredPatchHunk,
} from "diff";

/** The most lines a diff may insert and delete (the edit length D of Myers' algorithm). */
export const MAX_EDIT_LINES = 1000;

/**
 * The most line comparisons a diff may make. Myers' algorithm visits at most 2D+1 diagonals,
 * and on each the furthest point it has reached only moves forward, so a diff of `a` and `b`
 * lines that stops at D edits compares lines at most (2D+1)(min(a, b)+1) times.
 */
export const MAX_LINE_COMPARISONS = 50_000_000;

/** `text` as lines, each with its own line end (the last may have none): exact to rejoin. */
export function splitLines(text: string): string[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g);
  return lines ?? [];
}

/**
 * Numbers lines so that equal lines, in any of the texts numbered with the same numbering, get
 * the same number: hashing each line once is linear in the bytes, where comparing the strings
 * in the diff would cost a line's length each time (a file of long identical lines).
 */
export class LineNumbering {
  readonly #numbers = new Map<string, number>();

  of(lines: readonly string[]): number[] {
    return lines.map((line) => {
      let number = this.#numbers.get(line);
      if (number === undefined) {
        number = this.#numbers.size;
        this.#numbers.set(line, number);
      }
      return number;
    });
  }
}

/** The most edits a diff of `a` and `b` lines may take: see MAX_LINE_COMPARISONS. */
export function editBound(a: number, b: number): number {
  const byComparisons = Math.floor((MAX_LINE_COMPARISONS / (Math.min(a, b) + 1) - 1) / 2);
  return Math.max(0, Math.min(MAX_EDIT_LINES, byComparisons));
}

/**
 * The diff of two numbered line sequences as runs of kept, removed and added lines; undefined
 * when it needs more than editBound() edits (then it has done at most that much work).
 */
export function boundedDiff(
  before: readonly number[],
  after: readonly number[],
): ArrayChange<number>[] | undefined {
  // a side with no lines: every line of the other is added or removed, whatever their number
  if (before.length === 0 || after.length === 0) {
    const lines = before.length === 0 ? after : before;
    const added = before.length === 0;
    return lines.length === 0
      ? []
      : [{ value: [...lines], count: lines.length, added, removed: !added }];
  }
  return diffArrays(before as number[], after as number[], {
    maxEditLength: editBound(before.length, after.length),
  });
}

/** How many unchanged lines a unified diff shows around each change: the `diff` package's. */
const CONTEXT_LINES = 4;

interface Run {
  kind: "kept" | "removed" | "added";
  lines: string[];
}

/** The runs of a diff with the lines themselves (a change holds their numbers). */
function runsOf(changes: readonly ArrayChange<number>[], before: string[], after: string[]): Run[] {
  let beforeAt = 0;
  let afterAt = 0;
  return changes.map((change) => {
    if (change.removed) {
      beforeAt += change.count;
      return { kind: "removed", lines: before.slice(beforeAt - change.count, beforeAt) };
    }
    afterAt += change.count;
    if (change.added) return { kind: "added", lines: after.slice(afterAt - change.count, afterAt) };
    beforeAt += change.count;
    return { kind: "kept", lines: after.slice(afterAt - change.count, afterAt) };
  });
}

/**
 * The hunks of a unified diff from its runs: the `diff` package's structuredPatch, step for
 * step (so the output is createTwoFilesPatch's to the byte), over a diff made here - that
 * package's patch functions diff the texts themselves, comparing lines as strings and without
 * editBound().
 */
function hunksOf(runs: Run[]): StructuredPatchHunk[] {
  const context = (lines: string[]) => lines.map((line) => ` ${line}`);
  const hunks: StructuredPatchHunk[] = [];
  const all = [...runs, { kind: "kept" as const, lines: [] }];
  let oldRangeStart = 0;
  let newRangeStart = 0;
  let range: string[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const [index, run] of all.entries()) {
    if (run.kind !== "kept") {
      if (!oldRangeStart) {
        const previous = all[index - 1];
        oldRangeStart = oldLine;
        newRangeStart = newLine;
        if (previous) {
          range = context(previous.lines.slice(-CONTEXT_LINES));
          oldRangeStart -= range.length;
          newRangeStart -= range.length;
        }
      }
      for (const line of run.lines) range.push(`${run.kind === "added" ? "+" : "-"}${line}`);
      if (run.kind === "added") newLine += run.lines.length;
      else oldLine += run.lines.length;
      continue;
    }
    if (oldRangeStart) {
      if (run.lines.length <= CONTEXT_LINES * 2 && index < all.length - 2) {
        range.push(...context(run.lines));
      } else {
        const contextSize = Math.min(run.lines.length, CONTEXT_LINES);
        range.push(...context(run.lines.slice(0, contextSize)));
        hunks.push({
          oldStart: oldRangeStart,
          oldLines: oldLine - oldRangeStart + contextSize,
          newStart: newRangeStart,
          newLines: newLine - newRangeStart + contextSize,
          lines: range,
        });
        oldRangeStart = 0;
        newRangeStart = 0;
        range = [];
      }
    }
    oldLine += run.lines.length;
    newLine += run.lines.length;
  }
  // each line without its line end; a last line that has none is followed by git's note
  for (const hunk of hunks) {
    hunk.lines = hunk.lines.flatMap((line) =>
      line.endsWith("\n") ? [line.slice(0, -1)] : [line, "\\ No newline at end of file"],
    );
  }
  return hunks;
}

/**
 * The unified diff of two texts (`--- a/...`, `+++ b/...`, hunks with four lines of context);
 * undefined when the texts differ by more than editBound() lines.
 */
export function unifiedDiff(
  oldName: string,
  before: string,
  newName: string,
  after: string,
): string | undefined {
  const beforeLines = splitLines(before);
  const afterLines = splitLines(after);
  const numbering = new LineNumbering();
  const changes = boundedDiff(numbering.of(beforeLines), numbering.of(afterLines));
  if (changes === undefined) return undefined;
  const patch = {
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: undefined,
    newHeader: undefined,
  };
  return formatPatch(
    { ...patch, hunks: hunksOf(runsOf(changes, beforeLines, afterLines)) },
    FILE_HEADERS_ONLY,
  );
}
