import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { KilnError } from "../../src/core/errors.ts";
import { referenceOf } from "../../src/core/item.ts";
import { Registry } from "../../src/core/registry.ts";
import { BUILTIN_REGISTRY_DIR, loadComponentFolder } from "../../src/node/builtin-registry.ts";
import { resolveReference } from "../../src/node/resolve-reference.ts";

// A registry of one built-in, so these tests do not depend on the rest of the catalogue.
const registry = new Registry([
  loadComponentFolder(join(BUILTIN_REGISTRY_DIR, "k8s/deployment"), "k8s/deployment"),
]);
const customItem = {
  name: "custom",
  category: "misc",
  files: [{ path: "{{ name }}.txt", template: "hi {{ name }}\n" }],
};

let server: Server;
let base = "";
/** Authorization headers the test server was sent (none may come from a URL's user info). */
const authorizations: string[] = [];

before(async () => {
  server = createServer((request, response) => {
    const url = request.url ?? "/";
    if (request.headers.authorization) authorizations.push(request.headers.authorization);
    if (url === "/to-credentials") {
      response.statusCode = 302;
      response.setHeader("location", `${base.replace("http://", "http://user:secret@")}/item.json`);
      return response.end();
    }
    if (url === "/item.json") return response.end(JSON.stringify(customItem));
    if (url === "/deployment") return response.end("never fetched: the built-in wins");
    if (url === "/bad.json") return response.end(JSON.stringify({ name: "x" }));
    if (url === "/not-json") return response.end("<html>");
    if (url === "/missing") {
      response.statusCode = 404;
      return response.end("nope");
    }
    if (url.startsWith("/redirect/")) {
      const left = Number(url.split("/")[2]);
      response.statusCode = 302;
      response.setHeader("location", left > 0 ? `/redirect/${left - 1}` : "/item.json");
      return response.end();
    }
    if (url === "/huge") {
      response.write("[");
      const chunk = "0,".repeat(64 * 1024);
      let sent = 0;
      const push = () => {
        while (sent < 200 && response.write(chunk)) sent++;
        if (sent < 200) response.once("drain", push);
        else response.end("0]");
      };
      return push();
    }
    if (url === "/slow") return setTimeout(() => response.end("{}"), 2000);
    // compressed though nobody asked (as a store serving pre-compressed files does)
    if (url === "/gzip.json") {
      response.setHeader("content-encoding", "gzip");
      return response.end(gzipSync(JSON.stringify(customItem)));
    }
    // 2 KiB on the wire, 2 MiB once decoded
    if (url === "/bomb.json") {
      response.setHeader("content-encoding", "gzip");
      return response.end(gzipSync(Buffer.alloc(2 * 1024 * 1024, 0x20)));
    }
    if (url === "/unknown-encoding.json") {
      response.setHeader("content-encoding", "zz");
      return response.end(JSON.stringify(customItem));
    }
    response.statusCode = 500;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

async function failure(reference: string, options = {}): Promise<KilnError> {
  try {
    await resolveReference(reference, { registry, ...options });
  } catch (error) {
    assert.ok(error instanceof KilnError);
    return error;
  }
  assert.fail(`expected ${reference} to fail`);
}

describe("component reference resolution", () => {
  test("step 1: the part after the last / names a built-in, whatever the category", async () => {
    for (const reference of [
      "k8s/deployment",
      "deployment",
      "other/deployment",
      `${base}/deployment`,
      "./some/dir/deployment",
    ]) {
      const item = await resolveReference(reference, { registry });
      assert.equal(referenceOf(item), "k8s/deployment", reference);
    }
  });

  test("step 2: an http(s) URL is fetched as JSON", async () => {
    const item = await resolveReference(`${base}/item.json`, { registry });
    assert.equal(referenceOf(item), "misc/custom");
  });

  test("a failed fetch gives `failed to fetch registry item from <url>`", async () => {
    const url = `${base}/missing`;
    assert.equal((await failure(url)).message, `failed to fetch registry item from ${url}`);
  });

  test("up to 5 redirects are followed, not more", async () => {
    assert.equal(
      referenceOf(await resolveReference(`${base}/redirect/4`, { registry })),
      "misc/custom",
    );
    const url = `${base}/redirect/5`;
    assert.equal((await failure(url)).message, `failed to fetch registry item from ${url}`);
  });

  test("a body over the size cap is a failed fetch", async () => {
    const url = `${base}/huge`;
    const error = await failure(url, {
      fetchLimits: { timeoutMs: 10_000, maxRedirects: 5, maxBytes: 1024 * 1024 },
    });
    assert.equal(error.message, `failed to fetch registry item from ${url}`);
  });

  test("a compressed body is decoded, and the size cap counts the decoded bytes", async () => {
    assert.equal(
      referenceOf(await resolveReference(`${base}/gzip.json`, { registry })),
      "misc/custom",
    );
    const limits = { timeoutMs: 10_000, maxRedirects: 5, maxBytes: 1024 * 1024 };
    const bomb = await failure(`${base}/bomb.json`, { fetchLimits: limits });
    assert.equal(bomb.message, `failed to fetch registry item from ${base}/bomb.json`);
    assert.equal(bomb.detail, `body larger than ${1024 * 1024} bytes`);
    const unknown = await failure(`${base}/unknown-encoding.json`);
    assert.match(unknown.detail ?? "", /an encoding kiln does not read \(zz\)/);
  });

  test("a user name or password in a URL or a redirect is refused, never sent as Basic auth", async () => {
    const direct = await failure(`${base.replace("http://", "http://user:secret@")}/item.json`);
    assert.match(direct.detail ?? "", /the URL holds a user name or password/);
    const redirected = await failure(`${base}/to-credentials`);
    assert.match(redirected.detail ?? "", /the URL holds a user name or password/);
    assert.deepEqual(authorizations, []);
  });

  test("a fetch past the deadline is a failed fetch", async () => {
    const url = `${base}/slow`;
    const error = await failure(url, {
      fetchLimits: { timeoutMs: 200, maxRedirects: 5, maxBytes: 1024 },
    });
    assert.equal(error.message, `failed to fetch registry item from ${url}`);
  });

  test("a response that is not a registry item is `<reference> is not a valid registry item`", async () => {
    assert.equal(
      (await failure(`${base}/bad.json`)).message,
      `${base}/bad.json is not a valid registry item`,
    );
    assert.equal(
      (await failure(`${base}/not-json`)).message,
      `${base}/not-json is not a valid registry item`,
    );
  });

  test("step 3: an existing local file, relative to the working directory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kiln-resolve-"));
    mkdirSync(join(dir, "items"));
    writeFileSync(join(dir, "items", "custom.json"), JSON.stringify(customItem));
    writeFileSync(join(dir, "items", "broken.json"), "{");
    const item = await resolveReference("items/custom.json", { registry, cwd: dir });
    assert.equal(referenceOf(item), "misc/custom");
    assert.equal(
      (await failure("items/broken.json", { cwd: dir })).message,
      "items/broken.json is not a valid registry item",
    );
    // a directory is not a file: step 4
    assert.match(
      (await failure("items", { cwd: dir })).message,
      /^`items` is not a built-in component/,
    );
  });

  test("step 4: anything else is an error that says what to do", async () => {
    const error = await failure("k8s/nothing-like-this");
    assert.equal(error.kind, "invalid_request");
    assert.equal(
      error.message,
      "`k8s/nothing-like-this` is not a built-in component and not a URL or existing local file - run `kiln list` to see the built-ins, or pass a URL or path to a registry-item JSON file",
    );
  });
});
