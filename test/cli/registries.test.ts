// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` in kiln.toml's registry entries is what is tested
// Namespaced registries from the real binary against a real web server: Debian's nginx serving
// a built registry (registry.json, <name>@<version>.json) on a loopback port, one location
// open, one behind a bearer token, one behind basic auth, one redirecting to another origin (a
// small server here that counts the headers it gets). Configured in kiln.toml and in the
// user's $XDG_CONFIG_HOME/kiln/config.toml; tokens from the environment, never written or
// printed; versions pinned in kiln.lock and verified by digest.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { RegistryClient } from "../../src/node/registry-client.ts";
import { nginxSkip, startNginx, type TestNginx } from "../tools/nginx.ts";
import {
  cleanEnv,
  cleanUp,
  copyOfPackage,
  ensureBuilt,
  kilnAsync,
  project,
  REPO,
  type Run,
  tempDir,
  tree,
  write,
} from "./helpers.ts";

const TOKEN = "tok-5ecret-a1b2c3d4e5";
const USER = "kiln";
const PASSWORD = "pa55-w0rd-9z8y7x";

/** The registry item of `redis` at `version`: its file says which version rendered it. */
function redisItem(version: string): object {
  return {
    name: "redis",
    category: "cache",
    title: "Redis",
    description: "a Redis cache",
    fields: [{ name: "image", default: "redis:7.4" }],
    files: [
      {
        path: "{{ name }}-redis.yaml",
        template: `# redis ${version}\nimage: {{ image }}\nname: {{ name }}\n`,
      },
    ],
  };
}

function digestOf(bytes: string): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * A built registry in `root/<name>/`: `<item>@<version>.json` per version, `<item>.json` and
 * the index entry for the last one. Returns each version's file bytes.
 */
function publish(root: string, name: string, versions: string[]): Record<string, string> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const bytes: Record<string, string> = {};
  for (const version of versions) {
    bytes[version] = `${JSON.stringify(redisItem(version), null, 2)}\n`;
    writeFileSync(join(dir, `redis@${version}.json`), bytes[version]);
  }
  const newest = versions.at(-1) as string;
  writeFileSync(join(dir, "redis.json"), bytes[newest] as string);
  const index = {
    name,
    homepage: "https://example.test",
    items: [
      {
        name: "redis",
        category: "cache",
        title: "Redis",
        description: "a Redis cache",
        version: newest,
        digest: digestOf(bytes[newest] as string),
      },
    ],
  };
  writeFileSync(join(dir, "registry.json"), `${JSON.stringify(index, null, 2)}\n`);
  return bytes;
}

/** A project whose kiln.toml has `registries` (TOML text) after its [project] table. */
function projectWith(registries: string): string {
  const dir = project();
  const text = readFileSync(join(dir, "kiln.toml"), "utf8");
  write(dir, "kiln.toml", `${text}\n${registries}`);
  return dir;
}

let nginx: TestNginx;
let root: string;
/** What the other origin got: the Authorization and X-Team headers of each request. */
const otherOriginSaw: IncomingHttpHeaders[] = [];
let other: Server;
let otherOrigin = "";

/**
 * kiln with an empty user config folder (or `config`), an empty cache of its own (each run
 * asks the registry: these tests are of the requests; test/cli/registry-offline.test.ts is of
 * the cache) and `env`.
 */
function run(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return kilnAsync(args, cwd, {
    XDG_CONFIG_HOME: join(cwd, "..", "no-config"),
    XDG_CACHE_HOME: tempDir(),
    ...env,
  });
}

const skip = nginxSkip();

before(async () => {
  ensureBuilt();
  if (skip) return;
  root = tempDir();
  other = createServer((request, response) => {
    otherOriginSaw.push(request.headers);
    const path = join(root, "moved", (request.url ?? "/").replace(/^\//, ""));
    try {
      response.end(readFileSync(path));
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
    user: USER,
    password: PASSWORD,
    redirectTo: otherOrigin,
  });
});

after(async () => {
  await nginx?.stop();
  other?.close();
  cleanUp();
});

interface LockJson {
  version: number;
  components: { name: string; reference: string; source: Record<string, string> }[];
}

function lockOf(dir: string): LockJson {
  return JSON.parse(readFileSync(join(dir, "kiln.lock"), "utf8")) as LockJson;
}

describe("a namespaced registry served by nginx", { skip }, () => {
  it("add @acme/redis takes the newest version from the index; the lock records namespace, item, version and digest - no URL", async () => {
    const bytes = publish(root, "plain", ["1.2.0", "1.3.0"]);
    const dir = projectWith(`[registries]\n"@acme" = "${nginx.origin}/open/plain/{name}.json"\n`);
    const added = await run(["add", "@acme/redis", "--name", "cache"], dir);
    assert.equal(added.status, 0, added.stderr);
    assert.equal(
      added.stdout,
      "created   k8s/cache-redis.yaml\nadded redis/cache: 1 file in k8s/ (1 created)\n",
    );
    assert.equal(
      tree(dir)["k8s/cache-redis.yaml"],
      "# redis 1.3.0\nimage: redis:7.4\nname: cache\n",
    );
    const lock = lockOf(dir);
    // a lock with a registry's item is format 2: a kiln before registries refuses it
    assert.equal(lock.version, 2);
    assert.equal(lock.components[0]?.reference, "@acme/redis");
    assert.deepEqual(lock.components[0]?.source, {
      type: "registry",
      registry: "@acme",
      item: "redis",
      version: "1.3.0",
      digest: digestOf(bytes["1.3.0"] as string),
    });
    assert.doesNotMatch(readFileSync(join(dir, "kiln.lock"), "utf8"), /127\.0\.0\.1|http/);
  });

  it("a pinned version is fetched, status names the newer one in one line, update keeps the pin until --to or --latest", async () => {
    publish(root, "pins", ["1.2.0", "1.3.0"]);
    const dir = projectWith(`[registries]\n"@acme" = "${nginx.origin}/open/pins/{name}.json"\n`);
    const added = await run(["add", "@acme/redis@1.2.0", "--name", "cache"], dir);
    assert.equal(added.status, 0, added.stderr);
    assert.match(tree(dir)["k8s/cache-redis.yaml"] ?? "", /^# redis 1\.2\.0\n/);
    assert.equal(lockOf(dir).components[0]?.source.version, "1.2.0");

    const status = await run(["status"], dir);
    assert.equal(status.status, 0, status.stderr);
    const newer = status.stdout.split("\n").filter((line) => line.includes("newer version"));
    assert.deepEqual(newer, [
      "  newer version: 1.3.0 (kiln.lock pins 1.2.0) - `kiln update redis/cache --to 1.3.0` takes it",
    ]);
    const json = JSON.parse((await run(["status", "--json"], dir)).stdout) as {
      components: { newerVersion?: string }[];
    };
    assert.equal(json.components[0]?.newerVersion, "1.3.0");

    const kept = await run(["update"], dir);
    assert.equal(kept.status, 0, kept.stderr);
    assert.match(tree(dir)["k8s/cache-redis.yaml"] ?? "", /^# redis 1\.2\.0\n/);
    assert.equal(lockOf(dir).components[0]?.source.version, "1.2.0");

    const moved = await run(["update", "cache", "--to", "1.3.0"], dir);
    assert.equal(moved.status, 0, moved.stderr);
    assert.match(tree(dir)["k8s/cache-redis.yaml"] ?? "", /^# redis 1\.3\.0\n/);
    assert.equal(lockOf(dir).components[0]?.source.version, "1.3.0");
    // the reference typed with a version names the one the lock pins now
    assert.equal(lockOf(dir).components[0]?.reference, "@acme/redis@1.3.0");
    const current = await run(["status"], dir);
    assert.doesNotMatch(current.stdout, /newer version/);

    const back = await run(["update", "--to", "1.2.0"], dir);
    assert.equal(back.status, 0, back.stderr);
    const latest = await run(["update", "--latest"], dir);
    assert.equal(latest.status, 0, latest.stderr);
    assert.equal(lockOf(dir).components[0]?.source.version, "1.3.0");
  });

  it("bytes that differ from the digest recorded for the same version are refused, nothing written", async () => {
    const bytes = publish(root, "tamper", ["1.2.0"]);
    const dir = projectWith(`[registries]\n"@acme" = "${nginx.origin}/open/tamper/{name}.json"\n`);
    assert.equal((await run(["add", "@acme/redis@1.2.0", "--name", "cache"], dir)).status, 0);
    const before = tree(dir);
    const changed = (bytes["1.2.0"] as string).replace("a Redis cache", "a changed cache");
    writeFileSync(join(root, "tamper", "redis@1.2.0.json"), changed);
    const update = await run(["update"], dir);
    assert.equal(update.status, 1);
    assert.equal(
      update.stderr.split("\n")[0],
      `error: the item @acme/redis@1.2.0 changed on the registry without a new version - digest ${digestOf(bytes["1.2.0"] as string)} recorded, ${digestOf(changed)} served`,
    );
    assert.match(update.stderr, /publish the change as a new version/);
    assert.deepEqual(tree(dir), before);
    // another component of the same version is held to the same digest
    const again = await run(["add", "@acme/redis@1.2.0", "--name", "other"], dir);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /changed on the registry without a new version/);
    // an item whose bytes do not match the index's digest is refused on the first add too
    const fresh = projectWith(
      `[registries]\n"@acme" = "${nginx.origin}/open/tamper/{name}.json"\n`,
    );
    const first = await run(["add", "@acme/redis", "--name", "cache"], fresh);
    assert.equal(first.status, 1);
    assert.match(first.stderr, /^error: the item @acme\/redis@1\.2\.0 changed on the registry/);
    assert.equal(tree(fresh)["kiln.lock"], undefined);
  });

  it("a bearer token from the environment works, and is in no file and no output of add, status, diff, update", async () => {
    publish(root, "secure", ["1.0.0", "1.1.0"]);
    const dir = projectWith(
      `[registries."@secure"]\nurl = "${nginx.origin}/token/secure/{name}.json"\nheaders = { Authorization = "Bearer \${SECURE_TOKEN}" }\n`,
    );
    const env = { SECURE_TOKEN: TOKEN };
    const runs = [
      await run(["add", "@secure/redis@1.0.0", "--name", "cache"], dir, env),
      await run(["status"], dir, env),
      await run(["status", "--json"], dir, env),
      await run(["diff"], dir, env),
      await run(["update", "--latest", "--json"], dir, env),
      await run(["update", "--to", "9.9.9"], dir, env),
    ];
    for (const [at, result] of runs.slice(0, 5).entries()) {
      assert.equal(result.status, 0, `run ${at}: ${result.stderr}`);
    }
    assert.equal(lockOf(dir).components[0]?.source.version, "1.1.0");
    assert.equal(runs[5]?.status, 1);
    assert.match(runs[5]?.stderr ?? "", /failed to fetch the item @secure\/redis@9\.9\.9/);
    for (const result of runs) {
      assert.ok(!result.stdout.includes(TOKEN) && !result.stderr.includes(TOKEN));
    }
    for (const [path, content] of Object.entries(tree(dir))) {
      assert.ok(!content.includes(TOKEN), `${path} holds the token`);
    }
  });

  it("an unset variable is an error naming it and the registry; a 401 names the registry and the variable to set", async () => {
    publish(root, "secure2", ["1.0.0"]);
    const dir = projectWith(
      `[registries."@secure"]\nurl = "${nginx.origin}/token/secure2/{name}.json"\nheaders = { Authorization = "Bearer \${SECURE_TOKEN}" }\n`,
    );
    const unset = await run(["add", "@secure/redis", "--name", "cache"], dir);
    assert.equal(unset.status, 1);
    assert.equal(
      unset.stderr,
      "error: the registry @secure uses ${SECURE_TOKEN}, which is not set\n  set SECURE_TOKEN in the environment (e.g. `export SECURE_TOKEN=...`), or change the registry's entry in kiln.toml\n",
    );
    const wrong = "wrong-token-value-xyz";
    const refused = await run(["add", "@secure/redis", "--name", "cache"], dir, {
      SECURE_TOKEN: wrong,
    });
    assert.equal(refused.status, 1);
    assert.equal(
      refused.stderr,
      `error: the registry @secure refused kiln's request (HTTP 401 unauthorized) at ${nginx.origin}/token/secure2/registry.json\n  set SECURE_TOKEN to credentials it accepts (its entry in kiln.toml uses \${SECURE_TOKEN})\n`,
    );
    assert.ok(!refused.stderr.includes(wrong));
    assert.equal(tree(dir)["kiln.lock"], undefined);
  });

  it("basic auth from a URL's user and password: works, and a wrong password's error shows *** in its place", async () => {
    publish(root, "basic", ["2.0.0"]);
    const dir = projectWith(
      `[registries]\n"@team" = "http://${USER}:\${REG_PASS}@127.0.0.1:${new URL(nginx.origin).port}/basic/basic/{name}.json"\n`,
    );
    const added = await run(["add", "@team/redis", "--name", "cache"], dir, { REG_PASS: PASSWORD });
    assert.equal(added.status, 0, added.stderr);
    assert.equal(lockOf(dir).components[0]?.source.version, "2.0.0");
    const wrong = "not-the-password-123";
    const refused = await run(["add", "@team/redis", "--name", "other"], dir, { REG_PASS: wrong });
    assert.equal(refused.status, 1);
    assert.match(
      refused.stderr,
      /^error: the registry @team refused kiln's request \(HTTP 401 unauthorized\) at http:\/\/\*\*\*@127\.0\.0\.1:\d+\/basic\/basic\/registry\.json\n {2}set REG_PASS to credentials/,
    );
    assert.ok(!refused.stderr.includes(wrong) && !refused.stderr.includes(`${USER}:`));
    for (const content of Object.values(tree(dir))) assert.ok(!content.includes(PASSWORD));
  });

  it("a token in the URL's query: sent, and shown as *** where the URL is named", async () => {
    publish(root, "query", ["1.0.0"]);
    const dir = projectWith(
      `[registries]\n"@q" = "${nginx.origin}/open/query/{name}.json?token=\${Q_TOKEN}&v=2"\n`,
    );
    const env = { Q_TOKEN: TOKEN };
    const added = await run(["add", "@q/redis", "--name", "cache"], dir, env);
    assert.equal(added.status, 0, added.stderr);
    const missing = await run(["add", "@q/redis@4.0.0", "--name", "other"], dir, env);
    assert.equal(missing.status, 1);
    assert.equal(
      missing.stderr,
      `error: failed to fetch the item @q/redis@4.0.0 from @q at ${nginx.origin}/open/query/redis@4.0.0.json?token=***&v=2\n  HTTP status 404\n`,
    );
    for (const content of Object.values(tree(dir))) assert.ok(!content.includes(TOKEN));
  });

  it("a redirect to another origin is followed without the configured headers", async () => {
    // /away/ asks for the token (so the header did reach nginx), then sends kiln elsewhere
    publish(root, "moved", ["1.0.0"]);
    const dir = projectWith(
      `[registries."@far"]\nurl = "${nginx.origin}/away/{name}.json"\nheaders = { Authorization = "Bearer \${FAR_TOKEN}", X-Team = "\${FAR_TOKEN}" }\n`,
    );
    otherOriginSaw.length = 0;
    const added = await run(["add", "@far/redis", "--name", "cache"], dir, { FAR_TOKEN: TOKEN });
    assert.equal(added.status, 0, added.stderr);
    // the index and the item, both from the other origin
    assert.equal(otherOriginSaw.length, 2);
    for (const headers of otherOriginSaw) {
      assert.equal(headers.authorization, undefined);
      assert.equal(headers["x-team"], undefined);
    }
    // without the token nginx refuses before any redirect: the header was what it got
    const refused = await run(["add", "@far/redis", "--name", "x"], dir, {
      FAR_TOKEN: "nope-nope",
    });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /HTTP 401/);
  });
});

describe("a run's requests to registries", { skip }, () => {
  it("are at most 64, whatever kiln.lock names: the rest are not made, and each component says why", async () => {
    const dir = projectWith(`[registries]\n"@acme" = "${otherOrigin}/{name}.json"\n`);
    const components = Array.from({ length: 70 }, (_, at) => ({
      component: "cache/redis",
      fields: {},
      files: [],
      fingerprint: `sha256:${"0".repeat(64)}`,
      labels: {},
      name: `cache${at}`,
      namespace: "default",
      reference: `@acme/redis@9.0.${at}`,
      source: {
        digest: `sha256:${"0".repeat(64)}`,
        item: "redis",
        registry: "@acme",
        type: "registry",
        version: `9.0.${at}`,
      },
    }));
    write(dir, "kiln.lock", `${JSON.stringify({ version: 2, components })}\n`);
    otherOriginSaw.length = 0;
    const status = await run(["status", "--json"], dir);
    assert.equal(status.status, 0, status.stderr);
    assert.equal(otherOriginSaw.length, 64);
    const errors = (JSON.parse(status.stdout) as { components: { error?: string }[] }).components;
    const refused = errors.filter((component) =>
      /^failed to fetch the item @acme\/redis@9\.0\.\d+ from @acme/.test(component.error ?? ""),
    );
    assert.equal(refused.length, 70);
    // the ones past the bound fail without a request, and say so
    const client = new RegistryClient(dir, { env: { XDG_CONFIG_HOME: tempDir() } });
    const results = await Promise.allSettled(
      Array.from({ length: 65 }, (_, at) => client.resolve(`@acme/redis@9.2.${at}`)),
    );
    const last = results.at(-1) as PromiseRejectedResult;
    assert.equal(last.status, "rejected");
    assert.equal(
      (last.reason as { detail?: string }).detail,
      "not fetched: a run of kiln makes at most 64 requests to registries, and this one needs more",
    );
  });
});

describe("where registries are configured", { skip }, () => {
  it("the user's config.toml is read, and the project's entry for a namespace wins over it", async () => {
    publish(root, "user-a", ["1.0.0"]);
    publish(root, "user-b", ["2.0.0"]);
    const config = tempDir();
    write(
      config,
      "kiln/config.toml",
      `[registries]\n"@acme" = "${nginx.origin}/open/user-a/{name}.json"\n`,
    );
    const env = { XDG_CONFIG_HOME: config };
    const fromUser = project();
    const used = await run(["add", "@acme/redis", "--name", "cache"], fromUser, env);
    assert.equal(used.status, 0, used.stderr);
    assert.equal(lockOf(fromUser).components[0]?.source.version, "1.0.0");
    const own = projectWith(`[registries]\n"@acme" = "${nginx.origin}/open/user-b/{name}.json"\n`);
    const wins = await run(["add", "@acme/redis", "--name", "cache"], own, env);
    assert.equal(wins.status, 0, wins.stderr);
    assert.equal(lockOf(own).components[0]?.source.version, "2.0.0");
    // and update re-resolves through the configuration of the day
    write(
      config,
      "kiln/config.toml",
      `[registries]\n"@acme" = "${nginx.origin}/open/nowhere/{name}.json"\n`,
    );
    const gone = await run(["update"], fromUser, env);
    assert.equal(gone.status, 1);
    assert.match(
      gone.stderr,
      /failed to fetch the item @acme\/redis@1\.0\.0 from @acme at .*nowhere/,
    );
  });
});

describe("a preset naming a registry's item", { skip }, () => {
  it("setup records it by namespace, version and digest, as add does", async () => {
    const bytes = publish(root, "preset", ["1.2.0", "1.3.0"]);
    const config = tempDir();
    write(
      config,
      "kiln/config.toml",
      `[registries]\n"@acme" = "${nginx.origin}/open/preset/{name}.json"\n`,
    );
    const dir = tempDir();
    write(
      dir,
      "team.preset.json",
      JSON.stringify({
        name: "team",
        components: [{ reference: "@acme/redis@1.2.0", name: "cache", fields: {} }],
      }),
    );
    const setup = await run(["setup", "./team.preset.json"], dir, { XDG_CONFIG_HOME: config });
    assert.equal(setup.status, 0, setup.stderr);
    assert.deepEqual(lockOf(dir).components[0]?.source, {
      type: "registry",
      registry: "@acme",
      item: "redis",
      version: "1.2.0",
      digest: digestOf(bytes["1.2.0"] as string),
    });
  });
});

describe("registries without a server", () => {
  it("an unknown namespace names the configured ones, the nearest, and how to configure one", async () => {
    const dir = projectWith(`[registries]\n"@acme" = "https://registry.acme.test/r/{name}.json"\n`);
    const result = await run(["add", "@acmee/redis", "--name", "cache"], dir);
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr,
      [
        "error: `@acmee/redis` names the registry @acmee, which is not configured; did you mean `@acme`?",
        "  configured: @acme, @kiln",
        "  add it to kiln.toml (this project) or to $XDG_CONFIG_HOME/kiln/config.toml (every project):",
        "    [registries]",
        '    "@acmee" = "https://registry.example/r/{name}.json"',
        "",
      ].join("\n"),
    );
  });

  it("a typo in a registry's table is an unknown key with its line; a bad namespace and a bad header are refused", async () => {
    const typo = projectWith(`[registries."@secure"]\nurll = "https://x.test/{name}.json"\n`);
    const result = await run(["add", "@secure/redis", "--name", "cache"], typo);
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr,
      'error: kiln.toml, line 7: unknown key `urll` in [registries."@secure"]; did you mean `url`? - fix it or run `kiln init --force`\n  the keys of a registry\'s table: url, headers, index\n',
    );
    const badName = projectWith(`[registries]\n"acme" = "https://x.test/{name}.json"\n`);
    assert.match(
      (await run(["status"], badName)).stderr,
      /`acme` in \[registries\] is not a namespace/,
    );
    const badHeader = projectWith(
      `[registries."@a"]\nurl = "https://x.test/{name}.json"\nheaders = { "Bad Header" = "x" }\n`,
    );
    assert.match((await run(["status"], badHeader)).stderr, /`Bad Header` is not a header name/);
  });

  it("setup --force writes kiln.toml anew from the preset and keeps the project's [registries]", async () => {
    const dir = projectWith(
      `[registries."@secure"]\nurl = "https://r.test/{name}.json"\nheaders = { Authorization = "Bearer \${T}" }\n`,
    );
    const setup = await run(["setup", "k8s-web-app", "--force"], dir);
    assert.equal(setup.status, 0, setup.stderr);
    const text = readFileSync(join(dir, "kiln.toml"), "utf8");
    assert.match(text, /^\[project\]\nname = "web-app"\n/);
    assert.match(text, /\n\[registries\."@secure"\]\nurl = "https:\/\/r\.test\/\{name\}\.json"\n/);
    assert.match(text, /Authorization = "Bearer \$\{T\}"/);
    // and it reads back: the unset variable is named when the registry is used
    const add = await run(["add", "@secure/redis", "--name", "cache"], dir);
    assert.match(add.stderr, /^error: the registry @secure uses \$\{T\}, which is not set/);
  });

  it("a user config.toml larger than 1 MiB is refused", async () => {
    const config = tempDir();
    write(config, "kiln/config.toml", `# ${"x".repeat(1024 * 1024)}\n`);
    const dir = project();
    const result = await run(["add", "@acme/redis", "--name", "cache"], dir, {
      XDG_CONFIG_HOME: config,
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /config\.toml is larger than 1048576 bytes/);
  });

  it("a lock with a registry's item is format 2, refused with the newer-lock message by a kiln that reads less", async () => {
    const dir = project();
    const lock = {
      version: 3,
      components: [],
    };
    write(dir, "kiln.lock", `${JSON.stringify(lock)}\n`);
    const result = await run(["status"], dir);
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr,
      "error: this kiln.lock was written by a newer kiln - upgrade kiln\n  it has format version 3; this kiln reads versions up to 2\n",
    );
    // a lock without a registry's item stays format 1, which every kiln reads
    const plain = project();
    assert.equal((await run(["add", "k8s/service", "--name", "web"], plain)).status, 0);
    assert.equal(lockOf(plain).version, 1);
  });
});

describe("@kiln, kiln's own registry", () => {
  it("its built items resolve from the package with no configuration: pinned to the index's version and digest, and kiln check reads their networks", async () => {
    const index = JSON.parse(
      readFileSync(join(REPO, "dist", "registries", "kiln", "registry.json"), "utf8"),
    ) as { items: { name: string; version: string; digest: string }[] };
    const aws = index.items.find((item) => item.name === "aws-server");
    assert.ok(aws, "@kiln lists aws-server");
    const dir = project();
    const server = (name: string, network: string) =>
      run(
        [
          "add",
          "@kiln/aws-server",
          "--name",
          name,
          "--set",
          "region=eu-west-1",
          "--set",
          "size=t3.micro",
          "--set",
          `private_network=${network}`,
        ],
        dir,
      );
    const added = await server("web", "10.0.0.0/16");
    assert.equal(added.status, 0, added.stderr);
    assert.deepEqual(lockOf(dir).components[0]?.source, {
      type: "registry",
      registry: "@kiln",
      item: "aws-server",
      version: aws.version,
      digest: aws.digest,
    });
    assert.equal((await server("db", "10.0.1.0/24")).status, 0);
    const check = await run(["check"], dir);
    assert.match(check.stdout + check.stderr, /warning\[cidr-overlap\] @kiln\/aws-server `db`/);
  });

  it("the built CLI reads it from registries/kiln beside its own folder: no configuration, no network, pinned and verified", async () => {
    // a copy of the package as installed (package.json and dist/), with a built @kiln folder
    // (the build of @kiln's own items puts the real one there)
    const packageDir = copyOfPackage();
    const registries = join(packageDir, "dist", "registries");
    rmSync(registries, { recursive: true, force: true });
    const bytes = publish(registries, "kiln", ["0.1.0"]);
    const copy = (args: string[], cwd: string) =>
      new Promise<Run>((resolve) => {
        const child = spawn(
          process.execPath,
          [join(packageDir, "dist", "cli", "main.js"), ...args],
          {
            cwd,
            env: cleanEnv({ XDG_CONFIG_HOME: join(cwd, "..", "no-config") }),
          },
        );
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.on("close", (status) => resolve({ status, stdout, stderr }));
      });
    const dir = project();
    const added = await copy(["add", "@kiln/redis", "--name", "cache"], dir);
    assert.equal(added.status, 0, added.stderr);
    assert.equal(
      added.stdout,
      "created   k8s/cache-redis.yaml\nadded redis/cache: 1 file in k8s/ (1 created)\n",
    );
    assert.deepEqual(lockOf(dir).components[0]?.source, {
      type: "registry",
      registry: "@kiln",
      item: "redis",
      version: "0.1.0",
      digest: digestOf(bytes["0.1.0"] as string),
    });
    writeFileSync(join(registries, "kiln", "redis@0.1.0.json"), "{}\n");
    const update = await copy(["update"], dir);
    assert.equal(update.status, 1);
    assert.match(
      update.stderr,
      /^error: the item @kiln\/redis@0\.1\.0 changed on the registry without a new version/,
    );
  });

  it("is read from its folder with no configuration and no network, verified like any registry", async () => {
    const folder = tempDir();
    const bytes = publish(folder, "kiln", ["0.1.0"]);
    const client = new RegistryClient(tempDir(), {
      kilnDir: join(folder, "kiln"),
      env: { XDG_CONFIG_HOME: tempDir() },
    });
    const resolved = await client.resolve("@kiln/redis");
    assert.equal(resolved.item.name, "redis");
    assert.deepEqual(resolved.source, {
      type: "registry",
      registry: "@kiln",
      item: "redis",
      version: "0.1.0",
      digest: digestOf(bytes["0.1.0"] as string),
    });
    const missing = new RegistryClient(tempDir(), { kilnDir: join(folder, "kiln") });
    await assert.rejects(
      missing.resolve("@kiln/nothing"),
      /the registry @kiln has no item `nothing`/,
    );
    await assert.rejects(
      missing.resolve("@kiln/registry"),
      /`registry` is the name of a registry's index/,
    );
  });
});
