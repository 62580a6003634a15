// `kiln serve`'s life as a load balancer sees it, over real sockets against the built binary:
// readiness (GET /api/ready) is 503 while the render workers start and from the first stop
// signal, the listener stays open for the drain delay and then refuses, a request in flight
// still gets its answer, idle keep-alive connections are closed, the exit status is 0, and a
// second signal exits at once.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { describe, test } from "node:test";
import { parseRegistryItem } from "../../src/core/item.ts";
import { RenderPool } from "../../src/sandbox/render-pool.ts";
import { waitFor } from "../cli/helpers.ts";
import { type ChildServer, raw, runChild, startChild } from "./helpers.ts";

const BODY = '{"reference":"k8s/deployment"}';
/** The fail-safe of each test that waits on the server: a generous bound, never a measure. */
const TIMEOUT = { timeout: 40_000 };

interface Connection {
  socket: Socket;
  /** Everything the server sent on it so far. */
  received: string;
  closed: boolean;
  whenClosed: Promise<void>;
}

/** A connection to the server, everything it receives collected, and its close awaited. */
async function openConnection(server: ChildServer): Promise<Connection> {
  const url = new URL(server.url);
  const socket: Socket = connect(Number(url.port), url.hostname);
  await new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const connection: Connection = {
    socket,
    received: "",
    closed: false,
    whenClosed: new Promise<void>((resolve) =>
      socket.once("close", () => {
        connection.closed = true;
        resolve();
      }),
    ),
  };
  socket.on("data", (chunk: Buffer) => {
    connection.received += chunk.toString();
  });
  return connection;
}

/** Whether a new connection to the server is accepted now. */
function accepts(server: ChildServer): Promise<boolean> {
  const url = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * `kiln serve <args>` that must refuse to start: killed after 20 s, so a service that starts
 * instead (a setting not checked) fails the test rather than hanging it.
 */
function serveRefused(args: string[], env: Record<string, string> = {}) {
  return runChild(["--port", "0", ...args], env, { timeoutMs: 20_000 });
}

/**
 * Runs `body` against `kiln serve <args>`; the process is killed afterwards whatever happened,
 * so a failed check ends the test instead of leaving a server behind.
 */
async function withServer(args: string[], body: (server: ChildServer) => Promise<void>) {
  const server = await startChild(args);
  try {
    await body(server);
  } finally {
    server.child.kill("SIGKILL");
  }
}

const readyAnswer = (server: ChildServer) =>
  raw(server.url, { path: "/api/ready" }).then((answer) => `${answer.status} ${answer.body}`);

/** A POST /api/render whose headers and first bytes are sent: in flight until `finish()`. */
async function requestInFlight(server: ChildServer) {
  const connection = await openConnection(server);
  connection.socket.write(
    `POST /api/render HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${BODY.length}\r\n\r\n${BODY.slice(0, 10)}`,
  );
  return { connection, finish: () => connection.socket.end(BODY.slice(10)) };
}

describe("readiness while starting", () => {
  test(
    "GET /api/ready answers 503 `starting` until every render worker is up, then 200 `ready`; /api/health is `ok` throughout",
    TIMEOUT,
    async () => {
      // eight workers take a while to start: the start-up line comes as soon as the socket
      // listens, before they are up
      const server = await startChild(["--port", "0", "--workers", "8"]);
      try {
        const seen: string[] = [];
        const health: string[] = [];
        await waitFor("readiness 200", async () => {
          const [answer, alive] = await Promise.all([
            readyAnswer(server),
            raw(server.url, { path: "/api/health" }),
          ]);
          if (seen.at(-1) !== answer) seen.push(answer);
          health.push(`${alive.status} ${alive.body}`);
          return answer.startsWith("200");
        });
        assert.deepEqual(seen, ["503 starting", "200 ready"]);
        assert.ok(
          health.every((answer) => answer === "200 ok"),
          health.join(", "),
        );
        const head = await raw(server.url, { method: "HEAD", path: "/api/ready" });
        assert.equal(head.status, 200);
        assert.equal(head.headers["content-type"], "text/plain; charset=utf-8");
      } finally {
        await server.stop("SIGKILL");
      }
    },
  );
});

describe("requests while starting", () => {
  test("a render queued before any worker is up waits for them: its time in the queue counts from the first worker's start", async () => {
    const item = parseRegistryItem(
      {
        name: "hello",
        category: "test",
        files: [{ path: "hello.txt", template: "hi {{ name }}" }],
      },
      "hello",
    );
    // a queue limit far shorter than a worker's start: counted from the request, it would drop it
    const pool = new RenderPool({ size: 1, queueTimeoutMs: 1 });
    try {
      const rendered = await pool.render(item, { name: "there", defaultNamespace: "default" });
      assert.deepEqual(rendered, {
        component: "hello",
        files: [{ path: "hello.txt", content: "hi there" }],
      });
    } finally {
      await pool.close();
    }
  });
});

describe("drain on a stop signal", () => {
  test(
    "SIGTERM: readiness turns 503 `draining` at once while the listener still accepts, liveness stays ok, and each answer ends its connection",
    TIMEOUT,
    () =>
      // a drain delay far longer than the test: every check below falls inside it, however slow
      // the machine (the process is stopped by withServer at the end)
      withServer(
        ["--port", "0", "--drain-delay", "60", "--shutdown-timeout", "120"],
        async (server) => {
          await waitFor("ready", async () => (await readyAnswer(server)) === "200 ready");
          server.child.kill("SIGTERM");
          // the next answer after the signal is `draining`, over a new connection: still accepted
          await waitFor("readiness 503", async () => (await readyAnswer(server)) !== "200 ready");
          assert.equal(await readyAnswer(server), "503 draining");
          const alive = await raw(server.url, { path: "/api/health" });
          assert.equal(
            `${alive.status} ${alive.body}`,
            "200 ok",
            "liveness stays ok while draining",
          );
          assert.equal(
            alive.headers.connection,
            "close",
            "a draining replica ends each connection",
          );
          assert.match(
            server.stderr(),
            /SIGTERM - draining: \/api\/ready answers 503, the listener closes in 60 s/,
          );
        },
      ),
  );

  test(
    "after the drain delay: idle keep-alive connections close, new connections are refused, the request in flight gets its answer, exit 0",
    TIMEOUT,
    () =>
      withServer(
        ["--port", "0", "--drain-delay", "0", "--shutdown-timeout", "20"],
        async (server) => {
          await waitFor("ready", async () => (await readyAnswer(server)) === "200 ready");
          // an idle keep-alive connection: one answered request, then nothing
          const idle = await openConnection(server);
          idle.socket.write("GET /api/health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
          await waitFor("the keep-alive answer", async () => idle.received.endsWith("ok"));
          const inFlight = await requestInFlight(server);

          server.child.kill("SIGTERM");
          // the idle connection is closed and new connections are refused, while the request in
          // flight is still waiting for the rest of its body
          await idle.whenClosed;
          await waitFor("connections refused", async () => !(await accepts(server)));
          assert.equal(inFlight.connection.closed, false);
          assert.equal(inFlight.connection.received, "");

          inFlight.finish();
          await inFlight.connection.whenClosed;
          const answer = inFlight.connection.received;
          assert.match(answer, /^HTTP\/1\.1 422 Unprocessable Entity\r\n/);
          assert.match(answer, /\r\nconnection: close\r\n/);
          assert.match(answer, /missing field `name`$/);
          assert.equal(await server.exited, 0);
        },
      ),
  );

  test(
    "a second signal exits at once with 128 + its number, cutting the request in flight",
    TIMEOUT,
    () =>
      withServer(
        ["--port", "0", "--drain-delay", "60", "--shutdown-timeout", "120"],
        async (server) => {
          await waitFor("ready", async () => (await readyAnswer(server)) === "200 ready");
          const inFlight = await requestInFlight(server);
          server.child.kill("SIGINT");
          await waitFor("draining", async () => (await readyAnswer(server)) === "503 draining");
          server.child.kill("SIGTERM");
          // the fail-safe is the test's time-out; the drain alone would take a minute
          assert.equal(await server.exited, 143);
          await inFlight.connection.whenClosed;
          assert.equal(inFlight.connection.received, "");
          assert.match(server.stderr(), /SIGTERM again - stopping at once/);
        },
      ),
  );
});

describe("the drain options", () => {
  test("a drain delay longer than the shutdown timeout is a usage error naming both", async () => {
    const result = await serveRefused(["--drain-delay", "30", "--shutdown-timeout", "10"]);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /^error: the drain delay \(30 s\) must not be longer than the shutdown timeout \(10 s\) - lower --drain-delay or raise --shutdown-timeout\n/,
    );
  });

  test("a drain delay that is not a number of seconds is a usage error; the environment variable is read", async () => {
    const result = await serveRefused([], { SERVICE_DRAIN_DELAY_SECONDS: "5s" });
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /^error: drain delay must be a number of seconds \(like 5 or 0\.5\), got `5s`\n/,
    );
  });
});
