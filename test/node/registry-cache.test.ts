// kiln's registry cache (src/node/registry-cache.ts) never leaves an entry naming a blob that is
// gone: a blob one command read and verified may be evicted by another kiln before the command
// files it again, and then it is written again, so a later `--offline` run still finds it.
import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { RegistryConfig } from "../../src/core/registry-config.ts";
import { RegistryCache, sha256Digest } from "../../src/node/registry-cache.ts";
import { cleanUp, tempDir } from "../cli/helpers.ts";

after(() => cleanUp());

const ACME: RegistryConfig = {
  namespace: "@acme",
  url: "https://registry.acme.dev/r/{name}.json",
  headers: {},
  from: "kiln.toml",
};

describe("RegistryCache", () => {
  it("a verified blob another kiln evicted before it is filed again is written again", () => {
    const env = { XDG_CACHE_HOME: tempDir() };
    const bytes = Buffer.from('{"name": "redis"}\n');
    const fetched = { bytes, digest: sha256Digest(bytes) };
    new RegistryCache(env).putItem(ACME, "redis", "1.2.0", fetched);

    const command = new RegistryCache(env);
    assert.deepEqual(command.item(ACME, "redis", "1.2.0"), fetched);
    const blob = join(env.XDG_CACHE_HOME, "kiln", "blobs", "sha256", fetched.digest.slice(7));
    rmSync(blob); // another kiln's eviction, between this command's read and its put
    command.putItem(ACME, "redis", "1.2.0", fetched);

    assert.ok(existsSync(blob), "the blob is there again");
    assert.deepEqual(new RegistryCache(env).item(ACME, "redis", "1.2.0"), fetched);
  });
});
