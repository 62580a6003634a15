// GET /api/registry/meta over a real socket: the catalogue metadata the dashboard reads (stages,
// editors, what each component is for the checks), for every built-in and for one item of any
// reference. An addition to the spec: /api/registry and /api/registry/inspect keep exactly the
// spec's keys, also for an item that declares metadata.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  parseRegistryItem,
  type RegistryItem,
  toItemMetaView,
  toItemView,
} from "../../src/core/item.ts";
import { canonicalJson } from "../../src/core/project/lock-format.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { readVersion } from "../../src/node/version.ts";
import { type RunningServer, startServer } from "../../src/server/server.ts";
import { BIN } from "../cli/helpers.ts";
import { type RawResponse, raw } from "./helpers.ts";

/** A custom inventory-like item that declares the same metadata as the built-in inventory. */
const machines = {
  name: "machines",
  category: "custom",
  title: "Machines",
  fields: [
    { name: "machines", required: true, editor: "inventory" },
    { name: "subnet", default: "10.0.0.0/16", format: "cidr" },
  ],
  files: [{ path: "{{ name }}.ini", template: "x\n" }],
  kiln: {
    stage: "inventory",
    kind: "inventory",
    writes: "{name}.ini",
    facts: { groups: "machines" },
    future: { anything: true },
  },
};
const plain = { name: "plain", category: "custom", files: [{ path: "p.txt", template: "p" }] };
/** An item that needs two others: a registry's item and a built-in, named by templates. */
const app = {
  name: "app",
  category: "custom",
  files: [{ path: "{{ name }}.txt", template: "app {{ name }}\n" }],
  dependencies: [
    { reference: "@acme/redis", name: "{{ name }}-cache", fields: { memory: "{{ name }}" } },
    { reference: "k8s/service", name: "{{ name }}" },
  ],
};

/** What kiln.lock records as an item's fingerprint: sha256 of its canonical JSON. */
const fingerprint = (item: RegistryItem) =>
  `sha256:${createHash("sha256").update(canonicalJson(item)).digest("hex")}`;

/** The metadata answer of one item: its catalogue metadata, then its fingerprint. */
const metaAnswer = (item: RegistryItem) => ({
  ...toItemMetaView(item),
  fingerprint: fingerprint(item),
});

const machinesMeta = {
  reference: "custom/machines",
  stage: "inventory",
  kind: "inventory",
  suggest: false,
  writes: "{name}.ini",
  facts: { groups: "machines" },
  editors: { machines: "inventory" },
  formats: { subnet: "cidr" },
  defaults: { subnet: "10.0.0.0/16" },
  profilePaths: {},
  dependencies: [],
  fingerprint: fingerprint(parseRegistryItem(machines, "machines.json")),
};

let service: RunningServer;
let itemServer: Server;
let itemBase = "";
const workDir = mkdtempSync(join(tmpdir(), "kiln-registry-meta-"));
let workerCalls = 0;

before(async () => {
  mkdirSync(join(workDir, "items"));
  writeFileSync(join(workDir, "items", "machines.json"), JSON.stringify(machines));
  writeFileSync(join(workDir, "items", "plain.json"), JSON.stringify(plain));
  writeFileSync(join(workDir, "items", "app.json"), JSON.stringify(app));
  writeFileSync(join(workDir, "items", "not-an-item.json"), JSON.stringify({ name: "x" }));
  itemServer = createServer((request, response) => {
    if (request.url === "/machines.json") return response.end(JSON.stringify(machines));
    response.statusCode = 404;
    response.end();
  });
  await new Promise<void>((resolve) => itemServer.listen(0, "127.0.0.1", resolve));
  itemBase = `http://127.0.0.1:${(itemServer.address() as AddressInfo).port}`;
  service = await startServer({ port: 0, cwd: workDir, log: () => {} });
  // a stranger's item is parsed in a render worker: count the jobs handed to it
  const metaSource = service.pool.metaSource.bind(service.pool);
  service.pool.metaSource = (...args) => {
    workerCalls += 1;
    return metaSource(...args);
  };
});

after(async () => {
  await service.close();
  await new Promise((resolve) => itemServer.close(resolve));
  rmSync(workDir, { recursive: true, force: true });
});

const get = (path: string, method = "GET") => raw(service.url, { path, method });
const meta = (ref: string) => get(`/api/registry/meta?ref=${encodeURIComponent(ref)}`);

function assertJson(response: RawResponse, status: number, body: unknown): void {
  assert.equal(response.status, status, response.body);
  assert.equal(response.headers["content-type"], "application/json");
  assert.equal(response.body, JSON.stringify(body));
}

describe("GET /api/registry/meta", () => {
  test("every built-in's metadata, in registry order", async () => {
    const response = await get("/api/registry/meta");
    assertJson(response, 200, {
      items: builtinRegistry().items.map(metaAnswer),
      kiln: readVersion(),
    });
    const items = (JSON.parse(response.body) as { items: { reference: string; stage: string }[] })
      .items;
    assert.deepEqual(
      items.map((item) => item.reference),
      builtinRegistry().references(),
    );
    assert.ok(
      items.every((item) => item.stage !== "other"),
      "every built-in declares a stage",
    );
  });

  test("?ref= of a built-in, resolved by name as inspect resolves it", async () => {
    const inventory = metaAnswer(builtinRegistry().byComponentName("inventory") as RegistryItem);
    assertJson(await meta("automation/inventory"), 200, inventory);
    assertJson(await meta("elsewhere/inventory"), 200, inventory);
    assert.equal(inventory.kind, "inventory");
    assert.deepEqual(inventory.editors, { hosts: "inventory" });
  });

  test("?ref= of a file item: its declared metadata, parsed in a render worker", async () => {
    const before = workerCalls;
    assertJson(await meta("items/machines.json"), 200, machinesMeta);
    assert.equal(workerCalls, before + 1, "parsed by a worker");
    // kept by file identity beside the inspect answers, as inspect keeps them
    assertJson(await meta("items/machines.json"), 200, machinesMeta);
    assert.equal(workerCalls, before + 1, "the unchanged file is not parsed again");
  });

  test("?ref= of a URL item", async () => {
    assertJson(await meta(`${itemBase}/machines.json`), 200, machinesMeta);
  });

  test("an item that declares nothing reads as before the metadata existed", async () => {
    assertJson(await meta("items/plain.json"), 200, {
      reference: "custom/plain",
      stage: "other",
      kind: null,
      suggest: false,
      writes: null,
      facts: {},
      editors: {},
      formats: {},
      defaults: {},
      profilePaths: {},
      dependencies: [],
      fingerprint: fingerprint(parseRegistryItem(plain, "plain.json")),
    });
  });

  test("an item's dependencies are listed as it declares them, templates not rendered; a render renders the one item", async () => {
    const response = await meta("items/app.json");
    assert.equal(response.status, 200, response.body);
    assert.deepEqual((JSON.parse(response.body) as { dependencies: unknown }).dependencies, [
      { reference: "@acme/redis", name: "{{ name }}-cache", fields: { memory: "{{ name }}" } },
      { reference: "k8s/service", name: "{{ name }}", fields: {} },
    ]);
    const rendered = await raw(service.url, {
      path: "/api/render",
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reference: "items/app.json", name: "shop" }),
    });
    assert.equal(rendered.status, 200, rendered.body);
    assert.deepEqual(JSON.parse(rendered.body), {
      component: "app",
      files: [{ path: "shop.txt", content: "app shop\n" }],
    });
  });

  test("an item's fingerprint is the one kiln.lock records for it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kiln-meta-lock-"));
    try {
      const setup = spawnSync(process.execPath, [BIN, "setup", "single-server"], {
        cwd: dir,
        encoding: "utf8",
      });
      assert.equal(setup.status, 0, setup.stderr);
      const lock = JSON.parse(readFileSync(join(dir, "kiln.lock"), "utf8")) as {
        components: { component: string; fingerprint: string; source: unknown }[];
      };
      const answer = JSON.parse((await get("/api/registry/meta")).body) as {
        items: { reference: string; fingerprint: string }[];
        kiln: string;
      };
      for (const entry of lock.components) {
        const item = answer.items.find((meta) => meta.reference === entry.component);
        assert.equal(item?.fingerprint, entry.fingerprint, entry.component);
        assert.deepEqual(entry.source, { type: "builtin", kiln: answer.kiln });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("failures are inspect's", async () => {
    const unknown = await meta("nope/thing");
    assert.equal(unknown.status, 400);
    assert.equal(
      (JSON.parse(unknown.body) as { error: string }).error,
      "`nope/thing` is not a built-in component and not a URL or existing local file - run `kiln list` to see the built-ins, or pass a URL or path to a registry-item JSON file",
    );
    assertJson(await meta("items/not-an-item.json"), 400, {
      code: "invalid_request",
      error: "items/not-an-item.json is not a valid registry item",
      detail: "missing field `category`",
    });
    const twice = await get("/api/registry/meta?ref=a&ref=b");
    assert.equal(twice.status, 400);
    assert.equal(twice.body, "Failed to deserialize query string: duplicate field `ref`");
  });

  test("HEAD answers like GET without a body; POST is 405", async () => {
    const head = await get("/api/registry/meta", "HEAD");
    assert.equal(head.status, 200);
    assert.equal(head.body, "");
    const post = await get("/api/registry/meta", "POST");
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, "GET,HEAD");
  });
});

describe("the spec's answers keep exactly the spec's keys", () => {
  test("GET /api/registry and inspect of an item with metadata add nothing", async () => {
    const registry = await get("/api/registry");
    assertJson(registry, 200, { items: builtinRegistry().items.map(toItemView) });
    const inspected = await get(
      `/api/registry/inspect?ref=${encodeURIComponent("items/machines.json")}`,
    );
    assert.equal(inspected.status, 200, inspected.body);
    const view = JSON.parse(inspected.body) as Record<string, unknown> & {
      fields: Record<string, unknown>[];
    };
    assert.deepEqual(Object.keys(view), [
      "name",
      "category",
      "title",
      "description",
      "reference",
      "fields",
      "files",
    ]);
    for (const field of view.fields) {
      assert.deepEqual(Object.keys(field), [
        "name",
        "required",
        "default",
        "description",
        "example",
        "options",
      ]);
    }
  });
});
