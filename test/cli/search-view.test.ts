// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` in kiln.toml's registry entries is what is tested
// Finding an item before adding it, from the real binary against real registries: Debian's
// nginx serves two built registries on a loopback port (@acme open, @team behind a bearer
// token). `kiln search` matches across the built-ins, @kiln and both; `kiln view` prints an
// item's fields, files and example render and writes nothing; `kiln list @acme` lists one.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { nginxSkip, startNginx, type TestNginx } from "../tools/nginx.ts";
import {
  cleanUp,
  ensureBuilt,
  kilnAsync,
  project,
  type Run,
  tempDir,
  tree,
  write,
} from "./helpers.ts";
import { publishRegistry } from "./registry-fixture.ts";

const TOKEN = "tok-search-5ecret-77aa";

/** A registry item with one required field (with an example) and one with a default. */
function item(name: string, category: string, title: string, description: string) {
  return {
    name,
    category,
    title,
    description,
    fields: [
      { name: "image", required: true, example: `${name}:1.0`, description: "Container image" },
      { name: "port", default: "6379", format: "port" },
    ],
    files: [
      {
        path: `{{ name }}-${name}.yaml`,
        template: "image: {{ image }}\nport: {{ port }}\nname: {{ name }}\n",
      },
    ],
  };
}

let nginx: TestNginx;
let root: string;
/** A loopback port nothing listens on. */
let closedPort = 0;

const skip = nginxSkip();

before(async () => {
  ensureBuilt();
  if (skip) return;
  root = tempDir();
  publishRegistry(join(root, "acme"), "acme", [
    { item: item("redis", "cache", "Redis", "A single Redis pod."), version: "1.2.0" },
    {
      item: item("cache-proxy", "net", "Cache proxy", "A proxy in front of Redis."),
      version: "0.3.0",
    },
    { item: item("postgres", "db", "PostgreSQL", "A database."), version: "2.1.0" },
  ]);
  publishRegistry(join(root, "team"), "team", [
    {
      item: item("hosted-redis", "cache", "Hosted Redis", "Redis as a service."),
      version: "1.0.0",
    },
    { item: item("redis-cluster", "cache", "Redis cluster", "Three nodes."), version: "2.0.0" },
    {
      item: item("ingress-gateway", "k8s", "Gateway", "An ingress in front of all."),
      version: "1.1.0",
    },
  ]);
  nginx = await startNginx({ root, token: TOKEN, user: "u", password: "p" });
  closedPort = await new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
});

after(async () => {
  await nginx?.stop();
  cleanUp();
});

/** A project configured with @acme (open) and @team (bearer token), plus `extra` TOML lines. */
function configured(extra = ""): string {
  const dir = project();
  const text = readFileSync(join(dir, "kiln.toml"), "utf8");
  write(
    dir,
    "kiln.toml",
    `${text}\n[registries]\n"@acme" = "${nginx.origin}/open/acme/{name}.json"\n${extra}\n[registries."@team"]\nurl = "${nginx.origin}/token/team/{name}.json"\nheaders = { Authorization = "Bearer \${TEAM_TOKEN}" }\n`,
  );
  return dir;
}

/** kiln with an empty cache of its own each run: these tests are of the registries' requests. */
function run(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return kilnAsync(args, cwd, {
    XDG_CONFIG_HOME: join(cwd, "..", "no-config"),
    XDG_CACHE_HOME: tempDir(),
    TEAM_TOKEN: TOKEN,
    ...env,
  });
}

describe("kiln search", { skip }, () => {
  it("finds across the registries, exact name first, then name prefix, name contains, other fields", async () => {
    const dir = configured();
    const found = await run(["search", "redis"], dir);
    assert.equal(found.status, 0, found.stderr);
    assert.equal(found.stderr, "");
    assert.equal(
      found.stdout,
      [
        "@acme/redis          1.2.0  Redis",
        "@team/redis-cluster  2.0.0  Redis cluster",
        "@team/hosted-redis   1.0.0  Hosted Redis",
        "@acme/cache-proxy    0.3.0  Cache proxy",
        "",
      ].join("\n"),
    );
  });

  it("searches the built-ins and @kiln beside the configured registries, case-insensitively", async () => {
    const dir = configured();
    const found = await run(["search", "INGRESS"], dir);
    assert.equal(found.status, 0, found.stderr);
    const lines = found.stdout.split("\n");
    assert.match(lines[0] ?? "", /^k8s\/ingress +built-in +Ingress/);
    assert.match(lines[1] ?? "", /^@team\/ingress-gateway +1\.1\.0 +Gateway$/);
    const servers = await run(["search", "aws"], dir);
    assert.match(servers.stdout, /^@kiln\/aws-server +\d+\.\d+\.\d+ +AWS/m);
  });

  it("--registry searches one registry only; an unknown one is an error naming the configured ones", async () => {
    const dir = configured();
    const team = await run(["search", "redis", "--registry", "@team"], dir);
    assert.equal(team.status, 0, team.stderr);
    assert.deepEqual(
      team.stdout
        .trimEnd()
        .split("\n")
        .map((line) => line.split(" ")[0]),
      ["@team/redis-cluster", "@team/hosted-redis"],
    );
    const builtins = await run(["search", "--registry", "builtin"], dir);
    assert.equal(builtins.stdout.trimEnd().split("\n").length, 13);
    const unknown = await run(["search", "redis", "--registry", "@acmee"], dir);
    assert.equal(unknown.status, 1);
    assert.match(
      unknown.stderr,
      /^error: `@acmee` names the registry @acmee, which is not configured; did you mean `@acme`\?/,
    );
    assert.match(unknown.stderr, /configured: @acme, @kiln, @team/);
  });

  it("--json is an array of {registry, reference, name, version, title, description, category}", async () => {
    const dir = configured();
    const found = await run(["search", "ingress", "--json"], dir);
    assert.equal(found.status, 0, found.stderr);
    const results = JSON.parse(found.stdout) as Record<string, unknown>[];
    for (const result of results) {
      assert.deepEqual(Object.keys(result), [
        "registry",
        "reference",
        "name",
        "version",
        "title",
        "description",
        "category",
      ]);
    }
    assert.deepEqual(results[0], {
      registry: "builtin",
      reference: "k8s/ingress",
      name: "ingress",
      version: null,
      title: "Ingress",
      description: results[0]?.description,
      category: "k8s",
    });
    assert.deepEqual(results[1], {
      registry: "@team",
      reference: "@team/ingress-gateway",
      name: "ingress-gateway",
      version: "1.1.0",
      title: "Gateway",
      description: "An ingress in front of all.",
      category: "k8s",
    });
  });

  it("a registry that cannot be reached is a warning naming it, its secret redacted; the others are searched, exit 0", async () => {
    const dir = configured(
      `"@down" = "http://127.0.0.1:${closedPort}/r/{name}.json?token=\${DOWN_TOKEN}"\n`,
    );
    const env = { DOWN_TOKEN: "down-5ecret-token" };
    const found = await run(["search", "redis"], dir, env);
    assert.equal(found.status, 0, found.stderr);
    assert.match(found.stdout, /^@acme\/redis /m);
    assert.match(
      found.stderr,
      new RegExp(
        `^warning: @down was not searched: failed to fetch its index from @down at http://127\\.0\\.0\\.1:${closedPort}/r/registry\\.json\\?token=\\*\\*\\* `,
      ),
    );
    assert.equal(found.stderr.trimEnd().split("\n").length, 1);
    // a token that is not set is the same warning, naming the variable
    const unset = await run(["search", "redis"], dir, { ...env, TEAM_TOKEN: "" });
    assert.equal(unset.status, 0);
    assert.doesNotMatch(unset.stdout, /@team/);
    assert.match(unset.stderr, /^warning: @team was not searched: .*TEAM_TOKEN/m);
    for (const output of [found.stdout, found.stderr, unset.stdout, unset.stderr]) {
      assert.doesNotMatch(output, /down-5ecret-token|tok-search-5ecret/);
    }
    // only when every source failed is it an error
    const alone = await run(["search", "redis", "--registry", "@down"], dir, env);
    assert.equal(alone.status, 1);
    assert.match(alone.stderr, /^error: no registry could be searched \(@down\)/);
    assert.doesNotMatch(alone.stderr, /down-5ecret-token/);
  });
});

describe("kiln view", { skip }, () => {
  it("prints a registry item's fields, files and example render, and writes nothing", async () => {
    const dir = configured();
    const before = tree(dir);
    const viewed = await run(["view", "@acme/redis"], dir);
    assert.equal(viewed.status, 0, viewed.stderr);
    assert.equal(
      viewed.stdout,
      [
        "@acme/redis 1.2.0 - Redis",
        "A single Redis pod.",
        "category: cache",
        "",
        "fields:",
        "  image  Container image (required, example redis:1.0)",
        "  port   (format port, default 6379)",
        "",
        "files:",
        "  {{ name }}-redis.yaml",
        "",
        "example (--name redis, image=redis:1.0, port=6379):",
        "---",
        "# Source: redis-redis.yaml",
        "image: redis:1.0",
        "port: 6379",
        "name: redis",
        "",
      ].join("\n"),
    );
    assert.deepEqual(tree(dir), before);
  });

  it("--json holds the fields, files and the example's values and files", async () => {
    const dir = configured();
    const viewed = await run(["view", "@team/redis-cluster@2.0.0", "--json"], dir);
    assert.equal(viewed.status, 0, viewed.stderr);
    const view = JSON.parse(viewed.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(view), [
      "reference",
      "name",
      "version",
      "category",
      "title",
      "description",
      "fields",
      "files",
      "example",
    ]);
    assert.equal(view.version, "2.0.0");
    assert.deepEqual(view.fields, [
      {
        name: "image",
        format: null,
        required: true,
        default: null,
        description: "Container image",
        example: "redis-cluster:1.0",
      },
      {
        name: "port",
        format: "port",
        required: false,
        default: "6379",
        description: null,
        example: null,
      },
    ]);
    assert.deepEqual(view.files, ["{{ name }}-redis-cluster.yaml"]);
    assert.deepEqual(view.example, {
      values: { image: "redis-cluster:1.0", port: "6379" },
      files: [
        {
          path: "redis-cluster-redis-cluster.yaml",
          content: "image: redis-cluster:1.0\nport: 6379\nname: redis-cluster\n",
        },
      ],
    });
  });

  it("works for a built-in, @kiln, a URL and a file, writing nothing", async () => {
    const dir = configured();
    write(dir, "mine.json", `${JSON.stringify(item("mine", "apps", "Mine", "My own."))}\n`);
    const before = tree(dir);
    const builtin = await run(["view", "k8s/service"], dir);
    assert.equal(builtin.status, 0, builtin.stderr);
    assert.match(builtin.stdout, /^k8s\/service - Service\n/);
    assert.match(builtin.stdout, /^# Source: service-service\.yaml$/m);
    const kiln = await run(["view", "@kiln/aws-server"], dir);
    assert.equal(kiln.status, 0, kiln.stderr);
    assert.match(kiln.stdout, /^ {2}private_network +.*format cidr/m);
    assert.match(kiln.stdout, /^# Source: aws-server-aws\/aws-server-aws\.tf$/m);
    const url = await run(["view", `${nginx.origin}/open/acme/postgres.json`], dir);
    assert.equal(url.status, 0, url.stderr);
    assert.match(url.stdout, /^image: postgres:1\.0$/m);
    const file = await run(["view", "./mine.json"], dir);
    assert.equal(file.status, 0, file.stderr);
    assert.match(file.stdout, /^\.\/mine\.json - Mine\n/);
    assert.match(file.stdout, /^# Source: mine-mine\.yaml\nimage: mine:1\.0\n/m);
    assert.deepEqual(tree(dir), before);
  });
});

describe("kiln view of an item that cannot render its example", () => {
  it("says why on the example line and exits 0, writing nothing", async () => {
    const dir = project();
    write(
      dir,
      "bare.json",
      `${JSON.stringify({
        name: "bare",
        category: "apps",
        fields: [{ name: "image", required: true }],
        files: [{ path: "{{ name }}.yaml", template: "image: {{ image }}\n" }],
      })}\n`,
    );
    const before = tree(dir);
    const viewed = await run(["view", "./bare.json"], dir);
    assert.equal(viewed.status, 0, viewed.stderr);
    assert.match(viewed.stdout, /^ {2}image {2}\(required\)$/m);
    assert.match(viewed.stdout, /^example: not rendered \(--name bare\): .*image.* is required/m);
    const json = JSON.parse((await run(["view", "./bare.json", "--json"], dir)).stdout) as {
      example: { values: object; error: string };
    };
    assert.deepEqual(json.example.values, {});
    assert.match(json.example.error, /image.* is required/);
    assert.deepEqual(tree(dir), before);
  });
});

describe("kiln list @acme", { skip }, () => {
  it("lists one registry's items in its index's order; --json as search's", async () => {
    const dir = configured();
    const listed = await run(["list", "@acme"], dir);
    assert.equal(listed.status, 0, listed.stderr);
    assert.equal(
      listed.stdout,
      [
        "@acme/redis        1.2.0  Redis",
        "@acme/cache-proxy  0.3.0  Cache proxy",
        "@acme/postgres     2.1.0  PostgreSQL",
        "",
      ].join("\n"),
    );
    const json = JSON.parse((await run(["list", "@team", "--json"], dir)).stdout) as {
      items: { reference: string }[];
    };
    assert.deepEqual(
      json.items.map((entry) => entry.reference),
      ["@team/hosted-redis", "@team/redis-cluster", "@team/ingress-gateway"],
    );
    const notOne = await run(["list", "acme"], dir);
    assert.equal(notOne.status, 2);
    assert.match(notOne.stderr, /^error: unexpected argument `acme`/);
    const badNamespace = await run(["list", "@Acme"], dir);
    assert.equal(badNamespace.status, 2);
    assert.match(badNamespace.stderr, /^error: `@Acme` is not a registry/);
  });

  it("takes --offline as the other registry commands do: the index from kiln's cache, or an error naming what is not cached", async () => {
    const dir = configured();
    const cache = { XDG_CACHE_HOME: tempDir() };
    const online = await run(["list", "@acme"], dir, cache);
    assert.equal(online.status, 0, online.stderr);
    const offline = await run(["list", "@acme", "--offline"], dir, cache);
    assert.equal(offline.status, 0, offline.stderr);
    assert.equal(offline.stdout, online.stdout);
    const cold = await run(["list", "@acme", "--offline"], dir);
    assert.equal(cold.status, 1);
    assert.match(
      cold.stderr,
      /^error: the index of @acme is not in kiln's cache \(.*\) - run without --offline once to fetch it\n$/,
    );
  });
});
