// kiln.lock's bases (src/node/lock-compression.ts) come from one zlib compressor a process keeps
// and resets between contents; each base must be byte for byte what a fresh compressor writes
// (zlib's deflateRawSync at level 9, as the service's encodeBaseAsync makes the dashboard's zip),
// whatever came before it, or kiln.lock would change from one kiln, or one order of files, to
// the next.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deflateRawSync } from "node:zlib";
import fc from "fast-check";
import { encodeBase, encodeBaseReused } from "../../src/node/lock-compression.ts";

/** A fresh compressor's base of `content`: what every kiln.lock holds for it. */
function freshBase(content: string): string {
  return deflateRawSync(Buffer.from(content, "utf8"), { level: 9 }).toString("base64");
}

/**
 * Texts as files hold them: YAML-like lines, repeats (long matches), few letters (many matches,
 * as in `---` and indentation), any Unicode, controls.
 */
const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.string({ unit: "grapheme", maxLength: 300 }),
  fc.string({ unit: fc.constantFrom("-", "-", "-", "a", " ", "\n"), maxLength: 600 }),
  fc
    .tuple(fc.stringMatching(/^[a-z: \n-]{0,40}$/), fc.integer({ min: 1, max: 800 }))
    .map(([line, times]) => line.repeat(times).slice(0, 16 * 1024)),
  fc.constantFrom("", "\n", "\u0000", "\ud800", "-".repeat(500), "kind: Deployment\n".repeat(2000)),
);

describe("lock bases from the reused compressor", () => {
  it("each base is a fresh compressor's bytes, whatever the compressor took before", () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), (contents) => {
        for (const content of contents) {
          assert.equal(encodeBase(content), freshBase(content));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a short content after a longer one: the fresh compressor's bytes, not a match into the old", () => {
    // found by search: after the first, zlib's match search for the second looks past its end
    // into the window, where the first's bytes stay and a fresh compressor has zeros
    const first = "a--\n--- a---a ------- \n-\n-a--- -----a--\na---\n\n \n a";
    const second = "-\n aa a----";
    for (const content of [first, second, first, second]) {
      assert.equal(encodeBaseReused(content), freshBase(content), JSON.stringify(content));
    }
  });

  it("up to 16 KiB of UTF-8 the reused compressor answers; a larger content gets a fresh stream", () => {
    let seed = 1;
    const noise = Array.from({ length: 16 * 1024 }, () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return String.fromCharCode(32 + (seed % 95));
    }).join(""); // printable ASCII, hardly compressible: the most output for 16 KiB
    const large = "apiVersion: v1\nkind: ConfigMap\n".repeat(3000); // ~93 KB
    for (const content of [noise, "small\n", large, "small again\n"]) {
      assert.equal(encodeBase(content), freshBase(content));
    }
    assert.equal(encodeBaseReused(noise), freshBase(noise));
    assert.equal(encodeBaseReused(`${noise}x`), undefined);
    assert.equal(encodeBaseReused(large), undefined);
  });
});
