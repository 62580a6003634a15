// Contract tests of every endpoint and error row of the spec, over a real socket, against the
// service in-process with a fixture registry (the real k8s/deployment plus test components) and
// the built-in preset templates.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { toItemView } from "../../src/core/item.ts";
import { presetSummary, presetView } from "../../src/core/project/preset-manifest.ts";
import { renderItem } from "../../src/core/render-item.ts";
import { builtinPresets } from "../../src/node/builtin-presets.ts";
import { TemplateEngine } from "../../src/node/template-engine.ts";
import type { RunningServer } from "../../src/server/server.ts";
import {
  expectedInventory,
  FIXTURE_ITEMS,
  fixtureRegistry,
  inventoryHosts,
  postJson,
  type RawResponse,
  raw,
  startFixtureServer,
} from "./helpers.ts";

const TEXT = "text/plain; charset=utf-8";
const JSON_TYPE = "application/json";

let service: RunningServer;
let itemServer: Server;
let itemBase = "";
const workDir = mkdtempSync(join(tmpdir(), "kiln-server-contract-"));

const customItem = {
  name: "custom",
  category: "misc",
  title: "Custom",
  files: [{ path: "{{ name }}.txt", template: "hi {{ name }}\n" }],
};

before(async () => {
  mkdirSync(join(workDir, "items"));
  writeFileSync(join(workDir, "items", "custom.json"), JSON.stringify(customItem));
  writeFileSync(join(workDir, "items", "not-an-item.json"), JSON.stringify({ name: "x" }));
  writeFileSync(join(workDir, "items", "not-json.json"), "<html>");
  itemServer = createServer((request, response) => {
    if (request.url === "/item.json") return response.end(JSON.stringify(customItem));
    if (request.url === "/bad.json") return response.end(JSON.stringify({ files: 3 }));
    response.statusCode = 500;
    response.end("boom");
  });
  await new Promise<void>((resolve) => itemServer.listen(0, "127.0.0.1", resolve));
  itemBase = `http://127.0.0.1:${(itemServer.address() as AddressInfo).port}`;
  service = await startFixtureServer({ cwd: workDir });
});

after(async () => {
  await service.close();
  await new Promise((resolve) => itemServer.close(resolve));
});

const get = (path: string, headers: Record<string, string> = {}) =>
  raw(service.url, { path, headers });

/** kiln's `detail` of two spec errors (the spec's `code` and `error` come first, unchanged). */
const NOT_JSON_DETAIL =
  "not JSON: line 1, column 1: expected a value (an object, array, string, number, true, false or null)";
const REQUIRED_IMAGE_DETAIL =
  'give it a value in the component\'s fields: "fields": {"image": "nginx:1.27"}';

function assertJson(response: RawResponse, status: number, body: unknown): void {
  assert.equal(response.status, status, response.body);
  assert.equal(response.headers["content-type"], JSON_TYPE);
  assert.equal(response.headers.vary, "origin");
  assert.equal(response.body, JSON.stringify(body));
  assert.equal(response.headers["content-length"], String(Buffer.byteLength(response.body)));
}

function assertText(response: RawResponse, status: number, body: string): void {
  assert.equal(response.status, status, response.body);
  assert.equal(response.headers["content-type"], TEXT);
  assert.equal(response.headers.vary, "origin");
  assert.equal(response.body, body);
}

function assertEmpty(response: RawResponse, status: number): void {
  assert.equal(response.status, status);
  assert.equal(response.body, "");
  assert.equal(response.headers["content-length"], "0");
  assert.equal(response.headers["content-type"], undefined);
  assert.equal(response.headers.vary, "origin");
}

const coreEngine = new TemplateEngine();
const byReference = (reference: string) =>
  FIXTURE_ITEMS.find(
    (item) => `${item.category}/${item.name}` === reference,
  ) as (typeof FIXTURE_ITEMS)[number];

describe("GET routes", () => {
  test("GET /api/health is 200 text/plain `ok`", async () => {
    assertText(await get("/api/health"), 200, "ok");
  });

  test("GET /api/components lists the references in registry order", async () => {
    assertJson(await get("/api/components"), 200, {
      components: [
        "k8s/deployment",
        "test/echo",
        "test/dupe",
        "test/broken",
        "automation/inventory",
      ],
    });
  });

  test("GET /api/registry returns every item as a RegistryItem, key order as the spec", async () => {
    const response = await get("/api/registry");
    assertJson(response, 200, { items: fixtureRegistry().items.map(toItemView) });
    const echo = (JSON.parse(response.body) as { items: Record<string, unknown>[] }).items[1] ?? {};
    assert.deepEqual(Object.keys(echo), [
      "name",
      "category",
      "title",
      "description",
      "reference",
      "fields",
      "files",
    ]);
    assert.deepEqual((echo.fields as unknown[])[0], {
      name: "greeting",
      required: false,
      default: "hello",
      description: null,
      example: null,
      options: [
        { value: "hi", label: "hi" },
        { value: "yo", label: "Yo!" },
      ],
    });
    assert.deepEqual(echo.files, ["{{ name }}.txt"]);
  });

  test("GET /api/config returns the compiled-in defaults", async () => {
    assertJson(await get("/api/config"), 200, {
      defaultNamespace: "default",
      defaultOutputDir: "k8s",
      defaultProjectName: "kiln-project",
    });
  });

  test("GET /api/presets lists the five templates with their component counts", async () => {
    const response = await get("/api/presets");
    assertJson(response, 200, { presets: builtinPresets().map(presetSummary) });
    const presets = (JSON.parse(response.body) as { presets: Record<string, unknown>[] }).presets;
    assert.deepEqual(
      presets.map((preset) => [preset.name, preset.componentCount]),
      [
        ["k8s-web-app", 7],
        ["single-server", 7],
        ["bootstrap-cluster", 11],
        ["web-and-database", 13],
        ["multi-tier-platform", 35],
      ],
    );
    assert.deepEqual(Object.keys(presets[0] ?? {}), [
      "name",
      "title",
      "description",
      "componentCount",
    ]);
  });

  test("GET /api/presets/{name} returns the manifest with every key present", async () => {
    const response = await get("/api/presets/k8s-web-app");
    const preset = builtinPresets().find((candidate) => candidate.name === "k8s-web-app");
    assert.ok(preset);
    assertJson(response, 200, presetView(preset));
    const body = JSON.parse(response.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ["name", "title", "description", "project", "components"]);
    assert.deepEqual(body.project, { name: "web-app", namespace: "web", outputDir: "k8s" });
    for (const component of body.components as Record<string, unknown>[]) {
      assert.deepEqual(Object.keys(component), ["reference", "name", "fields", "labels"]);
    }
  });

  test("GET /api/presets/{name} percent-decodes the name", async () => {
    assert.equal((await get("/api/presets/k8s%2Dweb-app")).status, 200);
  });

  test("GET /api/presets/{name} with an unknown name is 404 not_found", async () => {
    assertJson(await get("/api/presets/nope"), 404, {
      code: "not_found",
      error: "no preset template named `nope`",
    });
  });
});

describe("GET /api/registry/inspect", () => {
  const inspect = (ref: string) => get(`/api/registry/inspect?ref=${encodeURIComponent(ref)}`);

  test("a built-in reference returns its RegistryItem", async () => {
    assertJson(await inspect("k8s/deployment"), 200, toItemView(byReference("k8s/deployment")));
  });

  test("only the part after the last `/` is compared with built-in names", async () => {
    assertJson(await inspect("other/deployment"), 200, toItemView(byReference("k8s/deployment")));
  });

  test("a URL is fetched", async () => {
    const response = await inspect(`${itemBase}/item.json`);
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.body), {
      name: "custom",
      category: "misc",
      title: "Custom",
      description: "",
      reference: "misc/custom",
      fields: [],
      files: ["{{ name }}.txt"],
    });
  });

  test("a relative path resolves against the service's working directory", async () => {
    const response = await inspect("items/custom.json");
    assert.equal(response.status, 200);
    assert.equal((JSON.parse(response.body) as { reference: string }).reference, "misc/custom");
  });

  test("an unknown reference is 400 invalid_request with the hint", async () => {
    assertJson(await inspect("nope/thing"), 400, {
      code: "invalid_request",
      error:
        "`nope/thing` is not a built-in component and not a URL or existing local file - run `kiln list` to see the built-ins, or pass a URL or path to a registry-item JSON file",
    });
  });

  test("a failed URL fetch is 400 `failed to fetch registry item from <url>`", async () => {
    const url = `${itemBase}/missing.json`;
    // the spec's message; kiln's `detail` says why (docs/http-api.md)
    assertJson(await inspect(url), 400, {
      code: "invalid_request",
      error: `failed to fetch registry item from ${url}`,
      detail: "HTTP status 500",
    });
  });

  test("a response or file that is not a registry item is 400 `<ref> is not a valid registry item`", async () => {
    for (const [ref, detail] of [
      [`${itemBase}/bad.json`, "missing field `name`"],
      ["items/not-an-item.json", "missing field `category`"],
      ["items/not-json.json", NOT_JSON_DETAIL],
    ] as const) {
      // the spec's message; kiln's `detail` says what did not fit (docs/http-api.md)
      assertJson(await inspect(ref), 400, {
        code: "invalid_request",
        error: `${ref} is not a valid registry item`,
        detail,
      });
    }
  });

  test("a missing `ref` is 400 text", async () => {
    for (const path of ["/api/registry/inspect", "/api/registry/inspect?other=1"]) {
      assertText(await get(path), 400, "Failed to deserialize query string: missing field `ref`");
    }
  });
});

describe("POST /api/render", () => {
  test("renders one component into {component, files}", async () => {
    const request = { reference: "k8s/deployment", name: "web", image: "nginx:1.27" };
    const expected = renderItem(coreEngine, byReference("k8s/deployment"), {
      name: "web",
      fields: { image: "nginx:1.27" },
      labels: {},
      defaultNamespace: "default",
    });
    const response = await postJson(service.url, request);
    assertJson(response, 200, expected);
    assert.deepEqual(Object.keys(JSON.parse(response.body) as object), ["component", "files"]);
    assert.equal(expected.component, "deployment");
    assert.equal(expected.files[0]?.path, "web-deployment.yaml");
  });

  test("shortcut keys set fields, numbers become strings, `fields` wins, labels and defaultNamespace apply", async () => {
    const response = await postJson(service.url, {
      reference: "test/echo",
      name: "app",
      image: "img",
      replicas: 4294967295,
      port: 65535,
      targetPort: 0,
      host: "h.example",
      path: "/p",
      service: "svc",
      namespace: "ns-short",
      fields: { image: "from-fields", greeting: "hey" },
      labels: [
        { key: "tier", value: "web" },
        { key: "app", value: "custom" },
      ],
      defaultNamespace: "unused",
      unknownKey: { ignored: true },
    });
    assertJson(response, 200, {
      component: "echo",
      files: [
        {
          path: "app.txt",
          content:
            "hey app ns=ns-short app=custom tier=web\nimage=from-fields replicas=4294967295 port=65535 target_port=0 host=h.example path=/p service=svc\n",
        },
      ],
    });
  });

  test("defaultNamespace is used without a namespace field; a declared `namespace` default is not", async () => {
    const response = await postJson(service.url, {
      reference: "test/echo",
      name: "a",
      defaultNamespace: "team",
    });
    assert.equal(response.status, 200);
    const content = (JSON.parse(response.body) as { files: { content: string }[] }).files[0]
      ?.content;
    assert.match(content ?? "", /^hello a ns=team app=a\n/);
  });

  test("optional keys given as null are absent", async () => {
    const response = await postJson(service.url, {
      reference: "test/echo",
      name: "a",
      fields: null,
      labels: null,
      defaultNamespace: null,
      image: null,
      replicas: null,
      port: null,
      targetPort: null,
      namespace: null,
      host: null,
      path: null,
      service: null,
    });
    assert.equal(response.status, 200);
    const content = (JSON.parse(response.body) as { files: { content: string }[] }).files[0]
      ?.content;
    assert.equal(
      content,
      "hello a ns=default app=a\nimage= replicas= port= target_port= host= path= service=\n",
    );
  });

  test("a JSON-valued field of an inventory of 200 hosts renders every host", async () => {
    const response = await postJson(service.url, {
      reference: "automation/inventory",
      name: "prod",
      fields: { hosts: inventoryHosts(200) },
    });
    assertJson(response, 200, {
      component: "inventory",
      files: [{ path: "prod-inventory.ini", content: expectedInventory(200) }],
    });
  });

  test("a registry item from a URL or a local file renders", async () => {
    for (const reference of [`${itemBase}/item.json`, "items/custom.json"]) {
      assertJson(await postJson(service.url, { reference, name: "x" }), 200, {
        component: "custom",
        files: [{ path: "x.txt", content: "hi x\n" }],
      });
    }
  });

  test("an unknown reference is 400 invalid_request", async () => {
    const response = await postJson(service.url, { reference: "nope", name: "x" });
    assertJson(response, 400, {
      code: "invalid_request",
      error:
        "`nope` is not a built-in component and not a URL or existing local file - run `kiln list` to see the built-ins, or pass a URL or path to a registry-item JSON file",
    });
  });

  test("an invalid registry item is 400 invalid_request", async () => {
    assertJson(
      await postJson(service.url, { reference: "items/not-an-item.json", name: "x" }),
      400,
      {
        code: "invalid_request",
        error: "items/not-an-item.json is not a valid registry item",
        detail: "missing field `category`",
      },
    );
  });

  test("a missing required field is 400 `--<field> is required for <category>/<name>`", async () => {
    assertJson(await postJson(service.url, { reference: "k8s/deployment", name: "x" }), 400, {
      code: "invalid_request",
      error: "--image is required for k8s/deployment",
      detail: REQUIRED_IMAGE_DETAIL,
      field: {
        field: "image",
        path: "",
        rule: "missing",
        expected: "is required",
        code: "required",
        params: {},
      },
    });
  });

  test("two files rendering to one path is 400", async () => {
    assertJson(await postJson(service.url, { reference: "test/dupe", name: "x" }), 400, {
      code: "invalid_request",
      error: "test/dupe has two files that both render to `./same.txt`",
    });
  });

  test("a template syntax error is 500 internal with the engine message", async () => {
    const response = await postJson(service.url, { reference: "test/broken", name: "x" });
    assert.equal(response.status, 500);
    assert.equal(response.headers["content-type"], JSON_TYPE);
    const body = JSON.parse(response.body) as { code: string; error: string };
    assert.deepEqual(Object.keys(body), ["code", "error"]);
    assert.equal(body.code, "internal");
    assert.match(body.error, /^syntax error: /);
  });

  test("a content type other than application/json is 415 text", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { "content-type": "text/plain" },
      { "content-type": "application/jsonx" },
    ]) {
      const response = await raw(service.url, {
        method: "POST",
        path: "/api/render",
        headers,
        body: "{}",
      });
      assertText(response, 415, "Expected request with `Content-Type: application/json`");
    }
  });

  test("JSON content types with parameters and application/*+json are accepted", async () => {
    for (const type of [
      "application/json; charset=utf-8",
      "Application/JSON",
      "application/vnd.kiln+json",
    ]) {
      const response = await postJson(
        service.url,
        { reference: "test/echo", name: "a" },
        { "content-type": type },
      );
      assert.equal(response.status, 200, type);
    }
  });

  test("a body that is not JSON is 400 text", async () => {
    for (const [body, detail] of [
      ["", "EOF while parsing a value at line 1 column 0"],
      ["{bad", "Expected property name or '}' at line 1 column 2"],
    ] as const) {
      assertText(
        await postJson(service.url, body),
        400,
        `Failed to parse the request body as JSON: ${detail}`,
      );
    }
  });

  test("a body with invalid UTF-8 is 400 bad JSON", async () => {
    const body = Buffer.concat([
      Buffer.from('{"reference":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('","name":"x"}'),
    ]);
    assertText(
      await raw(service.url, {
        method: "POST",
        path: "/api/render",
        headers: { "content-type": "application/json" },
        body,
      }),
      400,
      "Failed to parse the request body as JSON: invalid UTF-8 in the request body at line 1 column 15",
    );
  });

  test("a missing key or a wrong type is 422 text with a serde-style detail", async () => {
    const prefix = "Failed to deserialize the JSON body into the target type: ";
    const cases: [unknown, string][] = [
      [{ name: "x" }, "missing field `reference`"],
      [{ reference: "k8s/deployment" }, "missing field `name`"],
      [5, "invalid type: integer `5`, expected struct RenderRequest"],
      [[], "invalid type: sequence, expected struct RenderRequest"],
      [{ reference: 5, name: "x" }, "reference: invalid type: integer `5`, expected a string"],
      [
        { reference: "a", name: "x", fields: { image: 5 } },
        "fields.image: invalid type: integer `5`, expected a string",
      ],
      [{ reference: "a", name: "x", fields: [] }, "fields: invalid type: sequence, expected a map"],
      [
        { reference: "a", name: "x", labels: { a: "b" } },
        "labels: invalid type: map, expected a sequence",
      ],
      [{ reference: "a", name: "x", labels: [{ key: "a" }] }, "labels[0]: missing field `value`"],
      [
        { reference: "a", name: "x", replicas: -1 },
        "replicas: invalid value: integer `-1`, expected u32",
      ],
      [
        { reference: "a", name: "x", replicas: 4294967296 },
        "replicas: invalid value: integer `4294967296`, expected u32",
      ],
      [
        { reference: "a", name: "x", replicas: "3" },
        'replicas: invalid type: string "3", expected u32',
      ],
      [
        { reference: "a", name: "x", port: 70000 },
        "port: invalid value: integer `70000`, expected u16",
      ],
      [
        { reference: "a", name: "x", targetPort: 1.5 },
        "targetPort: invalid type: floating point `1.5`, expected u16",
      ],
      [
        { reference: "a", name: "x", image: true },
        "image: invalid type: boolean `true`, expected a string",
      ],
    ];
    for (const [body, detail] of cases) {
      assertText(await postJson(service.url, body), 422, `${prefix}${detail}`);
    }
  });

  test("a body over 2 MiB is 413 text, whether declared or streamed", async () => {
    const big = `{"reference":"k8s/deployment","name":"x","fields":{"a":"${"x".repeat(2 * 1024 * 1024)}"}}`;
    assertText(
      await postJson(service.url, big),
      413,
      "Failed to buffer the request body: length limit exceeded",
    );
    const chunked = await raw(service.url, {
      method: "POST",
      path: "/api/render",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      body: big,
    });
    assertText(chunked, 413, "Failed to buffer the request body: length limit exceeded");
  });

  test("a body of exactly 2 MiB is accepted", async () => {
    const head = '{"reference":"test/echo","name":"x","fields":{"pad":"';
    const tail = '"}}';
    const body = head + "x".repeat(2 * 1024 * 1024 - head.length - tail.length) + tail;
    assert.equal(Buffer.byteLength(body), 2 * 1024 * 1024);
    assert.equal((await postJson(service.url, body)).status, 200);
  });
});

describe("methods and unknown paths", () => {
  const getRoutes = [
    "/api/health",
    "/api/components",
    "/api/registry",
    "/api/config",
    "/api/presets",
    "/api/presets/k8s-web-app",
    "/api/registry/inspect?ref=k8s/deployment",
  ];

  test("HEAD on every GET route: same status and headers as GET, no body", async () => {
    for (const path of [...getRoutes, "/api/presets/nope", "/api/registry/inspect"]) {
      const head = await raw(service.url, { method: "HEAD", path });
      const full = await get(path);
      assert.equal(head.status, full.status, path);
      assert.equal(head.body, "");
      assert.equal(head.headers["content-type"], full.headers["content-type"], path);
      assert.equal(head.headers["content-length"], full.headers["content-length"], path);
      assert.equal(head.headers.vary, "origin");
    }
  });

  test("another method on a GET route is 405 with `allow: GET,HEAD` and no body", async () => {
    for (const path of getRoutes) {
      for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
        const response = await raw(service.url, { method, path });
        assertEmpty(response, 405);
        assert.equal(response.headers.allow, "GET,HEAD", `${method} ${path}`);
      }
    }
  });

  test("another method on /api/render is 405 with `allow: POST`", async () => {
    for (const method of ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]) {
      const response = await raw(service.url, { method, path: "/api/render" });
      assertEmpty(response, 405);
      assert.equal(response.headers.allow, "POST", method);
    }
  });

  test("an unknown path is 404 with an empty body, whatever the method", async () => {
    for (const path of [
      "/",
      "/api",
      "/api/",
      "/api/health/",
      "/api/nope",
      "/api/presets/",
      "/api/presets/a/b",
      "/index.html",
      "/API/health",
      "*",
    ]) {
      for (const method of ["GET", "POST", "OPTIONS"]) {
        assertEmpty(await raw(service.url, { method, target: path }), 404);
      }
    }
  });

  test("absolute-form request targets are routed by their path", async () => {
    assertText(await raw(service.url, { target: `${service.url}/api/health` }), 200, "ok");
    assertEmpty(await raw(service.url, { target: `${service.url}/nope` }), 404);
  });
});
