// `@kiln`'s items shipped in the package render in the service's workers as the built-ins do
// (preloaded, on the compiled path), from the real binary: the same files as the CLI writes, for
// a small body and for a body large enough to be parsed in a worker. Preloading them names
// nothing new: a bare `aws-server` is still no built-in, however large the body that asks.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { LARGE_BODY_BYTES } from "../../src/server/heavy-bodies.ts";
import { BIN, cleanEnv, cleanUp, tempDir } from "../cli/helpers.ts";
import { type ChildServer, postJson, startChild } from "./helpers.ts";

let service: ChildServer;

before(async () => {
  service = await startChild(["--port", "0"]);
});

after(async () => {
  await service?.stop();
  cleanUp();
});

const FIELDS = {
  region: "eu-central-1",
  size: "t3.micro",
  count: "2",
  private_network: "10.8.0.0/16",
};

/** `kiln render @kiln/aws-server --json` with FIELDS: the files the CLI renders. */
function cliFiles(): unknown {
  const sets = Object.entries(FIELDS).flatMap(([key, value]) => ["--set", `${key}=${value}`]);
  const run = spawnSync(
    process.execPath,
    [BIN, "render", "@kiln/aws-server", "--name", "web", ...sets, "--json"],
    { cwd: tempDir(), env: cleanEnv(), encoding: "utf8" },
  );
  assert.equal(run.status, 0, run.stderr);
  return (JSON.parse(run.stdout) as { files: unknown }).files;
}

/** The body as JSON, small or padded with whitespace past LARGE_BODY_BYTES. */
function bodies(request: object): string[] {
  const text = JSON.stringify(request);
  return [text, `${text}${" ".repeat(LARGE_BODY_BYTES)}`];
}

describe("the service renders @kiln's packaged items", () => {
  it("POST /api/render @kiln/aws-server gives the CLI's files, small body or large", async () => {
    const expected = cliFiles();
    for (const body of bodies({ reference: "@kiln/aws-server", name: "web", fields: FIELDS })) {
      const response = await postJson(service.url, body);
      assert.equal(response.status, 200, response.body.toString());
      const files = (JSON.parse(response.body.toString()) as { files: unknown }).files;
      assert.deepEqual(files, expected);
    }
  });

  it("a bare `aws-server` names no built-in, in a small body or a large one", async () => {
    for (const body of bodies({ reference: "aws-server", name: "web", fields: FIELDS })) {
      const response = await postJson(service.url, body);
      assert.equal(response.status, 400, response.body.toString());
      assert.match(response.body.toString(), /`aws-server` is not a built-in component/);
    }
  });
});
