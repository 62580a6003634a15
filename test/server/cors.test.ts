// The spec's cross-origin table and decisions section 4 (preflight, vary), over a real socket.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { parseOriginList } from "../../src/core/service-settings.ts";
import { isLoopbackOrigin } from "../../src/server/cors.ts";
import type { RunningServer } from "../../src/server/server.ts";
import { postJson, raw, startFixtureServer } from "./helpers.ts";

const LOOPBACK = [
  "http://localhost",
  "http://localhost:5173",
  "https://localhost:8443",
  "http://127.0.0.1:3000",
  "http://127.0.0.1",
  "http://[::1]:4000",
  "app://localhost",
];
const REFUSED = [
  "null",
  "http://localhost.evil.com",
  "https://example.com",
  "http://127.0.0.2:3000",
  "http://evil.com#localhost",
  "http://localhost:3000/path",
  "http://user@localhost",
  "localhost",
];

describe("origins when none are configured", () => {
  let service: RunningServer;
  before(async () => {
    service = await startFixtureServer();
  });
  after(() => service.close());

  test("any loopback origin, any scheme and port, is echoed", async () => {
    for (const origin of LOOPBACK) {
      const response = await raw(service.url, { path: "/api/health", headers: { origin } });
      assert.equal(response.headers["access-control-allow-origin"], origin, origin);
      assert.equal(response.headers.vary, "origin");
    }
  });

  test("another origin gets no allow-origin header but the request is still processed", async () => {
    for (const origin of REFUSED) {
      const response = await raw(service.url, { path: "/api/health", headers: { origin } });
      assert.equal(response.status, 200, origin);
      assert.equal(response.body, "ok");
      assert.equal(response.headers["access-control-allow-origin"], undefined, origin);
      assert.equal(response.headers.vary, "origin");
    }
    const render = await postJson(
      service.url,
      { reference: "test/echo", name: "a" },
      { origin: "https://example.com" },
    );
    assert.equal(render.status, 200);
    assert.equal(render.headers["access-control-allow-origin"], undefined);
  });

  test("every response carries vary: origin and the allowed origin: errors, 404, 405, 413, 415, 422", async () => {
    const origin = "http://localhost:5173";
    const responses = [
      await raw(service.url, { path: "/nope", headers: { origin } }),
      await raw(service.url, { path: "/api/health", method: "DELETE", headers: { origin } }),
      await raw(service.url, { path: "/api/presets/nope", headers: { origin } }),
      await raw(service.url, { path: "/api/registry/inspect", headers: { origin } }),
      await raw(service.url, {
        path: "/api/render",
        method: "POST",
        headers: { origin },
        body: "{}",
      }),
      await postJson(service.url, "{", { origin }),
      await postJson(service.url, {}, { origin }),
      await postJson(service.url, { reference: "nope", name: "x" }, { origin }),
      await postJson(service.url, "x".repeat(3 * 1024 * 1024), { origin }),
    ];
    assert.deepEqual(
      responses.map((response) => response.status),
      [404, 405, 404, 400, 415, 400, 422, 400, 413],
    );
    for (const response of responses) {
      assert.equal(response.headers.vary, "origin");
      assert.equal(response.headers["access-control-allow-origin"], origin);
    }
  });

  test("a preflight is 200 with the allowed methods and headers, on any path", async () => {
    for (const path of ["/api/render", "/api/health", "/nope", "/"]) {
      const response = await raw(service.url, {
        method: "OPTIONS",
        path,
        headers: {
          origin: "http://localhost:5173",
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type",
        },
      });
      assert.equal(response.status, 200, path);
      assert.equal(response.body, "");
      assert.equal(response.headers["content-length"], "0");
      assert.equal(response.headers["access-control-allow-methods"], "GET,POST");
      assert.equal(response.headers["access-control-allow-headers"], "content-type");
      assert.equal(response.headers["access-control-allow-origin"], "http://localhost:5173");
      assert.equal(response.headers.vary, "origin");
    }
  });

  test("a preflight from a refused origin is 200 without allow-origin", async () => {
    const response = await raw(service.url, {
      method: "OPTIONS",
      path: "/api/render",
      headers: { origin: "https://example.com", "access-control-request-method": "POST" },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers["access-control-allow-methods"], "GET,POST");
    assert.equal(response.headers["access-control-allow-origin"], undefined);
  });

  test("OPTIONS without Origin or Access-Control-Request-Method is not a preflight", async () => {
    const known = await raw(service.url, {
      method: "OPTIONS",
      path: "/api/render",
      headers: { origin: "http://localhost" },
    });
    assert.equal(known.status, 405);
    assert.equal(known.headers.allow, "POST");
    const unknown = await raw(service.url, {
      method: "OPTIONS",
      path: "/nope",
      headers: { "access-control-request-method": "GET" },
    });
    assert.equal(unknown.status, 404);
  });
});

describe("origins when configured", () => {
  let service: RunningServer;
  before(async () => {
    service = await startFixtureServer({
      allowedOrigins: parseOriginList([" https://app.example.com , ,http://localhost:5173"]),
    });
  });
  after(() => service.close());

  test("exactly the listed origins are allowed", async () => {
    for (const origin of ["https://app.example.com", "http://localhost:5173"]) {
      const response = await raw(service.url, { path: "/api/health", headers: { origin } });
      assert.equal(response.headers["access-control-allow-origin"], origin);
    }
  });

  test("loopback origins that are not listed are refused; prefixes and case variants too", async () => {
    for (const origin of [
      "http://localhost:3000",
      "http://127.0.0.1:5173",
      "https://app.example.com:443",
      "https://APP.example.com",
      "https://app.example.com.evil.com",
    ]) {
      const response = await raw(service.url, { path: "/api/health", headers: { origin } });
      assert.equal(response.status, 200);
      assert.equal(response.headers["access-control-allow-origin"], undefined, origin);
      assert.equal(response.headers.vary, "origin");
    }
  });
});

test("the loopback rule compares the origin's host exactly", () => {
  for (const origin of LOOPBACK) assert.equal(isLoopbackOrigin(origin), true, origin);
  for (const origin of REFUSED) assert.equal(isLoopbackOrigin(origin), false, origin);
});

test("origin lists are split on commas, trimmed, empty entries dropped", () => {
  assert.deepEqual(parseOriginList(["a, b", " ,c,", ""]), ["a", "b", "c"]);
  assert.deepEqual(parseOriginList([""]), []);
});
