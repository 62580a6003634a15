// kiln list and kiln presets: for people, and --json with the HTTP API's shapes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { toItemView } from "../../src/core/item.ts";
import { presetSummary } from "../../src/core/project/preset-manifest.ts";
import { builtinPresets } from "../../src/node/builtin-presets.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { cleanUp, ensureBuilt, kiln, tempDir } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

describe("kiln list", () => {
  it("--json prints {items} as GET /api/registry does: all 13, registry order", () => {
    const run = kiln(["list", "--json"], tempDir());
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, "");
    const expected = { items: builtinRegistry().items.map(toItemView) };
    assert.deepEqual(JSON.parse(run.stdout), expected);
    assert.equal(run.stdout, `${JSON.stringify(expected, null, 2)}\n`);
    assert.equal(expected.items.length, 13);
  });

  it("prints each component with its description and fields, then how to add one", () => {
    const run = kiln(["list"], tempDir());
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.split("\n");
    const items = builtinRegistry().items.map(toItemView);
    const width = Math.max(...items.map((item) => item.reference.length));
    for (const item of items) {
      assert.ok(
        lines.includes(`${item.reference.padEnd(width)}  ${item.description || item.title}`),
        item.reference,
      );
    }
    assert.ok(
      lines.includes(`${" ".repeat(width)}  fields: image (required), replicas=1, port=80`),
      "the deployment's fields",
    );
    assert.match(
      run.stdout,
      /\nadd one: kiln add <reference> --name <name> \[--set <field>=<value>\]\.\.\.\n/,
    );
  });
});

describe("kiln presets", () => {
  it("--json prints {presets} as GET /api/presets does", () => {
    const run = kiln(["presets", "--json"], tempDir());
    assert.equal(run.status, 0, run.stderr);
    const expected = { presets: builtinPresets().map(presetSummary) };
    assert.equal(run.stdout, `${JSON.stringify(expected, null, 2)}\n`);
    assert.deepEqual(
      expected.presets.map((preset) => [preset.name, preset.componentCount]),
      [
        ["k8s-web-app", 7],
        ["single-server", 7],
        ["bootstrap-cluster", 11],
        ["web-and-database", 13],
        ["multi-tier-platform", 35],
      ],
    );
  });

  it("prints name, title, count and description, then what to do next", () => {
    const run = kiln(["presets"], tempDir());
    assert.equal(run.status, 0, run.stderr);
    const width = "multi-tier-platform".length;
    assert.ok(
      run.stdout.startsWith(
        `${"k8s-web-app".padEnd(width)}  Kubernetes-style web app (7 components)\n${" ".repeat(width)}  `,
      ),
      run.stdout,
    );
    assert.ok(
      run.stdout.includes(`${"multi-tier-platform"}  Multi-tier platform (35 components)\n`),
    );
    assert.ok(
      run.stdout.endsWith(
        "\nstart a project: kiln setup <name>   add the files to a folder: kiln apply <name>\n",
      ),
    );
  });
});
