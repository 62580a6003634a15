// `kiln serve` as a real child process: flags and environment, the start-up line, the
// DNS-rebinding guard, usage errors and the graceful stop on SIGINT/SIGTERM.
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer } from "node:net";
import { describe, test } from "node:test";
import { HostGuard, isLoopbackBind } from "../../src/server/host-guard.ts";
import { kilnBackground, waitFor } from "../cli/helpers.ts";
import { SPEC_COMPONENT_ORDER } from "../tools/spec.ts";
import { REPO, raw, runChild, startChild, TEST_SERVICE_ENV } from "./helpers.ts";

/** A line of the request log (JSON when stdout is not a terminal), parsed. */
function requestLogLine(line: string): { msg: string; route: string; status: number } {
  const parsed = JSON.parse(line) as { msg: string; route: string; status: number };
  assert.equal(parsed.msg, "request");
  return parsed;
}

describe("start-up", () => {
  test("prints one start-up line `kiln listening on http://<bind>:<port>` with the real port, then only request log lines", async () => {
    const server = await startChild(["--port", "0"]);
    try {
      assert.match(server.stdout[0] ?? "", /^kiln listening on http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(new URL(server.url).port, "0");
      const health = await raw(server.url, { path: "/api/health" });
      assert.equal(health.body, "ok");
    } finally {
      assert.equal(await server.stop(), 0);
    }
    assert.equal(server.stdout.length, 2);
    assert.equal(requestLogLine(server.stdout[1] ?? "").route, "/api/health");
  });

  test("the start-up line is printed before the first request is answered", async () => {
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const port = (probe.address() as import("node:net").AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    // started without waiting for its start-up line (as startChild does): the line must come
    // before the answer on its own
    const child = kilnBackground(["serve", "--port", String(port)], REPO, TEST_SERVICE_ENV);
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    try {
      await waitFor(
        "the service's first answer",
        () =>
          raw(`http://127.0.0.1:${port}`, { path: "/api/health" }).then(
            (response) => response.status === 200,
            () => false,
          ),
        { everyMs: 2 },
      );
      // the line was written before the answer; let this process read its pipe once
      await new Promise((resolve) => setTimeout(resolve, 20));
      const [first, ...rest] = stdout.split("\n");
      assert.equal(first, `kiln listening on http://127.0.0.1:${port}`);
      // then one request log line for the answered request, nothing before the start-up line
      assert.equal(rest.at(-1), "");
      for (const line of rest.slice(0, -1)) assert.equal(requestLogLine(line).status, 200);
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });

  test("by default it serves the built-in catalogue: 13 components in registry order", async () => {
    const server = await startChild(["--port", "0"]);
    try {
      const components = await raw(server.url, { path: "/api/components" });
      assert.equal(components.status, 200, components.body);
      assert.deepEqual(JSON.parse(components.body), { components: SPEC_COMPONENT_ORDER });
      const render = await raw(server.url, {
        method: "POST",
        path: "/api/render",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ reference: "k8s/deployment", name: "web", image: "nginx:1.27" }),
      });
      assert.equal(render.status, 200, render.body);
      assert.equal(JSON.parse(render.body).files[0].path, "web-deployment.yaml");
    } finally {
      await server.stop();
    }
  });

  test("the environment sets bind, port and origins; a flag beats the environment", async () => {
    const server = await startChild(
      ["--port", "0", "--allow-origin", "https://a.example,https://b.example"],
      {
        SERVICE_BIND: "127.0.0.1",
        SERVICE_PORT: "1",
        SERVICE_ALLOWED_ORIGINS: "https://env.example",
      },
    );
    try {
      for (const [origin, allowed] of [
        ["https://a.example", true],
        ["https://b.example", true],
        ["https://env.example", false],
        ["http://localhost:3000", false],
      ] as const) {
        const response = await raw(server.url, { path: "/api/health", headers: { origin } });
        assert.equal(response.headers["access-control-allow-origin"], allowed ? origin : undefined);
      }
    } finally {
      await server.stop();
    }
  });

  test("SERVICE_ALLOWED_ORIGINS alone replaces the loopback default", async () => {
    const server = await startChild(["--port", "0"], {
      SERVICE_ALLOWED_ORIGINS: "https://env.example, http://localhost:1",
    });
    try {
      const allowed = await raw(server.url, {
        path: "/api/health",
        headers: { origin: "https://env.example" },
      });
      assert.equal(allowed.headers["access-control-allow-origin"], "https://env.example");
      const loopback = await raw(server.url, {
        path: "/api/health",
        headers: { origin: "http://localhost:2" },
      });
      assert.equal(loopback.headers["access-control-allow-origin"], undefined);
    } finally {
      await server.stop();
    }
  });

  test("a bad flag or value is a usage error: exit status 2, message on stderr", async () => {
    for (const args of [["--port", "70000"], ["--port", "abc"], ["--nope"], ["extra"]]) {
      const result = await runChild(args);
      assert.equal(result.code, 2, args.join(" "));
      assert.match(result.stderr, /^error: /);
      // the same shape as every other command's usage error
      assert.match(result.stderr, /run `kiln serve --help` for usage/);
      assert.equal(result.stdout, "");
    }
    const env = await runChild([], { SERVICE_PORT: "x" });
    assert.equal(env.code, 2);
  });

  test("--help prints the usage and exits 0", async () => {
    const result = await runChild(["--help"]);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^Usage: kiln serve \[options\]$/m);
    assert.match(result.stdout, /--allowed-host/);
  });

  test("a port in use is exit status 1 with an error", async () => {
    const first = await startChild(["--port", "0"]);
    try {
      const result = await runChild(["--port", new URL(first.url).port]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^error: could not start the service: .*EADDRINUSE/);
    } finally {
      await first.stop();
    }
  });
});

describe("DNS-rebinding guard", () => {
  test("bound to loopback, only loopback Host names pass; --allowed-host adds names", async () => {
    const server = await startChild(["--port", "0", "--allowed-host", "kiln.internal"]);
    const port = new URL(server.url).port;
    try {
      for (const host of [
        "localhost",
        `localhost:${port}`,
        "127.0.0.1",
        `127.0.0.1:${port}`,
        "[::1]",
        `[::1]:${port}`,
        "LOCALHOST:1",
        "kiln.internal",
        `kiln.internal:${port}`,
      ]) {
        const response = await raw(server.url, { path: "/api/health", headers: { host } });
        assert.equal(response.status, 200, host);
      }
      for (const host of [
        "evil.com",
        `evil.com:${port}`,
        "localhost.evil.com",
        "127.0.0.1.nip.io",
        "[::2]",
        "0.0.0.0",
      ]) {
        const response = await raw(server.url, {
          path: "/api/health",
          headers: { host, origin: "http://localhost:3000" },
        });
        assert.equal(response.status, 403, host);
        assert.equal(response.headers["content-type"], "text/plain; charset=utf-8");
        assert.match(response.body, /^Forbidden: host `.*` is not allowed/);
        assert.equal(response.headers.vary, "origin");
      }
      // the authority of an absolute-form target is checked too
      const absolute = await raw(server.url, { target: "http://evil.com/api/health" });
      assert.equal(absolute.status, 403);
      const preflight = await raw(server.url, {
        method: "OPTIONS",
        path: "/api/render",
        headers: {
          host: "evil.com",
          origin: "http://localhost",
          "access-control-request-method": "POST",
        },
      });
      assert.equal(preflight.status, 403);
    } finally {
      await server.stop();
    }
  });

  test("the guard is on for loopback binds only", () => {
    for (const bind of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) {
      assert.equal(isLoopbackBind(bind), true, bind);
    }
    for (const bind of ["0.0.0.0", "::", "192.168.1.10", "example.com"]) {
      assert.equal(isLoopbackBind(bind), false, bind);
    }
    assert.equal(new HostGuard("0.0.0.0", []).check("evil.com", undefined), undefined);
    assert.equal(new HostGuard("127.0.0.1", []).check("evil.com", undefined)?.status, 403);
  });
});

describe("graceful stop", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`${signal}: a request in flight gets its answer, then the process exits 0`, async () => {
      const server = await startChild(["--port", "0"]);
      // the start-up line comes when the socket listens; the stop is tested once it is ready
      while ((await raw(server.url, { path: "/api/ready" })).status !== 200) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const url = new URL(server.url);
      const socket = connect(Number(url.port), url.hostname);
      await new Promise((resolve) => socket.once("connect", resolve));
      let answer = "";
      socket.on("data", (chunk: Buffer) => {
        answer += chunk.toString();
      });
      const closed = new Promise((resolve) => socket.once("close", resolve));
      const body = '{"reference":"k8s/deployment"}';
      // Headers now, with `expect: 100-continue`: the service's `100 Continue` says it has read
      // them, so the request is in flight when the signal comes, however slow the machine.
      socket.write(
        `POST /api/render HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nexpect: 100-continue\r\n\r\n`,
      );
      await waitFor("the service read the request's headers", () =>
        answer.startsWith("HTTP/1.1 100 Continue\r\n\r\n"),
      );
      // half the body before the signal; the rest only after it
      socket.write(body.slice(0, 10));
      server.child.kill(signal);
      // the listener closes when the signal is handled: a connection refused is that effect
      await waitFor("no new connections after the signal", () =>
        raw(server.url, { path: "/api/health" }).then(
          () => false,
          () => true,
        ),
      );
      socket.end(body.slice(10));
      await closed;
      assert.match(
        answer,
        /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 422 Unprocessable Entity\r\n/,
      );
      assert.match(answer, /missing field `name`$/);
      assert.equal(await server.exited, 0);
    });
  }
});
