// Which of Node's own modules a command loads. A one-shot command's time over `node -e 0` is
// largely what it loads, so the modules that a command renders and writes without stay
// unloaded: the global Web Crypto object (a module of its own; the hashing kiln.lock needs comes
// from node:crypto) and the fs promise API (only a component or preset read from a local file
// needs it). Read from the process's own list of loaded modules at exit, for the real binary.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cleanUp, ensureBuilt, kiln, project, tempDir, write } from "./helpers.ts";

before(ensureBuilt);
after(cleanUp);

/** The modules Node loaded for `kiln <args>` in `cwd`, as process.moduleLoadList names them. */
function modulesLoadedBy(args: string[], cwd: string): string[] {
  const probeDir = tempDir();
  const listFile = join(probeDir, "modules.txt");
  const probe = write(
    probeDir,
    "probe.cjs",
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(listFile)}, process.moduleLoadList.join("\\n")));\n`,
  );
  const run = kiln(args, cwd, { NODE_OPTIONS: `--require ${JSON.stringify(probe)}` });
  assert.equal(run.status, 0, run.stderr);
  return readFileSync(listFile, "utf8").split("\n");
}

describe("Node modules a rendering command loads", () => {
  const cases: [string, () => { args: string[]; cwd: string }][] = [
    [
      "kiln setup multi-tier-platform",
      () => ({ args: ["setup", "multi-tier-platform"], cwd: tempDir() }),
    ],
    [
      "kiln add k8s/deployment",
      () => ({
        args: ["add", "k8s/deployment", "--name", "web", "--image", "nginx:1.27"],
        cwd: project(),
      }),
    ],
  ];
  for (const [label, prepare] of cases) {
    it(`${label} loads neither Web Crypto nor the fs promise API, only node:crypto's hashing`, () => {
      const { args, cwd } = prepare();
      const loaded = modulesLoadedBy(args, cwd);
      // the probe sees what the command does load: node:crypto, for kiln.lock's hashes
      assert.ok(loaded.includes("NativeModule crypto"), "node:crypto is loaded");
      assert.ok(!loaded.includes("NativeModule internal/crypto/webcrypto"), "Web Crypto is not");
      assert.ok(!loaded.includes("NativeModule fs/promises"), "fs/promises is not");
    });
  }
});
