// Small built-in renders are answered on the thread that serves HTTP, without the hop to a render
// worker, and answer exactly what a worker answers: every body here is sent to the service over a
// real socket and its answer compared, byte for byte, with the same render done by the service's
// own render workers (and, for failures, with the reply the service makes of the worker's error).
// Anything the HTTP thread must not or cannot render (a failure, a render past its small budget,
// a larger body) is given to a worker, which answers as before.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Registry } from "../../src/core/registry.ts";
import { parseRenderRequest } from "../../src/core/render-request.ts";
import { builtinFor } from "../../src/node/resolve-reference.ts";
import { errorReply } from "../../src/server/http-errors.ts";
import { INLINE_BODY_BYTES } from "../../src/server/inline-render.ts";
import type { RunningServer } from "../../src/server/server.ts";
import { fixtureRegistry, postJson, startFixtureServer } from "./helpers.ts";

let server: RunningServer;
let registry: Registry;

before(async () => {
  registry = fixtureRegistry();
  // no render cache: every request renders
  server = await startFixtureServer({ registry, renderCacheBytes: 0 });
  await server.pool.ready();
});

after(() => server.close());

/** What a render worker answers for this body: status and body text, as the service sends it. */
async function workerAnswer(body: Record<string, unknown>): Promise<[number, string]> {
  const request = parseRenderRequest(body);
  const item = builtinFor(request.reference, registry);
  assert.ok(item, `${request.reference} is a built-in of the fixture registry`);
  const { name, fields, labels, defaultNamespace, automationProfile } = request;
  const input = { name, fields, labels, defaultNamespace, automationProfile };
  try {
    const bytes = await server.pool.renderJson(item, input);
    return [200, bytes.toString("utf8")];
  } catch (error) {
    const reply = errorReply(error, () => {});
    return [reply.status, String(reply.body ?? "")];
  }
}

/** Sends the body to the service and checks its answer against the worker's. */
async function answersAsAWorker(body: Record<string, unknown>): Promise<number> {
  const answer = await postJson(server.url, body);
  const [status, expected] = await workerAnswer(body);
  assert.equal(answer.status, status, JSON.stringify(body).slice(0, 200));
  assert.equal(answer.body, expected, JSON.stringify(body).slice(0, 200));
  return status;
}

const counts = () => ({ ...(server.inline?.counts ?? { inline: -1, declined: -1 }) });

describe("small built-in renders on the HTTP thread", () => {
  test("a small built-in render is answered on the HTTP thread with the bytes a render worker gives", async () => {
    const bodies: Record<string, unknown>[] = [
      { reference: "k8s/deployment", name: "web", image: "nginx:1.27" },
      {
        reference: "deployment",
        name: "api",
        image: "ghcr.io/acme/api:2",
        replicas: 3,
        port: 8080,
      },
      {
        reference: "k8s/deployment",
        name: "labelled",
        image: "nginx",
        labels: [
          { key: "team", value: "a\u0001b" },
          { key: "app.kubernetes.io/part-of", value: "shop \u2603 \ud83d\ude00" },
        ],
        defaultNamespace: "prod",
      },
      { reference: "k8s/deployment", name: "quoted", image: "nginx:1.27", namespace: "x'y\"z" },
    ];
    const before = counts();
    for (const body of bodies) assert.equal(await answersAsAWorker(body), 200);
    const afterwards = counts();
    assert.equal(afterwards.inline - before.inline, bodies.length, "answered on the HTTP thread");
    assert.equal(afterwards.declined, before.declined);
  });

  test("a render that fails is given to a worker, which answers with its own error", async () => {
    const bodies: Record<string, unknown>[] = [
      { reference: "k8s/deployment", name: "Not A Label", image: "nginx" },
      { reference: "k8s/deployment", name: "no-image" },
      { reference: "k8s/deployment", name: "web", image: "nginx", fields: { replicas: "many" } },
      { reference: "test/dupe", name: "dupe" },
    ];
    const before = counts();
    for (const body of bodies) assert.notEqual(await answersAsAWorker(body), 200);
    const afterwards = counts();
    assert.equal(afterwards.inline, before.inline, "no failure is answered on the HTTP thread");
    assert.equal(afterwards.declined - before.declined, bodies.length);
  });

  test("a render past the HTTP thread's budget, or a larger body, renders in a worker as before", async () => {
    // long values count against the small budget of the HTTP thread (characters are work)
    const overBudget = {
      reference: "k8s/deployment",
      name: "long",
      image: `nginx:${"1".repeat(4000)}`,
    };
    const before = counts();
    assert.equal(await answersAsAWorker(overBudget), 200);
    const declined = counts();
    assert.equal(declined.inline, before.inline);
    assert.equal(declined.declined - before.declined, 1);
    const large = {
      reference: "k8s/deployment",
      name: "large",
      image: "nginx",
      labels: [{ key: "pad", value: "x".repeat(INLINE_BODY_BYTES) }],
    };
    assert.equal(await answersAsAWorker(large), 200);
    assert.deepEqual(counts(), declined, "a larger body is not tried on the HTTP thread at all");
  });
});
