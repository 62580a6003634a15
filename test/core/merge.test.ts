// The three-way merge of a vendored file (src/core/project/merge.ts) and what an update does to
// each file of a component (src/core/project/file-outcomes.ts).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { localState, updateFiles } from "../../src/core/project/file-outcomes.ts";
import { hasConflictMarkers, mergeThreeWay, splitLines } from "../../src/core/project/merge.ts";

const base = "a: 1\nb: 2\nc: 3\nd: 4\n";

describe("three-way merge", () => {
  test("lines keep their line ends, the last may have none", () => {
    assert.deepEqual(splitLines("x\ny\nz"), ["x\n", "y\n", "z"]);
    assert.deepEqual(splitLines(""), []);
    assert.deepEqual(splitLines("x\r\n"), ["x\r\n"]);
  });

  test("edits on different lines merge cleanly, exact to the byte", () => {
    const ours = "a: 1\nb: 2\nextra: yes\nc: 3\nd: 4\n";
    const theirs = "a: 10\nb: 2\nc: 3\nd: 4\n";
    const merged = mergeThreeWay(base, ours, theirs, "stop");
    assert.deepEqual(merged.conflicts, []);
    assert.equal(merged.text, "a: 10\nb: 2\nextra: yes\nc: 3\nd: 4\n");
  });

  test("the same change on both sides is taken once", () => {
    const both = "a: 1\nb: 5\nc: 3\nd: 4\n";
    assert.deepEqual(mergeThreeWay(base, both, both, "stop"), { text: both, conflicts: [] });
  });

  test("overlapping edits conflict: ranges, lines, and each resolution", () => {
    const ours = "a: 1\nb: mine\nc: 3\nd: 4\n";
    const theirs = "a: 1\nb: new\nc: 3\nd: 4\n";
    const markers = mergeThreeWay(base, ours, theirs, "markers");
    assert.equal(
      markers.text,
      "a: 1\n<<<<<<< yours\nb: mine\n=======\nb: new\n>>>>>>> kiln update\nc: 3\nd: 4\n",
    );
    assert.deepEqual(markers.conflicts, [
      {
        ours: { start: 2, end: 2, lines: ["b: mine\n"] },
        theirs: { start: 2, end: 2, lines: ["b: new\n"] },
      },
    ]);
    assert.ok(hasConflictMarkers(markers.text));
    assert.equal(mergeThreeWay(base, ours, theirs, "ours").text, ours);
    assert.equal(mergeThreeWay(base, ours, theirs, "theirs").text, theirs);
    assert.equal(mergeThreeWay(base, ours, theirs, "stop").text, markers.text);
  });

  test("a conflict at the end of a file without a final line end still gets whole marker lines", () => {
    const merged = mergeThreeWay("x\ny", "x\nmine", "x\nnew", "markers");
    assert.equal(merged.text, "x\n<<<<<<< yours\nmine\n=======\nnew\n>>>>>>> kiln update\n");
  });
});

describe("updating a component's files", () => {
  const recorded = (path: string, content: string, template = 0, conflicted = false) => ({
    path,
    template,
    base: content,
    conflicted,
  });
  const disk = (files: Record<string, string>) => (path: string) => files[path];

  test("untouched: replaced; edited: merged or kept; missing: restored; same: unchanged", () => {
    const outcomes = updateFiles({
      recorded: [
        recorded("u.yaml", base, 0),
        recorded("e.yaml", base, 1),
        recorded("k.yaml", base, 2),
        recorded("m.yaml", base, 3),
        recorded("s.yaml", base, 4),
      ],
      rendered: [
        { path: "u.yaml", template: 0, content: "new\n" },
        { path: "e.yaml", template: 1, content: "a: 10\nb: 2\nc: 3\nd: 4\n" },
        { path: "k.yaml", template: 2, content: base },
        { path: "m.yaml", template: 3, content: "new\n" },
        { path: "s.yaml", template: 4, content: "same\n" },
      ],
      disk: disk({
        "u.yaml": base,
        "e.yaml": `${base}e: 5\n`,
        "k.yaml": `${base}k: 1\n`,
        "s.yaml": "same\n",
      }),
      resolution: "stop",
    });
    assert.deepEqual(
      outcomes.map((o) => [o.path, o.action, o.content]),
      [
        ["u.yaml", "replaced", "new\n"],
        ["e.yaml", "merged", "a: 10\nb: 2\nc: 3\nd: 4\ne: 5\n"],
        ["k.yaml", "kept", `${base}k: 1\n`],
        ["m.yaml", "restored", "new\n"],
        ["s.yaml", "unchanged", "same\n"],
      ],
    );
    // the lock records the new render as the next base, whatever is on disk
    assert.equal(outcomes[2]?.record?.content, base);
  });

  test("a path that moves carries the edits; a dropped file is removed or released", () => {
    const outcomes = updateFiles({
      recorded: [
        recorded("old-a.yaml", base, 0),
        recorded("gone.yaml", "g\n", 1),
        recorded("edited-gone.yaml", "g\n", 2),
      ],
      rendered: [{ path: "new-a.yaml", template: 0, content: base.replace("a: 1", "a: new") }],
      disk: disk({
        "old-a.yaml": `${base}mine: 1\n`,
        "gone.yaml": "g\n",
        "edited-gone.yaml": "g2\n",
      }),
      resolution: "stop",
    });
    assert.deepEqual(
      outcomes.map((o) => [o.action, o.path, o.from, o.content]),
      [
        ["merged", "new-a.yaml", "old-a.yaml", "a: new\nb: 2\nc: 3\nd: 4\nmine: 1\n"],
        ["removed", "gone.yaml", undefined, undefined],
        ["released", "edited-gone.yaml", undefined, undefined],
      ],
    );
  });

  test("markers are recorded as conflicted; unresolved markers stop the next update", () => {
    const input = {
      recorded: [recorded("x.yaml", base)],
      rendered: [{ path: "x.yaml", template: 0, content: base.replace("b: 2", "b: new") }],
      disk: disk({ "x.yaml": base.replace("b: 2", "b: mine") }),
    };
    const [outcome] = updateFiles({ ...input, resolution: "markers" });
    assert.equal(outcome?.action, "conflict");
    assert.equal(outcome?.record?.conflicted, true);
    const [stopped] = updateFiles({ ...input, resolution: "stop" });
    assert.equal(stopped?.record?.conflicted, false);
    assert.throws(
      () =>
        updateFiles({
          recorded: [recorded("x.yaml", base, 0, true)],
          rendered: input.rendered,
          disk: disk({ "x.yaml": outcome?.content as string }),
          resolution: "stop",
        }),
      /still has the conflict markers of the last update/,
    );
  });

  test("local state against the lock", () => {
    assert.equal(localState({ sha256: "h" }, undefined, undefined), "missing");
    assert.equal(localState({ sha256: "h" }, "x", "h"), "unchanged");
    assert.equal(localState({ sha256: "h" }, "x", "other"), "modified");
    assert.equal(
      localState({ sha256: "h", conflicted: true }, "<<<<<<< yours\n>>>>>>> kiln update\n", "o"),
      "conflicted",
    );
    assert.equal(localState({ sha256: "h", conflicted: true }, "resolved\n", "o"), "modified");
  });
});
