// A bounded load of benign and hostile requests mixed, against the real service in a child
// process: 1,000 connections for 30 s (KILN_LOAD_SECONDS to change), about 13% of requests
// heavy or hostile (CPU and output bombs from item files, a memory bomb, 2 MiB inventories,
// render bodies over 256 KiB naming a built-in, 1.8 MB POST /api/lock/bases bodies). Benign
// renders must keep succeeding, /api/health must be answered while the load runs, and the
// process must never abort. Part of `npm run test:stress`: it asserts what is right, never how
// fast or how much memory - the numbers reached (p99, RSS after the quiet) are printed, and the
// memory goal is measured with its goal by `npm run bench:lock-bases`.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { inventoryHosts, raw, startChild } from "../server/helpers.ts";

const folder = mkdtempSync(join(tmpdir(), "kiln-hostile-load-"));
after(() => rmSync(folder, { recursive: true, force: true }));

const SECONDS = Number(process.env.KILN_LOAD_SECONDS ?? 30);
const CONNECTIONS = 1_000;
const HEAVY_SHARE = 0.13;
/** RSS within this of before ends the quiet period early; shown, not asserted. */
const NEAR_BASELINE = 1.35;

function itemFile(name: string, template: string): string {
  const path = join(folder, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({ name, category: "load", files: [{ path: `${name}.txt`, template }] }),
  );
  return path;
}

/** Resident memory of a process, in MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN);
  return kib / 1024;
}

/** A heavy or hostile request: where it goes and its body (made anew for each request). */
interface Heavy {
  path: string;
  body: () => string;
}

/** About 1.8 MB of texts for POST /api/lock/bases. */
function lockBasesBody(): string {
  const contents = Array.from({ length: 64 }, (_, text) =>
    Array.from({ length: 1_100 }, (_, line) => `  - name: item-${text}-${line}\n`).join(""),
  );
  return JSON.stringify({ contents });
}

interface Outcome {
  benign: boolean;
  path: string;
  status: number;
  ms: number;
}

test("benign renders keep succeeding under a mixed hostile load, and memory comes back", async () => {
  const hostile = [
    itemFile(
      "cpu",
      "{% for a in range(100000) %}{% for b in range(100000) %}{{ a }}{% endfor %}{% endfor %}",
    ),
    itemFile("output", "{{ '\\u0001' * 14000000 }}"),
    itemFile("memory", "{{ 'x' * 2000000000 }}"),
    itemFile("filter", `{% set a = [1] %}${"{% set a = [a, a] %}".repeat(30)}{{ a | yaml }}`),
  ];
  const fixed = (body: string): Heavy => ({ path: "/api/render", body: () => body });
  const bigHosts = inventoryHosts(15_000);
  const largeHosts = inventoryHosts(5_000);
  const bases = lockBasesBody();
  let unique = 0;
  const heavyRequests: Heavy[] = [
    ...hostile.map((reference) => fixed(JSON.stringify({ reference, name: "h" }))),
    fixed(
      JSON.stringify({
        reference: "automation/inventory",
        name: "big",
        fields: { hosts: bigHosts },
      }),
    ),
    // over 256 KiB, naming a built-in, each one new (never answered from the render cache)
    {
      path: "/api/render",
      body: () =>
        JSON.stringify({
          reference: "automation/inventory",
          name: `large${unique++}`,
          fields: { hosts: largeHosts },
        }),
    },
    { path: "/api/lock/bases", body: () => bases },
  ];
  const service = await startChild(["--port", "0"]);
  const pid = service.child.pid as number;
  try {
    // warm: a few renders of each kind before the baseline is read
    for (let index = 0; index < 20; index++) {
      await raw(service.url, {
        method: "POST",
        path: "/api/render",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ reference: "k8s/deployment", name: `warm${index}`, image: "nginx" }),
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = rssMiB(pid);

    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const url = new URL(service.url);
    const outcomes: Outcome[] = [];
    let counter = 0;
    const stopAt = Date.now() + SECONDS * 1_000;
    const send = (path: string, body: string): Promise<number> =>
      new Promise((resolve) => {
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            method: "POST",
            path,
            headers: { "content-type": "application/json" },
            agent,
            timeout: 60_000,
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
    const connection = async (): Promise<void> => {
      while (Date.now() < stopAt) {
        counter += 1;
        const heavy = Math.random() < HEAVY_SHARE;
        const request = heavy
          ? (heavyRequests[counter % heavyRequests.length] as Heavy)
          : {
              path: "/api/render",
              body: () =>
                JSON.stringify({
                  reference: counter % 2 ? "k8s/deployment" : "k8s/service",
                  name: `app${counter % 500}`,
                  image: "nginx:1.27",
                }),
            };
        const started = performance.now();
        const status = await send(request.path, request.body());
        outcomes.push({
          benign: !heavy,
          path: request.path,
          status,
          ms: performance.now() - started,
        });
      }
    };
    // /api/health asked now and then on a connection of its own while the load runs
    const healthDuringLoad: string[] = [];
    const prober = async (): Promise<void> => {
      while (Date.now() < stopAt) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const answer = await raw(service.url, { path: "/api/health" }).catch(() => undefined);
        if (Date.now() < stopAt && answer) healthDuringLoad.push(answer.body);
      }
    };
    await Promise.all([prober(), ...Array.from({ length: CONNECTIONS }, connection)]);
    agent.destroy();

    assert.equal(service.child.exitCode, null, "the service never aborted");
    const health = await raw(service.url, { path: "/api/health" });
    assert.equal(health.body, "ok");

    const benign = outcomes.filter((outcome) => outcome.benign);
    const succeeded = benign.filter((outcome) => outcome.status === 200);
    const share = succeeded.length / benign.length;
    const sorted = succeeded.map((outcome) => outcome.ms).sort((a, b) => a - b);
    const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? Number.NaN;
    const heavyCount = outcomes.length - benign.length;
    const statuses = new Map<string, number>();
    for (const outcome of outcomes) {
      if (outcome.benign && outcome.status === 200) continue;
      const key = `${outcome.benign ? "benign" : "heavy"} ${outcome.path} ${outcome.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    }
    const heavyAnswers = [...statuses].map(([key, count]) => `${count} x ${key}`).join(", ");

    // memory: quiet for a while (workers are refreshed after 1 s idle, the HTTP thread's heap
    // is collected after 5 to 10 s idle), then compare
    const timeline: number[] = [];
    for (let wait = 0; wait < 15; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      timeline.push(Math.round(rssMiB(pid)));
      if ((timeline.at(-1) as number) < before * NEAR_BASELINE) break;
    }
    const afterRss = timeline.at(-1) as number;
    const report = `load: ${outcomes.length} requests in ${SECONDS} s over ${CONNECTIONS} connections, ${heavyCount} heavy or hostile (answers other than a benign 200: ${heavyAnswers}); benign ${succeeded.length}/${benign.length} succeeded (${(share * 100).toFixed(1)}%), p99 ${p99.toFixed(0)} ms; RSS ${before.toFixed(0)} MiB before, ${afterRss.toFixed(0)} MiB after (${timeline.join(", ")} at 1 s steps)`;
    process.stdout.write(`# ${report}\n`);
    assert.ok(share >= 0.99, report);
    assert.ok(
      healthDuringLoad.includes("ok"),
      `/api/health answered while the load ran; ${report}`,
    );
  } finally {
    await service.stop();
  }
});
