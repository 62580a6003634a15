// The preview's highlighting: which files get which grammar, and that the tokens of every line
// put together are the line itself (highlighting never changes what a file shows), for a real
// file of each language a built-in template renders.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  highlightedLines,
  languageOf,
  MAX_HIGHLIGHTED_LINES,
} from "../../web/src/model/highlight.ts";

const files: Record<string, string> = {
  "web-deployment.yaml":
    'apiVersion: apps/v1\nkind: Deployment # a comment\nspec:\n  replicas: 3\n  image: "nginx:1.27"\n',
  "prod-inventory.ini": "[web]\nweb-1 cm_host=10.0.0.5 cm_port=22\n; a comment\n",
  "cm.cfg": "[defaults]\ninventory = prod-inventory.ini\n",
  // HCL's own interpolation, `${count.index}`
  "edge-servers.tf": `resource "hcloud_server" "edge" {\n  count = 2 # two\n  name  = "edge-${"$"}{count.index}"\n}\n`,
  "vars.json": '{"ports": [80, 443], "tls": true}\n',
};

describe("the preview's highlighting", () => {
  it("YAML, INI (and .cfg), HCL and JSON by the file's extension; anything else is plain text", () => {
    assert.deepEqual(Object.keys(files).map(languageOf), ["yaml", "ini", "ini", "hcl", "json"]);
    assert.equal(languageOf("roles/nginx/templates/nginx.conf.j2"), undefined);
    assert.equal(languageOf("Makefile"), undefined);
  });

  it("every language gives tokens of several kinds, and each line's tokens are the line", async () => {
    for (const [path, content] of Object.entries(files)) {
      const lines = await highlightedLines(content, path);
      assert.ok(lines, path);
      assert.deepEqual(
        lines.map((line) => line.map((token) => token.text).join("")),
        content.replace(/\n$/, "").split("\n"),
        path,
      );
      const kinds = new Set(lines.flat().map((token) => token.kind));
      assert.ok(kinds.size >= 3, `${path}: ${[...kinds].join(", ")}`);
      assert.ok(kinds.has("comment") || path.endsWith(".json") || path === "cm.cfg", path);
      // an INI section's name is a token of its own
      if (languageOf(path) === "ini") assert.equal(lines[0]?.[0]?.kind, "function", path);
    }
    assert.equal(await highlightedLines("{{ x }}\n", "a.conf.j2"), undefined);
  });

  it("a file of more than 2,000 lines shows plain (highlighting it would hold the page up)", async () => {
    const lines = (count: number) => "a: 1\n".repeat(count);
    assert.ok(await highlightedLines(lines(MAX_HIGHLIGHTED_LINES), "long.yaml"));
    assert.equal(await highlightedLines(lines(MAX_HIGHLIGHTED_LINES + 1), "long.yaml"), undefined);
  });
});
