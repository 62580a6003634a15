// The render cache: answers to repeated render requests of built-in components are kept by
// body from the second time a body is seen, bounded by bytes; everything that can change
// between two requests (URLs, files) or that failed is rendered again. Unit tests of the cache,
// then the service over a real socket.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { renderItem } from "../../src/core/render-item.ts";
import { TemplateEngine } from "../../src/node/template-engine.ts";
import {
  type AnswerBody,
  RenderCache,
  SEEN_ONCE_CHARACTERS,
} from "../../src/server/render-cache.ts";
import type { RunningServer } from "../../src/server/server.ts";
import { waitFor } from "../cli/helpers.ts";
import { FIXTURE_ITEMS, postJson, raw, startFixtureServer } from "./helpers.ts";

/** Renders `key` twice, as two requests with one body: the second time its answer is kept. */
async function keepAnswer(cache: RenderCache, key: string, render: () => Promise<AnswerBody>) {
  await cache.remember(key, render);
  return cache.remember(key, render);
}

describe("RenderCache", () => {
  test("a small body is its own key; a large one is keyed by a digest; equal bodies, equal keys", () => {
    const small = Buffer.from('{"reference":"k8s/deployment","name":"web"}');
    assert.equal(RenderCache.key(small), `b${small.toString("latin1")}`);
    const large = Buffer.alloc(5000, "a");
    const largeKey = RenderCache.key(large);
    assert.ok(largeKey.startsWith("h") && largeKey.length < 64, largeKey);
    assert.equal(RenderCache.key(Buffer.alloc(5000, "a")), largeKey);
    const other = Buffer.alloc(5000, "a");
    other[4999] = 0x62;
    assert.notEqual(RenderCache.key(other), largeKey);
  });

  test("a kept answer is found again; identical requests in flight share one render", async () => {
    const cache = new RenderCache({ maxBytes: 1024 * 1024 });
    let renders = 0;
    let finish: (body: Buffer) => void = () => {};
    const render = () => {
      renders += 1;
      return new Promise<Buffer>((resolve) => {
        finish = resolve;
      });
    };
    assert.equal(cache.lookup("k"), undefined);
    const first = cache.remember("k", render);
    const second = cache.lookup("k");
    assert.ok(second instanceof Promise, "a render under way is shared");
    finish(Buffer.from('{"component":"c","files":[]}'));
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a, b);
    assert.equal(renders, 1);
    assert.equal(cache.lookup("k"), undefined, "a body seen once is not kept");
    const kept = cache.remember("k", render);
    finish(Buffer.from('{"component":"c","files":[]}'));
    const c = await kept;
    assert.equal(renders, 2);
    assert.equal(c.status, 200);
    assert.equal(c.headers["content-type"], "application/json");
    assert.ok(Buffer.isBuffer(c.body), "the body stays the bytes the worker encoded");
    assert.equal(c.body.toString("utf8"), '{"component":"c","files":[]}');
    assert.equal(cache.lookup("k"), c, "seen twice, it is kept");
    assert.deepEqual(cache.stats(), {
      entries: 1,
      bytes: cache.stats().bytes,
      hits: 2,
      pending: 0,
    });
  });

  test("an answer is kept only once its body is seen a second time, so bodies that never repeat keep nothing", async () => {
    const cache = new RenderCache({ maxBytes: 1024 * 1024 });
    // a text answer, as the HTTP thread renders one; a character past U+00FF makes V8 keep it
    // at two bytes a character
    const body = '{"component":"c","files":[{"path":"日本","content":"😀"}]}';
    for (let at = 0; at < 1_000; at++) await cache.remember(`u${at}`, async () => body);
    assert.deepEqual([cache.stats().entries, cache.stats().bytes], [0, 0]);
    const again = await cache.remember("u999", async () => body);
    assert.equal(cache.lookup("u999"), again, "the repeat of a body seen before is kept");
    assert.ok(Buffer.isBuffer(again.body), "kept as its UTF-8 bytes, which the count holds");
    assert.equal(again.body.toString("utf8"), body);
    assert.equal(cache.stats().bytes, 1024 + "u999".length + Buffer.byteLength(body));
  });

  test("the note of bodies seen once is bounded: when full it starts again, and a failed render is not noted", async () => {
    const cache = new RenderCache({ maxBytes: 1024 * 1024 });
    const body = async () => "{}";
    // keys of 1 KiB: the note holds SEEN_ONCE_CHARACTERS / 1024 of them
    const key = (at: number) => `${at}`.padStart(1024, "k");
    const holds = SEEN_ONCE_CHARACTERS / 1024;
    await cache.remember(key(0), body);
    for (let at = 1; at < holds; at++) await cache.remember(key(at), body);
    await cache.remember(key(0), body);
    assert.ok(cache.lookup(key(0)), "still noted while the note has room");
    for (let at = holds; at <= 2 * holds; at++) await cache.remember(key(at), body);
    await cache.remember(key(1), body);
    assert.equal(cache.lookup(key(1)), undefined, "forgotten once the note filled up");
    await assert.rejects(
      cache.remember("bad", () => Promise.reject(new Error("boom"))),
      /boom/,
    );
    await cache.remember("bad", body);
    assert.equal(cache.lookup("bad"), undefined, "the failed render was not noted");
  });

  test("a failed render is not kept", async () => {
    const cache = new RenderCache({ maxBytes: 1024 * 1024 });
    await assert.rejects(
      cache.remember("k", () => Promise.reject(new Error("boom"))),
      /boom/,
    );
    assert.equal(cache.lookup("k"), undefined);
    assert.equal(cache.stats().entries, 0);
  });

  test("bounded by bytes, least recently used out first; an oversized answer is not kept", async () => {
    const answer = (size: number) => Buffer.from(JSON.stringify({ pad: "x".repeat(size) }));
    // About 1,535 bytes an entry (the answer plus the key and the entry's own cost): eight fit.
    const cache = new RenderCache({ maxBytes: 13_000 });
    await keepAnswer(cache, "a", async () => answer(500));
    await keepAnswer(cache, "b", async () => answer(500));
    await keepAnswer(cache, "c", async () => answer(500));
    assert.ok(cache.lookup("a"), "a is used again, so b is now the oldest");
    for (const key of ["d", "e", "f", "g", "h", "i", "j"]) {
      await keepAnswer(cache, key, async () => answer(500));
    }
    assert.equal(cache.stats().entries, 8);
    assert.ok(cache.stats().bytes <= 13_000, `${cache.stats().bytes} bytes kept`);
    assert.ok(cache.lookup("a"), "the recently used entry stays");
    assert.equal(cache.lookup("b"), undefined, "the least recently used entry went first");
    assert.equal(cache.lookup("c"), undefined);
    assert.ok(cache.lookup("j"));
    // More than an eighth of the cache: answered, but not kept.
    const big = await keepAnswer(cache, "big", async () => answer(800));
    assert.equal(JSON.parse((big.body as Buffer).toString("utf8")).pad.length, 800);
    assert.equal(cache.lookup("big"), undefined);
  });

  test("clear drops every kept answer and says how many bytes they held", async () => {
    const cache = new RenderCache({ maxBytes: 1024 * 1024 });
    await keepAnswer(cache, "a", async () => Buffer.from("{}"));
    await keepAnswer(cache, "b", async () => Buffer.from("[]"));
    await cache.remember("c", async () => Buffer.from("[]"));
    const held = cache.stats().bytes;
    assert.ok(held > 0);
    assert.equal(cache.clear(), held);
    assert.equal(cache.lookup("a"), undefined);
    assert.deepEqual([cache.stats().entries, cache.stats().bytes], [0, 0]);
    await cache.remember("c", async () => Buffer.from("[]"));
    assert.equal(cache.lookup("c"), undefined, "the bodies seen once are forgotten too");
  });

  test("a full cache keeps the newest answers through thousands of evictions, a clear, and an answer kept again", async () => {
    const body = Buffer.from('{"component":"c","files":[]}');
    const entryBytes = () => cache.stats().bytes / cache.stats().entries;
    const cache = new RenderCache({ maxBytes: 100_000 });
    const keep = (key: string) => keepAnswer(cache, key, async () => body);
    await keep("k0");
    const fits = Math.floor(100_000 / entryBytes());
    const kept = (from: number, to: number) => {
      for (let at = from; at < to; at++) assert.ok(cache.lookup(`k${at}`), `k${at} is kept`);
    };
    for (let at = 1; at < 5_000; at++) await keep(`k${at}`);
    assert.equal(cache.stats().entries, fits);
    assert.ok(cache.stats().bytes <= 100_000);
    assert.equal(cache.lookup(`k${4_999 - fits}`), undefined, "the older ones went, oldest first");
    kept(5_000 - fits, 5_000);
    cache.clear();
    for (let at = 0; at < 3 * fits; at++) await keep(`n${at}`);
    assert.equal(cache.stats().entries, fits);
    assert.equal(cache.lookup(`k${4_999}`), undefined);
    // kept again: it becomes the newest, so it outlives the answers kept before it
    await keep(`n${2 * fits}`);
    for (let at = 3 * fits; at < 4 * fits - 1; at++) await keep(`n${at}`);
    assert.ok(cache.lookup(`n${2 * fits}`), "the answer kept again stays");
    assert.equal(cache.lookup(`n${2 * fits + 1}`), undefined);
    assert.equal(cache.stats().entries, fits);
  });

  test("0 bytes turns it off; a negative or fractional size is refused", () => {
    assert.equal(new RenderCache({ maxBytes: 0 }).enabled, false);
    assert.equal(new RenderCache().enabled, true);
    assert.throws(() => new RenderCache({ maxBytes: -1 }), RangeError);
    assert.throws(() => new RenderCache({ maxBytes: 1.5 }), RangeError);
  });
});

describe("render cache over a real socket", () => {
  let service: RunningServer;
  const workDir = mkdtempSync(join(tmpdir(), "kiln-render-cache-"));
  const deployment = { reference: "k8s/deployment", name: "web", image: "nginx:1.27" };

  before(async () => {
    service = await startFixtureServer({ cwd: workDir });
  });
  after(() => service.close());

  test("a request of a built-in repeated a third time gets the same answer, from the cache", async () => {
    const engine = new TemplateEngine();
    const expected = JSON.stringify(
      renderItem(engine, FIXTURE_ITEMS[0] as (typeof FIXTURE_ITEMS)[number], {
        name: "web",
        fields: { image: "nginx:1.27" },
        labels: {},
        defaultNamespace: "default",
      }),
    );
    const hits = service.renderCache.stats().hits;
    const first = await postJson(service.url, deployment);
    const second = await postJson(service.url, deployment);
    assert.equal(service.renderCache.stats().hits, hits, "rendered twice: kept the second time");
    const third = await postJson(service.url, deployment);
    for (const answer of [first, second, third]) {
      assert.equal(answer.status, 200);
      assert.equal(answer.body, expected);
    }
    assert.deepEqual(
      [third.headers["content-type"], third.headers["content-length"], third.headers.vary],
      ["application/json", String(Buffer.byteLength(expected)), "origin"],
    );
    assert.equal(service.renderCache.stats().hits, hits + 1);
  });

  test("a kept answer still gets the cross-origin headers of its own request", async () => {
    await postJson(service.url, deployment);
    await postJson(service.url, deployment);
    const allowed = await postJson(service.url, deployment, { origin: "http://localhost:5173" });
    assert.equal(allowed.headers["access-control-allow-origin"], "http://localhost:5173");
    assert.equal(allowed.headers.vary, "origin");
    const refused = await postJson(service.url, deployment, { origin: "https://example.com" });
    assert.equal(refused.status, 200);
    assert.equal(refused.headers["access-control-allow-origin"], undefined);
  });

  test("the content type and the body limit are checked before the cache", async () => {
    await postJson(service.url, deployment);
    const wrongType = await raw(service.url, {
      method: "POST",
      path: "/api/render",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify(deployment),
    });
    assert.equal(wrongType.status, 415);
  });

  test("a body that differs by one byte is rendered on its own", async () => {
    const a = await postJson(service.url, { ...deployment, name: "one" });
    const b = await postJson(service.url, { ...deployment, name: "two" });
    assert.match(a.body, /one-deployment\.yaml/);
    assert.match(b.body, /two-deployment\.yaml/);
  });

  test("failures are not kept: the same bad request is answered again, with no hit", async () => {
    const hits = service.renderCache.stats().hits;
    const missing = { reference: "k8s/deployment", name: "x" };
    for (let round = 0; round < 2; round++) {
      const response = await postJson(service.url, missing);
      assert.equal(response.status, 400);
      assert.match(response.body, /--image is required for k8s\/deployment/);
    }
    assert.equal(service.renderCache.stats().hits, hits);
  });

  test("a file reference is read and rendered every time: a changed file is seen", async () => {
    const file = join(workDir, "note.json");
    const item = (text: string) =>
      JSON.stringify({
        name: "note",
        category: "misc",
        files: [{ path: "n.txt", template: text }],
      });
    writeFileSync(file, item("first {{ name }}"));
    const hits = service.renderCache.stats().hits;
    const first = await postJson(service.url, { reference: "./note.json", name: "a" });
    writeFileSync(file, item("second {{ name }}"));
    const second = await postJson(service.url, { reference: "./note.json", name: "a" });
    assert.equal(JSON.parse(first.body).files[0].content, "first a");
    assert.equal(JSON.parse(second.body).files[0].content, "second a");
    assert.equal(service.renderCache.stats().hits, hits);
  });

  test("a quiet service empties the cache (the idle collection has less to mark), then fills it again", async () => {
    const quiet = await startFixtureServer({ idleCollector: { periodMs: 100 } });
    try {
      const first = await postJson(quiet.url, deployment);
      await postJson(quiet.url, deployment);
      await postJson(quiet.url, deployment);
      assert.equal(quiet.renderCache.stats().entries, 1, "kept while requests come");
      assert.equal(quiet.renderCache.stats().hits, 1);
      // two whole periods without a request
      await waitFor("the cache emptied once quiet", () => quiet.renderCache.stats().entries === 0);
      const again = await postJson(quiet.url, deployment);
      assert.equal(again.body, first.body, "rendered again, the same answer");
      assert.equal(quiet.renderCache.stats().hits, 1, "not from the cache");
      assert.equal(quiet.renderCache.stats().entries, 0, "seen once since the cache emptied");
      await postJson(quiet.url, deployment);
      assert.equal(quiet.renderCache.stats().entries, 1, "and kept again the second time");
    } finally {
      await quiet.close();
    }
  });

  test("turned off, every request is rendered", async () => {
    const off = await startFixtureServer({ renderCacheBytes: 0 });
    try {
      const first = await postJson(off.url, deployment);
      const second = await postJson(off.url, deployment);
      assert.equal(second.body, first.body);
      assert.deepEqual(off.renderCache.stats(), { entries: 0, bytes: 0, hits: 0, pending: 0 });
    } finally {
      await off.close();
    }
  });
});
