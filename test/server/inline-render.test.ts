// What the thread that serves HTTP renders itself (src/server/inline-render.ts): only small,
// bounded renders of built-ins. A small body that writes a large output is bounded by what it
// writes, not by its size or its instruction count, and goes to a worker like any other render;
// seen by holding the only worker with a stranger's slow template, so a render that needs a
// worker waits for it and is dropped by the queue's deadline, while one rendered here is answered.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { renderItem } from "../../src/core/render-item.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { TemplateEngine } from "../../src/node/template-engine.ts";
import { INLINE_BODY_BYTES } from "../../src/server/inline-render.ts";
import type { RunningServer } from "../../src/server/server.ts";
import { waitFor } from "../cli/helpers.ts";
import { postJson, startFixtureServer, writeSlowItem } from "./helpers.ts";

const folder = mkdtempSync(join(tmpdir(), "kiln-inline-render-"));
const slowItem = writeSlowItem(folder);

let service: RunningServer;
let holding: Promise<unknown>;

before(async () => {
  service = await startFixtureServer({
    registry: builtinRegistry(),
    render: { size: 1, spare: false, fuel: 2 ** 31, deadlineMs: 600_000, queueTimeoutMs: 300 },
    // closing stops the slow render at once instead of letting it spin to its deadline
    timeouts: { shutdownGraceMs: 50 },
  });
  holding = postJson(service.url, { reference: slowItem, name: "x" }).catch(() => {});
  await waitFor("the only worker to take the slow render", () => service.pool.stats().busy === 1);
});
after(async () => {
  await service.close();
  await holding;
  rmSync(folder, { recursive: true, force: true });
});

/** An inventory of `hosts` hosts whose user name, written for every host, is `userLength` long. */
function inventoryBody(hosts: number, userLength: number): string {
  const members = Array.from({ length: hosts }, (_, at) => ({ name: `h${at}` }));
  return JSON.stringify({
    reference: "automation/inventory",
    name: "fleet",
    fields: {
      hosts: JSON.stringify([{ group: "web", members }]),
      default_user: "x".repeat(userLength),
    },
  });
}

describe("renders on the HTTP thread", () => {
  test("a small inventory is answered while the only worker is busy", async () => {
    const body = inventoryBody(3, 5);
    const answer = await postJson(service.url, body);
    assert.equal(answer.status, 200, answer.body);
    assert.match(answer.body, /xxxxx/);
  });

  test("a body under 8 KiB that would write more than the thread's output bound goes to a worker", async () => {
    // 100 hosts (well within the thread's instruction bound), a 3,000-character user written for
    // each: about 300 KB from a body under 8 KiB
    const body = inventoryBody(100, 3_000);
    assert.ok(
      Buffer.byteLength(body) <= INLINE_BODY_BYTES,
      `the body is small: ${Buffer.byteLength(body)}`,
    );
    const answer = await postJson(service.url, body);
    assert.equal(answer.status, 500, "it waited for the held worker");
    assert.match(answer.body, /the service is busy: the render waited 300 ms for a worker/);
  });

  test("an answer rendered here goes out as the UTF-8 of the engine's JSON, with its byte length", async () => {
    // accents, CJK, an emoji (a surrogate pair), a control character and a line separator:
    // each takes more bytes than characters, or is escaped, in the JSON
    const vars = { motd: "é 日本語 😀 \u0001 \u2028" };
    const input = { name: "web", fields: { group: "web", vars: JSON.stringify(vars) } };
    const item = builtinRegistry().byComponentName("group-vars");
    assert.ok(item);
    const expected = JSON.stringify(
      renderItem(new TemplateEngine(), item, { ...input, labels: {}, defaultNamespace: "default" }),
    );
    const answer = await postJson(service.url, { reference: "automation/group-vars", ...input });
    assert.equal(answer.status, 200, answer.body);
    assert.equal(answer.body, expected);
    assert.equal(answer.headers["content-length"], String(Buffer.byteLength(expected)));
    assert.ok(Buffer.byteLength(expected) > expected.length, "more bytes than characters");
  });
});
