// Registry items and presets from URLs, served by a real local HTTP server.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { cleanUp, ensureBuilt, kilnAsync, project, tempDir, tree } from "./helpers.ts";

const ITEM = {
  name: "cache",
  category: "remote",
  fields: [{ name: "image", required: true }],
  files: [{ path: "{{ name }}-cache.yaml", template: "image: {{ image }}\nns: {{ namespace }}\n" }],
};
const PRESET = {
  name: "remote",
  project: { name: "far", namespace: "edge", outputDir: "deploy" },
  components: [{ reference: "", name: "redis", fields: { image: "redis:7.4" } }],
};

let server: Server;
let base = "";

before(async () => {
  ensureBuilt();
  server = createServer((request, response) => {
    if (request.url === "/item.json") response.end(JSON.stringify(ITEM));
    else if (request.url === "/remote.preset.json") {
      response.end(
        JSON.stringify({
          ...PRESET,
          components: [{ ...PRESET.components[0], reference: `${base}/item.json` }],
        }),
      );
    } else if (request.url === "/not-json") response.end("<html>");
    else {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.close();
  cleanUp();
});

describe("references that are URLs", () => {
  it("add renders a registry item fetched from a URL", async () => {
    const dir = project({ namespace: "shop" });
    const run = await kilnAsync(
      ["add", `${base}/item.json`, "--name", "c", "--image", "redis:7.4"],
      dir,
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      "created   k8s/c-cache.yaml\nadded cache/c: 1 file in k8s/ (1 created)\n",
    );
    assert.equal(tree(dir)["k8s/c-cache.yaml"], "image: redis:7.4\nns: shop\n");
  });

  it("a failed fetch and a response that is no registry item are errors (exit 1)", async () => {
    const dir = project();
    const missing = await kilnAsync(["add", `${base}/nothing.json`, "--name", "c"], dir);
    assert.equal(missing.status, 1);
    assert.match(
      missing.stderr,
      new RegExp(`^error: failed to fetch registry item from ${base}/nothing\\.json\\n`),
    );
    const html = await kilnAsync(["add", `${base}/not-json`, "--name", "c"], dir);
    assert.equal(html.status, 1);
    assert.match(
      html.stderr,
      new RegExp(`^error: ${base}/not-json is not a valid registry item\\n`),
    );
  });

  it("setup and apply take a preset from a URL whose components are URLs too", async () => {
    const dir = tempDir();
    const run = await kilnAsync(["setup", `${base}/remote.preset.json`], dir);
    assert.equal(run.status, 0, run.stderr);
    // kiln.lock records where the item came from
    const { "kiln.lock": lock, ...written } = tree(dir);
    assert.match(lock ?? "", new RegExp(`"url": "${base}/item\\.json"`));
    assert.deepEqual(written, {
      "deploy/": "",
      "deploy/redis-cache.yaml": "image: redis:7.4\nns: edge\n",
      "kiln.toml": '[project]\nname = "far"\ndefault_namespace = "edge"\noutput_dir = "deploy"\n',
    });
    const other = tempDir();
    const applied = await kilnAsync(["apply", `${base}/remote.preset.json`], other);
    assert.equal(applied.status, 0, applied.stderr);
    assert.deepEqual(tree(other), { "redis-cache.yaml": "image: redis:7.4\nns: edge\n" });
    const failed = await kilnAsync(["apply", `${base}/gone.preset.json`], other);
    assert.equal(failed.status, 1);
    assert.match(
      failed.stderr,
      new RegExp(`^error: failed to fetch preset from ${base}/gone\\.preset\\.json\\n`),
    );
  });
});
