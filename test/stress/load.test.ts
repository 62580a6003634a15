// Load: 1,000 concurrent renders mixing good, failing and hostile requests against one service.
// Every good render is exactly right, every failing one gets its error, the service stays up,
// and every worker is back afterwards. Bounded: one round of 1,000 requests. Part of `npm run
// test:stress`: the memory before and after is printed, not asserted (the benchmarks measure it
// with its goal).
import assert from "node:assert/strict";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { parseRegistryItem } from "../../src/core/item.ts";
import { Registry } from "../../src/core/registry.ts";
import { renderItem } from "../../src/core/render-item.ts";
import { TemplateEngine } from "../../src/node/template-engine.ts";
import {
  expectedInventory,
  FIXTURE_ITEMS,
  inventoryHosts,
  postJson,
  raw,
  startFixtureServer,
} from "../server/helpers.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const HOSTILE = [
  "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
  "{{ ('x' * 2000000000) | length }}",
  "{% macro d(s, n) %}{% if n > 0 %}{{ d(s ~ s, n - 1) }}{% else %}{{ s | length }}{% endif %}{% endmacro %}{{ d('x', 40) }}",
  "{% macro d(l, n) %}{% if n > 0 %}{{ d(l + l, n - 1) }}{% else %}{{ l | length }}{% endif %}{% endmacro %}{{ d([1, 2], 40) }}",
  "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
  "{{ range.constructor('return process')() }}",
  "{{ 1.0 < 9007199254740993 }}",
];

async function settledRss(): Promise<number> {
  for (let round = 0; round < 5; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return process.memoryUsage().rss;
}

test("1,000 concurrent renders: good ones correct, failures answered, the pool whole again", async () => {
  const hostileItems = HOSTILE.map((template, index) =>
    parseRegistryItem(
      { name: `h${index}`, category: "hostile", files: [{ path: "x", template }] },
      `h${index}`,
    ),
  );
  const service = await startFixtureServer({
    registry: new Registry([...FIXTURE_ITEMS, ...hostileItems]),
    // A lower fuel keeps each CPU bomb short, so the round stays bounded in time.
    render: { fuel: 200_000 },
  });
  const engine = new TemplateEngine();
  const deployment = FIXTURE_ITEMS[0] as (typeof FIXTURE_ITEMS)[number];
  try {
    // Warm up, then take the baseline.
    for (let index = 0; index < 20; index++) {
      await postJson(service.url, { reference: "k8s/deployment", name: "w", image: "i" });
    }
    const baseline = await settledRss();

    const requests = Array.from({ length: 1000 }, (_, index) => {
      const kind = index % 20;
      if (kind === 0) {
        const reference = `hostile/h${(index / 20) % HOSTILE.length}`;
        return { kind: "hostile", body: { reference, name: "x" } } as const;
      }
      if (kind === 1)
        return { kind: "missing", body: { reference: "k8s/deployment", name: "x" } } as const;
      if (kind === 2)
        return { kind: "unknown", body: { reference: `nope-${index}`, name: "x" } } as const;
      if (kind === 3) return { kind: "shape", body: { reference: "k8s/deployment" } } as const;
      if (kind === 4) {
        return {
          kind: "inventory",
          body: {
            reference: "automation/inventory",
            name: `inv${index}`,
            fields: { hosts: inventoryHosts(50) },
          },
        } as const;
      }
      return {
        kind: "good",
        body: {
          reference: "k8s/deployment",
          name: `app-${index}`,
          image: `registry.example/app:${index}`,
          replicas: index,
          labels: [{ key: "n", value: String(index) }],
        },
      } as const;
    });
    let healthFailures = 0;
    let running = true;
    const poll = (async () => {
      while (running) {
        const health = await raw(service.url, { path: "/api/health" });
        if (health.status !== 200 || health.body !== "ok") healthFailures += 1;
      }
    })();
    const started = Date.now();
    let answers = await Promise.all(requests.map((request) => postJson(service.url, request.body)));
    const elapsed = Date.now() - started;
    running = false;
    await poll;

    const counts: Record<string, number> = {};
    answers.forEach((response, index) => {
      const request = requests[index] as (typeof requests)[number];
      counts[request.kind] = (counts[request.kind] ?? 0) + 1;
      switch (request.kind) {
        case "good": {
          const body = request.body;
          const expected = renderItem(engine, deployment, {
            name: body.name,
            fields: { image: body.image, replicas: String(body.replicas) },
            labels: { n: body.labels[0].value },
            defaultNamespace: "default",
          });
          assert.equal(response.status, 200);
          assert.equal(response.body, JSON.stringify(expected));
          break;
        }
        case "inventory":
          assert.equal(response.status, 200);
          assert.deepEqual(JSON.parse(response.body), {
            component: "inventory",
            files: [{ path: `${request.body.name}-inventory.ini`, content: expectedInventory(50) }],
          });
          break;
        case "missing":
          assert.equal(response.status, 400);
          assert.equal(
            response.body,
            '{"code":"invalid_request","error":"--image is required for k8s/deployment","detail":"give it a value in the component\'s fields: \\"fields\\": {\\"image\\": \\"nginx:1.27\\"}","field":{"field":"image","path":"","rule":"missing","expected":"is required","code":"required","params":{}}}',
          );
          break;
        case "unknown":
          assert.equal(response.status, 400);
          break;
        case "shape":
          assert.equal(response.status, 422);
          break;
        case "hostile":
          assert.equal(response.status, 500, response.body);
          assert.equal((JSON.parse(response.body) as { code: string }).code, "internal");
          break;
      }
    });
    assert.deepEqual(counts, {
      hostile: 50,
      missing: 50,
      unknown: 50,
      shape: 50,
      inventory: 50,
      good: 750,
    });
    assert.equal(healthFailures, 0);
    answers = [];

    await service.pool.ready();
    assert.equal(service.pool.stats().workers, service.pool.options.size);
    assert.equal(service.pool.stats().queued, 0);
    const after = await settledRss();
    process.stdout.write(
      `# rss baseline ${(baseline / 1048576).toFixed(0)} MiB, after ${(after / 1048576).toFixed(0)} MiB; round ${elapsed} ms, ${service.pool.stats().replaced} workers replaced\n`,
    );
  } finally {
    await service.close();
  }
});
