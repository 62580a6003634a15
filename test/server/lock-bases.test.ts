// POST /api/lock/bases over a real socket: kiln.lock's compressed form of each text, made with
// the code `kiln setup` writes the lock with (so the dashboard's zip holds the same lock), the
// service's usual refusals for a body of the wrong type, shape or size, and a body at the limit
// compressed without holding the HTTP thread; under a flood, the work runs in a render worker,
// the bytes under way are bounded across requests (503 `overloaded` past them), and the
// service keeps answering.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { decodeBaseText, encodeBase } from "../../src/node/lock-compression.ts";
import { type RunningServer, startServer } from "../../src/server/server.ts";
import { waitFor } from "../cli/helpers.ts";
import { raw, writeSlowItem } from "./helpers.ts";

let service: RunningServer;

before(async () => {
  service = await startServer({ port: 0, log: () => {} });
});

after(async () => {
  await service.close();
});

const post = (body: string, contentType = "application/json") =>
  raw(service.url, {
    method: "POST",
    path: "/api/lock/bases",
    headers: { "content-type": contentType, "content-length": String(Buffer.byteLength(body)) },
    body,
  });

describe("POST /api/lock/bases", () => {
  test("one base per text, in order, byte for byte the CLI's", async () => {
    const contents = ["kind: Deployment\n".repeat(40), "", "é ✓ \u0000 tab\there\n", "same"];
    const response = await post(JSON.stringify({ contents }));
    assert.equal(response.status, 200, response.body);
    assert.equal(response.headers["content-type"], "application/json");
    const { bases } = JSON.parse(response.body) as { bases: string[] };
    assert.deepEqual(bases, contents.map(encodeBase));
    assert.deepEqual(bases.map(decodeBaseText), contents);
  });

  test("wrong content type 415, wrong shape 422, bad JSON 400, over 2 MiB 413", async () => {
    const text = await post(JSON.stringify({ contents: ["a"] }), "text/plain");
    assert.equal(text.status, 415);
    assert.equal(text.body, "Expected request with `Content-Type: application/json`");
    const shape = await post(JSON.stringify({ contents: ["a", 5] }));
    assert.equal(shape.status, 422);
    assert.match(shape.body, /^Failed to deserialize the JSON body into the target type: /);
    const missing = await post("{}");
    assert.equal(missing.status, 422);
    assert.match(missing.body, /missing field `contents`/);
    const broken = await post("{");
    assert.equal(broken.status, 400);
    const big = await post(JSON.stringify({ contents: ["x".repeat(2 * 1024 * 1024)] }));
    assert.equal(big.status, 413);
  });

  test("more than 10,000 texts are refused with a clear error; 10,000 compress in one job, one stream at a time", async () => {
    // 200,000 empty strings fit in 1.2 MB; compressed all at once they would each hold a zlib
    // stream of about 256 KiB (tens of GiB together): the service refuses them before any work
    const many = await post(JSON.stringify({ contents: new Array(200_000).fill("") }));
    assert.equal(many.status, 400, many.body);
    assert.deepEqual(JSON.parse(many.body), {
      code: "invalid_request",
      error: "too many texts: 200000 in one request, at most 10000",
      detail: "send them in several requests",
    });
    const heavyBefore = service.pool.heavyJobs;
    const most = await post(JSON.stringify({ contents: new Array(10_000).fill("a: 1\n") }));
    assert.equal(most.status, 200);
    const { bases } = JSON.parse(most.body) as { bases: string[] };
    assert.equal(bases.length, 10_000);
    assert.ok(bases.every((base) => base === encodeBase("a: 1\n")));
    // one heavy job in a render worker, which compresses its texts one after another: never
    // the 10,000 zlib streams at once (2.5 GiB) that one request used to start
    assert.equal(service.pool.heavyJobs, heavyBefore + 1, "one job in the strangers' share");
    assert.equal((await raw(service.url, { path: "/api/health" })).status, 200);
  });

  test("a body near the limit is compressed while the service keeps answering", async () => {
    const contents = Array.from({ length: 64 }, (_, index) =>
      `line ${index}\n`.repeat(1_500 + index),
    );
    const [bases, health] = await Promise.all([
      post(JSON.stringify({ contents })),
      raw(service.url, { path: "/api/health" }),
    ]);
    assert.equal(health.status, 200);
    assert.equal(bases.status, 200);
    const answer = JSON.parse(bases.body) as { bases: string[] };
    assert.equal(answer.bases.length, 64);
    assert.equal(decodeBaseText(answer.bases[63] as string), contents[63]);
  });
});

/** A request whose headers (declaring `length` bytes of body) and first bytes are sent, the rest never. */
async function hangingRequest(length: number): Promise<Socket> {
  const { hostname, port } = new URL(service.url);
  const socket = connect(Number(port), hostname);
  await once(socket, "connect");
  socket.on("error", () => {});
  socket.write(
    `POST /api/lock/bases HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n{"contents": ["`,
  );
  return socket;
}

describe("POST /api/lock/bases under a flood", () => {
  test("the texts are parsed and compressed in a render worker, as heavy work", async () => {
    const heavyBefore = service.pool.heavyJobs;
    const contents = ["a: 1\n", "kind: Service\n".repeat(100)];
    const response = await post(JSON.stringify({ contents }));
    assert.equal(response.status, 200, response.body);
    assert.deepEqual(JSON.parse(response.body), { bases: contents.map(encodeBase) });
    assert.equal(service.pool.heavyJobs, heavyBefore + 1, "one job in the strangers' share");
  });

  test("past 16 MiB of bodies under way, 503 overloaded at once; the bytes come back when they end", async () => {
    const limit = 16 * 1024 * 1024;
    const hanging: Socket[] = [];
    try {
      for (let index = 0; index < 8; index++) hanging.push(await hangingRequest(limit / 8));
      await waitFor("16 MiB of bodies held", () => service.heavyBodies.held === limit);
      const refused = await post(JSON.stringify({ contents: ["a: 1\n"] }));
      assert.equal(refused.status, 503, refused.body);
      assert.equal(refused.headers["content-type"], "application/json");
      assert.equal(refused.headers["retry-after"], "1");
      assert.equal(refused.headers.connection, "close");
      assert.deepEqual(JSON.parse(refused.body), {
        code: "overloaded",
        error: "the service has 16 MiB of large requests under way - try again in a moment",
        detail:
          "render bodies over 256 KiB and lock bases count until their answer is sent; send smaller requests, or fewer at once",
      });
      assert.equal((await raw(service.url, { path: "/api/health" })).body, "ok");
    } finally {
      for (const socket of hanging) socket.destroy();
    }
    // the requests that went give their bytes back
    await waitFor("the bytes given back", () => service.heavyBodies.held === 0);
    const again = await post(JSON.stringify({ contents: ["a: 1\n"] }));
    assert.equal(again.status, 200, again.body);
  });

  test("while a flood of large bodies runs, /api/health is answered; each answer is the bases or 503", async () => {
    const contents = Array.from({ length: 64 }, (_, text) =>
      Array.from({ length: 1_100 }, (_, line) => `  - name: item-${text}-${line}\n`).join(""),
    );
    const body = JSON.stringify({ contents });
    assert.ok(Buffer.byteLength(body) > 1_500_000, "bodies of about 1.8 MB");
    const expected = JSON.stringify({ bases: contents.map(encodeBase) });
    let settled = 0;
    const flood = Array.from({ length: 24 }, () =>
      post(body).finally(() => {
        settled += 1;
      }),
    );
    await waitFor("a body held", () => service.heavyBodies.held > 0);
    const health = await raw(service.url, { path: "/api/health" });
    assert.equal(health.body, "ok");
    assert.ok(settled < flood.length, "answered while the flood was still under way");
    const answers = await Promise.all(flood);
    for (const answer of answers) {
      if (answer.status === 503) {
        assert.equal(JSON.parse(answer.body).code, "overloaded");
        continue;
      }
      assert.equal(answer.status, 200, answer.body.slice(0, 200));
      assert.equal(answer.body, expected, "byte for byte the CLI's bases");
    }
    assert.ok(answers.some((answer) => answer.status === 200));
  });
});

describe("POST /api/lock/bases in the render pool's words", () => {
  test("texts that waited too long for a worker are 503 overloaded; compressing past the deadline is stopped", async () => {
    const folder = mkdtempSync(join(tmpdir(), "kiln-lock-bases-"));
    const slow = writeSlowItem(folder);

    // one worker: a stranger's slow item holds it, and the texts wait behind it
    const pooled = await startServer({
      port: 0,
      log: () => {},
      render: { size: 1, spare: false, fuel: 2 ** 31, deadlineMs: 2_000, queueTimeoutMs: 300 },
      // closing stops the slow render at once instead of letting it spin to its deadline
      timeouts: { shutdownGraceMs: 50 },
    });
    const postTo = (server: RunningServer, body: string) =>
      raw(server.url, {
        method: "POST",
        path: "/api/lock/bases",
        headers: { "content-type": "application/json" },
        body,
      });
    let blocking: Promise<unknown> = Promise.resolve();
    try {
      blocking = raw(pooled.url, {
        method: "POST",
        path: "/api/render",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ reference: slow, name: "x" }),
      }).catch(() => {});
      await waitFor("a heavy job under way", () => pooled.pool.stats().heavy > 0);
      const waited = await postTo(pooled, JSON.stringify({ contents: ["a: 1\n"] }));
      assert.equal(waited.status, 503, waited.body);
      assert.deepEqual(JSON.parse(waited.body), {
        code: "overloaded",
        error:
          "the service is busy: the texts waited 300 ms for a worker and were dropped - try again in a moment",
      });
    } finally {
      await pooled.close();
      await blocking;
      rmSync(folder, { recursive: true, force: true });
    }
    // a deadline shorter than the compression of 10,000 texts
    const hurried = await startServer({ port: 0, log: () => {}, render: { deadlineMs: 1 } });
    try {
      const stopped = await postTo(
        hurried,
        JSON.stringify({ contents: new Array(10_000).fill("a") }),
      );
      assert.equal(stopped.status, 500, stopped.body);
      assert.deepEqual(JSON.parse(stopped.body), {
        code: "internal",
        error:
          "compressing the texts took longer than 1 ms and was stopped - send fewer or smaller texts in one request",
      });
    } finally {
      await hurried.close();
    }
  });
});
