// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` in kiln.toml's registry entries is what is tested
// Registries offline and behind a proxy, from the real binary: a registry built by `kiln registry
// build` and served by Debian's nginx on a loopback port (behind a bearer token), kiln's cache in
// a temporary $XDG_CACHE_HOME per test, a server here that counts every request it gets (so
// "never touches the network" is a count of 0), and a small forward proxy here (CONNECT and plain
// requests, counting them and the hosts asked for) for HTTP_PROXY and NO_PROXY.
import assert from "node:assert/strict";
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { nginxSkip, startNginx, type TestNginx } from "../tools/nginx.ts";
import {
  cleanUp,
  ensureBuilt,
  kiln,
  kilnAsync,
  project,
  type Run,
  tempDir,
  tree,
  write,
} from "./helpers.ts";
import { fixtureRegistry, sha256 } from "./registry-fixture.ts";

const TOKEN = "offline-t0ken-7f3e9a1c";
const PROXY_PASSWORD = "pr0xy-pa55-4b7c";

const skip = nginxSkip();
/** The folder nginx serves: `acme/` holds the built registry. */
let served: string;

/** The built registry of the fixture (redis 1.2.0, notes 0.1.0) in `served/acme`. */
function buildRegistry(): void {
  served = tempDir();
  const built = kiln(
    ["registry", "build", fixtureRegistry(), "--output", join(served, "acme")],
    tempDir(),
  );
  assert.equal(built.status, 0, built.stderr);
}

/** A project whose `@acme` is the registry at `origin` behind the bearer token. */
function acmeProject(origin: string): string {
  const dir = project();
  const text = readFileSync(join(dir, "kiln.toml"), "utf8");
  write(
    dir,
    "kiln.toml",
    `${text}\n[registries."@acme"]\nurl = "${origin}/token/acme/{name}.json"\nheaders = { Authorization = "Bearer \${ACME_TOKEN}" }\n`,
  );
  return dir;
}

/** kiln with the token, no user config, `cache` as its cache's base folder, and `env`. */
function run(
  args: string[],
  cwd: string,
  cache: string,
  env: Record<string, string> = {},
): Promise<Run> {
  return kilnAsync(args, cwd, {
    ACME_TOKEN: TOKEN,
    XDG_CONFIG_HOME: join(cache, "no-config"),
    XDG_CACHE_HOME: cache,
    ...env,
  });
}

/** Every file under `dir`, by path relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/** A server that answers 404 to everything and counts the requests it got. */
async function countingServer(): Promise<{ origin: string; count: () => number; close(): void }> {
  let requests = 0;
  const server = createServer((_request, response) => {
    requests += 1;
    response.statusCode = 404;
    response.end();
  });
  // a connection without a request is the network too
  let connections = 0;
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => requests + connections,
    close: () => server.close(),
  };
}

/**
 * A forward proxy: CONNECT tunnels (what undici's proxy agent sends) and plain absolute-URL
 * requests, each counted with the host and port it was asked for. `password`: requests without
 * that Proxy-Authorization get 407.
 */
interface TestProxy {
  url: string;
  asked: string[];
  server: Server;
}

async function startProxy(password?: string): Promise<TestProxy> {
  const asked: string[] = [];
  const authorised = (header: string | undefined) =>
    password === undefined ||
    header === `Basic ${Buffer.from(`kiln:${password}`).toString("base64")}`;
  const server = createServer((request, response) => {
    asked.push(new URL(request.url ?? "/").host);
    if (!authorised(request.headers["proxy-authorization"])) {
      response.statusCode = 407;
      response.end();
      return;
    }
    const upstream = httpRequest(
      request.url ?? "/",
      { method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    request.pipe(upstream);
  });
  server.on("connect", (request, client, head) => {
    asked.push(request.url ?? "");
    if (!authorised(request.headers["proxy-authorization"])) {
      client.end("HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    const [host, port] = (request.url ?? "").split(":");
    const upstream = connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked, server };
}

let nginx: TestNginx;

before(async () => {
  ensureBuilt();
  if (skip) return;
  buildRegistry();
  nginx = await startNginx({ root: served, token: TOKEN, user: "kiln", password: "unused" });
});

after(async () => {
  await nginx?.stop();
  cleanUp();
});

/** A fail-safe: a test that waits on a server fails rather than hangs. */
const timeout = 120_000;

describe("kiln's cache of registries", { skip, timeout }, () => {
  it("add once online; with the registry down, add, update, diff, status and check work from the cache (0700, no token in it)", async (t) => {
    // a server of this test's own, stopped half-way (and at the end, whatever happens)
    const own = await startNginx({ root: served, token: TOKEN, user: "kiln", password: "unused" });
    t.after(() => own.stop());
    const cache = tempDir();
    const dir = acmeProject(own.origin);
    const added = await run(
      ["add", "@acme/redis", "--name", "cache", "--image", "redis:7.4"],
      dir,
      cache,
    );
    assert.equal(added.status, 0, added.stderr);
    const kilnCache = join(cache, "kiln");
    assert.equal(statSync(kilnCache).mode & 0o777, 0o700);
    const item = readFileSync(join(served, "acme", "redis@1.2.0.json"), "utf8");
    const files = filesUnder(kilnCache);
    assert.ok(
      files.includes(`blobs/sha256/${sha256(item).slice("sha256:".length)}`),
      files.join(", "),
    );
    for (const file of files) {
      assert.doesNotMatch(file, new RegExp(TOKEN));
      assert.doesNotMatch(readFileSync(join(kilnCache, file), "latin1"), new RegExp(TOKEN));
      assert.doesNotMatch(readFileSync(join(kilnCache, file), "latin1"), /127\.0\.0\.1/);
    }

    await own.stop();
    const again = await run(
      ["add", "@acme/redis", "--name", "other", "--image", "redis:7.4"],
      dir,
      cache,
    );
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^created {3}k8s\/other-redis\.yaml\n/);
    const pinned = await run(
      ["add", "@acme/redis@1.2.0", "--name", "third", "--image", "redis:7"],
      dir,
      cache,
    );
    assert.equal(pinned.status, 0, pinned.stderr);
    write(dir, "k8s/cache-redis.yaml", `# edited\n${tree(dir)["k8s/cache-redis.yaml"]}`);
    const updated = await run(["update", "cache", "--image", "redis:7.5"], dir, cache);
    assert.equal(updated.status, 0, updated.stderr);
    assert.match(
      tree(dir)["k8s/cache-redis.yaml"] ?? "",
      /^# edited\n[\s\S]*image: "?redis:7\.5"?\n/,
    );
    for (const command of [["diff"], ["status"], ["check"]]) {
      const result = await run(command, dir, cache);
      assert.equal(result.status, 0, `${command}: ${result.stderr}`);
      assert.doesNotMatch(result.stdout + result.stderr, /failed to fetch|not in kiln's cache/);
    }
  });

  it("two kiln runs filling one cache at once both succeed, and every blob is the bytes its name says", async () => {
    const cache = tempDir();
    const one = acmeProject(nginx.origin);
    const two = acmeProject(nginx.origin);
    const runs = await Promise.all([
      run(["add", "@acme/redis", "--name", "a", "--image", "redis:7"], one, cache),
      run(["add", "@acme/redis", "--name", "b", "--image", "redis:7"], two, cache),
    ]);
    for (const result of runs) assert.equal(result.status, 0, result.stderr);
    const blobs = join(cache, "kiln", "blobs", "sha256");
    const names = readdirSync(blobs);
    // the index and the item, no temporary file left behind
    assert.equal(names.length, 2, names.join(", "));
    for (const name of names) {
      assert.equal(sha256(readFileSync(join(blobs, name), "utf8")), `sha256:${name}`);
    }
  });

  it("a cache file whose bytes are not its digest is not used: --offline misses, online fetches it again", async () => {
    const cache = tempDir();
    const dir = acmeProject(nginx.origin);
    const first = await run(
      ["add", "@acme/redis@1.2.0", "--name", "cache", "--image", "redis:7"],
      dir,
      cache,
    );
    assert.equal(first.status, 0, first.stderr);
    const item = readFileSync(join(served, "acme", "redis@1.2.0.json"), "utf8");
    const blob = join(cache, "kiln", "blobs", "sha256", sha256(item).slice("sha256:".length));
    const planted = item.replace("A single Redis pod.", "A planted pod.");
    writeFileSync(blob, planted);
    const before = tree(dir);
    const offline = await run(
      ["add", "@acme/redis@1.2.0", "--name", "other", "--image", "redis:7", "--offline"],
      dir,
      cache,
    );
    assert.equal(offline.status, 1);
    assert.match(offline.stderr, /^error: @acme\/redis@1\.2\.0 is not in kiln's cache \(/);
    assert.deepEqual(tree(dir), before);
    const online = await run(
      ["add", "@acme/redis@1.2.0", "--name", "other", "--image", "redis:7"],
      dir,
      cache,
    );
    assert.equal(online.status, 0, online.stderr);
    assert.equal(readFileSync(blob, "utf8"), item);
  });
});

/**
 * A module for `node --require` that records the hex of every sha256 the process computes
 * (node:crypto's createHash, which kiln hashes with) and writes them, one a line, to the file
 * KILN_TEST_HASHES names when the process exits: how often kiln hashed given bytes is then a count.
 */
function hashRecorder(): string {
  const path = join(tempDir(), "record-hashes.cjs");
  writeFileSync(
    path,
    `const crypto = require("node:crypto");
const { syncBuiltinESMExports } = require("node:module");
const { appendFileSync } = require("node:fs");
const original = crypto.createHash;
const seen = [];
crypto.createHash = function (algorithm, options) {
  const hash = original.call(this, algorithm, options);
  if (String(algorithm).toLowerCase() !== "sha256") return hash;
  const digest = hash.digest;
  hash.digest = function (encoding) {
    const result = digest.call(this, encoding);
    seen.push(Buffer.isBuffer(result) ? result.toString("hex") : String(result));
    return result;
  };
  return hash;
};
syncBuiltinESMExports();
process.on("exit", () => appendFileSync(process.env.KILN_TEST_HASHES, seen.map((hex) => hex + "\\n").join("")));
`,
  );
  return path;
}

describe("kiln's cache of registries: its own work", { skip, timeout }, () => {
  it("an item read from the cache is hashed once: to verify it, not again to record it", async () => {
    const cache = tempDir();
    const dir = acmeProject(nginx.origin);
    const first = await run(
      ["add", "@acme/redis@1.2.0", "--name", "a", "--image", "redis:7"],
      dir,
      cache,
    );
    assert.equal(first.status, 0, first.stderr);
    const item = readFileSync(join(served, "acme", "redis@1.2.0.json"), "utf8");
    const hex = sha256(item).slice("sha256:".length);
    const hashes = join(tempDir(), "hashes.txt");
    const again = await run(
      ["add", "@acme/redis@1.2.0", "--name", "b", "--image", "redis:7", "--offline"],
      dir,
      cache,
      { NODE_OPTIONS: `--require ${hashRecorder()}`, KILN_TEST_HASHES: hashes },
    );
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^created {3}k8s\/b-redis\.yaml\n/);
    const recorded = readFileSync(hashes, "utf8").split("\n");
    assert.equal(recorded.filter((digest) => digest === hex).length, 1, recorded.join(", "));
  });

  it("eviction of a full cache removes the blobs used longest ago and a crashed run's temporary file over an hour old, and leaves another kiln's fresh temporary file alone", async () => {
    const cache = tempDir();
    const blobs = join(cache, "kiln", "blobs", "sha256");
    mkdirSync(blobs, { recursive: true, mode: 0o700 });
    // a blob past the cache's bound (a sparse file: its size, no disk), used a day ago; a
    // temporary file another kiln is writing now, named as kiln names them; and one a killed
    // run left two days ago, between its write and its rename
    const old = new Date(Date.now() - 86_400_000);
    const older = new Date(Date.now() - 2 * 86_400_000);
    const large = join(blobs, "f".repeat(64));
    closeSync(openSync(large, "w"));
    truncateSync(large, 300 * 1024 * 1024);
    utimesSync(large, old, old);
    const writing = join(blobs, `.${"e".repeat(64)}.kiln-999999-1-0123456789ab.tmp`);
    writeFileSync(writing, "half of a blob");
    const leftover = join(blobs, `.${"d".repeat(64)}.kiln-1-1.tmp`);
    writeFileSync(leftover, "a killed run's blob");
    utimesSync(leftover, older, older);
    const added = await run(
      ["add", "@acme/redis@1.2.0", "--name", "a", "--image", "redis:7"],
      acmeProject(nginx.origin),
      cache,
    );
    assert.equal(added.status, 0, added.stderr);
    const names = readdirSync(blobs);
    assert.ok(!names.includes("f".repeat(64)), names.join(", "));
    assert.ok(!names.includes(`.${"d".repeat(64)}.kiln-1-1.tmp`), names.join(", "));
    assert.equal(readFileSync(writing, "utf8"), "half of a blob");
  });
});

describe("a registry's index in the cache", { skip, timeout }, () => {
  it("is used for 10 minutes without asking the registry; --refresh asks it again", async () => {
    // a registry of this test's own, in the folder nginx serves, that publishes 1.3.0 later
    const source = fixtureRegistry();
    const output = join(served, "moving");
    assert.equal(kiln(["registry", "build", source, "--output", output], source).status, 0);
    const cache = tempDir();
    const dir = project();
    const text = readFileSync(join(dir, "kiln.toml"), "utf8");
    write(
      dir,
      "kiln.toml",
      `${text}\n[registries]\n"@acme" = "${nginx.origin}/open/moving/{name}.json"\n`,
    );
    const first = await run(
      ["add", "@acme/redis", "--name", "a", "--image", "redis:7"],
      dir,
      cache,
    );
    assert.equal(first.status, 0, first.stderr);

    const component = join(source, "redis", "component.json");
    write(
      source,
      "redis/component.json",
      readFileSync(component, "utf8").replace("1.2.0", "1.3.0"),
    );
    assert.equal(kiln(["registry", "build", source, "--output", output], source).status, 0);
    const cached = await run(
      ["add", "@acme/redis", "--name", "b", "--image", "redis:7"],
      dir,
      cache,
    );
    assert.equal(cached.status, 0, cached.stderr);
    const refreshed = await run(
      ["add", "@acme/redis", "--name", "c", "--image", "redis:7", "--refresh"],
      dir,
      cache,
    );
    assert.equal(refreshed.status, 0, refreshed.stderr);
    const versions = (
      JSON.parse(readFileSync(join(dir, "kiln.lock"), "utf8")) as {
        components: { name: string; source: { version: string } }[];
      }
    ).components.map((entry) => `${entry.name} ${entry.source.version}`);
    assert.deepEqual(versions.sort(), ["a 1.2.0", "b 1.2.0", "c 1.3.0"]);
  });

  it("older than 10 minutes, is used with a warning when the registry does not answer; an answer that is an error is still one", async () => {
    const cache = tempDir();
    const dir = project();
    const text = readFileSync(join(dir, "kiln.toml"), "utf8");
    // the port comes from a variable: the cache knows a registry by its URL as written
    write(
      dir,
      "kiln.toml",
      `${text}\n[registries]\n"@acme" = "http://127.0.0.1:\${ACME_PORT}/open/acme/{name}.json"\n`,
    );
    const port = nginx.origin.split(":").at(-1) as string;
    const first = await run(
      ["add", "@acme/redis", "--name", "a", "--image", "redis:7"],
      dir,
      cache,
      {
        ACME_PORT: port,
      },
    );
    assert.equal(first.status, 0, first.stderr);
    // the cached index made an hour old
    const registries = join(cache, "kiln", "registries");
    const [key] = readdirSync(registries);
    const entryPath = join(registries, key as string, "index");
    const entry = JSON.parse(readFileSync(entryPath, "utf8")) as { fetchedAt: number };
    writeFileSync(entryPath, JSON.stringify({ ...entry, fetchedAt: Date.now() - 3_600_000 }));
    const down = await countingServer();
    down.close();
    const downPort = down.origin.split(":").at(-1) as string;
    const stale = await run(
      ["add", "@acme/redis", "--name", "b", "--image", "redis:7"],
      dir,
      cache,
      {
        ACME_PORT: downPort,
      },
    );
    assert.equal(stale.status, 0, stale.stderr);
    assert.match(
      stale.stderr,
      /^warning: failed to fetch its index from @acme at http:\/\/127\.0\.0\.1:\*\*\*\/open\/acme\/registry\.json \(the connection was refused \(ECONNREFUSED\)\) - using its index from kiln's cache, fetched 60 minutes ago; its newest versions may have changed since\n/,
    );
    assert.match(stale.stdout, /added redis\/b/);
    // a registry that answers with an error is not down: no cached index stands in for it
    const answering = await countingServer();
    try {
      const refused = await run(
        ["add", "@acme/redis", "--name", "c", "--image", "redis:7"],
        dir,
        cache,
        {
          ACME_PORT: answering.origin.split(":").at(-1) as string,
        },
      );
      assert.equal(refused.status, 1);
      assert.match(
        refused.stderr,
        /^error: failed to fetch its index from @acme .*\n {2}HTTP status 404\n$/,
      );
    } finally {
      answering.close();
    }
  });
});

describe("--offline", { skip, timeout }, () => {
  it("never touches the network, and a miss names what is not cached and writes nothing", async () => {
    const server = await countingServer();
    try {
      const cache = tempDir();
      const dir = acmeProject(server.origin);
      const before = tree(dir);
      const unpinned = await run(
        ["add", "@acme/redis", "--name", "cache", "--offline"],
        dir,
        cache,
      );
      assert.equal(unpinned.status, 1);
      assert.equal(
        unpinned.stderr,
        `error: the index of @acme is not in kiln's cache (${join(cache, "kiln")}) - run without --offline once to fetch it\n`,
      );
      const pinned = await run(
        ["add", "@acme/redis@1.3.0", "--name", "cache", "--offline"],
        dir,
        cache,
      );
      assert.equal(pinned.status, 1);
      assert.equal(
        pinned.stderr,
        `error: @acme/redis@1.3.0 is not in kiln's cache (${join(cache, "kiln")}) - run without --offline once to fetch it\n`,
      );
      // KILN_OFFLINE=1 is --offline for every command, URL references included
      const url = await run(["add", `${server.origin}/redis.json`, "--name", "cache"], dir, cache, {
        KILN_OFFLINE: "1",
      });
      assert.equal(url.status, 1);
      assert.match(url.stderr, /not fetched: kiln runs offline/);
      // --refresh asks for the index again, unless the run is offline: then nothing is asked
      const refreshed = await run(
        ["add", "@acme/redis", "--name", "cache", "--offline", "--refresh"],
        dir,
        cache,
      );
      assert.equal(refreshed.stderr, unpinned.stderr);
      assert.equal(server.count(), 0);
      assert.deepEqual(tree(dir), before);
    } finally {
      server.close();
    }
  });
});

describe("proxies", { skip, timeout }, () => {
  it("HTTP_PROXY carries every fetch (registries and URLs), NO_PROXY=127.0.0.1 bypasses it", async () => {
    const proxy = await startProxy();
    try {
      const dir = acmeProject(nginx.origin);
      const host = new URL(nginx.origin).host;
      const through = await run(
        ["add", "@acme/redis", "--name", "cache", "--image", "redis:7"],
        dir,
        tempDir(),
        {
          HTTP_PROXY: proxy.url,
        },
      );
      assert.equal(through.status, 0, through.stderr);
      const url = await run(
        ["render", `${nginx.origin}/token/acme/notes.json`, "--name", "n"],
        dir,
        tempDir(),
        {
          http_proxy: proxy.url,
        },
      );
      // the token location answers a URL reference (no registry headers) with 401, through the proxy
      assert.equal(url.status, 1);
      assert.match(url.stderr, /HTTP status 401/);
      assert.ok(proxy.asked.length >= 3, proxy.asked.join(", "));
      assert.ok(
        proxy.asked.every((asked) => asked === host),
        proxy.asked.join(", "),
      );

      const seen = proxy.asked.length;
      const bypassed = await run(
        ["add", "@acme/redis", "--name", "other", "--image", "redis:7"],
        dir,
        tempDir(),
        {
          HTTP_PROXY: proxy.url,
          NO_PROXY: "127.0.0.1",
        },
      );
      assert.equal(bypassed.status, 0, bypassed.stderr);
      assert.equal(proxy.asked.length, seen);
    } finally {
      proxy.server.close();
    }
  });

  it("a proxy's password is never printed, even when the proxy refuses kiln", async () => {
    const proxy = await startProxy(PROXY_PASSWORD);
    try {
      const dir = acmeProject(nginx.origin);
      const proxyUrl = proxy.url.replace("http://", `http://kiln:${PROXY_PASSWORD}@`);
      const allowed = await run(
        ["add", "@acme/redis", "--name", "cache", "--image", "redis:7"],
        dir,
        tempDir(),
        {
          HTTPS_PROXY: proxyUrl,
          HTTP_PROXY: proxyUrl,
        },
      );
      assert.equal(allowed.status, 0, allowed.stderr);
      const wrong = proxy.url.replace("http://", "http://kiln:wr0ng-pa55w0rd@");
      const refused = await run(
        ["add", "@acme/redis", "--name", "other", "--image", "redis:7"],
        dir,
        tempDir(),
        {
          HTTP_PROXY: wrong,
        },
      );
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /^error: failed to fetch its index from @acme/);
      for (const output of [allowed.stdout, allowed.stderr, refused.stdout, refused.stderr]) {
        assert.doesNotMatch(output, /pa55/);
      }
    } finally {
      proxy.server.close();
    }
  });
});
