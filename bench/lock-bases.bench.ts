// A flood of large POST /api/lock/bases bodies against a kiln service in a child process
// (`node --import tsx bench/lock-bases.bench.ts`): BENCH_FLOOD_CONNECTIONS connections (600)
// each posting a body of about 1.8 MB again and again for BENCH_FLOOD_SECONDS (10), while a
// client in a process of its own asks GET /api/health every 100 ms. Then BENCH_FLOOD_QUIET_SECONDS (45) of quiet.
// Prints, each with its goal and PASS or MISS: the slowest health answer during the flood, the
// longest event-loop delay of the thread that serves HTTP (the service reports it itself with
// KILN_DIAGNOSTICS=1), the answers by status, and the resident memory before, at the end of the
// flood and after the quiet (docs/security.md: within 35% of before).
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  DIAGNOSTICS_ENV,
  type DiagnosticsReport,
  REPORT_PREFIX,
} from "../src/server/diagnostics.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const CONNECTIONS = Number(process.env.BENCH_FLOOD_CONNECTIONS ?? 600);
const SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 10);
const QUIET_SECONDS = Number(process.env.BENCH_FLOOD_QUIET_SECONDS ?? 45);
/** Goals: the health check answered within this during the flood; memory back within 35%. */
const HEALTH_GOAL_MS = 1_000;
const MEMORY_GOAL = 1.35;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** Resident memory of a process (Linux /proc), in bytes. */
function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN) * 1024;
}

/** 64 texts of manifest-like lines, some of them unique, about 1.8 MB as JSON. */
function floodBody(): string {
  const contents = Array.from({ length: 64 }, (_, text) =>
    Array.from(
      { length: 700 },
      (_, line) =>
        `  - name: item-${text}-${line}\n    value: ${((text * 7919 + line * 104729) % 1_000_003).toString(36)}\n`,
    ).join(""),
  );
  return JSON.stringify({ contents });
}

async function startService(): Promise<{
  url: string;
  child: ChildProcess;
  report: () => Promise<DiagnosticsReport>;
}> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "src/main.ts", "serve", "--port", "0"],
    {
      cwd: REPO,
      env: { ...process.env, [DIAGNOSTICS_ENV]: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const reports: ((report: DiagnosticsReport) => void)[] = [];
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (line) => {
    if (line.startsWith(REPORT_PREFIX)) {
      reports.shift()?.(JSON.parse(line.slice(REPORT_PREFIX.length)) as DiagnosticsReport);
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", (line) => {
      const match = /^kiln listening on (http:\/\/\S+)$/.exec(line);
      if (match) resolve(match[1] as string);
      else reject(new Error(`unexpected start-up line: ${line}`));
    });
    child.once("exit", (code) => reject(new Error(`service exited with ${code}`)));
  });
  // the line comes once it listens, before its workers are up: the baseline is a ready service
  while ((await fetch(`${url}/api/ready`)).status !== 200) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const report = () =>
    new Promise<DiagnosticsReport>((resolve) => {
      reports.push(resolve);
      child.kill("SIGUSR2");
    });
  return { url, child, report };
}

function post(url: URL, body: string, agent: Agent | false): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: "POST",
        path: "/api/lock/bases",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        agent,
        timeout: 120_000,
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", () => resolve(-1));
      },
    );
    req.on("error", () => resolve(-1));
    req.on("timeout", () => req.destroy());
    req.end(body);
  });
}

/**
 * A client of its own (a child process, so the flood's client does not delay it) asking GET
 * /api/health every 100 ms for `seconds`; resolves with each answer's time in milliseconds.
 */
function healthProber(url: URL, seconds: number): Promise<number[]> {
  const script = `
    const http = require("node:http");
    const stopAt = Date.now() + ${seconds * 1_000};
    const times = [];
    const ask = () => {
      if (Date.now() >= stopAt) return console.log(JSON.stringify(times));
      const started = performance.now();
      http.get({ host: ${JSON.stringify(url.hostname)}, port: ${url.port}, path: "/api/health", agent: false }, (res) => {
        res.resume();
        res.on("end", () => { times.push(performance.now() - started); setTimeout(ask, 100); });
      }).on("error", () => { times.push(Infinity); setTimeout(ask, 100); });
    };
    ask();`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve) => child.on("exit", () => resolve(JSON.parse(out) as number[])));
}

const service = await startService();
const pid = service.child.pid as number;
const url = new URL(service.url);
try {
  const body = floodBody();
  for (let index = 0; index < 5; index++) await post(url, body, false);
  await sleep(2_000);
  await service.report(); // the histogram starts now
  const before = rss(pid);

  const statuses = new Map<number, number>();
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const stopAt = Date.now() + SECONDS * 1_000;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss(pid));
  }, 100);
  const prober = healthProber(url, SECONDS);
  const connection = async () => {
    while (Date.now() < stopAt) {
      const status = await post(url, body, agent);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  const [healthTimes] = await Promise.all([
    prober,
    ...Array.from({ length: CONNECTIONS }, connection),
  ]);
  clearInterval(sampler);
  agent.destroy();
  const during = await service.report();
  const atEnd = rss(pid);
  const quiet: number[] = [];
  for (let second = 5; second <= QUIET_SECONDS; second += 5) {
    await sleep(5_000);
    quiet.push(rss(pid));
  }
  const after = quiet.at(-1) as number;
  const slowest = Math.max(...healthTimes);
  const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");
  const answered = [...statuses].map(([status, count]) => `${count} x ${status}`).join(", ");
  console.log(
    `lock/bases flood: ${CONNECTIONS} connections, ${(Buffer.byteLength(body) / 1e6).toFixed(2)} MB bodies, ${SECONDS} s: ${answered}`,
  );
  console.log(
    `${verdict(slowest < HEALTH_GOAL_MS)} /api/health during the flood within ${HEALTH_GOAL_MS} ms: slowest ${slowest.toFixed(0)} ms of ${healthTimes.length}`,
  );
  console.log(
    `     event-loop delay of the HTTP thread during the flood: max ${during.eventLoopDelay.maxMs.toFixed(1)} ms, p99 ${during.eventLoopDelay.p99Ms.toFixed(1)} ms`,
  );
  console.log(
    `${verdict(after < before * MEMORY_GOAL)} RSS ${QUIET_SECONDS} s after the flood within ${MEMORY_GOAL}x of before: ${mib(before)} before, ${mib(peak)} peak, ${mib(atEnd)} at the end, ${quiet.map(mib).join(", ")} at 5 s steps (${(after / before).toFixed(2)}x)`,
  );
} finally {
  service.child.kill("SIGTERM");
}
