// The HTTP service keeps a registry's index in memory for its freshness period, shared by all
// requests: the real binary (`kiln serve --config`) over a socket, the registry served by
// Debian's nginx on a loopback port, its access log counting how often the index was asked for.
// One service runs with the default freshness (10 minutes), one with `SERVICE_INDEX_FRESHNESS_S=1`
// to see a changed index once the freshness has passed.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cleanUp, tempDir, waitFor, write } from "../cli/helpers.ts";
import { publishRegistry } from "../cli/registry-fixture.ts";
import { nginxSkip, startNginx, type TestNginx } from "../tools/nginx.ts";
import { type ChildServer, postJson, raw, startChild } from "./helpers.ts";

function item(name: string) {
  return {
    name,
    category: "cache",
    title: name,
    description: `${name}, from a registry.`,
    fields: [{ name: "image", default: `${name}:1.0` }],
    files: [{ path: `{{ name }}-${name}.yaml`, template: "image: {{ image }}\n" }],
  };
}

const skip = nginxSkip();
let root = "";
let nginx: TestNginx;
/** Keeps indexes for the default 10 minutes; its registry is served from `<root>/kept`. */
let kept: ChildServer;
/** Keeps indexes for 1 s; its registry is served from `<root>/brief`. */
let brief: ChildServer;
/** Keeps indexes for the default time; its registry (`<root>/together`) is asked by many at once. */
let together: ChildServer;

/** How many times nginx was asked for the index under `folder`. */
function indexFetches(folder: string): number {
  return nginx.requests().filter((line) => line.startsWith(`GET /open/${folder}/registry.json `))
    .length;
}

/** The references `service`'s GET /api/search?q= answers with. */
async function searched(service: ChildServer, query: string): Promise<string[]> {
  const answer = await raw(service.url, { path: `/api/search?q=${query}&registry=@acme` });
  assert.equal(answer.status, 200, answer.body);
  const body = JSON.parse(answer.body) as { results: { reference: string }[]; failures: [] };
  assert.deepEqual(body.failures, []);
  return body.results.map((result) => result.reference);
}

function startService(folder: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const config = write(
    tempDir(),
    "service.toml",
    `[registries]\n"@acme" = "${nginx.origin}/open/${folder}/{name}.json"\n`,
  );
  return startChild(["--port", "0", "--workers", "1", "--config", config], env);
}

before(async () => {
  if (skip) return;
  root = tempDir();
  for (const folder of ["kept", "brief", "together"]) {
    publishRegistry(join(root, folder), "acme", [{ item: item("redis"), version: "1.0.0" }]);
  }
  nginx = await startNginx({ root, token: "t", user: "u", password: "p", logRequests: true });
  [kept, brief, together] = await Promise.all([
    startService("kept"),
    startService("brief", { SERVICE_INDEX_FRESHNESS_S: "1" }),
    startService("together"),
  ]);
});

after(async () => {
  await Promise.all([kept?.stop(), brief?.stop(), together?.stop()]);
  await nginx?.stop();
  cleanUp();
});

describe("the service keeps registry indexes across requests", { skip }, () => {
  it("two searches and an unpinned render fetch the index once, and a changed index is not seen within the freshness", async () => {
    assert.deepEqual(await searched(kept, "redis"), ["@acme/redis"]);
    assert.deepEqual(await searched(kept, "red"), ["@acme/redis"]);
    assert.equal(indexFetches("kept"), 1);
    // an unpinned render takes the newest version from the same kept index
    const rendered = await postJson(kept.url, { reference: "@acme/redis", name: "c" });
    assert.equal(rendered.status, 200, rendered.body);
    assert.equal(indexFetches("kept"), 1);
    publishRegistry(join(root, "kept"), "acme", [
      { item: item("redis"), version: "1.0.0" },
      { item: item("redis-sentinel"), version: "1.0.0" },
    ]);
    assert.deepEqual(await searched(kept, "redis"), ["@acme/redis"]);
    assert.equal(indexFetches("kept"), 1);
  });

  it("searches that arrive together while the index is being fetched share that one fetch", async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => searched(together, "redis")));
    for (const references of answers) assert.deepEqual(references, ["@acme/redis"]);
    assert.equal(indexFetches("together"), 1);
  });

  it("a changed index is seen once the freshness (SERVICE_INDEX_FRESHNESS_S) has passed", async () => {
    assert.deepEqual(await searched(brief, "redis"), ["@acme/redis"]);
    publishRegistry(join(root, "brief"), "acme", [
      { item: item("redis"), version: "1.0.0" },
      { item: item("redis-sentinel"), version: "1.0.0" },
    ]);
    // waits for the effect (the new item listed), not for a time
    let references: string[] = [];
    const listsTheNewItem = async () => {
      references = await searched(brief, "redis");
      return references.length > 1;
    };
    await waitFor("the new item listed", listsTheNewItem, { everyMs: 100 });
    assert.deepEqual(references, ["@acme/redis", "@acme/redis-sentinel"]);
    // the new item came from a second fetch of the index
    assert.ok(indexFetches("brief") >= 2);
  });
});
