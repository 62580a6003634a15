// Sizing a replica (`npm run bench:sizing`): `kiln serve --workers N` (the built binary, the
// render cache off so every request is a render in a worker) for N in BENCH_SIZING_WORKERS
// (1,2,4), each loaded for BENCH_SIZING_SECONDS (10) by autocannon with 16 connections posting
// an inventory render (a few hundred hosts: real work per request). Prints per N: renders per
// second, p99, resident memory when ready and at the end of the load, and the memory one more
// worker costs. docs/operations.md's sizing section holds one run's figures and the cores.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
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
  body: string;
  headers: Record<string, string>;
  connections: number;
  duration: number;
}) => Promise<AutocannonResult>;

const REPO = fileURLToPath(new URL("..", import.meta.url));
const WORKERS = (process.env.BENCH_SIZING_WORKERS ?? "1,2,4").split(",").map(Number);
const SECONDS = Number(process.env.BENCH_SIZING_SECONDS ?? 10);
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

/** Resident memory of a process (Linux /proc), in bytes. */
function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN) * 1024;
}

/** An inventory of `count` hosts in four groups: the render a sizing request does. */
function inventoryBody(count: number): string {
  const groups = ["web", "app", "db", "cache"].map((group, index) => ({
    group,
    members: Array.from({ length: count / 4 }, (_, host) => ({
      name: `${group}-${host}`,
      cm_host: `10.${index}.${host >> 8}.${host & 255}`,
    })),
    vars: { tier: group },
  }));
  return JSON.stringify({
    reference: "automation/inventory",
    name: "fleet",
    fields: { hosts: JSON.stringify(groups) },
  });
}

async function measure(workers: number) {
  const child = spawn(
    process.execPath,
    [
      "dist/cli/main.js",
      "serve",
      "--port",
      "0",
      "--workers",
      String(workers),
      "--render-cache",
      "0",
      "--drain-delay",
      "0",
    ],
    { cwd: REPO, stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise<string>((resolve) => {
    createInterface({ input: child.stdout }).once("line", (line) =>
      resolve(line.replace("kiln listening on ", "")),
    );
  });
  while ((await fetch(`${url}/api/ready`)).status !== 200) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pid = child.pid as number;
  const readyRss = rss(pid);
  const result = await autocannon({
    url: `${url}/api/render`,
    method: "POST",
    body: inventoryBody(400),
    headers: { "content-type": "application/json" },
    connections: 16,
    duration: SECONDS,
  });
  const loadedRss = rss(pid);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`--workers ${workers}: ${failures} failed requests`);
  return {
    workers,
    "renders/s": Math.round(result.requests.average),
    "p99 ms": result.latency.p99,
    "RSS ready MiB": mib(readyRss),
    "RSS loaded MiB": mib(loadedRss),
  };
}

const rows = [];
for (const workers of WORKERS) rows.push(await measure(workers));
console.log(`sizing: ${availableParallelism()} cores, ${SECONDS} s per row, 400-host inventory`);
console.table(rows);
const first = rows[0];
const last = rows.at(-1);
if (first && last && last.workers > first.workers) {
  const perWorker =
    (last["RSS loaded MiB"] - first["RSS loaded MiB"]) / (last.workers - first.workers);
  console.log(`memory per extra worker under load: ${perWorker.toFixed(0)} MiB`);
}
