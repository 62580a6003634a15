// The service as a fleet: three `kiln serve` replicas on loopback ports behind Debian's nginx
// (test/tools/nginx.ts: retries on a connection error, a time-out or a 503, POSTs included,
// since renders have no side effects), under a bounded load of mixed API requests - built-in
// renders, inventories, registry listings - through four phases: no fault; a rolling restart
// (SIGTERM each replica in turn, start it again when it has exited, wait for its readiness as
// Kubernetes does); `kill -9` of one replica mid-load; one replica made slow by a stranger's
// template fetched from a URL that loops for seconds within its fuel. Every answer the client
// sees must be the right one (byte for byte what a replica answered before the load) and no
// request may fail.
//
// And the counts add up, three ways, in every phase. The client sends each request with its own
// `X-Request-Id`; nginx logs, per request, the replicas it tried and what each answered; each
// replica counts its answers in /metrics (kiln_http_requests_total, scraped before and after
// each phase, the load paused in between so no request straddles two phases) and logs each one
// with its id on stdout. Per replica, what it counted equals what nginx says it answered; the
// 200s the replicas answered add up to the client's requests, and the rest of nginx's attempts
// are its retries. A process that exits loses its counters: one stopped by SIGTERM has logged
// every answer before exiting (its log stands in for its counters), and for one killed with -9
// nginx's record of what it answered before it died stands in. Every request id is answered 200
// exactly once across the replicas' logs (the killed one's last lines may die with it).
//
// Speeds are printed (requests, failures, p50/p99 per phase, retries nginx made), never
// asserted: docs/operations.md holds one run's figures. Part of `npm run test:stress`.
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

/** `<method> <path>` of the benign traffic: the routes whose counts are compared. */
const BENIGN = new Set(CALLS.map((call) => `${call.method} ${call.path}`));

/** Answers of the benign routes by `<method> <route> <status>`. */
type Counts = Map<string, number>;

function addTo(counts: Counts, key: string, by = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + by);
}

/** `a` plus `b` (or minus, with `sign` -1), the keys that end at zero dropped. */
function combined(a: Counts, b: Counts, sign = 1): Counts {
  const result = new Map(a);
  for (const [key, count] of b) addTo(result, key, sign * count);
  for (const [key, count] of result) if (count === 0) result.delete(key);
  return result;
}

/** The counts as a sorted plain object, for comparing and printing. */
function plain(counts: Counts): Record<string, number> {
  return Object.fromEntries([...counts].filter(([, n]) => n !== 0).sort());
}

/** How many answers `counts` holds with `status` (any status when not given). */
function answers(counts: Counts, status?: string): number {
  let sum = 0;
  for (const [key, count] of counts)
    if (status === undefined || key.endsWith(` ${status}`)) sum += count;
  return sum;
}

/**
 * kiln_http_requests_total of the benign routes, from a /metrics text. Read with one regular
 * expression rather than a parser package: prom-client writes the text format but reads none,
 * and one counter's lines are plain `name{label="value",...} number`.
 */
function meteredCounts(metricsText: string): Counts {
  const counts: Counts = new Map();
  for (const line of metricsText.split("\n")) {
    const match = /^kiln_http_requests_total\{([^}]*)\} (\d+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries(
      [...(match[1] as string).matchAll(/(\w+)="([^"]*)"/g)].map((label) => [label[1], label[2]]),
    );
    if (!BENIGN.has(`${labels.method} ${labels.route}`)) continue;
    addTo(counts, `${labels.method} ${labels.route} ${labels.status}`, Number(match[2]));
  }
  return counts;
}

/** One line of a replica's request log (JSON: a service whose stdout is a pipe writes JSON). */
interface LoggedRequest {
  requestId: string;
  method: string;
  route: string;
  status: number;
}

function loggedRequests(stdout: string[]): LoggedRequest[] {
  return stdout
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LoggedRequest & { msg: string })
    .filter((entry) => entry.msg === "request");
}

/** The benign answers among `entries`, counted as /metrics counts them. */
function loggedCounts(entries: LoggedRequest[]): Counts {
  const counts: Counts = new Map();
  for (const entry of entries) {
    if (BENIGN.has(`${entry.method} ${entry.route}`)) {
      addTo(counts, `${entry.method} ${entry.route} ${entry.status}`);
    }
  }
  return counts;
}

/** One process of a replica, from its start on the replica's port to its end. */
interface Life {
  server: ChildServer;
  /** Its kiln_http_requests_total at its last scrape (a new process starts from zero). */
  scraped: Counts;
  /** The signal that ended it, once sent. */
  ended?: "SIGTERM" | "SIGKILL";
}

/** One `kiln serve` on a fixed port, restarted on the same port as a rolling update does. */
class Replica {
  readonly lives: Life[] = [];
  private scrapes = 0;
  constructor(
    readonly port: number,
    readonly name: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The process running now, if any. */
  get life(): Life | undefined {
    const last = this.lives.at(-1);
    return last?.ended === undefined ? last : undefined;
  }

  /** Starts it and waits until its readiness answers 200, as a rolling update waits. */
  async start(): Promise<void> {
    // startChild reads the child's stdout line by line as it comes (the request log: a line per
    // request), so the pipe never fills and blocks the replica
    const server = await startChild(["--port", String(this.port), ...REPLICA_ARGS]);
    this.lives.push({ server, scraped: new Map() });
    for (;;) {
      const ready = await raw(this.url, { path: "/api/ready" }).then(
        (answer) => answer.status === 200,
        () => false,
      );
      if (ready) return;
      await sleep(20);
    }
  }

  /** Sends `signal` and resolves with the exit status. */
  async stop(signal: "SIGTERM" | "SIGKILL"): Promise<number | null> {
    const life = this.life;
    if (life === undefined) return null;
    life.ended = signal;
    return life.server.stop(signal);
  }

  /**
   * The running process's counts from its /metrics, checked against its own request log: the
   * two records of one process agree, so the log can stand in for the counters of a process that
   * has exited.
   */
  async scrape(phase: string): Promise<Counts> {
    const life = this.life as Life;
    const id = `scrape-${this.name.replace(" ", "-")}-${++this.scrapes}`;
    const answer = await raw(this.url, { path: "/metrics", headers: { "x-request-id": id } });
    assert.equal(answer.status, 200, answer.body);
    const metered = meteredCounts(answer.body);
    // the log line of every request counted was written before this scrape's, which may still
    // be on its way through the pipe
    await loggedLine(life.server, id);
    assert.deepEqual(
      plain(loggedCounts(loggedRequests(life.server.stdout))),
      plain(metered),
      `${phase}, ${this.name}: its /metrics and its request log count different answers`,
    );
    return metered;
  }
}

/** Resolves once `server` has logged the request with id `id`. */
function loggedLine(server: ChildServer, id: string): Promise<void> {
  const logged = () => server.stdout.some((line) => line.includes(`"requestId":"${id}"`));
  if (logged()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const stdout = server.child.stdout as NodeJS.ReadableStream;
    // startChild's line reader was attached first, so a chunk's lines are in `stdout` by now
    const onData = () => {
      if (!logged()) return;
      stdout.off("data", onData);
      resolve();
    };
    stdout.on("data", onData);
    void server.exited.then(() => reject(new Error(`the replica exited before logging ${id}`)));
  });
}

/** What the client saw of one request. */
interface Outcome {
  phase: string;
  /** The `X-Request-Id` it was sent with. */
  id: string;
  ms: number;
  /** Why it failed: a connection error or an answer that is not the expected one. */
  failure?: string;
}

function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] as number;
}

/** The request-id prefix of a phase: `kill -9` sends `kill-9-1`, `kill-9-2`, ... */
const idPrefix = (phase: string) => `${phase.replace(/[^a-z0-9]+/g, "-")}-`;

/**
 * The client, for one phase: CLIENTS loops sending CALLS in turn through the load balancer, each
 * with its own request id, each answer compared with the expected one, until the returned stop
 * is called (which waits for the requests under way).
 */
function runLoad(
  balancer: LoadBalancer,
  expected: Map<Call, string>,
  phase: string,
  outcomes: Outcome[],
) {
  let running = true;
  let next = 0;
  const loop = async () => {
    while (running) {
      const sequence = next++;
      const call = CALLS[sequence % CALLS.length] as Call;
      const id = `${idPrefix(phase)}${sequence + 1}`;
      const started = performance.now();
      let failure: string | undefined;
      try {
        const answer = await fetch(`${balancer.origin}${call.path}`, {
          method: call.method,
          headers: { "content-type": "application/json", "x-request-id": id },
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
        phase,
        id,
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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One try of nginx at a replica: its port, and the status it answered or nginx's own. */
interface Attempt {
  port: number | undefined;
  status: string;
}

/** One client request as nginx logged it. */
interface Passage {
  id: string;
  method: string;
  path: string;
  status: string;
  attempts: Attempt[];
}

/** nginx's log of the API requests (it also logs the replicas' fetches of /items/). */
function passages(accessLog: string): Passage[] {
  const result: Passage[] = [];
  for (const line of accessLog.split("\n")) {
    const match = /^(\S+) (\S+) (\/api\/\S*) (\d+) "([^"]*)" "([^"]*)"$/.exec(line);
    if (!match) continue;
    const statuses = (match[6] as string).split(", ");
    result.push({
      id: match[1] as string,
      method: match[2] as string,
      path: match[3] as string,
      status: match[4] as string,
      attempts: (match[5] as string).split(", ").map((address, index) => {
        const port = /^127\.0\.0\.1:(\d+)$/.exec(address)?.[1];
        return {
          port: port === undefined ? undefined : Number(port),
          status: statuses[index] ?? "",
        };
      }),
    });
  }
  return result;
}

/**
 * Whether a replica answered this try. nginx writes 502 for a replica it could not reach or
 * that closed the connection without an answer, 504 for one that did not answer in time; a
 * replica's own answers to the benign traffic are 200s, or 503s while it starts or drains.
 */
function replicaAnswered(attempt: Attempt): boolean {
  return attempt.port !== undefined && attempt.status !== "502" && attempt.status !== "504";
}

/** One process of a phase: how it had ended by the phase's end, if it had. */
interface PhaseLife {
  life: Life;
  ended: Life["ended"];
}

/** A phase's processes per replica, and the counts of those running at its end. */
interface PhaseRecord {
  name: string;
  replicas: { replica: Replica; lives: PhaseLife[]; metered: Counts }[];
}

/**
 * Ends a phase's accounting once its load has stopped: each running process is scraped, and what
 * it counted since its previous scrape (or its start) is the phase's.
 */
async function closePhase(name: string, replicas: Replica[], firstLives: number[]) {
  const record: PhaseRecord = { name, replicas: [] };
  for (const [index, replica] of replicas.entries()) {
    const lives = replica.lives
      .slice(firstLives[index])
      .map((life) => ({ life, ended: life.ended }));
    let metered: Counts = new Map();
    for (const { life, ended } of lives) {
      if (ended !== undefined) continue;
      const now = await replica.scrape(name);
      metered = combined(metered, combined(now, life.scraped, -1));
      life.scraped = now;
    }
    record.replicas.push({ replica, lives, metered });
  }
  return record;
}

/** How one replica's answers in a phase add up. */
interface ReplicaTally {
  phase: string;
  replica: string;
  /** Its own count, with where it comes from. */
  counted: Counts;
  from: string;
  /** What nginx says it answered. */
  nginx: Counts;
  /** The request ids a process killed with -9 answered (its log may have lost them). */
  killedIds: Set<string>;
  /** How many of those its log holds. */
  killedLogged: number;
}

/**
 * One replica's answers in a phase: the counters of its processes running at the end, the
 * request log of one that exited on SIGTERM (it logs every answer before it exits), and nginx's
 * record for one killed with -9 (what nginx says that port answered, less what its later process
 * logged). `direct` is what the test sent it directly, not through nginx.
 */
function tallyReplica(
  record: PhaseRecord["replicas"][number],
  phase: string,
  ofPhase: Passage[],
  direct: Counts,
): ReplicaTally {
  const { replica, lives, metered } = record;
  const prefix = idPrefix(phase);
  const nginx: Counts = new Map();
  const answeredHere: { passage: Passage; attempt: Attempt }[] = [];
  for (const passage of ofPhase) {
    for (const attempt of passage.attempts) {
      if (attempt.port !== replica.port || !replicaAnswered(attempt)) continue;
      addTo(nginx, `${passage.method} ${passage.path} ${attempt.status}`);
      answeredHere.push({ passage, attempt });
    }
  }
  let counted = combined(metered, direct, -1);
  const from = new Set(lives.some(({ ended }) => ended === undefined) ? ["metrics"] : []);
  const killedIds = new Set<string>();
  let killedLogged = 0;
  for (const { life, ended } of lives) {
    const logged = loggedRequests(life.server.stdout).filter((entry) =>
      entry.requestId.startsWith(prefix),
    );
    if (ended === "SIGTERM") {
      counted = combined(counted, loggedCounts(logged));
      from.add("log of the exited");
    } else if (ended === "SIGKILL") {
      const byOthers = new Set(
        lives
          .filter((other) => other.life !== life)
          .flatMap((other) =>
            loggedRequests(other.life.server.stdout).map((entry) => entry.requestId),
          ),
      );
      const itsAnswers: Counts = new Map();
      for (const { passage, attempt } of answeredHere) {
        if (byOthers.has(passage.id)) continue;
        addTo(itsAnswers, `${passage.method} ${passage.path} ${attempt.status}`);
        killedIds.add(passage.id);
      }
      counted = combined(counted, itsAnswers);
      killedLogged = logged.filter((entry) => killedIds.has(entry.requestId)).length;
      from.add("nginx for the killed");
    }
  }
  return {
    phase,
    replica: replica.name,
    counted,
    from: [...from].join(" + "),
    nginx,
    killedIds,
    killedLogged,
  };
}

/** One line of a replica's request log about a client request. */
interface LoggedAnswer {
  status: number;
  /** Whether the process that logged it was killed with -9. */
  killed: boolean;
}

/**
 * Whether one client request's lines across the replicas' logs are right: one 200, logged by the
 * process that answered it. Two exceptions, both a kill -9's: no line, when nginx says the
 * killed process answered it (its last lines die with it); two 200s, one of them the killed
 * process's, when nginx retried it (that answer was lost in the reset connection). Any other
 * status only for a request nginx retried.
 */
function idLoggedRightly(
  answers: LoggedAnswer[],
  nginx: { retried: boolean; byKilled: boolean },
): boolean {
  const oks = answers.filter((answer) => answer.status === 200).length;
  const killedOks = answers.filter((answer) => answer.status === 200 && answer.killed).length;
  const others = answers.length - oks;
  const oksRight =
    oks === 1 || (oks === 0 && nginx.byKilled) || (oks === 2 && killedOks === 1 && nginx.retried);
  return oksRight && (others === 0 || nginx.retried);
}

test("three replicas behind nginx: a rolling restart, a kill -9 and a slow replica lose no request, every answer is right, and the service's counts add up", {
  skip: nginxSkip(),
  timeout: 300_000,
}, async () => {
  const itemsDir = mkdtempSync(join(tmpdir(), "kiln-fleet-items-"));
  writeFileSync(join(itemsDir, "slow.json"), JSON.stringify(SLOW_ITEM));
  const replicas = [
    new Replica(await freePort(), "replica 1"),
    new Replica(await freePort(), "replica 2"),
    new Replica(await freePort(), "replica 3"),
  ];
  const balancer = await startLoadBalancer(
    replicas.map((replica) => replica.port),
    itemsDir,
  );
  const outcomes: Outcome[] = [];
  const exits: Record<string, number | null> = {};
  const records: PhaseRecord[] = [];
  /** The test's own requests to a replica, not through nginx, by replica and phase. */
  const direct = new Map<string, Counts>();
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
    for (const replica of replicas)
      (replica.life as Life).scraped = await replica.scrape("before the load");

    /** Runs `fault` under load as phase `name`, then pauses the load and scrapes every replica. */
    const phase = async (name: string, fault: () => Promise<void>) => {
      const firstLives = replicas.map((replica) => replica.lives.length - 1);
      const stopLoad = runLoad(balancer, expected, name, outcomes);
      await fault();
      await stopLoad();
      records.push(await closePhase(name, replicas, firstLives));
    };

    await phase("no fault", () => sleep(PHASE_MS));

    await phase("rolling restart", async () => {
      for (const replica of replicas) {
        exits[`${replica.name} SIGTERM`] = await replica.stop("SIGTERM");
        await replica.start();
      }
    });

    await phase("kill -9", async () => {
      await sleep(1_000);
      const victim = replicas[1] as Replica;
      exits[`${victim.name} SIGKILL`] = await victim.stop("SIGKILL");
      await sleep(2_000);
      await victim.start();
      await sleep(1_000);
    });

    const slowAnswers: string[] = [];
    await phase("slow replica", async () => {
      const slowReplica = replicas[2] as Replica;
      const sent: Counts = new Map();
      direct.set(`${slowReplica.name} slow replica`, sent);
      const slowUntil = Date.now() + PHASE_MS;
      while (Date.now() < slowUntil) {
        const answer = await raw(slowReplica.url, {
          method: "POST",
          path: "/api/render",
          headers: {
            "content-type": "application/json",
            "x-request-id": `slow-${slowAnswers.length + 1}`,
          },
          body: JSON.stringify({ reference: `${balancer.origin}/items/slow.json`, name: "x" }),
        });
        slowAnswers.push(`${answer.status} ${answer.body}`);
        addTo(sent, `POST /api/render ${answer.status}`);
      }
    });

    // the figures, printed for docs/operations.md
    const log = passages(balancer.accessLog());
    const rows = [];
    const tallies: ReplicaTally[] = [];
    for (const record of records) {
      const mine = outcomes.filter((outcome) => outcome.phase === record.name);
      const times = mine.map((outcome) => outcome.ms).sort((a, b) => a - b);
      const ofPhase = log.filter((passage) => passage.id.startsWith(idPrefix(record.name)));
      const phaseTallies = record.replicas.map((replicaRecord) =>
        tallyReplica(
          replicaRecord,
          record.name,
          ofPhase,
          direct.get(`${replicaRecord.replica.name} ${record.name}`) ?? new Map(),
        ),
      );
      tallies.push(...phaseTallies);
      const retries = ofPhase.flatMap((passage) => passage.attempts.slice(0, -1));
      rows.push({
        phase: record.name,
        requests: mine.length,
        failed: mine.filter((outcome) => outcome.failure !== undefined).length,
        "p50 ms": Math.round(percentile(times, 0.5)),
        "p99 ms": Math.round(percentile(times, 0.99)),
        "retried by nginx": ofPhase.filter((passage) => passage.attempts.length > 1).length,
        "200s counted": phaseTallies.reduce((sum, tally) => sum + answers(tally.counted, "200"), 0),
        "503s counted": phaseTallies.reduce((sum, tally) => sum + answers(tally.counted, "503"), 0),
        "tries unanswered": retries.filter((attempt) => !replicaAnswered(attempt)).length,
        "nginx's statuses for them": [
          ...new Set(retries.filter((attempt) => !replicaAnswered(attempt)).map((a) => a.status)),
        ].join(" "),
      });
    }
    console.log(`fleet: ${CLIENTS} clients, 3 replicas (${REPLICA_ARGS.join(" ")})`);
    console.table(rows);
    console.table(
      tallies.map((tally) => ({
        phase: tally.phase,
        replica: tally.replica,
        "its count": answers(tally.counted),
        from: tally.from,
        "nginx's count": answers(tally.nginx),
      })),
    );
    for (const tally of tallies.filter((each) => each.killedIds.size > 0)) {
      console.log(
        `${tally.phase}: ${tally.replica}'s killed process answered ${tally.killedIds.size} requests before it died (nginx's record); its request log holds ${tally.killedLogged} of them`,
      );
    }
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
    assert.deepEqual(
      log.map((passage) => passage.id).sort(),
      outcomes.map((outcome) => outcome.id).sort(),
    );
    assert.ok(
      log.every((passage) => passage.status === "200" && passage.attempts.at(-1)?.status === "200"),
      JSON.stringify(log.find((passage) => passage.status !== "200")),
    );
    // each replica counted what nginx says it answered
    for (const tally of tallies) {
      assert.deepEqual(
        plain(tally.counted),
        plain(tally.nginx),
        `${tally.phase}, ${tally.replica} (${tally.from}): its count is not nginx's`,
      );
    }
    // the replicas' 200s are the client's requests, one each; whatever else nginx tried was a
    // retry: a replica's 503 or a try no replica answered
    for (const row of rows) {
      assert.equal(row["200s counted"], row.requests, `${row.phase}: 200s counted`);
    }
    // every request id answered 200 exactly once across the replicas' logs, with the killed
    // process's lines apart (see idLoggedRightly)
    const killedIds = new Set(tallies.flatMap((tally) => [...tally.killedIds]));
    const retried = new Set(
      log.filter((passage) => passage.attempts.length > 1).map((passage) => passage.id),
    );
    const logged = new Map<string, LoggedAnswer[]>();
    for (const replica of replicas) {
      for (const life of replica.lives) {
        const killed = life.ended === "SIGKILL";
        for (const entry of loggedRequests(life.server.stdout)) {
          const answer = { status: entry.status, killed };
          logged.set(entry.requestId, [...(logged.get(entry.requestId) ?? []), answer]);
        }
      }
    }
    const wrongIds = outcomes
      .map((outcome) => ({ id: outcome.id, answers: logged.get(outcome.id) ?? [] }))
      .filter(
        ({ id, answers }) =>
          !idLoggedRightly(answers, { retried: retried.has(id), byKilled: killedIds.has(id) }),
      );
    assert.deepEqual(wrongIds.slice(0, 5), [], `${wrongIds.length} request ids logged wrongly`);

    assert.ok(slowAnswers.length > 0);
    for (const answer of slowAnswers) {
      assert.match(answer, /^200 .*"content":"done"/);
    }
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
    await balancer.stop();
    rmSync(itemsDir, { recursive: true, force: true });
  }
});
