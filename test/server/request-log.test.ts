// The request log's lines, without a service: the JSON line is byte for byte the line pino's own
// logger writes for the same request, and the lines of one turn of the event loop go out
// together at its end (the service's log as a whole: observability.test.ts).
import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pino } from "pino";
import type { AnsweredRequest } from "../../src/server/metrics.ts";
import { jsonLine, requestLog } from "../../src/server/request-log.ts";

const TIME = "2026-11-25T21:47:09.986Z";

/** The line pino's logger writes for a request, as kiln's log was written before by pino. */
function pinoLine(id: string, answered: AnsweredRequest): string {
  let written = "";
  const logger = pino(
    {
      timestamp: () => `,"time":"${TIME}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    { write: (line: string) => (written += line) },
  );
  logger.info(
    {
      requestId: id,
      method: answered.method,
      route: answered.route,
      status: answered.status,
      ...(answered.seconds === undefined
        ? {}
        : { durationMs: Math.round(answered.seconds * 1_000_000) / 1000 }),
      ...(answered.rejected === undefined ? {} : { rejected: answered.rejected }),
    },
    "request",
  );
  return written;
}

describe("the request log's lines", () => {
  test("a JSON line is byte for byte pino's line for the same request", () => {
    const line = jsonLine(() => TIME);
    const answers: [string, AnsweredRequest][] = [
      [
        "0af7651916cd43dd8448eb211c80319c",
        {
          method: "POST",
          route: "/api/render",
          status: 200,
          seconds: 0.003157,
          rejected: undefined,
        },
      ],
      [
        "5b7e1a0c-9f7e-4c1e-8e0a-3f1d2c4b5a69",
        {
          method: "GET",
          route: "/api/presets/{name}",
          status: 404,
          seconds: 12.5,
          rejected: undefined,
        },
      ],
      [
        "a:b/c+d=e.f_g-h",
        {
          method: "POST",
          route: "/api/render",
          status: 413,
          seconds: 0,
          rejected: "body_too_large",
        },
      ],
      [
        "id",
        {
          method: "(unparsed)",
          route: "(unparsed)",
          status: 400,
          seconds: undefined,
          rejected: undefined,
        },
      ],
      [
        'quote"back\\slash\u2028',
        { method: "GET", route: "ui", status: 503, seconds: 1e-7, rejected: "overloaded" },
      ],
    ];
    for (const [id, answered] of answers) {
      assert.equal(line(id, answered), pinoLine(id, answered));
      JSON.parse(line(id, answered));
    }
  });

  test("the lines of one turn go out together at its end, in order; 8 KiB of them at once", async () => {
    const folder = mkdtempSync(join(tmpdir(), "kiln-request-log-"));
    const file = join(folder, "log");
    const fd = openSync(file, "w");
    try {
      const log = requestLog("json", fd);
      const answered: AnsweredRequest = {
        method: "GET",
        route: "/api/health",
        status: 200,
        seconds: 0.001,
        rejected: undefined,
      };
      for (const id of ["one", "two", "three"]) log.request(id, answered);
      assert.equal(readFileSync(file, "utf8"), "", "held until the end of the turn");
      await new Promise((resolve) => setImmediate(resolve));
      const ids = readFileSync(file, "utf8")
        .trimEnd()
        .split("\n")
        .map((text) => (JSON.parse(text) as { requestId: string }).requestId);
      assert.deepEqual(ids, ["one", "two", "three"]);
      for (let at = 0; at < 60; at++) log.request(`many-${at}`, answered);
      const early = readFileSync(file, "utf8").split("\n").length - 1;
      assert.ok(early > 3 && early < 63, `${early} lines written before the end of the turn`);
      log.flush();
      assert.equal(readFileSync(file, "utf8").split("\n").length - 1, 63);
    } finally {
      closeSync(fd);
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
