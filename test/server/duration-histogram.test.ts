// kiln's duration histogram against prom-client's own Histogram: the same observations give the
// same exposition text, byte for byte (GET /metrics as a whole: observability.test.ts).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Histogram, Registry } from "prom-client";
import { DurationHistogram } from "../../src/server/duration-histogram.ts";

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Durations from 0 to past the last bucket, on the bounds and between them. */
function durations(count: number): number[] {
  let state = 7;
  const next = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
  const picked = [0, 10, 12.5, ...BUCKETS];
  for (let at = 0; at < count; at++) picked.push(next() ** 4 * 12);
  return picked;
}

describe("the duration histogram", () => {
  test("the same exposition as prom-client's Histogram for the same observations", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const histogram = new DurationHistogram(
      "kiln_test_seconds",
      "A test's durations, by route and method.",
      ["route", "method"],
      BUCKETS,
      ours,
    );
    const reference = new Histogram({
      name: "kiln_test_seconds",
      help: "A test's durations, by route and method.",
      labelNames: ["route", "method"],
      buckets: BUCKETS,
      registers: [theirs],
    });
    assert.equal(await ours.metrics(), await theirs.metrics(), "nothing observed yet");
    const series: [string, string][] = [
      ["/api/render", "POST"],
      ["/api/presets/{name}", "GET"],
      ['a "quoted" \\ route\n', "GET"],
    ];
    const values = durations(2_000);
    values.forEach((seconds, at) => {
      const [route, method] = series[at % 3 === 0 ? 0 : at % 7 === 0 ? 2 : 1] as [string, string];
      histogram.labels(route, method).observe(seconds);
      reference.labels(route, method).observe(seconds);
    });
    assert.equal(await ours.metrics(), await theirs.metrics());
    assert.deepEqual(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
    ours.resetMetrics();
    theirs.resetMetrics();
    histogram.labels("/api/health", "GET").observe(0.0001);
    reference.labels("/api/health", "GET").observe(0.0001);
    assert.equal(await ours.metrics(), await theirs.metrics(), "after a reset");
  });

  test("a series is made once for its labels; a value that is not a number is refused", () => {
    const histogram = new DurationHistogram(
      "kiln_test_once",
      "Once.",
      ["outcome"],
      BUCKETS,
      new Registry(),
    );
    assert.equal(histogram.labels("ok"), histogram.labels("ok"));
    assert.notEqual(histogram.labels("ok"), histogram.labels("error"));
    assert.throws(() => histogram.labels("ok").observe(Number.NaN), TypeError);
  });
});
