// Benchmark of the HTTP service (`npm run bench:server`): autocannon against a kiln service and,
// in the same run, a bare node:http server answering `ok` (the ceiling on this machine). Both
// run as child processes on 127.0.0.1; autocannon runs here, with the same connections and
// duration for both. Prints req/s, p99 latency and the ratio to the ceiling.
//
// On a small shared machine one measurement is at the mercy of whatever else runs, so each
// target is measured in BENCH_ROUNDS rounds, each right after a measurement of the ceiling,
// and the ratio is taken within that pair; the table shows medians over the rounds.
// Bounded: 2 x BENCH_SECONDS per target and round, plus a short warm-up.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
// @ts-expect-error autocannon ships no type declarations
import autocannonUntyped from "autocannon";

interface AutocannonResult {
  requests: { average: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
const autocannon = autocannonUntyped as (options: {
  url: string;
  method: string;
  body: string | undefined;
  headers: Record<string, string>;
  connections: number;
  duration: number;
}) => Promise<AutocannonResult>;

const REPO = fileURLToPath(new URL("..", import.meta.url));
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const CEILING = `require("node:http").createServer((req, res) => res.end("ok")).listen(0, "127.0.0.1", function () { console.log("ceiling listening on http://127.0.0.1:" + this.address().port); });`;

async function start(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { cwd: REPO, stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const line = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}`)));
  });
  const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`unexpected start-up line: ${line}`);
  return { url, child };
}

interface Target {
  name: string;
  method?: "GET" | "POST";
  path: string;
  body?: string;
}

function inventory(hosts: number): string {
  const members = Array.from({ length: hosts }, (_, index) => ({
    name: `web-${index}`,
    cm_host: `10.0.${index >> 8}.${index & 255}`,
    vars: { role: "web" },
  }));
  return JSON.stringify({
    reference: "automation/inventory",
    name: "bench",
    fields: { hosts: JSON.stringify([{ group: "web", members }]) },
  });
}

async function measure(url: string, target: Target, duration = DURATION) {
  const result = await autocannon({
    url: `${url}${target.path}`,
    method: target.method ?? "GET",
    body: target.body,
    headers: target.body ? { "content-type": "application/json" } : {},
    connections: CONNECTIONS,
    duration,
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`${target.name}: ${failures} failed requests`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

const ceiling = await start(["-e", CEILING]);
// The kiln service as `kiln serve` runs it: the compiled dist/server (`npm run build:core`
// first). BENCH_FROM_SOURCE=1 runs src/server through tsx instead.
const FROM_SOURCE = process.env.BENCH_FROM_SOURCE === "1";
const compiled = fileURLToPath(new URL("../dist/server/main.js", import.meta.url));
if (!FROM_SOURCE && !existsSync(compiled)) {
  throw new Error("dist/server/main.js is missing: run `npm run build:core` first");
}
const kiln = await start(
  FROM_SOURCE
    ? ["--import", "tsx", "src/server/main.ts", "--port", "0"]
    : [compiled, "--port", "0"],
);
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

try {
  const deployment = JSON.stringify({
    reference: "k8s/deployment",
    name: "web",
    image: "nginx:1.27",
  });
  const ceilingTarget: Target = { name: "ceiling", path: "/" };
  const targets: Target[] = [
    { name: "GET /api/health", path: "/api/health" },
    { name: "GET /api/components", path: "/api/components" },
    {
      name: "POST /api/render (deployment)",
      method: "POST",
      path: "/api/render",
      body: deployment,
    },
    {
      name: "POST /api/render (inventory, 200 hosts)",
      method: "POST",
      path: "/api/render",
      body: inventory(200),
    },
  ];
  // Warm up both (JIT, worker engines, compiled templates), every target once.
  await measure(ceiling.url, ceilingTarget, 2);
  for (const target of targets) await measure(kiln.url, target, 1);

  const ceilings: { rps: number; p99: number }[] = [];
  const runs = targets.map(() => [] as { rps: number; p99: number; ratio: number }[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, target] of targets.entries()) {
      const base = await measure(ceiling.url, ceilingTarget);
      const { rps, p99 } = await measure(kiln.url, target);
      ceilings.push(base);
      runs[index]?.push({ rps, p99, ratio: rps / base.rps });
    }
  }
  const rows: [string, number, number, number][] = [
    [
      "bare node:http `ok` (ceiling)",
      median(ceilings.map((run) => run.rps)),
      median(ceilings.map((run) => run.p99)),
      1,
    ],
    ...targets.map((target, index): [string, number, number, number] => {
      const measured = runs[index] ?? [];
      return [
        target.name,
        median(measured.map((run) => run.rps)),
        median(measured.map((run) => run.p99)),
        median(measured.map((run) => run.ratio)),
      ];
    }),
  ];
  console.log(
    `\n${availableParallelism()} cores, node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s per measurement, medians of ${ROUNDS} rounds (each target right after the ceiling), kiln from ${FROM_SOURCE ? "src (tsx)" : "dist"}\n`,
  );
  console.log("| target | req/s | p99 latency | ratio to ceiling |");
  console.log("|---|---:|---:|---:|");
  for (const [name, rps, p99, ratio] of rows) {
    console.log(`| ${name} | ${Math.round(rps)} | ${p99} ms | ${ratio.toFixed(2)}x |`);
  }
} finally {
  ceiling.child.kill("SIGTERM");
  kiln.child.kill("SIGTERM");
}
