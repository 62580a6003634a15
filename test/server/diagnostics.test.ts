// Issue 14's measurements outside the API: with KILN_DIAGNOSTICS=1 the service reports the
// HTTP thread's event-loop delay and its RSS on SIGUSR2 (src/server/diagnostics.ts); and a
// render worker that a large render left large gives that memory back once idle
// (src/sandbox/render-worker.ts); and the HTTP thread collects a burst's buffers once quiet
// (src/server/idle-collector.ts).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { builtinFor } from "../../src/node/resolve-reference.ts";
import { RenderPool } from "../../src/sandbox/render-pool.ts";
import {
  DIAGNOSTICS_ENV,
  type DiagnosticsReport,
  REPORT_PREFIX,
  startDiagnostics,
} from "../../src/server/diagnostics.ts";
import { DEFAULT_IDLE_COLLECTOR, IdleCollector } from "../../src/server/idle-collector.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function parse(line: string): DiagnosticsReport {
  assert.ok(line.startsWith(REPORT_PREFIX) && line.endsWith("\n"), line);
  return JSON.parse(line.slice(REPORT_PREFIX.length)) as DiagnosticsReport;
}

describe("KILN_DIAGNOSTICS", () => {
  test("off unless the environment asks: nothing measured, SIGUSR2 not taken", () => {
    const before = process.listenerCount("SIGUSR2");
    assert.equal(
      startDiagnostics({}, () => assert.fail("no report")),
      undefined,
    );
    assert.equal(
      startDiagnostics({ [DIAGNOSTICS_ENV]: "0" }, () => assert.fail("no report")),
      undefined,
    );
    assert.equal(process.listenerCount("SIGUSR2"), before);
  });

  test("on: SIGUSR2 reports the longest event-loop delay and RSS, then starts again", async () => {
    const lines: string[] = [];
    const stop = startDiagnostics({ [DIAGNOSTICS_ENV]: "1" }, (line) => lines.push(line));
    assert.ok(stop);
    try {
      await sleep(20);
      const blockedUntil = performance.now() + 60;
      while (performance.now() < blockedUntil) {
        // keep the event loop busy for 60 ms
      }
      await sleep(20);
      process.kill(process.pid, "SIGUSR2");
      await sleep(50);
      assert.equal(lines.length, 1);
      const first = parse(lines[0] as string);
      assert.ok(first.eventLoopDelay.maxMs >= 50, `max ${first.eventLoopDelay.maxMs} ms`);
      assert.ok(first.eventLoopDelay.samples > 0);
      assert.ok(first.rssBytes > 10 * 1024 * 1024);
      await sleep(30);
      process.kill(process.pid, "SIGUSR2");
      await sleep(50);
      const second = parse(lines[1] as string);
      assert.ok(second.eventLoopDelay.maxMs < 50, "the histogram started again");
    } finally {
      stop();
    }
    assert.equal(lines.length, 3, "one more report when stopped");
  });
});

describe("idle render workers give a large render's memory back", () => {
  test("after a 10,000-host inventory and a quiet second, RSS falls again", async () => {
    const registry = builtinRegistry();
    const inventory = builtinFor("automation/inventory", registry);
    assert.ok(inventory);
    const pool = new RenderPool({ size: 1, spare: false, preloadedItems: registry.items });
    try {
      await pool.ready();
      const before = process.memoryUsage.rss();
      const members = Array.from({ length: 10_000 }, (_, index) => ({
        name: `web-${index}`,
        cm_host: `10.0.${index >> 8}.${index & 255}`,
        vars: { role: "web" },
      }));
      const body = await pool.renderJson(inventory, {
        name: "big",
        fields: { hosts: JSON.stringify([{ group: "web", members }]) },
        defaultNamespace: "default",
      });
      assert.ok(body.byteLength > 500_000);
      const grown = process.memoryUsage.rss();
      await sleep(3_000);
      const settled = process.memoryUsage.rss();
      // The worker drops its engine (WASM memory never shrinks otherwise) and collects: RSS
      // falls by more than the 8 MiB of growth that triggers it (IDLE_GROWTH_BYTES). Measured:
      // 15-18 MiB since issue 14's second round made the render leaner (the earlier bound of
      // 16 MiB then failed now and then); without the idle shrink, about 3 MiB.
      const freedMiB = (grown - settled) / 2 ** 20;
      const shown = `RSS ${before >> 20} -> ${grown >> 20} -> ${settled >> 20} MiB`;
      assert.ok(grown - before >= 16 * 2 ** 20, `the render grew the process: ${shown}`);
      assert.ok(freedMiB >= 8, `the idle worker gave memory back: ${shown}`);
    } finally {
      await pool.close();
    }
  });
});

describe("the HTTP thread collects a burst's buffers once quiet", () => {
  test("memory outside the heap grown by more than 8 MiB is collected, though the heap did not grow", async () => {
    const collector = new IdleCollector({ ...DEFAULT_IDLE_COLLECTOR, periodMs: 50 });
    try {
      // a burst: a request, and 32 MiB of buffers (bodies, answers) outside the heap
      collector.requests += 1;
      let buffers: Buffer[] | undefined = Array.from({ length: 32 }, () =>
        Buffer.alloc(2 ** 20, 1),
      );
      const deadline = Date.now() + 5_000;
      while (collector.collections === 0 && Date.now() < deadline) await sleep(25);
      assert.equal(buffers.length, 32, "kept until the quiet period was seen");
      buffers = undefined;
      assert.equal(collector.collections, 1, "one collection once quiet");
    } finally {
      collector.stop();
    }
  });
});
