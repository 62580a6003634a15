// The render answer's bytes (src/sandbox/render-answer.ts): an answer far below the limit is
// encoded in one go, a large one piece by piece; both must be exactly JSON.stringify's bytes,
// and the limit must count escapes. The answer as text (rendered on the service's HTTP thread)
// is the same JSON, within the same limit in UTF-8 bytes.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { encodeRenderAnswer, renderAnswerText } from "../../src/sandbox/render-answer.ts";

const TRICKY = [
  "plain",
  'quote " and backslash \\',
  "\u0000\u0001\u001f\u007f\u0085",
  "line\nbreak\r\ttab",
  "é 日本語 😀",
  "lone \ud800 high and \udc00 low",
  "\u2028\u2029",
];

function expected(files: { path: string; content: string }[]): string {
  return JSON.stringify({ component: "c", files });
}

describe("encodeRenderAnswer", () => {
  test("small answers (one go) are JSON.stringify's bytes, whatever the characters", () => {
    const files = TRICKY.map((text, index) => ({ path: `f${index}-${text}`, content: text }));
    const bytes = encodeRenderAnswer({ component: "c", files }, 16 * 1024 * 1024);
    assert.equal(Buffer.from(bytes).toString("utf8"), expected(files));
    assert.equal(bytes.byteOffset, 0);
    assert.equal(bytes.buffer.byteLength, bytes.byteLength, "a buffer of its own (transferable)");
  });

  test("answers near the limit (piece by piece) are the same bytes, and the limit counts escapes", () => {
    const content = TRICKY.join("|").repeat(200);
    const files = [{ path: "a", content }];
    const json = expected(files);
    const size = Buffer.byteLength(json);
    // just enough: the one-go path cannot be sure, the piecewise one must get it exactly
    const bytes = encodeRenderAnswer({ component: "c", files }, size);
    assert.equal(Buffer.from(bytes).toString("utf8"), json);
    assert.throws(
      () => encodeRenderAnswer({ component: "c", files }, size - 1),
      /larger than \d+ bytes as JSON/,
    );
    // control characters: six bytes each as JSON
    const controls = [{ path: "b", content: "\u0001".repeat(1000) }];
    assert.throws(() => encodeRenderAnswer({ component: "c", files: controls }, 5_000), /larger/);
    assert.equal(
      Buffer.from(encodeRenderAnswer({ component: "c", files: controls }, 7_000)).toString(),
      expected(controls),
    );
  });

  test("only the answer's own keys are written, in order", () => {
    const result = {
      component: "c",
      files: [{ path: "p", content: "x", extra: 1 }],
      other: true,
    } as unknown as Parameters<typeof encodeRenderAnswer>[0];
    assert.equal(
      Buffer.from(encodeRenderAnswer(result, 1024)).toString(),
      '{"component":"c","files":[{"path":"p","content":"x"}]}',
    );
  });
});

describe("renderAnswerText", () => {
  test("the same JSON as the encoded answer, and the limit counts its UTF-8 bytes to the byte", () => {
    const files = TRICKY.map((text, index) => ({ path: `f${index}-${text}`, content: text }));
    const json = expected(files);
    assert.equal(renderAnswerText({ component: "c", files }, 16 * 1024 * 1024), json);
    const size = Buffer.byteLength(json);
    assert.ok(size > json.length, "multi-byte characters: the limit is in bytes, not characters");
    assert.equal(
      Buffer.from(encodeRenderAnswer({ component: "c", files }, size)).toString("utf8"),
      renderAnswerText({ component: "c", files }, size),
    );
    assert.throws(
      () => renderAnswerText({ component: "c", files }, size - 1),
      /larger than \d+ bytes as JSON/,
    );
  });
});
