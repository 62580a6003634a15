// Two kiln processes writing the same folder at once (two containers sharing ~/.cache/kiln or a
// project volume, each with kiln as PID 1) never undo each other's work:
// - writeAtomically (src/node/atomic-write.ts) never touches a file it did not create: a file
//   already at its temporary name is another writer's, whose rename must still find it;
// - kiln's registry cache (src/node/registry-cache.ts) never leaves an entry naming a blob that
//   is gone: a blob one command read and verified may be evicted by another kiln before the
//   command files it again, and then it is written again, so a later `--offline` run finds it.
// One file for both: each test file costs a process start.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { RegistryConfig } from "../../src/core/registry-config.ts";
import { writeAtomically } from "../../src/node/atomic-write.ts";
import { RegistryCache, sha256Digest } from "../../src/node/registry-cache.ts";
import { cleanUp, tempDir } from "../cli/helpers.ts";

after(() => cleanUp());

describe("writeAtomically", () => {
  it("a file already at the temporary name is left as it is, and the write still succeeds", () => {
    const folder = tempDir();
    const destination = join(folder, "kiln.lock");
    const othersTemporary = join(folder, ".kiln.lock.kiln-1-1.tmp");
    writeFileSync(othersTemporary, "another writer's bytes\n");
    const names = [othersTemporary, join(folder, ".kiln.lock.kiln-1-2.tmp")];
    writeAtomically(destination, "ours\n", 0o600, () => names.shift() ?? "");
    assert.equal(readFileSync(othersTemporary, "utf8"), "another writer's bytes\n");
    assert.equal(readFileSync(destination, "utf8"), "ours\n");
    assert.deepEqual(readdirSync(folder).sort(), [".kiln.lock.kiln-1-1.tmp", "kiln.lock"]);
  });
});

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

  it("a blob whose file already holds the same bytes is not written again; a planted one of the same size is", () => {
    const env = { XDG_CACHE_HOME: tempDir() };
    const bytes = Buffer.from('{"name": "redis"}\n');
    const fetched = { bytes, digest: sha256Digest(bytes) };
    new RegistryCache(env).putItem(ACME, "redis", "1.2.0", fetched);
    const blob = join(env.XDG_CACHE_HOME, "kiln", "blobs", "sha256", fetched.digest.slice(7));
    const written = statSync(blob).ino;

    // another command fetches the same bytes (an index fetched again with --refresh)
    new RegistryCache(env).putItem(ACME, "redis", "1.2.0", fetched);
    assert.equal(statSync(blob).ino, written, "the same file: not replaced");

    writeFileSync(blob, '{"name": "evil!"}\n'); // same size, other bytes
    new RegistryCache(env).putItem(ACME, "redis", "1.2.0", fetched);
    assert.notEqual(statSync(blob).ino, written, "written again");
    assert.deepEqual(readFileSync(blob), bytes);
  });

  it("a cache whose blobs folder cannot be looked into is no cache: keeping an item does not throw", () => {
    const env = { XDG_CACHE_HOME: tempDir() };
    const bytes = Buffer.from('{"name": "redis"}\n');
    const fetched = { bytes, digest: sha256Digest(bytes) };
    new RegistryCache(env).putItem(ACME, "redis", "1.2.0", fetched);
    const blobs = join(env.XDG_CACHE_HOME, "kiln", "blobs");
    rmSync(blobs, { recursive: true });
    writeFileSync(blobs, "not a folder");
    assert.doesNotThrow(() => new RegistryCache(env).putItem(ACME, "redis", "1.2.0", fetched));
    assert.equal(new RegistryCache(env).item(ACME, "redis", "1.2.0"), undefined);
  });
});
