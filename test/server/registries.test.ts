// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` in the service's registry configuration is what is tested
// The HTTP service's registries, from the real binary over a socket: `kiln serve --config`
// names them (a TOML file with a [registries] table), Debian's nginx serves them on a loopback
// port (one open, one behind a bearer token, one redirecting to another origin), and a small
// node server here counts the requests and headers that reach it. A caller sees no secret,
// searches and renders `@acme/x` through the service's configuration, and can never add a
// registry or have the service's token sent to another origin.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cleanUp, tempDir, write } from "../cli/helpers.ts";
import { publishRegistry } from "../cli/registry-fixture.ts";
import { nginxSkip, startNginx, type TestNginx } from "../tools/nginx.ts";
import { type ChildServer, postJson, raw, startChild } from "./helpers.ts";

const TOKEN = "svc-t0ken-5ecret-9f8e";
const PASSWORD = "svc-pa55-5ecret-1a2b";

function item(name: string, title: string) {
  return {
    name,
    category: "cache",
    title,
    description: `${title}, from a registry.`,
    fields: [{ name: "image", default: `${name}:1.0` }],
    files: [
      { path: `{{ name }}-${name}.yaml`, template: "image: {{ image }}\nname: {{ name }}\n" },
    ],
  };
}

let nginx: TestNginx;
let service: ChildServer;
/** The other origin: every request's headers, and the files of the @acme registry. */
let other: Server;
let otherOrigin = "";
const otherSaw: IncomingHttpHeaders[] = [];
let servicePort = 0;

const skip = nginxSkip();

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

before(async () => {
  if (skip) return;
  const root = tempDir();
  publishRegistry(join(root, "acme"), "acme", [
    { item: item("redis", "Redis"), version: "1.2.0" },
    { item: item("postgres", "PostgreSQL"), version: "2.0.0" },
  ]);
  publishRegistry(join(root, "team"), "team", [
    { item: item("redis-cluster", "Redis cluster"), version: "3.0.0" },
  ]);
  other = createServer((request, response) => {
    otherSaw.push(request.headers);
    try {
      response.end(readFileSync(join(root, "acme", (request.url ?? "/").slice(1))));
    } catch {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  nginx = await startNginx({
    root,
    token: TOKEN,
    user: "kiln",
    password: PASSWORD,
    redirectTo: otherOrigin,
  });
  servicePort = await freePort();
  const config = write(
    tempDir(),
    "service.toml",
    [
      "[registries]",
      `"@acme" = "${nginx.origin}/open/acme/{name}.json"`,
      `"@basic" = "http://kiln:\${BASIC_PASSWORD}@127.0.0.1:${nginx.origin.split(":").at(-1)}/basic/acme/{name}.json"`,
      `"@self" = "http://127.0.0.1:${servicePort}/api/{name}"`,
      "",
      '[registries."@team"]',
      `url = "${nginx.origin}/token/team/{name}.json"`,
      'headers = { Authorization = "Bearer ${TEAM_TOKEN}" }',
      "",
      '[registries."@away"]',
      `url = "${nginx.origin}/away/{name}.json"`,
      'headers = { Authorization = "Bearer ${TEAM_TOKEN}", X-Team = "${TEAM_TOKEN}" }',
      "",
    ].join("\n"),
  );
  service = await startChild(["--port", String(servicePort), "--config", config], {
    TEAM_TOKEN: TOKEN,
    BASIC_PASSWORD: PASSWORD,
  });
});

after(async () => {
  await service?.stop();
  await nginx?.stop();
  other?.close();
  cleanUp();
});

function get(path: string) {
  return raw(service.url, { path });
}

describe("kiln serve --config: the service's own registries", { skip }, () => {
  it("GET /api/registries lists @kiln and the configured namespaces and URLs, with no secret and no header", async () => {
    const answer = await get("/api/registries");
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body), {
      registries: [
        { namespace: "@kiln", url: null },
        { namespace: "@acme", url: `${nginx.origin}/open/acme/{name}.json` },
        { namespace: "@away", url: `${nginx.origin}/away/{name}.json` },
        {
          namespace: "@basic",
          url: `http://***@127.0.0.1:${nginx.origin.split(":").at(-1)}/basic/acme/{name}.json`,
        },
        { namespace: "@self", url: `http://127.0.0.1:${servicePort}/api/{name}` },
        { namespace: "@team", url: `${nginx.origin}/token/team/{name}.json` },
      ],
    });
    assert.doesNotMatch(answer.body, new RegExp(`${TOKEN}|${PASSWORD}|Authorization|Bearer`));
  });

  it("GET /api/search matches as kiln search does, across the built-ins and every registry, the token sent by the service", async () => {
    const answer = await get("/api/search?q=redis");
    assert.equal(answer.status, 200);
    const body = JSON.parse(answer.body) as {
      results: Record<string, unknown>[];
      failures: { registry: string; message: string }[];
    };
    const references = body.results.map((result) => result.reference);
    // exact names first (@acme, @away and @basic serve the same index), then the prefix
    assert.deepEqual(references, [
      "@acme/redis",
      "@away/redis",
      "@basic/redis",
      "@team/redis-cluster",
    ]);
    assert.deepEqual(body.results[0], {
      registry: "@acme",
      reference: "@acme/redis",
      name: "redis",
      version: "1.2.0",
      title: "Redis",
      description: "Redis, from a registry.",
      category: "cache",
    });
    // the service's own address is refused, as for any URL it fetches
    assert.deepEqual(
      body.failures.map((failure) => failure.registry),
      ["@self"],
    );
    assert.match(body.failures[0]?.message ?? "", /this service's own address/);
    const only = JSON.parse((await get("/api/search?q=&registry=@team")).body) as {
      results: { reference: string }[];
    };
    assert.deepEqual(
      only.results.map((result) => result.reference),
      ["@team/redis-cluster"],
    );
    assert.doesNotMatch(answer.body, new RegExp(`${TOKEN}|${PASSWORD}`));
  });

  it("ref=@acme/x renders and is inspected through the service's configuration, in a render worker", async () => {
    const rendered = await postJson(service.url, { reference: "@team/redis-cluster", name: "c" });
    assert.equal(rendered.status, 200, rendered.body);
    assert.deepEqual(JSON.parse(rendered.body).files, [
      { path: "c-redis-cluster.yaml", content: "image: redis-cluster:1.0\nname: c\n" },
    ]);
    const pinned = await postJson(service.url, { reference: "@acme/redis@1.2.0", name: "r" });
    assert.equal(pinned.status, 200, pinned.body);
    const inspected = await get(`/api/registry/inspect?ref=${encodeURIComponent("@basic/redis")}`);
    assert.equal(inspected.status, 200, inspected.body);
    assert.equal(JSON.parse(inspected.body).title, "Redis");
  });

  it("a caller cannot add a registry: an unknown namespace or a URL as registry is refused, nothing fetched", async () => {
    const before = otherSaw.length;
    const template = `${otherOrigin}/{name}.json`;
    const byUrl = await get(`/api/search?q=redis&registry=${encodeURIComponent(template)}`);
    assert.equal(byUrl.status, 400);
    assert.match(JSON.parse(byUrl.body).error, /which is not configured/);
    const unknown = await postJson(service.url, { reference: "@evil/redis", name: "x" });
    assert.equal(unknown.status, 400);
    assert.match(
      JSON.parse(unknown.body).error,
      /names the registry @evil, which is not configured/,
    );
    for (const answer of [byUrl, unknown]) {
      assert.match(JSON.parse(answer.body).detail, /named when it starts \(kiln serve --config/);
    }
    assert.equal(otherSaw.length, before);
  });

  it("a redirect to another origin is followed without the registry's headers", async () => {
    const before = otherSaw.length;
    const rendered = await postJson(service.url, { reference: "@away/postgres", name: "db" });
    assert.equal(rendered.status, 200, rendered.body);
    assert.deepEqual(JSON.parse(rendered.body).files, [
      { path: "db-postgres.yaml", content: "image: postgres:1.0\nname: db\n" },
    ]);
    const seen = otherSaw.slice(before);
    // the item, and the index unless the service kept it from the search above, each from the
    // other origin, with neither header
    assert.ok(seen.length >= 1);
    for (const headers of seen) {
      assert.equal(headers.authorization, undefined);
      assert.equal(headers["x-team"], undefined);
    }
  });
});
