// The service's metrics and request log, from the outside: a real `kiln serve` process over a
// real socket. GET /metrics read back with a Prometheus text-format parser, its counts moving
// as requests are made (a render, a kept render, a 413, a refused Host); `--metrics off`; the
// request log on the process's real stdout, one line per request holding its id, route
// pattern, status and duration and never a field value, a header secret, a query value or a
// body; the request id echoed, a caller's hostile one replaced.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { cleanUp, tempDir, write } from "../cli/helpers.ts";
import { publishRegistry } from "../cli/registry-fixture.ts";
import { type ChildServer, postJson, REPO, raw, startChild } from "./helpers.ts";

/** One sample of the exposition: its metric name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const METRIC_NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const HELP_LINE = new RegExp(`^# HELP (${METRIC_NAME}) .*$`);
const TYPE_LINE = new RegExp(`^# TYPE (${METRIC_NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE_LINE = new RegExp(
  `^(${METRIC_NAME})(?:\\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*",?)*)\\})? (\\S+)$`,
);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
// Prometheus reads values with Go's ParseFloat: `NaN` and `Inf` in any case (prom-client writes
// `Nan` for an event-loop delay not yet sampled)
const NUMBER = /^(?:[+-]?(?:\d+\.?\d*(?:e[+-]?\d+)?|\.\d+)|[+-]?inf|nan)$/i;

/**
 * The Prometheus text exposition format (version 0.0.4) read strictly: every line empty, a HELP,
 * a TYPE or a sample of the family last typed (a histogram's `_bucket`, `_sum`, `_count`), each
 * family typed once, values numbers. Written here because the npm parser of this format,
 * parse-prometheus-text-format, drops a histogram's labels and counts when `le` comes first,
 * as prom-client writes it.
 */
function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  assert.ok(text.endsWith("\n"), "the exposition ends with a newline");
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  let family: string | undefined;
  for (const line of text.slice(0, -1).split("\n")) {
    // empty lines are allowed between families and ignored
    if (line === "" || HELP_LINE.test(line)) continue;
    const typed = TYPE_LINE.exec(line);
    if (typed) {
      const [, name, type] = typed as unknown as [string, string, string];
      assert.ok(!types.has(name), `${name} is typed twice`);
      types.set(name, type);
      family = name;
      continue;
    }
    const sampled = SAMPLE_LINE.exec(line);
    assert.ok(sampled, `not a line of the text format: ${JSON.stringify(line)}`);
    const [, name, labelText, value] = sampled as unknown as [
      string,
      string,
      string | undefined,
      string,
    ];
    assert.match(value, NUMBER, line);
    const type = family === undefined ? undefined : types.get(family);
    const suffixes =
      type === "histogram" || type === "summary" ? ["_bucket", "_sum", "_count", ""] : [""];
    assert.ok(
      suffixes.some((suffix) => `${family}${suffix}` === name),
      `${name} is not a sample of the family ${family}`,
    );
    const labels: Record<string, string> = {};
    for (const [, key, text] of (labelText ?? "").matchAll(LABEL))
      labels[key as string] = text as string;
    samples.push({ name, labels, value: Number(value) });
  }
  return { types, samples };
}

/** GET /metrics, parsed strictly. */
async function scrape(server: ChildServer): Promise<ReturnType<typeof parseExposition>> {
  const response = await raw(server.url, { path: "/metrics" });
  assert.equal(response.status, 200);
  assert.equal(response.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(response.body);
}

/** The value of the sample `name` whose labels include `labels`; 0 when there is none yet. */
function sample(
  scraped: ReturnType<typeof parseExposition>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = scraped.samples.find(
    (candidate) =>
      candidate.name === name &&
      Object.entries(labels).every(([key, value]) => candidate.labels[key] === value),
  );
  return found === undefined ? 0 : found.value;
}

/** The log line (parsed) whose request id is `id`, waiting for the process to write it. */
async function logLine(server: ChildServer, id: string): Promise<Record<string, unknown>> {
  const stdout = server.child.stdout as NodeJS.ReadableStream;
  for (;;) {
    const line = server.stdout.find((candidate) => candidate.includes(`"requestId":"${id}"`));
    if (line !== undefined) return JSON.parse(line) as Record<string, unknown>;
    // the helper's line reader listens first, so the lines of this chunk are in by then
    await new Promise((resolve) => stdout.once("data", resolve));
  }
}

/** An id no other request of this file sends. */
let counter = 0;
const freshId = (label: string) => `${label}-${process.pid}-${++counter}`;

const RENDER = { reference: "k8s/deployment", name: "metrics-web", image: "nginx:1.27" };

/** A registry item the test's own origin serves, to a URL reference and to the registry `@obs`. */
const ITEM = {
  name: "note",
  category: "test",
  fields: [{ name: "text", default: "hello" }],
  files: [{ path: "{{ name }}.txt", template: "{{ text }}\n" }],
};
/** The secret the service sends to `@obs`: it must never reach a log line. */
const REGISTRY_TOKEN = "obs-registry-t0ken-5ecret";

let server: ChildServer;
/** Another origin on loopback serving ITEM at any path. */
let origin: Server;
let originUrl = "";
before(async () => {
  const published = tempDir();
  publishRegistry(published, "obs", [{ item: ITEM, version: "1.0.0" }]);
  origin = createServer((request, response) => {
    const file = join(published, (request.url ?? "/").replace(/^\/r\//, "/"));
    if (!existsSync(file)) response.statusCode = 404;
    response.end(existsSync(file) ? readFileSync(file) : "");
  });
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  const config = write(
    tempDir(),
    "service.toml",
    `[registries."@obs"]\nurl = "${originUrl}/r/{name}.json"\nheaders = { Authorization = "Bearer \${OBS_TOKEN}" }\n`,
  );
  server = await startChild(["--port", "0", "--workers", "1", "--config", config], {
    OBS_TOKEN: REGISTRY_TOKEN,
  });
});
after(async () => {
  assert.equal(await server.stop(), 0);
  origin.close();
  cleanUp();
});

describe("GET /metrics", () => {
  test("counts move as requests are made: renders, a kept render, a 413 and a refused Host", async () => {
    const before = await scrape(server);
    const body = { ...RENDER, name: freshId("counted") };
    // rendered twice (an answer is kept the second time its body is seen), then from the cache
    assert.equal((await postJson(server.url, body)).status, 200);
    assert.equal((await postJson(server.url, body)).status, 200);
    assert.equal((await postJson(server.url, body)).status, 200);
    const tooLarge = await raw(server.url, {
      method: "POST",
      path: "/api/render",
      headers: { "content-type": "application/json", "content-length": 3 * 1024 * 1024 },
    });
    assert.equal(tooLarge.status, 413);
    const refused = await raw(server.url, {
      path: "/api/presets/web",
      headers: { host: "evil.example" },
    });
    assert.equal(refused.status, 403);
    const after = await scrape(server);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    const renders = { route: "/api/render", method: "POST", status: "200" };
    assert.equal(moved("kiln_http_requests_total", renders), 3);
    assert.equal(moved("kiln_http_requests_total", { ...renders, status: "413" }), 1);
    // a refused request is named by its route's pattern, never by the path it asked for
    const presetRoute = { route: "/api/presets/{name}", method: "GET", status: "403" };
    assert.equal(moved("kiln_http_requests_total", presetRoute), 1);
    assert.equal(moved("kiln_rejected_requests_total", { reason: "body_too_large" }), 1);
    assert.equal(moved("kiln_rejected_requests_total", { reason: "host_refused" }), 1);
    assert.equal(moved("kiln_rejected_requests_total", { reason: "overloaded" }), 0);
    assert.equal(moved("kiln_render_cache_misses_total"), 2);
    assert.equal(moved("kiln_render_cache_hits_total"), 1);
    // the third was answered from the cache: two renders
    assert.equal(moved("kiln_render_duration_seconds_count", { outcome: "ok" }), 2);
    assert.equal(moved("kiln_http_request_duration_seconds_count", { route: "/api/render" }), 4);
    assert.equal(sample(after, "kiln_render_pool_workers"), 1);
    assert.equal(sample(after, "kiln_render_pool_queue_length"), 0);
    assert.ok(sample(after, "process_resident_memory_bytes") > 0);
    assert.equal(after.types.get("nodejs_eventloop_lag_p99_seconds"), "gauge");
  });

  test("every kiln_ family is documented in docs/http-api.md and the operations text", async () => {
    const { types } = await scrape(server);
    const docs = readFileSync(join(REPO, "docs", "http-api.md"), "utf8");
    const operations = readFileSync(join(REPO, "docs", "operations.md"), "utf8");
    const ours = [...types.keys()].filter((name) => name.startsWith("kiln_"));
    assert.equal(ours.length, 10);
    for (const name of ours) {
      assert.ok(docs.includes(`\`${name}\``), `${name} in docs/http-api.md`);
      assert.ok(operations.includes(`\`${name}\``), `${name} in the operations text`);
    }
  });

  test("fetches are counted by kind: a URL reference, an item of a configured registry", async () => {
    const before = await scrape(server);
    const byUrl = await postJson(server.url, { reference: `${originUrl}/r/note.json`, name: "a" });
    assert.equal(byUrl.status, 200, byUrl.body);
    const byRegistry = await postJson(server.url, { reference: "@obs/note", name: "b" });
    assert.equal(byRegistry.status, 200, byRegistry.body);
    const after = await scrape(server);
    const moved = (kind: string) =>
      sample(after, "kiln_fetches_total", { kind }) -
      sample(before, "kiln_fetches_total", { kind });
    assert.equal(moved("url"), 1);
    // the registry's index (to resolve the item's version and digest), then the item
    assert.equal(moved("registry"), 2);
    // every render request is looked up by its body first: these two, never kept, are misses
    assert.equal(
      sample(after, "kiln_render_cache_misses_total") -
        sample(before, "kiln_render_cache_misses_total"),
      2,
    );
    for (const line of server.stdout) assert.ok(!line.includes(REGISTRY_TOKEN), line);
  });

  test("a request Node's parser refuses (400) is counted and logged under the route (unparsed), with no duration", async () => {
    const before = await scrape(server);
    const { port } = new URL(server.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => socket.write("NOT HTTP\r\n\r\n"));
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString();
      });
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
    const after = await scrape(server);
    const unparsed = { route: "(unparsed)", method: "(unparsed)", status: "400" };
    assert.equal(
      sample(after, "kiln_http_requests_total", unparsed) -
        sample(before, "kiln_http_requests_total", unparsed),
      1,
    );
    const stdout = server.child.stdout as NodeJS.ReadableStream;
    let line = server.stdout.find((candidate) => candidate.includes('"route":"(unparsed)"'));
    while (line === undefined) {
      await new Promise((resolve) => stdout.once("data", resolve));
      line = server.stdout.find((candidate) => candidate.includes('"route":"(unparsed)"'));
    }
    const logged = JSON.parse(line) as Record<string, unknown>;
    assert.equal(logged.method, "(unparsed)");
    assert.equal(logged.status, 400);
    assert.equal(logged.durationMs, undefined);
    assert.match(String(logged.requestId), /^[0-9a-f-]{36}$/);
    assert.ok(!line.includes("NOT HTTP"), line);
  });

  test("/metrics is behind the Host guard: a Host that is not allowed gets 403", async () => {
    const refused = await raw(server.url, { path: "/metrics", headers: { host: "evil.example" } });
    assert.equal(refused.status, 403);
    assert.match(refused.body, /^Forbidden: host `evil\.example` is not allowed/);
  });

  test("only GET and HEAD: another method is 405 with allow: GET,HEAD", async () => {
    const posted = await raw(server.url, { method: "POST", path: "/metrics" });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.allow, "GET,HEAD");
    const head = await raw(server.url, { method: "HEAD", path: "/metrics" });
    assert.equal(head.status, 200);
    assert.equal(head.body, "");
  });
});

describe("the request log", () => {
  test("one JSON line per request: id, method, route pattern, status, duration, and nothing the caller sent", async () => {
    const secrets = {
      header: "Bearer s3cret-header-token-7f1e",
      field: "registry.internal/s3cret-field-value:9",
      query: "s3cret-query-value",
      path: "s3cret-path-preset",
      body: "s3cret-body-name",
    };
    const renderId = freshId("render");
    const sentAtMs = Date.now();
    const rendered = await postJson(
      server.url,
      { reference: "k8s/deployment", name: secrets.body, image: secrets.field },
      { authorization: secrets.header, "x-request-id": renderId },
    );
    assert.equal(rendered.status, 200);
    const presetId = freshId("preset");
    const preset = await raw(server.url, {
      path: `/api/presets/${secrets.path}?token=${secrets.query}`,
      headers: {
        authorization: secrets.header,
        cookie: `session=${secrets.header}`,
        "x-request-id": presetId,
      },
    });
    assert.equal(preset.status, 404);
    const renderLine = await logLine(server, renderId);
    assert.deepEqual(Object.keys(renderLine).sort(), [
      "durationMs",
      "hostname",
      "level",
      "method",
      "msg",
      "pid",
      "requestId",
      "route",
      "status",
      "time",
    ]);
    // the time the line was written, as ISO 8601 in UTC to the millisecond
    assert.match(String(renderLine.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const loggedAtMs = Date.parse(String(renderLine.time));
    // written after the answer went out, so only bounded by now (the line has been read)
    assert.ok(loggedAtMs >= sentAtMs && loggedAtMs <= Date.now(), String(renderLine.time));
    assert.equal(renderLine.level, "info");
    assert.equal(renderLine.msg, "request");
    assert.equal(renderLine.method, "POST");
    assert.equal(renderLine.route, "/api/render");
    assert.equal(renderLine.status, 200);
    assert.equal(typeof renderLine.durationMs, "number");
    assert.equal(renderLine.pid, server.child.pid);
    const presetLine = await logLine(server, presetId);
    assert.equal(presetLine.route, "/api/presets/{name}");
    assert.equal(presetLine.status, 404);
    for (const line of server.stdout) {
      for (const [what, secret] of Object.entries(secrets)) {
        assert.ok(!line.includes(secret), `the ${what} appears in a log line: ${line}`);
      }
      assert.ok(!line.includes("s3cret"), line);
    }
  });

  test("a caller's X-Request-Id is echoed in x-request-id and logged; without one, a UUID is made", async () => {
    const id = "0af7651916cd43dd8448eb211c80319c";
    const given = await raw(server.url, { path: "/api/health", headers: { "x-request-id": id } });
    assert.equal(given.headers["x-request-id"], id);
    assert.equal((await logLine(server, id)).route, "/api/health");
    const made = await raw(server.url, { path: "/api/health" });
    const madeId = made.headers["x-request-id"];
    assert.match(
      String(madeId),
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.equal((await logLine(server, String(madeId))).status, 200);
  });

  test("a hostile X-Request-Id (10 KB, spaces and quotes, an encoded newline) is replaced, never logged", async () => {
    const hostile = [
      "a".repeat(10 * 1024),
      'x" ,"level":"fatal',
      'abc%0A{"forged":true}',
      "tab\there",
    ];
    for (const id of hostile) {
      const answered = await raw(server.url, {
        path: "/api/health",
        headers: { "x-request-id": id },
      });
      const echoed = String(answered.headers["x-request-id"]);
      assert.notEqual(echoed, id);
      assert.match(echoed, /^[0-9a-f-]{36}$/);
      await logLine(server, echoed);
    }
    // a raw newline cannot even reach the service: the HTTP parser answers 400 and logs nothing
    const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
    socket.end(
      "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: abc\r\n forged-line\r\n\r\n",
    );
    let reply = "";
    for await (const chunk of socket) reply += String(chunk);
    assert.match(reply, /^HTTP\/1\.1 400 /);
    for (const line of server.stdout) {
      assert.ok(
        !line.includes("aaaaaaaaaa") && !line.includes("forged") && !line.includes("fatal"),
        line,
      );
    }
  });
});

describe("kiln serve --metrics off --log-format text", () => {
  test("GET /metrics is 404 and each request is one line of text with its id", async () => {
    const plain = await startChild([
      "--port",
      "0",
      "--workers",
      "1",
      "--metrics",
      "off",
      "--log-format",
      "text",
    ]);
    try {
      const metrics = await raw(plain.url, {
        path: "/metrics",
        headers: { "x-request-id": "off-1" },
      });
      assert.equal(metrics.status, 404);
      assert.equal(metrics.body, "");
      const stdout = plain.child.stdout as NodeJS.ReadableStream;
      while (plain.stdout.length < 2) await new Promise((resolve) => stdout.once("data", resolve));
      assert.match(
        plain.stdout[1] ?? "",
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z GET unmatched 404 \d+(\.\d+)?ms id=off-1$/,
      );
    } finally {
      assert.equal(await plain.stop(), 0);
    }
  });
});
