// `npm start` / `npm run ui` (scripts/start.mjs): set up what is missing, then serve; with
// nothing changed since the last build, it neither installs nor builds again.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, it } from "node:test";
import { REPO } from "./helpers.ts";

/** Runs scripts/start.mjs until its service prints the start line; returns what it said. */
async function startOnce(args: string[]): Promise<{ line: string; stderr: string }> {
  const child = spawn(process.execPath, [join(REPO, "scripts/start.mjs"), ...args], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      lines.on("line", (text) => {
        if (text.startsWith("kiln listening on ")) resolve(text);
      });
      child.on("exit", (code) => reject(new Error(`start exited with ${code}: ${stderr}`)));
    });
    return { line, stderr };
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  }
}

describe("npm start", () => {
  it("serves, and a second start with nothing changed neither installs nor builds", async () => {
    // builds first if the tree changed since the last build
    await startOnce(["--port", "0", "--drain-delay", "0"]);
    const again = await startOnce(["--port", "0", "--ui", "--drain-delay", "0"]);
    assert.match(again.line, /^kiln listening on http:\/\/127\.0\.0\.1:\d+$/);
    assert.doesNotMatch(again.stderr, /start: (installing|building)/);
  });
});
