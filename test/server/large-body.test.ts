// Render request bodies over LARGE_BODY_BYTES are checked, decoded and parsed in a render worker,
// never in the thread that serves HTTP (issue 14: that thread must not block for a large body),
// with exactly the answers and errors a small body gets: the same files, the same 400 and 422
// messages, the render cache for built-ins, references resolved for URLs and files. A large body
// is heavy work whatever it names: it runs within the strangers' share of the workers, and the
// bytes of large bodies under way are bounded across requests (503 `overloaded` past them).
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parseRenderRequest } from "../../src/core/render-request.ts";
import { parseJsonBody } from "../../src/sandbox/json-body.ts";
import { LARGE_BODY_BYTES } from "../../src/server/heavy-bodies.ts";
import type { RunningServer } from "../../src/server/server.ts";
import { waitFor } from "../cli/helpers.ts";
import {
  expectedInventory,
  FIXTURE_ITEMS,
  inventoryHosts,
  raw,
  startFixtureServer,
} from "./helpers.ts";

/** Hosts enough for a body over LARGE_BODY_BYTES (about 80 bytes of JSON a host). */
const LARGE_HOSTS = Math.ceil(LARGE_BODY_BYTES / 60);

/**
 * A render's deadline and a job's time in the queue, far beyond what a busy machine needs:
 * a large body's parse and render take well over the defaults (2 s, 5 s in the queue) when the
 * machine's cores are shared many ways, and what these tests prove is where and whether the
 * bodies are parsed, never how fast.
 */
const UNHURRIED = { deadlineMs: 120_000, queueTimeoutMs: 120_000 };

function post(service: RunningServer, body: string | Buffer) {
  return raw(service.url, {
    method: "POST",
    path: "/api/render",
    headers: { "content-type": "application/json" },
    body,
  });
}

/** The message the thread that serves HTTP gives for this body (parsed there, as when small). */
function messageWhenParsedHere(body: Buffer): string {
  try {
    parseRenderRequest(parseJsonBody(body));
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the body was expected to be refused");
}

describe("large render bodies are parsed in a worker", () => {
  let service: RunningServer;
  let folder: string;
  before(async () => {
    folder = mkdtempSync(join(tmpdir(), "kiln-large-body-"));
    const inventory = FIXTURE_ITEMS.find((item) => item.name === "inventory");
    writeFileSync(join(folder, "inventory-item.json"), JSON.stringify(inventory));
    service = await startFixtureServer({
      cwd: folder,
      render: { idleRefreshMs: 100, ...UNHURRIED },
    });
  });
  after(() => service.close());

  test("a large body of a built-in renders in the worker: the same files, kept like any built-in's", async () => {
    const body = JSON.stringify({
      reference: "automation/inventory",
      name: "big",
      fields: { hosts: inventoryHosts(LARGE_HOSTS) },
    });
    assert.ok(Buffer.byteLength(body) > LARGE_BODY_BYTES, "the body is large");
    const parsedBefore = service.pool.requestBodies;
    const answer = await post(service, body);
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body), {
      component: "inventory",
      files: [{ path: "big-inventory.ini", content: expectedInventory(LARGE_HOSTS) }],
    });
    assert.equal(service.pool.requestBodies, parsedBefore + 1, "parsed in a worker");
    // kept the second time the body is seen, then answered from the cache
    assert.equal((await post(service, body)).body, answer.body);
    const hits = service.renderCache.stats().hits;
    const again = await post(service, body);
    assert.equal(again.body, answer.body);
    assert.equal(service.renderCache.stats().hits, hits + 1, "the repeat came from the cache");
    assert.equal(service.pool.requestBodies, parsedBefore + 2, "and was not parsed again");
  });

  test("a small body is still parsed by the thread that serves HTTP", async () => {
    const parsedBefore = service.pool.requestBodies;
    const answer = await post(
      service,
      JSON.stringify({
        reference: "inventory",
        name: "small",
        fields: { hosts: inventoryHosts(3) },
      }),
    );
    assert.equal(answer.status, 200, answer.body);
    assert.equal(service.pool.requestBodies, parsedBefore);
  });

  test("a large body naming a file is resolved and rendered, every time", async () => {
    const body = JSON.stringify({
      reference: "./inventory-item.json",
      name: "from-file",
      fields: { hosts: inventoryHosts(LARGE_HOSTS) },
    });
    const parsedBefore = service.pool.requestBodies;
    const answer = await post(service, body);
    assert.equal(answer.status, 200, answer.body);
    // once to learn the reference is no built-in, once more with the file's item
    assert.equal(service.pool.requestBodies, parsedBefore + 2, "parsed in workers only");
    assert.equal(
      JSON.parse(answer.body).files[0].content,
      expectedInventory(LARGE_HOSTS),
      "the file's template rendered",
    );
    const hits = service.renderCache.stats().hits;
    assert.equal((await post(service, body)).body, answer.body);
    assert.equal(service.renderCache.stats().hits, hits, "a file's answer is never kept");
  });

  test("a large body that is not JSON, not UTF-8 or not a render request: the small body's 400 and 422", async () => {
    const padding = "x".repeat(LARGE_BODY_BYTES);
    const cases: [what: string, body: Buffer, status: number][] = [
      [
        "bad JSON",
        Buffer.from(`{"reference": "inventory", "name": "a", "fields": {"pad": "${padding}"},}`),
        400,
      ],
      [
        "invalid UTF-8",
        Buffer.concat([
          Buffer.from(`{"reference": "inventory", "name": "\n`),
          Buffer.from([0xc3, 0x28]),
          Buffer.from(`", "fields": {"pad": "${padding}"}}`),
        ]),
        400,
      ],
      ["no name", Buffer.from(`{"reference": "inventory", "fields": {"pad": "${padding}"}}`), 422],
      [
        "a field that is not a string",
        Buffer.from(`{"reference": "inventory", "name": "a", "fields": {"pad": ["${padding}"]}}`),
        422,
      ],
    ];
    // a stranger's item (the file's, above) or a failed render gets its worker replaced once the
    // pool is idle; a refused body does not
    await waitFor(
      "the workers that ran a stranger's item were replaced",
      () => !service.pool.refreshDue,
    );
    const refreshed = service.pool.refreshed;
    for (const [what, body, status] of cases) {
      assert.ok(body.byteLength > LARGE_BODY_BYTES, what);
      const parsedBefore = service.pool.requestBodies;
      const answer = await post(service, body);
      assert.equal(answer.status, status, `${what}: ${answer.body.slice(0, 200)}`);
      assert.equal(answer.body, messageWhenParsedHere(body), what);
      assert.equal(service.pool.requestBodies, parsedBefore + 1, `${what}: parsed in a worker`);
    }
    // the replacement is decided when the answer is given: none is due, so none will come
    assert.equal(service.pool.refreshDue, false, "no worker is to be replaced for a refused body");
    assert.equal(service.pool.refreshed, refreshed, "no worker was replaced for a refused body");
  });
});

describe("a large body is heavy work, whatever it names", () => {
  test("large bodies naming a built-in run within the strangers' share; another caller's small render is answered meanwhile", async () => {
    // two workers, one of them for heavy work: the other must stay free for small renders
    const service = await startFixtureServer({
      render: { size: 2, spare: false, untrustedWorkers: 1, ...UNHURRIED },
    });
    try {
      const heavyBefore = service.pool.heavyJobs;
      const count = 6;
      let settled = 0;
      const large = Array.from({ length: count }, (_, index) => {
        const body = JSON.stringify({
          reference: "automation/inventory",
          name: `big${index}`,
          fields: { hosts: inventoryHosts(LARGE_HOSTS * 2) },
        });
        return post(service, body).finally(() => {
          settled += 1;
        });
      });
      // the pool's share state while they are in flight
      let mostHeavy = 0;
      let sawWaiting = false;
      const sampler = setInterval(() => {
        const { heavy, queued } = service.pool.stats();
        mostHeavy = Math.max(mostHeavy, heavy);
        if (heavy > 0 && queued > 0) sawWaiting = true;
      }, 1);
      try {
        while (!sawWaiting && settled < count)
          await new Promise((resolve) => setTimeout(resolve, 2));
        assert.ok(sawWaiting, "the large bodies waited for the strangers' share");
        const small = await post(
          service,
          JSON.stringify({ reference: "test/echo", name: "small", fields: { greeting: "hi" } }),
        );
        assert.equal(small.status, 200, small.body);
        assert.ok(settled < count, "the small render was answered while large bodies waited");
        const answers = await Promise.all(large);
        for (const [index, answer] of answers.entries()) {
          assert.equal(answer.status, 200, answer.body.slice(0, 200));
          assert.equal(JSON.parse(answer.body).files[0].path, `big${index}-inventory.ini`);
        }
      } finally {
        clearInterval(sampler);
      }
      assert.equal(mostHeavy, 1, "never more than the strangers' share (one worker) at once");
      assert.equal(service.pool.heavyJobs, heavyBefore + count, "each ran in the strangers' share");
    } finally {
      await service.close();
    }
  });
});

describe("large bodies under way are bounded across requests", () => {
  test("past 16 MiB of large bodies under way, a large render body is 503 overloaded at once; a small one renders", async () => {
    const service = await startFixtureServer({ render: { size: 1, spare: false, ...UNHURRIED } });
    const { hostname, port } = new URL(service.url);
    // eight render requests declaring 2 MiB each, their bodies never sent
    const hanging = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const socket = connect(Number(port), hostname);
        socket.on("error", () => {});
        await once(socket, "connect");
        socket.write(
          `POST /api/render HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${2 * 1024 * 1024}\r\n\r\n{`,
        );
        return socket;
      }),
    );
    try {
      await waitFor(
        "the eight declared bodies are counted",
        () => service.heavyBodies.held >= 16 * 1024 * 1024,
      );
      const large = JSON.stringify({
        reference: "automation/inventory",
        name: "refused",
        fields: { hosts: inventoryHosts(LARGE_HOSTS) },
      });
      const parsedBefore = service.pool.requestBodies;
      const refused = await post(service, large);
      assert.equal(refused.status, 503, refused.body.slice(0, 200));
      assert.equal(refused.headers["retry-after"], "1");
      assert.equal(refused.headers.connection, "close");
      assert.deepEqual(JSON.parse(refused.body), {
        code: "overloaded",
        error: "the service has 16 MiB of large requests under way - try again in a moment",
        detail:
          "render bodies over 256 KiB and lock bases count until their answer is sent; send smaller requests, or fewer at once",
      });
      assert.equal(service.pool.requestBodies, parsedBefore, "refused before any work");
      const small = await post(service, JSON.stringify({ reference: "test/echo", name: "small" }));
      assert.equal(small.status, 200, "a small body is no heavy work: it renders");
      const tooLarge = await post(service, "x".repeat(3 * 1024 * 1024));
      assert.equal(tooLarge.status, 413, "a body over the limit is still refused as such");
    } finally {
      for (const socket of hanging) socket.destroy();
    }
    try {
      await waitFor(
        "the requests that went gave their bytes back",
        () => service.heavyBodies.held === 0,
      );
      const again = await post(
        service,
        JSON.stringify({
          reference: "automation/inventory",
          name: "again",
          fields: { hosts: inventoryHosts(LARGE_HOSTS) },
        }),
      );
      assert.equal(again.status, 200, again.body.slice(0, 200));
      assert.equal(service.heavyBodies.held, 0, "its body and answer too, once sent");
    } finally {
      await service.close();
    }
  });
});
