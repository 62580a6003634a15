// The service as a fleet: three `kiln serve` replicas on loopback ports behind Debian's nginx
// (test/tools/nginx.ts: retries on a connection error, a time-out or a 503, POSTs included,
// since renders have no side effects), under a bounded load of mixed API requests - built-in
// renders, inventories, registry listings - through four phases: no fault; a rolling restart
// (SIGTERM each replica in turn, start it again when it has exited, wait for its readiness as
// Kubernetes does); `kill -9` of one replica mid-load; one replica made slow by a stranger's
// template fetched from a URL that loops for seconds within its fuel. Every answer the client
// sees must be the right one (byte for byte what a replica answered before the load) and no
// request may fail; nginx's own log must count exactly the client's requests. Speeds are
// printed (requests, failures, p50/p99 per phase, retries nginx made), never asserted:
// docs/operations.md holds one run's figures. Part of `npm run test:stress`.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type ChildServer, raw, startChild } from "../server/helpers.ts";
import { freePort, type LoadBalancer, nginxSkip, startLoadBalancer } from "../tools/nginx.ts";

/**
 * Each replica as a small deployment runs it: two workers, a one-second drain delay (nginx has
 * no readiness probe of its own: it sees a closed listener, and retries), and a fuel and
 * deadline that let a stranger's template run for seconds.
 */
const REPLICA_ARGS = [
  "--workers",
  "2",
  "--drain-delay",
  "1",
  "--shutdown-timeout",
  "20",
  "--render-fuel",
  "40000000",
  "--render-timeout",
  "20000",
];
/** Client connections sending requests at once, each one after the other. */
const CLIENTS = 6;
/** How long the no-fault and slow-replica phases run; the others last as long as their faults. */
const PHASE_MS = 5_000;

/** A stranger's item whose template counts to a million: seconds of a worker's time. */
const SLOW_ITEM = {
  name: "slow",
  category: "stranger",
  files: [
    {
      path: "slow.txt",
      template: "{% for a in range(1000) %}{% for b in range(1000) %}{% endfor %}{% endfor %}done",
    },
  ],
};

const HOSTS = JSON.stringify([
  {
    group: "web",
    members: [
      { name: "web-1", cm_host: "192.0.2.11" },
      { name: "web-2", cm_host: "192.0.2.12", cm_port: 2222 },
    ],
    vars: { http_port: 80 },
  },
  { group: "app", children: ["web"] },
]);

interface Call {
  method: "GET" | "POST";
  path: string;
  body?: string;
}

/** The mix of benign traffic: renders of built-ins, inventories, the registry's listings. */
const CALLS: Call[] = [
  ...[1, 2, 3].map((index) => ({
    method: "POST" as const,
    path: "/api/render",
    body: JSON.stringify({
      reference: "k8s/deployment",
      name: `web-${index}`,
      image: `nginx:1.2${index}`,
      replicas: index,
    }),
  })),
  {
    method: "POST",
    path: "/api/render",
    body: JSON.stringify({ reference: "k8s/service", name: "web", port: 80 }),
  },
  {
    method: "POST",
    path: "/api/render",
    body: JSON.stringify({
      reference: "automation/inventory",
      name: "edge",
      fields: { hosts: HOSTS },
    }),
  },
  { method: "GET", path: "/api/components" },
  { method: "GET", path: "/api/registry" },
  { method: "GET", path: "/api/presets" },
];

/** What the client saw of one request. */
interface Outcome {
  phase: string;
  ms: number;
  /** Why it failed: a connection error or an answer that is not the expected one. */
  failure?: string;
}

/** One `kiln serve` on a fixed port, restarted on the same port as a rolling update does. */
class Replica {
  server: ChildServer | undefined;
  constructor(readonly port: number) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts it and waits until its readiness answers 200, as a rolling update waits. */
  async start(): Promise<void> {
    this.server = await startChild(["--port", String(this.port), ...REPLICA_ARGS]);
    for (;;) {
      const ready = await raw(this.url, { path: "/api/ready" }).then(
        (answer) => answer.status === 200,
        () => false,
      );
      if (ready) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Sends `signal` and resolves with the exit status. */
  async stop(signal: NodeJS.Signals): Promise<number | null> {
    const server = this.server;
    if (server === undefined) return null;
    this.server = undefined;
    return server.stop(signal);
  }
}

function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] as number;
}

/**
 * The client: CLIENTS loops sending CALLS in turn through the load balancer until `stop`, each
 * answer compared with the expected one. The phase in force is sent as `x-phase` (nginx logs it).
 */
function runLoad(
  balancer: LoadBalancer,
  expected: Map<Call, string>,
  phase: () => string,
  outcomes: Outcome[],
) {
  let running = true;
  let next = 0;
  const loop = async () => {
    while (running) {
      const call = CALLS[next++ % CALLS.length] as Call;
      const current = phase();
      const started = performance.now();
      let failure: string | undefined;
      try {
        const answer = await fetch(`${balancer.origin}${call.path}`, {
          method: call.method,
          headers: { "content-type": "application/json", "x-phase": current },
          ...(call.body === undefined ? {} : { body: call.body }),
        });
        const body = await answer.text();
        if (`${answer.status} ${body}` !== expected.get(call)) {
          failure = `${call.method} ${call.path}: ${answer.status} ${body.slice(0, 200)}`;
        }
      } catch (error) {
        failure = `${call.method} ${call.path}: ${(error as Error).message} ${String((error as Error).cause ?? "")}`;
      }
      outcomes.push({
        phase: current,
        ms: performance.now() - started,
        ...(failure ? { failure } : {}),
      });
    }
  };
  const loops = Array.from({ length: CLIENTS }, loop);
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("three replicas behind nginx: a rolling restart, a kill -9 and a slow replica lose no request and every answer is right", {
  skip: nginxSkip(),
  timeout: 300_000,
}, async () => {
  const itemsDir = mkdtempSync(join(tmpdir(), "kiln-fleet-items-"));
  writeFileSync(join(itemsDir, "slow.json"), JSON.stringify(SLOW_ITEM));
  const replicas = [
    new Replica(await freePort()),
    new Replica(await freePort()),
    new Replica(await freePort()),
  ];
  const balancer = await startLoadBalancer(
    replicas.map((replica) => replica.port),
    itemsDir,
  );
  const outcomes: Outcome[] = [];
  const exits: Record<string, number | null> = {};
  let phase = "no fault";
  try {
    await Promise.all(replicas.map((replica) => replica.start()));
    // the expected answers, from one replica directly, before any load or fault
    const expected = new Map<Call, string>();
    for (const call of CALLS) {
      const answer = await raw(replicas[0]?.url as string, {
        method: call.method,
        path: call.path,
        headers: { "content-type": "application/json" },
        ...(call.body === undefined ? {} : { body: call.body }),
      });
      assert.equal(answer.status, 200, `${call.path} ${call.body}: ${answer.body}`);
      expected.set(call, `${answer.status} ${answer.body}`);
    }
    const stopLoad = runLoad(balancer, expected, () => phase, outcomes);

    await sleep(PHASE_MS);

    phase = "rolling restart";
    for (const [index, replica] of replicas.entries()) {
      exits[`replica ${index + 1} SIGTERM`] = await replica.stop("SIGTERM");
      await replica.start();
    }

    phase = "kill -9";
    await sleep(1_000);
    const victim = replicas[1] as Replica;
    exits["replica 2 SIGKILL"] = await victim.stop("SIGKILL");
    await sleep(2_000);
    await victim.start();
    await sleep(1_000);

    phase = "slow replica";
    const slowReplica = replicas[2] as Replica;
    const slowAnswers: string[] = [];
    const slowUntil = Date.now() + PHASE_MS;
    while (Date.now() < slowUntil) {
      const answer = await raw(slowReplica.url, {
        method: "POST",
        path: "/api/render",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ reference: `${balancer.origin}/items/slow.json`, name: "x" }),
      });
      slowAnswers.push(`${answer.status} ${answer.body}`);
    }
    await stopLoad();

    // the figures, printed for docs/operations.md
    const phases = ["no fault", "rolling restart", "kill -9", "slow replica"];
    // nginx's log of the API requests (it also logs the replicas' fetches of /items/)
    const log = balancer
      .accessLog()
      .trim()
      .split("\n")
      .filter((line) => line.includes(" /api/"));
    const rows = phases.map((name) => {
      const mine = outcomes.filter((outcome) => outcome.phase === name);
      const times = mine.map((outcome) => outcome.ms).sort((a, b) => a - b);
      const logged = log.filter((line) => line.startsWith(`${name} `));
      return {
        phase: name,
        requests: mine.length,
        failed: mine.filter((outcome) => outcome.failure !== undefined).length,
        "p50 ms": Math.round(percentile(times, 0.5)),
        "p99 ms": Math.round(percentile(times, 0.99)),
        "retried by nginx": logged.filter((line) => line.includes(", ")).length,
      };
    });
    console.log(`fleet: ${CLIENTS} clients, 3 replicas (${REPLICA_ARGS.join(" ")})`);
    console.table(rows);
    console.log(
      `slow replica: ${slowAnswers.length} slow renders answered directly, exits: ${JSON.stringify(exits)}`,
    );

    const failures = outcomes.filter((outcome) => outcome.failure !== undefined);
    assert.deepEqual(
      failures.slice(0, 5).map((outcome) => `${outcome.phase}: ${outcome.failure}`),
      [],
      `${failures.length} failed requests`,
    );
    for (const row of rows) assert.ok(row.requests > 0, `no request in phase ${row.phase}`);
    assert.deepEqual(exits, {
      "replica 1 SIGTERM": 0,
      "replica 2 SIGTERM": 0,
      "replica 3 SIGTERM": 0,
      "replica 2 SIGKILL": null,
    });
    // the load balancer's count is the client's: every request reached it once, and the
    // answer it logged last is the 200 the client got
    assert.equal(log.length, outcomes.length);
    assert.ok(
      log.every((line) => / 200 "[^"]*" "[^"]*"$/.test(line)),
      log.find((line) => !/ 200 "/.test(line)),
    );
    assert.ok(slowAnswers.length > 0);
    for (const answer of slowAnswers) {
      assert.match(answer, /^200 .*"content":"done"/);
    }
  } finally {
    phase = "stopped";
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
    await balancer.stop();
    rmSync(itemsDir, { recursive: true, force: true });
  }
});
