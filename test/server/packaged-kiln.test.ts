// `@kiln`'s items shipped in the package render in the service's workers as the built-ins do
// (preloaded, on the compiled path), from the real binary: the same files as the CLI writes, for
// a small body and for a body large enough to be parsed in a worker. Preloading them names
// nothing new: a bare `aws-server` is still no built-in, however large the body that asks.
// The service runs from a copy of the built package, so the last test can take `@kiln`'s
// folder away from under it: what it read at start is what it answers with.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { LARGE_BODY_BYTES } from "../../src/server/heavy-bodies.ts";
import { BIN, cleanEnv, cleanUp, copyOfPackage, tempDir } from "../cli/helpers.ts";
import { type ChildServer, postJson, raw, startChild } from "./helpers.ts";

let service: ChildServer;
/** The copy's built `@kiln` registry folder. */
let kilnFolder = "";

before(async () => {
  const packageDir = copyOfPackage();
  kilnFolder = join(packageDir, "dist", "registries", "kiln");
  // no render cache: a repeated body is rendered again, not answered from what was kept; a
  // render deadline far beyond what a busy machine needs (the default is 2 s), as a large
  // body's parse and render in a worker take longer than that when the cores are shared many
  // ways, and what is proved here is the files, not the speed
  service = await startChild(
    ["--port", "0", "--render-cache", "0", "--render-timeout", "120000"],
    {},
    join(packageDir, "dist", "cli", "main.js"),
  );
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

  it("@kiln's items and index are read once, at start: with its folder gone, renders, inspect and search answer as before", async () => {
    const version = (
      JSON.parse(readFileSync(join(kilnFolder, "registry.json"), "utf8")) as {
        items: { name: string; version: string }[];
      }
    ).items.find((entry) => entry.name === "aws-server")?.version;
    const requests = [
      () => postJson(service.url, { reference: "@kiln/aws-server", name: "web", fields: FIELDS }),
      () =>
        postJson(service.url, {
          reference: `@kiln/aws-server@${version}`,
          name: "pinned",
          fields: FIELDS,
        }),
      () => raw(service.url, { path: "/api/registry/inspect?ref=%40kiln%2Faws-server" }),
      () => raw(service.url, { path: "/api/search?q=aws&registry=%40kiln" }),
    ];
    const before = [];
    for (const request of requests) {
      const answer = await request();
      assert.equal(answer.status, 200, answer.body.toString());
      before.push(answer.body.toString());
    }
    rmSync(kilnFolder, { recursive: true, force: true });
    for (const [index, request] of requests.entries()) {
      const answer = await request();
      assert.equal(answer.status, 200, answer.body.toString());
      assert.equal(answer.body.toString(), before[index]);
    }
  });
});
