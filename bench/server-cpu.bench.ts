// CPU per request of unique deployment renders, per thread (`npm run bench:server-cpu`): the
// steadier measure on a shared machine, where req/s moves with whatever else runs. Starts each
// service given (default: this clone's dist/cli/main.js; pass others, such as a copy of main's
// dist, to compare them), `kiln serve --port 0` with its defaults (metrics on, the request log
// on stdout), and a bare node:http server answering `ok`; then, alternately for BENCH_ROUNDS
// rounds, the ceiling and each service under BENCH_SECONDS of autocannon (BENCH_CONNECTIONS
// connections, every body naming a new component, so every request is a render). CPU comes
// from /proc: user plus system time of the service's HTTP thread (the process's first thread)
// and of its other threads (the render workers, V8's and libuv's helpers), and the client's
// own (autocannon runs in this process). Prints each round, then medians and spreads.
// Linux only (/proc).
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
// @ts-expect-error autocannon ships no type declarations
import autocannonUntyped from "autocannon";
import { POST_CEILING, startServer, uniqueBody } from "./servers.ts";
import { median } from "./statistics.ts";

const autocannon = autocannonUntyped as (options: {
  url: string;
  method: string;
  headers: Record<string, string>;
  requests: { setupRequest: (request: { body?: string }) => { body?: string } }[];
  connections: number;
  duration: number;
}) => Promise<{ requests: { total: number }; latency: { p99: number }; non2xx: number }>;

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** More options for every `kiln serve` (e.g. `--render-cache 0`), split on spaces. */
const SERVE_ARGS = (process.env.BENCH_SERVE_ARGS ?? "").split(" ").filter(Boolean);
/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

const services = process.argv.slice(2);
if (services.length === 0) {
  services.push(fileURLToPath(new URL("../dist/cli/main.js", import.meta.url)));
}

interface Started {
  name: string;
  url: string;
  child: ChildProcess;
}

async function start(name: string, args: string[]): Promise<Started> {
  return { name, ...(await startServer(args, name)) };
}

/** User and system seconds of each thread of `pid`, by thread id. */
function threadSeconds(pid: number): Map<number, { user: number; system: number }> {
  const seconds = new Map<number, { user: number; system: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    seconds.set(Number(tid), {
      user: Number(fields[11]) / TICKS_PER_SECOND,
      system: Number(fields[12]) / TICKS_PER_SECOND,
    });
  }
  return seconds;
}

async function load(url: string) {
  return autocannon({
    url: `${url}/api/render`,
    method: "POST",
    headers: { "content-type": "application/json" },
    requests: [
      {
        setupRequest: uniqueBody(
          JSON.stringify({ reference: "k8s/deployment", name: "web-[<id>]", image: "nginx:1.27" }),
        ),
      },
    ],
    connections: CONNECTIONS,
    duration: DURATION,
  });
}

interface Round {
  rps: number;
  p99: number;
  /** Microseconds of CPU per request. */
  http: number;
  /** The HTTP thread's system (kernel) share of `http`. */
  httpSystem: number;
  others: number;
  client: number;
  total: number;
}

async function measure(service: Started): Promise<Round> {
  const pid = service.child.pid as number;
  const before = threadSeconds(pid);
  const client = process.cpuUsage();
  const result = await load(service.url);
  const clientUs = process.cpuUsage(client);
  const after = threadSeconds(pid);
  if (result.non2xx > 0) throw new Error(`${service.name}: ${result.non2xx} failed requests`);
  const requests = result.requests.total;
  let http = 0;
  let httpSystem = 0;
  let others = 0;
  for (const [tid, seconds] of after) {
    const earlier = before.get(tid) ?? { user: 0, system: 0 };
    const used = seconds.user - earlier.user + seconds.system - earlier.system;
    if (tid === pid) {
      http += used;
      httpSystem += seconds.system - earlier.system;
    } else others += used;
  }
  const perRequest = (seconds: number) => (seconds * 1e6) / requests;
  const round = {
    rps: requests / DURATION,
    p99: result.latency.p99,
    http: perRequest(http),
    httpSystem: perRequest(httpSystem),
    others: perRequest(others),
    client: (clientUs.user + clientUs.system) / requests,
    total: 0,
  };
  round.total = round.http + round.others + round.client;
  return round;
}

const started: Started[] = [await start("ceiling", ["-e", POST_CEILING])];
for (const [index, main] of services.entries()) {
  started.push(
    await start(`kiln ${index + 1} (${main})`, [main, "serve", "--port", "0", ...SERVE_ARGS]),
  );
}
try {
  for (const service of started) await measure(service); // warm-up
  const rounds = new Map<Started, Round[]>(started.map((service) => [service, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const service of started) {
      const measured = await measure(service);
      rounds.get(service)?.push(measured);
      process.stderr.write(
        `round ${round}: ${service.name}: ${Math.round(measured.rps)} req/s, p99 ${measured.p99} ms, CPU us/request: HTTP thread ${measured.http.toFixed(0)} (system ${measured.httpSystem.toFixed(0)}), other threads ${measured.others.toFixed(0)}, client ${measured.client.toFixed(0)}, total ${measured.total.toFixed(0)}\n`,
      );
    }
  }
  const ceiling = rounds.get(started[0] as Started) ?? [];
  console.log(
    `\n${CONNECTIONS} connections, ${DURATION} s a round, medians of ${ROUNDS} rounds (min-max)\n`,
  );
  console.log(
    "| server | req/s | ratio to ceiling | p99 | HTTP thread us/req (system) | other threads us/req | client us/req | total us/req |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  const cell = (values: number[], digits = 0) =>
    `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;
  for (const service of started) {
    const measured = rounds.get(service) ?? [];
    const ratios = measured.map((run, index) => run.rps / (ceiling[index]?.rps ?? 1));
    console.log(
      `| ${service.name} | ${cell(measured.map((run) => run.rps))} | ${cell(ratios, 2)} | ${cell(
        measured.map((run) => run.p99),
      )} ms | ${cell(measured.map((run) => run.http))} (${cell(measured.map((run) => run.httpSystem))}) | ${cell(measured.map((run) => run.others))} | ${cell(
        measured.map((run) => run.client),
      )} | ${cell(measured.map((run) => run.total))} |`,
    );
  }
} finally {
  for (const service of started) service.child.kill("SIGTERM");
}
