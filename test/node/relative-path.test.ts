// relativePath (src/node/relative-path.ts) is Node's `path.relative`, answer for answer: its
// shortcut for a path built below a folder must never give another answer than `relative`.
import assert from "node:assert/strict";
import { relative } from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import { relativePath } from "../../src/node/relative-path.ts";

/** Path segments with the spellings that change what a path means: `.`, `..`, empty. */
const segment = fc.oneof(
  fc.constantFrom("", ".", "..", "...", "a", "b", ".git", "kiln.lock", "a b", "é"),
  fc.stringMatching(/^[a-z.\-_]{1,6}$/),
);
const pathOf = (segments: string[]) => segments.join("/");

describe("relativePath", () => {
  it("gives exactly path.relative's answer, for paths below the folder and any others", () => {
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 5 }),
        fc.array(segment, { maxLength: 5 }),
        fc.boolean(),
        fc.boolean(),
        (folderSegments, restSegments, absolute, below) => {
          const folder = `${absolute ? "/" : ""}${pathOf(folderSegments)}`;
          // most cases a path written below the folder, the shortcut's case; the others anywhere
          const path = below ? `${folder}/${pathOf(restSegments)}` : `/${pathOf(restSegments)}`;
          assert.equal(relativePath(folder, path), relative(folder, path), `${folder} -> ${path}`);
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it("takes a run's paths below its folder as they are", () => {
    assert.equal(
      relativePath("/p/r", "/p/r/infra/roles/x/tasks/main.yml"),
      "infra/roles/x/tasks/main.yml",
    );
    assert.equal(relativePath("/p/r/", "/p/r//a"), relative("/p/r/", "/p/r//a"));
    assert.equal(relativePath("/p/r", "/p/r/../s/a"), "../s/a");
    assert.equal(relativePath("/p/r", "/p/rs/a"), "../rs/a");
  });
});
