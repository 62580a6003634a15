// The bounded diffs under the three-way merge and `kiln diff` (src/core/line-diff.ts,
// src/core/project/merge.ts): the same results as before on ordinary files - node-diff3's
// merge and the `diff` package's createTwoFilesPatch, compared on seeded random files - and
// an end, by a count, on files that made them run for minutes. Then what an update does with
// a file it cannot merge, a base it reads only when merging, and marker-like lines of a file's
// own. No timing is asserted: each case either ends with the expected result or hits the
// test's timeout (a fail-safe; the old code ran for minutes on these).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { diff3Merge } from "node-diff3";
import { KilnError } from "../../src/core/errors.ts";
import { editBound, MAX_EDIT_LINES, unifiedDiff } from "../../src/core/line-diff.ts";
import {
  localState,
  type RecordedBase,
  updateFiles,
} from "../../src/core/project/file-outcomes.ts";
import {
  type ConflictResolution,
  hasConflictMarkers,
  markerPairs,
  mergeThreeWay,
  mergeWithinBound,
  splitLines,
} from "../../src/core/project/merge.ts";

/** The fail-safe of the cases the old code ran for minutes on: far above their real cost. */
const FAIL_SAFE = { timeout: 60_000 };

/** The merge as kiln made it before the bound: node-diff3's diff3Merge, line by line. */
function nodeDiff3Merge(base: string, ours: string, theirs: string, resolution: string) {
  const closed = (lines: string[]) => {
    const last = lines.at(-1);
    return last === undefined || last.endsWith("\n")
      ? [...lines]
      : [...lines.slice(0, -1), `${last}\n`];
  };
  const regions = diff3Merge(splitLines(ours), splitLines(base), splitLines(theirs), {
    excludeFalseConflicts: true,
  });
  const out: string[] = [];
  const conflicts: unknown[] = [];
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
      out.push("<<<<<<< yours\n", ...closed(conflict.a), "=======\n", ...closed(conflict.b));
      out.push(">>>>>>> kiln update\n");
    }
  }
  return { text: out.join(""), conflicts };
}

/** mulberry32: a small seeded generator, so every run tries the same files. */
function seeded(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

/**
 * A random file and two edits of it: lines kept, deleted, replaced and inserted, some
 * insertions the same on both sides. `repeated`: the base draws from a few lines (YAML's
 * `---`, blank lines, list items), as real files repeat lines - still small.
 */
function randomTriple(next: (below: number) => number, repeated: boolean) {
  const base = Array.from({ length: next(30) }, (_, index) =>
    repeated
      ? (["---\n", "\n", "  - a\n", `key${index}: 1\n`][next(4)] as string)
      : `line ${index}\n`,
  );
  const derive = () => {
    const out: string[] = [];
    for (const line of base) {
      const roll = next(10);
      if (roll === 0) continue;
      if (roll === 1) {
        out.push(`new ${next(6)}\n`);
        continue;
      }
      if (roll === 2) out.push(`new ${next(6)}\n`);
      out.push(line);
    }
    if (next(5) === 0) out.push(`new ${next(6)}\n`);
    return out;
  };
  // now and then a file without a final line end, or with Windows line ends
  const text = (lines: string[]) => {
    const joined = lines.join("");
    if (next(6) === 0) return joined.replace(/\n$/, "");
    return next(10) === 0 ? joined.replace(/\n/g, "\r\n") : joined;
  };
  return { base: text(base), ours: text(derive()), theirs: text(derive()) };
}

describe("the bounded merge gives node-diff3's results on ordinary files", () => {
  for (const repeated of [false, true]) {
    test(`3,000 seeded random files${repeated ? " with repeated lines" : ""}, each resolution`, () => {
      const next = seeded(repeated ? 19 : 7);
      let conflicted = 0;
      for (let round = 0; round < 3000; round++) {
        const { base, ours, theirs } = randomTriple(next, repeated);
        for (const resolution of ["markers", "ours", "theirs"] as ConflictResolution[]) {
          const merged = mergeThreeWay(base, ours, theirs, resolution);
          assert.deepEqual(
            merged,
            nodeDiff3Merge(base, ours, theirs, resolution),
            JSON.stringify({ base, ours, theirs, resolution }),
          );
          if (resolution === "markers" && merged.conflicts.length > 0) conflicted++;
        }
      }
      // the files exercise conflicts, not only clean merges
      assert.ok(conflicted > 500, `only ${conflicted} files had conflicts`);
    });
  }
});

describe("the bounded unified diff gives createTwoFilesPatch's output", () => {
  test("3,000 seeded random pairs, line ends of every kind", () => {
    const next = seeded(23);
    const line = () => ["a\n", "b\n", "c\r\n", "\n", `x${next(40)}\n`][next(5)] as string;
    for (let round = 0; round < 3000; round++) {
      const before = Array.from({ length: next(40) }, line).join("");
      const edited =
        next(2) === 0 ? Array.from({ length: next(40) }, line).join("") : before.replace(/b/g, "B");
      const after = next(5) === 0 ? `${edited}no line end` : edited;
      assert.equal(
        unifiedDiff("a/x.yaml", before, "b/x.yaml", after),
        createTwoFilesPatch("a/x.yaml", "b/x.yaml", before, after, undefined, undefined, {
          headerOptions: FILE_HEADERS_ONLY,
        }),
      );
    }
  });

  test("a file added or removed whole is shown, however long (no diff needed)", () => {
    const long = "line\n".repeat(MAX_EDIT_LINES * 3);
    const added = unifiedDiff("/dev/null", "", "b/x", long);
    assert.ok(
      added?.startsWith(`--- /dev/null\n+++ b/x\n@@ -0,0 +1,${MAX_EDIT_LINES * 3} @@\n+line\n`),
    );
    assert.ok(unifiedDiff("a/x", long, "/dev/null", "")?.endsWith("-line\n"));
  });
});

describe("the bounds: deterministic counts", () => {
  test("the edit bound: MAX_EDIT_LINES, fewer in files of tens of thousands of lines", () => {
    assert.equal(MAX_EDIT_LINES, 1000);
    assert.equal(editBound(20_000, 20_000), 1000);
    assert.equal(editBound(101_000, 101_000), 247);
    assert.equal(editBound(2_000_000, 3), 1000, "the shorter side sets the comparisons");
    assert.equal(editBound(60_000_000, 60_000_000), 0);
  });

  test(
    "4,000 identical lines and one edit on each side merge (node-diff3: 75 s)",
    FAIL_SAFE,
    () => {
      const base = "-\n".repeat(4000);
      // a line added at the top of the file on disk, one at the end upstream
      const merged = mergeThreeWay(base, `mine\n${base}`, `${base}new\n`, "stop");
      assert.deepEqual(merged.conflicts, []);
      assert.equal(merged.text, `mine\n${base}new\n`);
    },
  );

  test(
    "20,000 lines all changed: no unified diff, no merge - refused at the bound",
    FAIL_SAFE,
    () => {
      const before = Array.from({ length: 20_000 }, (_, index) => `a ${index}\n`).join("");
      const after = before.replace(/a /g, "b ");
      assert.equal(unifiedDiff("a/x", before, "b/x", after), undefined);
      assert.equal(mergeWithinBound(before, after, `${before}end\n`, "stop"), undefined);
      assert.throws(
        () => mergeThreeWay(before, after, `${before}end\n`, "stop", "k8s/x.yaml"),
        (error: unknown) =>
          error instanceof KilnError &&
          error.message ===
            "k8s/x.yaml is too different to merge automatically - use --ours/--theirs or resolve by hand",
      );
    },
  );

  test("edits just within the bound merge; one line more is refused", () => {
    const base = Array.from({ length: 3000 }, (_, index) => `line ${index}\n`).join("");
    const lines = splitLines(base);
    // 500 lines replaced: 500 deleted and 500 inserted, an edit length of 1,000
    const within = lines.map((line, index) => (index < 500 ? `mine ${index}\n` : line)).join("");
    const past = lines.map((line, index) => (index <= 500 ? `mine ${index}\n` : line)).join("");
    const theirs = `${base}new\n`;
    assert.equal(mergeWithinBound(base, within, theirs, "stop")?.text, `${within}new\n`);
    assert.equal(mergeWithinBound(base, past, theirs, "stop"), undefined);
  });

  test("long identical lines cost their bytes once, not once per comparison", FAIL_SAFE, () => {
    const long = `${"x".repeat(64 * 1024)}\n`;
    const before = long.repeat(300);
    const after = `${long}${"y\n"}`.repeat(150);
    const patch = unifiedDiff("a/x", before, "b/x", after);
    assert.ok(patch?.includes("\n+y\n"));
  });
});

/** A base that counts how often it is read, as kiln.lock's is read only for a merge. */
function countingBase(content: string): RecordedBase & { reads: number } {
  const base = {
    reads: 0,
    isContent: (text: string) => text === content,
    read: () => {
      base.reads++;
      return content;
    },
  };
  return base;
}

describe("an update of a file it cannot merge line by line", () => {
  const base = Array.from({ length: 1500 }, (_, index) => `line ${index}\n`).join("");
  const ours = base.replace(/line/g, "LINE");
  const theirs = base.replace("line 7\n", "line seven\n");
  const input = (resolution: ConflictResolution, recordedBase: string | RecordedBase = base) =>
    updateFiles({
      recorded: [{ path: "k8s/x.yaml", template: 0, base: recordedBase, conflicted: false }],
      rendered: [{ path: "k8s/x.yaml", template: 0, content: theirs }],
      disk: () => ours,
      resolution,
    });

  test("stop and markers: `unmerged`, with the error that says what to do; nothing recorded", () => {
    for (const resolution of ["stop", "markers"] as const) {
      const [outcome] = input(resolution);
      assert.equal(outcome?.action, "unmerged");
      assert.equal(outcome?.unmerged?.reason, "too-different");
      assert.equal(
        outcome?.unmerged?.error.message,
        "k8s/x.yaml is too different to merge automatically - use --ours/--theirs or resolve by hand",
      );
      assert.equal(outcome?.record, undefined);
    }
  });

  test("--ours and --theirs take that side whole, as one conflict of the whole file", () => {
    const [kept] = input("ours");
    assert.equal(kept?.action, "conflict");
    assert.equal(kept?.content, ours);
    assert.deepEqual(
      kept?.conflicts.map((c) => [c.ours.start, c.ours.end, c.theirs.start, c.theirs.end]),
      [[1, 1500, 1, 1500]],
    );
    assert.equal(kept?.record?.content, theirs, "the new render is the next base");
    const [taken] = input("theirs");
    assert.equal(taken?.content, theirs);
    assert.equal(taken?.record?.conflicted, false);
  });

  test("a base is read only for a merge, once; a base kiln.lock cannot give is `unmerged`", () => {
    const untouched = countingBase("a\n");
    const kept = countingBase("b\n");
    const merged = countingBase("c\nx\nd\n");
    const outcomes = updateFiles({
      recorded: [
        { path: "u", template: 0, base: untouched, conflicted: false },
        { path: "k", template: 1, base: kept, conflicted: false },
        { path: "m", template: 2, base: merged, conflicted: false },
      ],
      rendered: [
        { path: "u", template: 0, content: "a2\n" },
        { path: "k", template: 1, content: "b\n" },
        { path: "m", template: 2, content: "c2\nx\nd\n" },
      ],
      disk: (path) => ({ u: "a\n", k: "b edited\n", m: "c\nx\nd2\n" })[path],
      resolution: "stop",
    });
    assert.deepEqual(
      outcomes.map((outcome) => outcome.action),
      ["replaced", "kept", "merged"],
    );
    assert.deepEqual([untouched.reads, kept.reads, merged.reads], [0, 0, 1]);

    const refusal = new KilnError("invalid_request", "kiln.lock: the recorded content is refused");
    const refused: RecordedBase = {
      isContent: (text) => text === base,
      read: () => {
        throw refusal;
      },
    };
    const [stopped] = input("stop", refused);
    assert.equal(stopped?.action, "unmerged");
    assert.equal(stopped?.unmerged?.reason, "base-refused");
    assert.equal(stopped?.unmerged?.error, refusal);
    assert.equal(input("theirs", refused)[0]?.content, theirs, "--theirs needs no base");
  });
});

describe("lines of a file's own that look like kiln's markers", () => {
  const lookalikes = "<<<<<<< yours\nnot a conflict\n=======\nstill not\n>>>>>>> kiln update\n";

  test("a marker pair counts once per opening and closing line", () => {
    assert.equal(markerPairs(lookalikes), 1);
    assert.equal(markerPairs(`${lookalikes}<<<<<<< yours\r\n`), 1);
    assert.equal(markerPairs("<<<<<<< yours\n"), 0);
    assert.equal(hasConflictMarkers(lookalikes), true, "without a record, as before");
    assert.equal(hasConflictMarkers(lookalikes, 1), false);
  });

  test("an update with markers records the file's own pairs; resolved, it is no longer conflicted", () => {
    const base = `a: 1\n${lookalikes}b: 2\n`;
    const [outcome] = updateFiles({
      recorded: [{ path: "x", template: 0, base, conflicted: false }],
      rendered: [{ path: "x", template: 0, content: base.replace("b: 2", "b: new") }],
      disk: () => base.replace("b: 2", "b: mine"),
      resolution: "markers",
    });
    assert.equal(outcome?.action, "conflict");
    assert.equal(outcome?.record?.conflicted, true);
    assert.equal(outcome?.record?.ownMarkerPairs, 1);
    const written = outcome?.content as string;
    const resolved = base.replace("b: 2", "b: mine");
    const recorded = { sha256: "h", conflicted: true, ownMarkerPairs: 1 };
    assert.equal(localState(recorded, written, "o"), "conflicted");
    assert.equal(localState(recorded, resolved, "o"), "modified");
    // and the next update merges it instead of refusing
    const [next] = updateFiles({
      recorded: [
        {
          path: "x",
          template: 0,
          base: outcome?.record?.content as string,
          conflicted: true,
          ownMarkerPairs: 1,
        },
      ],
      rendered: [{ path: "x", template: 0, content: outcome?.record?.content as string }],
      disk: () => resolved,
      resolution: "stop",
    });
    assert.equal(next?.action, "kept");
  });
});
