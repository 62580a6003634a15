// The OpenAPI document (GET /api/openapi.json) against the real service: every route and every
// kind of answer it documents is requested over a real socket, and each response's status,
// content type and body must be what the document says. A change to the API that the document
// does not follow fails here.
import assert from "node:assert/strict";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { FIELD_RULE_CODES } from "../../src/core/errors.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { ROUTES } from "../../src/server/routes.ts";
import type { RunningServer } from "../../src/server/server.ts";
import { waitFor } from "../cli/helpers.ts";
import { postJson, type RawResponse, REPO, raw, startFixtureServer } from "./helpers.ts";

interface OpenApi {
  info: { version: string };
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { responses: Record<string, unknown> };
}

let service: RunningServer;
let doc: OpenApi;
const ajv = new Ajv2020({ strict: false, allErrors: true });

before(async () => {
  // with the metrics, as `kiln serve` runs by default
  service = await startFixtureServer({ registry: builtinRegistry(), metrics: true });
  const served = await raw(service.url, { path: "/api/openapi.json" });
  assert.equal(served.status, 200);
  assert.equal(served.headers["content-type"], "application/json");
  doc = JSON.parse(served.body) as OpenApi;
  ajv.addSchema(doc as object, "openapi");
});
after(() => service.close());

/** The documented response of `method path` for `status`, its `$ref` followed. */
function documented(path: string, method: string, status: number): Record<string, unknown> {
  const operation = doc.paths[path]?.[method];
  assert.ok(operation, `${method} ${path} is documented`);
  let response = operation.responses[String(status)] as Record<string, unknown> | undefined;
  assert.ok(response, `${method} ${path} documents status ${status}`);
  const ref = response.$ref as string | undefined;
  if (ref) response = doc.components.responses[ref.split("/").pop() as string] as typeof response;
  return response as Record<string, unknown>;
}

/** Asserts a real response matches the document: content type and body schema. */
function conforms(path: string, method: string, response: RawResponse): void {
  const spec = documented(path, method, response.status);
  const content = spec.content as Record<string, { schema: object }> | undefined;
  if (!content) {
    assert.equal(response.body, "", `${method} ${path} ${response.status} has no body`);
    return;
  }
  const type = response.headers["content-type"] as string;
  const media = content[type];
  assert.ok(media, `${method} ${path} ${response.status}: ${type} is documented`);
  const body: unknown = type.startsWith("application/json")
    ? JSON.parse(response.body)
    : response.body;
  const check = ajv.compile(resolved(media.schema));
  assert.ok(check(body), `${method} ${path} ${response.status}: ${ajv.errorsText(check.errors)}`);
}

/** A schema whose `#/components/...` references point into the registered document. */
function resolved(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
}

/**
 * A request answered `503 overloaded`: sent while eight others, declaring 2 MiB of body each
 * and never sending it, hold the 16 MiB of large requests the service takes at once.
 */
async function overloaded(path: string, body: string): Promise<RawResponse> {
  const { hostname, port } = new URL(service.url);
  const hanging = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const socket = connect(Number(port), hostname);
      socket.on("error", () => {});
      await once(socket, "connect");
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${2 * 1024 * 1024}\r\n\r\n{`,
      );
      return socket;
    }),
  );
  try {
    await waitFor(
      "the eight declared bodies are counted",
      () => service.heavyBodies.held >= 16 * 1024 * 1024,
    );
    const response = await raw(service.url, {
      method: "POST",
      path,
      headers: { "content-type": "application/json" },
      body,
    });
    assert.equal(response.status, 503, `${path}: ${response.body.slice(0, 200)}`);
    return response;
  } finally {
    for (const socket of hanging) socket.destroy();
    await waitFor(
      "the requests that went gave their bytes back",
      () => service.heavyBodies.held === 0,
    );
  }
}

describe("the OpenAPI document describes the real service", () => {
  test("its version is the package's", () => {
    const pkg = JSON.parse(readFileSync(`${REPO}/package.json`, "utf8")) as { version: string };
    assert.equal(doc.info.version, pkg.version);
  });

  test("the error body's field rule codes are exactly the core's", () => {
    const schemas = (doc.components as unknown as { schemas: Record<string, unknown> }).schemas;
    const error = schemas.Error as {
      properties: { field: { properties: { code: { enum: string[] } } } };
    };
    assert.deepEqual(error.properties.field.properties.code.enum, [...FIELD_RULE_CODES]);
  });

  test("the GET routes' answers", async () => {
    for (const path of [
      "/api/health",
      "/api/ready",
      "/api/components",
      "/api/registry",
      "/api/config",
      "/api/presets",
      "/api/registries",
      "/api/search",
      "/api/search?q=server&registry=@kiln",
      "/api/search?q=x&registry=@nope",
    ]) {
      conforms(path.split("?")[0] as string, "get", await raw(service.url, { path }));
    }
    conforms(
      "/api/presets/{name}",
      "get",
      await raw(service.url, { path: "/api/presets/k8s-web-app" }),
    );
    conforms("/metrics", "get", await raw(service.url, { path: "/metrics" }));
    conforms(
      "/metrics",
      "get",
      await raw(service.url, { path: "/metrics", headers: { host: "evil.example" } }),
    );
    conforms("/api/presets/{name}", "get", await raw(service.url, { path: "/api/presets/nope" }));
    const inspect = (ref: string) =>
      raw(service.url, { path: `/api/registry/inspect?ref=${encodeURIComponent(ref)}` });
    conforms("/api/registry/inspect", "get", await inspect("k8s/deployment"));
    conforms("/api/registry/inspect", "get", await inspect("nope/nothing"));
    conforms(
      "/api/registry/inspect",
      "get",
      await raw(service.url, { path: "/api/registry/inspect" }),
    );
    conforms("/api/registry/meta", "get", await raw(service.url, { path: "/api/registry/meta" }));
    conforms(
      "/api/registry/meta",
      "get",
      await raw(service.url, { path: "/api/registry/meta?ref=automation/config" }),
    );
    conforms("/api/openapi.json", "get", await raw(service.url, { path: "/api/openapi.json" }));
    conforms(
      "/api/health",
      "get",
      await raw(service.url, { path: "/api/health", headers: { host: "evil.example" } }),
    );
  });

  test("POST /api/render's answers: files, and every kind of error", async () => {
    const path = "/api/render";
    conforms(
      path,
      "post",
      await postJson(service.url, { reference: "k8s/deployment", name: "w", image: "x" }),
    );
    conforms(
      path,
      "post",
      await postJson(service.url, {
        reference: "automation/config",
        name: "c",
        automationProfile: "ansible",
      }),
    );
    conforms(path, "post", await postJson(service.url, { reference: "nope/x", name: "w" }));
    conforms(path, "post", await postJson(service.url, { reference: "k8s/deployment", name: "w" }));
    conforms(path, "post", await postJson(service.url, "{"));
    conforms(path, "post", await postJson(service.url, { name: "w" }));
    conforms(path, "post", await postJson(service.url, "x".repeat(3 * 1024 * 1024)));
    conforms(
      path,
      "post",
      await raw(service.url, {
        method: "POST",
        path,
        headers: { "content-type": "text/plain" },
        body: "{}",
      }),
    );
    const large = JSON.stringify({
      reference: "k8s/deployment",
      name: "w",
      pad: "x".repeat(300_000),
    });
    conforms(path, "post", await overloaded(path, large));
  });

  test("POST /api/lock/bases's answers: the bases, and every kind of error", async () => {
    const path = "/api/lock/bases";
    const post = (body: string, contentType = "application/json") =>
      raw(service.url, { method: "POST", path, headers: { "content-type": contentType }, body });
    conforms(path, "post", await post(JSON.stringify({ contents: ["a: 1\n", ""] })));
    conforms(path, "post", await post(JSON.stringify({ contents: [1] })));
    conforms(path, "post", await post("{"));
    conforms(path, "post", await post(JSON.stringify({ contents: ["x".repeat(3 * 1024 * 1024)] })));
    conforms(path, "post", await post("{}", "text/plain"));
    conforms(path, "post", await overloaded(path, JSON.stringify({ contents: ["a"] })));
  });

  test("every route the service has is documented", () => {
    for (const route of ROUTES) {
      assert.ok(
        doc.paths[route.path]?.[route.method.toLowerCase()],
        `${route.method} ${route.path} is in the OpenAPI document`,
      );
    }
  });

  test("every documented path is served (no stale entries)", async () => {
    for (const path of Object.keys(doc.paths)) {
      const concrete = path.replace("{name}", "k8s-web-app");
      const method = Object.keys(doc.paths[path] ?? {})[0] as string;
      const response =
        method === "post"
          ? await postJson(service.url, { reference: "k8s/deployment", name: "w", image: "x" })
          : await raw(service.url, { path: concrete });
      assert.notEqual(response.status, 404, `${path} answers`);
      assert.notEqual(response.status, 405, `${path} answers ${method}`);
    }
  });
});
