// kiln serve: the CLI hands over to the HTTP service (dist/server, loaded only for serve).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { cleanUp, ensureBuilt, kilnBackground, tempDir } from "./helpers.ts";

// the server is compiled by build:core (tsc), not bundled; `npm test` builds it first
before(() => ensureBuilt());
after(cleanUp);

describe("kiln serve", () => {
  it("starts the service, answers /api/health, and stops on SIGTERM with exit 0", async () => {
    const child = kilnBackground(["serve", "--port", "0"], tempDir());
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const match = /^kiln listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
          if (match) resolve(match[1] as string);
        });
        child.on("exit", (code) => reject(new Error(`serve exited with ${code} before listening`)));
      });
      const response = await fetch(`${url}/api/health`);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "ok");
      const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
