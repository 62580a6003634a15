// The service's measurements outside the API: with KILN_DIAGNOSTICS=1 the service reports the
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
import { waitFor } from "../cli/helpers.ts";

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
      const blockedUntil = performance.now() + 300;
      while (performance.now() < blockedUntil) {
        // keep the event loop busy for 300 ms: the report must show at least that
      }
      await sleep(20);
      process.kill(process.pid, "SIGUSR2");
      await waitFor("the first report", () => lines.length === 1);
      const first = parse(lines[0] as string);
      // what this process did, not how fast the machine is: it blocked its loop for 300 ms
      assert.ok(first.eventLoopDelay.maxMs >= 250, `max ${first.eventLoopDelay.maxMs} ms`);
      assert.ok(first.eventLoopDelay.samples > 0);
      assert.ok(first.rssBytes > 0);
      // at once: the second histogram covers only the moment between the two reports, so only a
      // stall of 300 ms in that moment could match the block it must no longer hold
      process.kill(process.pid, "SIGUSR2");
      await waitFor("the second report", () => lines.length === 2);
      const second = parse(lines[1] as string);
      // a fresh histogram no longer holds the 300 ms block
      assert.ok(
        second.eventLoopDelay.maxMs < first.eventLoopDelay.maxMs,
        "the histogram started again",
      );
    } finally {
      stop();
    }
    assert.equal(lines.length, 3, "one more report when stopped");
  });
});

describe("idle render workers give a large render's memory back", () => {
  test("after a 10,000-host inventory and a quiet second, the worker drops its engine; after a small render it keeps it", async () => {
    const registry = builtinRegistry();
    const inventory = builtinFor("automation/inventory", registry);
    const deployment = builtinFor("k8s/deployment", registry);
    assert.ok(inventory && deployment);
    // the deadline is the service's business, not this test's: a loaded machine may take longer
    // than the default 2 s for the 10,000 hosts, and a stopped render would prove nothing here
    const pool = new RenderPool({
      size: 1,
      spare: false,
      preloadedItems: registry.items,
      deadlineMs: 60_000,
    });
    /** Waits up to `ms` for an idle shrink; the count then. */
    const shrinksAfter = async (ms: number) => {
      const until = Date.now() + ms;
      while (pool.idleShrinks === 0 && Date.now() < until) await sleep(50);
      return pool.idleShrinks;
    };
    try {
      await pool.ready();
      // a small render grows the worker by less than the 8 MiB that triggers a shrink
      await pool.renderJson(deployment, {
        name: "w",
        fields: { image: "i" },
        defaultNamespace: "d",
      });
      assert.equal(await shrinksAfter(2_500), 0, "a worker that grew little keeps its engine");
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
      // the worker drops its engine (WASM memory never shrinks otherwise) and collects once it
      // has been idle a second; how much memory that gives back is measured by the benchmark
      await waitFor("the grown worker shrank once idle", () => pool.idleShrinks > 0, {
        everyMs: 50,
      });
      assert.equal(pool.idleShrinks, 1, "the grown worker shrank once");
    } finally {
      await pool.close();
    }
  });
});

describe("the HTTP thread collects a burst's buffers once quiet", () => {
  test("resident memory past its bound is a reason to collect on its own: heap and buffers within theirs", async () => {
    // 4 MiB of buffers: under the 8 MiB that makes buffers a reason. One collector's resident
    // memory is past its bound whatever the process holds, the other's never is: only the
    // bound tells them apart (no reading of how much memory the process has)
    const past = new IdleCollector({
      ...DEFAULT_IDLE_COLLECTOR,
      periodMs: 50,
      rssGrowthBytes: Number.NEGATIVE_INFINITY,
    });
    const never = new IdleCollector({
      ...DEFAULT_IDLE_COLLECTOR,
      periodMs: 50,
      rssGrowthBytes: Number.POSITIVE_INFINITY,
    });
    try {
      past.requests += 1;
      never.requests += 1;
      let buffers: Buffer[] | undefined = Array.from({ length: 4 }, () => Buffer.alloc(2 ** 20, 1));
      await waitFor("a collection once quiet", () => past.collections > 0, { everyMs: 25 });
      await waitFor("the other collector's quiet period seen", () => never.quietPeriods > 0, {
        everyMs: 25,
      });
      assert.equal(buffers.length, 4, "kept until the quiet period was seen");
      buffers = undefined;
      assert.equal(never.collections, 0, "without the resident-memory reason, no collection");
    } finally {
      past.stop();
      never.stop();
    }
  });

  test("memory outside the heap grown by more than 8 MiB is collected, though the heap did not grow", async () => {
    const collector = new IdleCollector({ ...DEFAULT_IDLE_COLLECTOR, periodMs: 50 });
    try {
      // a burst: a request, and 32 MiB of buffers (bodies, answers) outside the heap
      collector.requests += 1;
      let buffers: Buffer[] | undefined = Array.from({ length: 32 }, () =>
        Buffer.alloc(2 ** 20, 1),
      );
      await waitFor("a collection once quiet", () => collector.collections > 0, { everyMs: 25 });
      assert.equal(buffers.length, 32, "kept until the quiet period was seen");
      buffers = undefined;
      assert.equal(collector.collections, 1, "one collection once quiet");
    } finally {
      collector.stop();
    }
  });
});
