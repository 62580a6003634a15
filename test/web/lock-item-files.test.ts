// A kiln.lock opened in the dashboard whose components come from item files: the dashboard asks
// the real service (its own API code, over a real socket) for every file at once, not one after
// another, and names in the lock's order exactly the files the service cannot read.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Lock, serializeLock } from "../../src/core/project/lock-format.ts";
import { type RunningServer, startServer } from "../../src/server/server.ts";
import { inspect } from "../../web/src/api.ts";
import { unreadableItemFiles } from "../../web/src/model/project-lock.ts";
import { cleanUp, tempDir, writeJson } from "../cli/helpers.ts";

let service: RunningServer;
const pageFetch = globalThis.fetch;
/** Requests to the service under way now, and the most there ever were at once. */
let inFlight = 0;
let mostInFlight = 0;

/** A registry item file with one template. */
function item(name: string): object {
  return {
    name,
    category: "notes",
    files: [{ path: `${name}.md`, template: "# {{ name }}\n" }],
  };
}

/** A lock whose components come from the item files `references`, in that order. */
function lockOf(references: readonly string[]): string {
  const lock: Lock = {
    version: 1,
    components: references.map((reference, at) => ({
      name: `c${at}`,
      component: "notes/x",
      reference,
      source: { type: "file", path: reference },
      fingerprint: `sha256:${"0".repeat(64)}`,
      fields: {},
      labels: {},
      namespace: "default",
      files: [],
    })),
  };
  return serializeLock(lock);
}

before(async () => {
  const folder = tempDir();
  for (const name of ["a", "b", "d", "f"]) writeJson(folder, `items/${name}.json`, item(name));
  service = await startServer({
    port: 0,
    cwd: folder,
    log: () => {},
    // nothing here renders: one worker, no spare
    render: { size: 1, spare: false },
  });
  // the dashboard asks for `api/...` relative to its page: the service's address is the base
  globalThis.fetch = async (input, init) => {
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    try {
      return await pageFetch(
        typeof input === "string" ? new URL(input, `${service.url}/`) : input,
        init,
      );
    } finally {
      inFlight -= 1;
    }
  };
});

after(async () => {
  globalThis.fetch = pageFetch;
  await service.close();
  cleanUp();
});

describe("a lock's item files in the dashboard", () => {
  it("are all asked for at once, and the unreadable ones are named in the lock's order", async () => {
    const references = [
      "./items/a.json",
      "./items/b.json",
      "./items/c.json",
      "./items/d.json",
    ].concat(["./items/e.json", "./items/f.json"]);
    const unreadable = await unreadableItemFiles(lockOf(references), inspect);
    assert.deepEqual(unreadable, ["./items/c.json", "./items/e.json"]);
    assert.equal(mostInFlight, references.length);
  });
});
