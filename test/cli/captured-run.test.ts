// Commands run one after another in one process (`kiln mcp` runs each tool call so, through
// src/cli/captured-run.ts): each runs in its own command line's network mode. A run with
// `--offline` fetches nothing, and the run after it, without the option, fetches - it does not
// inherit the mode. In-process, with the real `render` command and a real HTTP server here that
// serves an item and counts the requests it gets.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { runCaptured } from "../../src/cli/captured-run.ts";
import * as render from "../../src/cli/commands/render.ts";

const ITEM = {
  name: "note",
  category: "docs",
  files: [{ path: "{{ name }}.md", template: "# {{ name }}\n" }],
};

let server: Server;
let requests = 0;
let url = "";

before(async () => {
  server = createServer((_request, response) => {
    requests += 1;
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify(ITEM));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/note.json`;
});

after(() => server.close());

describe("commands run in one process", () => {
  it("a run with --offline fetches nothing, and the next run without it fetches: the mode is the run's own", async () => {
    const offline = await runCaptured(render, [url, "--name", "readme", "--offline"]);
    assert.equal(offline.status, 1, offline.stdout);
    assert.match(offline.failure?.detail ?? offline.failure?.message ?? "", /kiln runs offline/);
    assert.equal(requests, 0);
    const online = await runCaptured(render, [url, "--name", "readme"]);
    assert.equal(online.status, 0, JSON.stringify(online.failure));
    assert.equal(requests, 1);
    assert.match(online.stdout, /^# Source: readme\.md\n# readme\n/);
  });
});
