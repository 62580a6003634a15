// writeAtomically (src/node/atomic-write.ts) never touches a file it did not create: a file
// already at its temporary name belongs to another writer (another kiln in another container,
// whose pid and counter are the same), and that writer's rename must still find it.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { writeAtomically } from "../../src/node/atomic-write.ts";
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
