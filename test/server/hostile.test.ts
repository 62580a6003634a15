// Hostile input: templates and values written to escape the sandbox, burn CPU, take memory or
// crash the engine. Each gets an answer (an error, or a harmless render that leaks nothing),
// the service keeps answering /api/health throughout, and broken workers are replaced.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { parseRegistryItem, type RegistryItem } from "../../src/core/item.ts";
import { Registry } from "../../src/core/registry.ts";
import type { RunningServer } from "../../src/server/server.ts";
import { FIXTURE_ITEMS, postJson, raw, startFixtureServer } from "./helpers.ts";

type Expect = "error" | "harmless";

const HOSTILE: [string, string, Expect][] = [
  ["range-constructor", `{{ range.constructor("return process")() }}`, "error"],
  [
    "constructor-constructor",
    `{{ name.constructor.constructor("return process")().env }}`,
    "error",
  ],
  [
    "proto",
    "{{ __proto__ }}{{ name.__proto__ }}{{ labels.__proto__.constructor }}{{ {}.__proto__ }}",
    "harmless",
  ],
  ["proto-call", `{{ labels.__proto__.constructor.constructor("return process")() }}`, "error"],
  ["dunder-mro", "{{ ''.__class__.__mro__[1].__subclasses__() }}", "error"],
  [
    "dunder-globals",
    "{{ self.__init__.__globals__ }}{{ cycler.__init__.__globals__.os }}",
    "harmless",
  ],
  ["dunder-popen", "{{ cycler.__init__.__globals__.os.popen('id').read() }}", "error"],
  ["include-file", `{% include "/etc/passwd" %}`, "error"],
  ["import-file", `{% import "../../../etc/passwd" as x %}{{ x }}`, "error"],
  [
    "cpu-nested-loops",
    "{% for a in range(100000) %}{% for b in range(100000) %}{{ a }}{% endfor %}{% endfor %}",
    "error",
  ],
  ["cpu-infinite-recursion", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "error"],
  ["deep-recursion-loop", "{% for x in [1] recursive %}{{ loop([x]) }}{% endfor %}", "error"],
  ["memory-string-multiply", "{{ ('x' * 2000000000) | length }}", "error"],
  [
    "memory-string-doubling",
    "{% macro d(s, n) %}{% if n > 0 %}{{ d(s ~ s, n - 1) }}{% else %}{{ s | length }}{% endif %}{% endmacro %}{{ d('x', 40) }}",
    "error",
  ],
  [
    "memory-list-doubling",
    "{% macro d(l, n) %}{% if n > 0 %}{{ d(l + l, n - 1) }}{% else %}{{ l | length }}{% endif %}{% endmacro %}{{ d([1, 2], 40) }}",
    "error",
  ],
  ["memory-big-output", "{{ 'x' * 100000000 }}", "error"],
  ["engine-panic", "{{ 1.0 < 9007199254740993 }}", "error"],
  ["syntax", "{% for %}", "error"],
];

const LEAKS = [
  /function/i,
  /native code/i,
  /process/i,
  /require/i,
  /root:/,
  /uid=/,
  new RegExp(process.cwd()),
];

function hostileRegistry(): Registry {
  const items: RegistryItem[] = HOSTILE.map(([name, template]) =>
    parseRegistryItem({ name, category: "hostile", files: [{ path: "out.txt", template }] }, name),
  );
  items.push(
    parseRegistryItem(
      {
        name: "value",
        category: "hostile",
        files: [{ path: "out.txt", template: "{{ value | length }} {{ value }}" }],
      },
      "value",
    ),
  );
  return new Registry([...FIXTURE_ITEMS, ...items]);
}

function assertNoLeak(body: string): void {
  for (const leak of LEAKS) assert.doesNotMatch(body, leak);
}

describe("hostile templates", () => {
  let service: RunningServer;
  before(async () => {
    service = await startFixtureServer({ registry: hostileRegistry() });
  });
  after(() => service.close());

  test("each gets an error or a harmless render, and /api/health answers throughout", async () => {
    let running = true;
    const health: number[] = [];
    const poll = (async () => {
      while (running) {
        health.push((await raw(service.url, { path: "/api/health" })).status);
      }
    })();
    const answers = await Promise.all(
      HOSTILE.map(async ([name, , expect]) => ({
        name,
        expect,
        response: await postJson(service.url, { reference: `hostile/${name}`, name: "x" }),
      })),
    );
    running = false;
    await poll;
    for (const { name, expect, response } of answers) {
      if (expect === "error") {
        assert.equal(response.status, 500, `${name}: ${response.body}`);
        const body = JSON.parse(response.body) as { code: string; error: string };
        assert.equal(body.code, "internal", name);
        assert.ok(body.error.length > 0);
      } else {
        assert.equal(response.status, 200, `${name}: ${response.body}`);
        const content = (JSON.parse(response.body) as { files: { content: string }[] }).files[0]
          ?.content;
        assert.equal(content, "", name);
      }
      assertNoLeak(response.body);
    }
    assert.ok(health.length > 0);
    assert.deepEqual(new Set(health), new Set([200]));
  });

  test("after the attacks every worker is back and renders correctly", async () => {
    await service.pool.ready();
    const stats = service.pool.stats();
    assert.equal(stats.workers, service.pool.options.size);
    assert.equal(stats.ready, service.pool.options.size);
    assert.equal(stats.busy, 0);
    const response = await postJson(service.url, { reference: "test/echo", name: "ok" });
    assert.equal(response.status, 200);
    assert.match(response.body, /hello ok ns=default app=ok/);
  });

  test("hostile values: huge and deeply nested JSON fields, `__proto__` keys", async () => {
    const huge = JSON.stringify(Array.from({ length: 300_000 }, (_, index) => index));
    assert.ok(huge.length > 1_900_000 && huge.length < 2_000_000);
    const hugeAnswer = await postJson(service.url, {
      reference: "hostile/value",
      name: "x",
      fields: { value: huge },
    });
    assert.ok([200, 500].includes(hugeAnswer.status), hugeAnswer.body.slice(0, 200));
    if (hugeAnswer.status === 200) assert.match(hugeAnswer.body, /"content":"300000 \[0, 1, 2/);

    const deep = `${"[".repeat(500_000)}${"]".repeat(500_000)}`;
    const deepAnswer = await postJson(service.url, {
      reference: "hostile/value",
      name: "x",
      fields: { value: deep },
    });
    assert.ok([200, 500].includes(deepAnswer.status), deepAnswer.body.slice(0, 200));

    const proto = await postJson(
      service.url,
      `{"reference":"test/echo","name":"p","fields":{"__proto__":"x","greeting":"hi"},"labels":[{"key":"__proto__","value":"v"}]}`,
    );
    assert.equal(proto.status, 200, proto.body);
    assert.match(proto.body, /hi p ns=default __proto__=v app=p/);
    assert.equal(({} as Record<string, unknown>).x, undefined, "no prototype was polluted");

    const health = await raw(service.url, { path: "/api/health" });
    assert.equal(health.body, "ok");
  });
});

describe("limits of the render pool", () => {
  test("renders queued behind a slow one are handed to another worker, not held up", async () => {
    // the slow render may run for 60 s: the quick ones must all be answered while it still runs
    const service = await startFixtureServer({
      registry: hostileRegistry(),
      render: { size: 2, fuel: 2 ** 31, deadlineMs: 60_000 },
      // closing cuts the slow render's connection at once instead of waiting for it
      timeouts: { shutdownGraceMs: 50 },
    });
    let slowDone = false;
    const slow = postJson(service.url, { reference: "hostile/cpu-nested-loops", name: "x" }).then(
      (answer) => {
        slowDone = true;
        return answer;
      },
      () => {
        slowDone = true;
      },
    );
    try {
      const quick = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          postJson(service.url, { reference: "test/echo", name: `quick-${index}` }),
        ),
      );
      assert.deepEqual(
        quick.map((response) => response.status),
        quick.map(() => 200),
      );
      assert.equal(slowDone, false, "every quick render was answered while the slow one ran");
    } finally {
      // stops the slow render with its worker
      await service.close();
      await slow;
    }
  });

  test("the deadline counts from the start of each render: jobs behind a stopped one still render", async () => {
    const service = await startFixtureServer({
      registry: hostileRegistry(),
      render: { size: 1, fuel: 1_000_000_000, deadlineMs: 300 },
    });
    try {
      const slow = postJson(service.url, { reference: "hostile/cpu-nested-loops", name: "x" });
      const queued = Array.from({ length: 6 }, (_, index) =>
        postJson(service.url, { reference: "test/echo", name: `queued-${index}` }),
      );
      const response = await slow;
      assert.equal(response.status, 500);
      assert.equal(
        JSON.parse(response.body).error,
        "the render took longer than 300 ms and was stopped",
      );
      for (const next of await Promise.all(queued)) assert.equal(next.status, 200);
      assert.equal(service.pool.stats().replaced, 1);
    } finally {
      await service.close();
    }
  });

  test("a render past the wall-clock deadline is stopped with 500 and its worker replaced", async () => {
    const service = await startFixtureServer({
      registry: hostileRegistry(),
      render: { size: 1, fuel: 1_000_000_000, deadlineMs: 300 },
    });
    try {
      const response = await postJson(service.url, {
        reference: "hostile/cpu-nested-loops",
        name: "x",
      });
      assert.equal(response.status, 500);
      assert.deepEqual(JSON.parse(response.body), {
        code: "internal",
        error: "the render took longer than 300 ms and was stopped",
      });
      assert.equal(service.pool.stats().replaced, 1);
      const next = await postJson(service.url, { reference: "test/echo", name: "after" });
      assert.equal(next.status, 200, "the replacement worker renders");
    } finally {
      await service.close();
    }
  });

  test("a render that exhausts its worker's heap is 500 and the worker replaced", async () => {
    const service = await startFixtureServer({
      registry: hostileRegistry(),
      render: {
        size: 1,
        heapMb: 16,
        // the wall-clock deadline (2 s by default) is far beyond the test, so only the heap
        // stops the render, however slowly a busy machine parses and collects its garbage
        deadlineMs: 120_000,
        engineMemoryBytes: 512 * 1024 * 1024,
        maxOutputBytes: 1e9,
        recycleBytes: 1e12,
      },
    });
    try {
      const response = await postJson(service.url, {
        reference: "hostile/value",
        name: "x",
        fields: { value: "{% raw %}" },
      });
      assert.equal(response.status, 200);
      // Two MiB of `{},` parse into ~700,000 objects in the worker: far over a 16 MiB heap.
      const objects = `[${"{},".repeat(690_000)}{}]`;
      const bomb = await postJson(service.url, {
        reference: "hostile/value",
        name: "x",
        fields: { value: objects },
      });
      assert.deepEqual(JSON.parse(bomb.body), {
        code: "internal",
        error: "the render ran out of memory and was stopped",
      });
      assert.equal(bomb.status, 500);
      assert.equal(service.pool.stats().replaced, 1);
      const next = await postJson(service.url, { reference: "test/echo", name: "after" });
      assert.equal(next.status, 200);
    } finally {
      await service.close();
    }
  });

  test("a result larger than the output cap is refused with 500", async () => {
    const service = await startFixtureServer({
      registry: hostileRegistry(),
      render: { size: 1, maxOutputBytes: 1000 },
    });
    try {
      const response = await postJson(service.url, {
        reference: "hostile/value",
        name: "x",
        fields: { value: "y".repeat(5000) },
      });
      assert.equal(response.status, 500);
      assert.match(response.body, /rendered output is larger than 1000 bytes as JSON/);
    } finally {
      await service.close();
    }
  });
});
