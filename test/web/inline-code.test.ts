// Check messages quote names and values in backticks; the dashboard shows those parts as code.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inlineCodeParts } from "../../web/src/model/inline-code.ts";

describe("inline code in messages", () => {
  it("splits backticked parts out as code", () => {
    assert.deepEqual(inlineCodeParts("play `web` is aimed at `<b>x</b>`, fix it"), [
      { text: "play ", code: false },
      { text: "web", code: true },
      { text: " is aimed at ", code: false },
      { text: "<b>x</b>", code: true },
      { text: ", fix it", code: false },
    ]);
  });

  it("keeps a lone backtick and an empty pair as text, and gives no empty parts", () => {
    assert.deepEqual(inlineCodeParts("a ` b"), [{ text: "a ` b", code: false }]);
    assert.deepEqual(inlineCodeParts("a `` b"), [{ text: "a `` b", code: false }]);
    assert.deepEqual(inlineCodeParts("`x``y`"), [
      { text: "x", code: true },
      { text: "y", code: true },
    ]);
    assert.deepEqual(inlineCodeParts(""), []);
  });
});
