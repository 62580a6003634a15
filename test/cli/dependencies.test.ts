// Dependencies between items, from the real binary against a real web server: Debian's nginx
// serving two built registries (@acme and @ops) on a loopback port. `kiln add` of an item
// adds the dependencies the project lacks in the same all-or-nothing write, recursively across
// namespaces, keeps the ones it has, refuses a cycle naming it, and writes nothing when a
// dependency fails; kiln.lock records who needs whom and `kiln remove` warns about it.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

interface Item {
  name: string;
  category: string;
  fields?: { name: string; default?: string; required?: boolean }[];
  files: { path: string; template: string }[];
  dependencies?: { reference: string; name: string; fields?: Record<string, string> }[];
}

/** An item whose one file names its item, component name and `memory` field. */
function item(name: string, dependencies: Item["dependencies"] = []): Item {
  return {
    name,
    category: "apps",
    fields: [{ name: "memory", default: "256Mi" }],
    files: [
      {
        path: `{{ name }}-${name}.yaml`,
        template: `kind: ${name}\nname: {{ name }}\nmemory: {{ memory }}\n`,
      },
    ],
    ...(dependencies.length > 0 ? { dependencies } : {}),
  };
}

function digestOf(bytes: string): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** A built registry in `root/<folder>/`: each item at version 1.0.0, and its index. */
function publish(root: string, folder: string, items: Item[]): void {
  const dir = join(root, folder);
  mkdirSync(dir, { recursive: true });
  const entries = items.map((entry) => {
    const bytes = `${JSON.stringify({ ...entry, version: "1.0.0" }, null, 2)}\n`;
    writeFileSync(join(dir, `${entry.name}.json`), bytes);
    writeFileSync(join(dir, `${entry.name}@1.0.0.json`), bytes);
    return {
      name: entry.name,
      category: entry.category,
      title: entry.name,
      description: "",
      version: "1.0.0",
      digest: digestOf(bytes),
    };
  });
  writeFileSync(
    join(dir, "registry.json"),
    `${JSON.stringify({ name: folder, homepage: "https://example.test", items: entries })}\n`,
  );
}

let nginx: TestNginx;
let root: string;
const skip = nginxSkip();

before(async () => {
  ensureBuilt();
  if (skip) return;
  root = tempDir();
  // @acme/app needs @ops/redis, which needs @acme/netpol and the built-in k8s/service: a chain
  // two levels deep through both namespaces
  publish(root, "acme", [
    item("app", [
      { reference: "@ops/redis", name: "{{ name }}-cache", fields: { memory: "{{ memory }}" } },
    ]),
    item("netpol"),
    item("a", [{ reference: "@acme/b", name: "{{ name }}-b" }]),
    item("b", [{ reference: "@acme/a", name: "{{ name }}-a" }]),
    item("broken", [{ reference: "@ops/missing", name: "{{ name }}-x" }]),
    item("local", [{ reference: "./other.json", name: "{{ name }}-x" }]),
    item("noname", [{ reference: "@acme/netpol", name: "{{ '' }}" }]),
    item("badtpl", [
      { reference: "@acme/netpol", name: "{{ name }}", fields: { memory: "{{ name | nope }}" } },
    ]),
  ]);
  publish(root, "ops", [
    item("redis", [
      { reference: "@acme/netpol", name: "{{ name }}" },
      { reference: "k8s/service", name: "{{ name }}", fields: { port: "6379" } },
    ]),
  ]);
  nginx = await startNginx({ root, token: "unused-token", user: "u", password: "p" });
});

after(async () => {
  await nginx?.stop();
  cleanUp();
});

/** A project with @acme and @ops configured. */
function registryProject(): string {
  const dir = project();
  const text = readFileSync(join(dir, "kiln.toml"), "utf8");
  write(
    dir,
    "kiln.toml",
    `${text}\n[registries]\n"@acme" = "${nginx.origin}/open/acme/{name}.json"\n"@ops" = "${nginx.origin}/open/ops/{name}.json"\n`,
  );
  return dir;
}

function run(args: string[], cwd: string): Promise<Run> {
  return kilnAsync(args, cwd, { XDG_CONFIG_HOME: join(cwd, "no-config") });
}

interface LockJson {
  version: number;
  components: {
    name: string;
    component: string;
    reference: string;
    fields: Record<string, string>;
    dependencies?: { component: string; name: string }[];
  }[];
}

function lockOf(dir: string): LockJson {
  return JSON.parse(readFileSync(join(dir, "kiln.lock"), "utf8")) as LockJson;
}

describe("dependencies between items", { skip }, () => {
  it("add writes the item and its missing dependencies, two levels across two namespaces, in one write; the lock records who needs whom", async () => {
    const dir = registryProject();
    const added = await run(["add", "@acme/app", "--name", "shop", "--set", "memory=1Gi"], dir);
    assert.equal(added.status, 0, added.stderr);
    assert.equal(
      added.stdout,
      [
        "created   k8s/shop-app.yaml",
        "created   k8s/shop-cache-redis.yaml",
        "created   k8s/shop-cache-netpol.yaml",
        "created   k8s/shop-cache-service.yaml",
        "dependency shop-cache (@ops/redis), needed by shop: added",
        "dependency shop-cache (@acme/netpol), needed by shop-cache: added",
        "dependency shop-cache (k8s/service), needed by shop-cache: added",
        "added app/shop and 3 dependencies: 4 files in k8s/ (4 created)",
        "",
      ].join("\n"),
    );
    const files = tree(dir);
    // the dependency's field is the template `{{ memory }}` rendered with the app's values
    assert.equal(
      files["k8s/shop-cache-redis.yaml"],
      "kind: redis\nname: shop-cache\nmemory: 1Gi\n",
    );
    assert.equal(
      files["k8s/shop-cache-netpol.yaml"],
      "kind: netpol\nname: shop-cache\nmemory: 256Mi\n",
    );
    assert.match(files["k8s/shop-cache-service.yaml"] ?? "", /port: 6379/);
    const lock = lockOf(dir);
    const byName = (component: string) =>
      lock.components.find((entry) => entry.component === component);
    assert.deepEqual(byName("apps/app")?.dependencies, [
      { component: "apps/redis", name: "shop-cache" },
    ]);
    assert.deepEqual(byName("apps/redis")?.dependencies, [
      { component: "apps/netpol", name: "shop-cache" },
      { component: "k8s/service", name: "shop-cache" },
    ]);
    assert.equal(byName("apps/redis")?.reference, "@ops/redis");
    assert.deepEqual(byName("apps/redis")?.fields, { memory: "1Gi" });
    assert.equal(byName("apps/netpol")?.dependencies, undefined);
    assert.equal(lock.components.length, 4);
  });

  it("--dry-run names the dependencies that would be added and writes nothing", async () => {
    const dir = registryProject();
    const before = tree(dir);
    const planned = await run(["add", "@acme/app", "--name", "shop", "--dry-run"], dir);
    assert.equal(planned.status, 0, planned.stderr);
    assert.deepEqual(
      planned.stdout.split("\n").filter((line) => line.startsWith("dependency ")),
      [
        "dependency shop-cache (@ops/redis), needed by shop: would be added",
        "dependency shop-cache (@acme/netpol), needed by shop-cache: would be added",
        "dependency shop-cache (k8s/service), needed by shop-cache: would be added",
      ],
    );
    assert.deepEqual(tree(dir), before);
  });

  it("a dependency already in the project (same reference and name) is kept as it is, not added again", async () => {
    const dir = registryProject();
    const first = await run(
      ["add", "@ops/redis", "--name", "shop-cache", "--set", "memory=2Gi"],
      dir,
    );
    assert.equal(first.status, 0, first.stderr);
    const before = tree(dir);
    const added = await run(["add", "@acme/app", "--name", "shop"], dir);
    assert.equal(added.status, 0, added.stderr);
    assert.equal(
      added.stdout,
      "created   k8s/shop-app.yaml\ndependency shop-cache (@ops/redis), needed by shop: already in the project, kept\nadded app/shop: 1 file in k8s/ (1 created)\n",
    );
    const files = tree(dir);
    for (const path of Object.keys(before).filter((path) => path !== "kiln.lock")) {
      assert.equal(files[path], before[path], path);
    }
    const lock = lockOf(dir);
    assert.equal(lock.components.length, 4);
    const redis = lock.components.find((entry) => entry.component === "apps/redis");
    assert.deepEqual(redis?.fields, { memory: "2Gi" });
    const app = lock.components.find((entry) => entry.component === "apps/app");
    assert.deepEqual(app?.dependencies, [{ component: "apps/redis", name: "shop-cache" }]);
  });

  it("a cycle between items is refused, naming it, and nothing is written", async () => {
    const dir = registryProject();
    const before = tree(dir);
    const added = await run(["add", "@acme/a", "--name", "x"], dir);
    assert.equal(added.status, 1);
    assert.equal(added.stdout, "");
    assert.match(
      added.stderr,
      /^error: dependency cycle: @acme\/a -> @acme\/b -> @acme\/a - nothing was written\n/,
    );
    assert.deepEqual(tree(dir), before);
  });

  it("a dependency that fails to fetch (404) leaves the project untouched, naming the chain", async () => {
    const dir = registryProject();
    const before = tree(dir);
    const added = await run(["add", "@acme/broken", "--name", "x"], dir);
    assert.equal(added.status, 1);
    assert.match(added.stderr, /missing/);
    assert.match(
      added.stderr,
      /needed as a dependency: @acme\/broken -> @ops\/missing; nothing was written/,
    );
    assert.deepEqual(tree(dir), before);
  });

  it("a dependency naming a local file is refused: a stranger's item cannot make kiln read the user's files", async () => {
    const dir = registryProject();
    write(dir, "other.json", JSON.stringify(item("other")));
    const before = tree(dir);
    const added = await run(["add", "@acme/local", "--name", "x"], dir);
    assert.equal(added.status, 1);
    assert.match(
      added.stderr,
      /^error: the dependency `\.\/other\.json` is neither a built-in component, a registry's item \(@acme\/redis\) nor an http\(s\) URL - nothing was written\n/,
    );
    assert.deepEqual(tree(dir), before);
  });

  it("a dependency's template that fails is named as the item declares it, and nothing is written", async () => {
    const dir = registryProject();
    const before = tree(dir);
    const added = await run(["add", "@acme/badtpl", "--name", "x"], dir);
    assert.equal(added.status, 1);
    assert.match(added.stderr, /dependencies\[0\]\.fields\.memory/);
    assert.doesNotMatch(added.stderr, /files\[/);
    assert.deepEqual(tree(dir), before);
  });

  it("a dependency whose name renders empty is refused, and nothing is written", async () => {
    const dir = registryProject();
    const before = tree(dir);
    const added = await run(["add", "@acme/noname", "--name", "x"], dir);
    assert.equal(added.status, 1);
    assert.match(
      added.stderr,
      /^error: the dependency @acme\/netpol of @acme\/noname renders an empty name - nothing was written\n/,
    );
    assert.deepEqual(tree(dir), before);
  });

  it("an item from a file may declare a URL dependency, added with it", async () => {
    const dir = registryProject();
    write(
      dir,
      "items/web.json",
      JSON.stringify(
        item("web", [
          { reference: `${nginx.origin}/open/acme/netpol.json`, name: "{{ name }}-np" },
        ]),
      ),
    );
    const added = await run(["add", "./items/web.json", "--name", "site"], dir);
    assert.equal(added.status, 0, added.stderr);
    assert.equal(
      added.stdout,
      `created   k8s/site-web.yaml\ncreated   k8s/site-np-netpol.yaml\ndependency site-np (${nginx.origin}/open/acme/netpol.json), needed by site: added\nadded web/site and 1 dependency: 2 files in k8s/ (2 created)\n`,
    );
    const lock = lockOf(dir);
    assert.deepEqual(
      lock.components.find((entry) => entry.component === "apps/web")?.dependencies,
      [{ component: "apps/netpol", name: "site-np" }],
    );
  });

  it("setup of a preset adds its components' dependencies the preset does not hold, in the same write", async () => {
    const dir = tempDir();
    write(
      dir,
      "no-config/kiln/config.toml",
      `[registries]\n"@acme" = "${nginx.origin}/open/acme/{name}.json"\n"@ops" = "${nginx.origin}/open/ops/{name}.json"\n`,
    );
    // the preset holds the netpol redis needs (same item, same name): it is kept, not added twice
    write(
      dir,
      "shop.preset.json",
      JSON.stringify({
        name: "shop",
        components: [
          { reference: "@acme/app", name: "shop" },
          { reference: "@acme/netpol", name: "shop-cache", fields: { memory: "3Gi" } },
        ],
      }),
    );
    const set = await run(["setup", "./shop.preset.json"], dir);
    assert.equal(set.status, 0, set.stderr);
    const lines = set.stdout.split("\n");
    assert.deepEqual(
      lines.filter((line) => line.startsWith("dependency ")),
      [
        "dependency shop-cache (@ops/redis), needed by shop: added",
        "dependency shop-cache (k8s/service), needed by shop-cache: added",
        "dependency shop-cache (@acme/netpol), needed by shop-cache: already in the project, kept",
      ],
    );
    const files = tree(dir);
    assert.equal(
      files["k8s/shop-cache-netpol.yaml"],
      "kind: netpol\nname: shop-cache\nmemory: 3Gi\n",
    );
    assert.equal(
      files["k8s/shop-cache-redis.yaml"],
      "kind: redis\nname: shop-cache\nmemory: 256Mi\n",
    );
    assert.match(files["k8s/shop-cache-service.yaml"] ?? "", /port: 6379/);
    const lock = lockOf(dir);
    assert.equal(lock.components.length, 4);
    assert.deepEqual(
      lock.components.find((entry) => entry.component === "apps/redis")?.dependencies,
      [
        { component: "apps/netpol", name: "shop-cache" },
        { component: "k8s/service", name: "shop-cache" },
      ],
    );
  });

  it("update renders a component again and keeps its record of what it needs", async () => {
    const dir = registryProject();
    const added = await run(["add", "@acme/app", "--name", "shop"], dir);
    assert.equal(added.status, 0, added.stderr);
    const updated = await run(["update", "app/shop", "--set", "memory=2Gi"], dir);
    assert.equal(updated.status, 0, updated.stderr);
    const app = lockOf(dir).components.find((entry) => entry.component === "apps/app");
    assert.deepEqual(app?.fields, { memory: "2Gi" });
    assert.deepEqual(app?.dependencies, [{ component: "apps/redis", name: "shop-cache" }]);
  });

  it("remove warns when another component needs the removed one, naming both and the commands, and still removes it", async () => {
    const dir = registryProject();
    const added = await run(["add", "@acme/app", "--name", "shop"], dir);
    assert.equal(added.status, 0, added.stderr);
    const removed = await run(["remove", "redis/shop-cache"], dir);
    assert.equal(removed.status, 0, removed.stderr);
    const lines = removed.stdout.split("\n");
    assert.ok(
      lines.includes("warning[dependency] app/shop needs redis/shop-cache, which was removed"),
      removed.stdout,
    );
    assert.ok(
      lines.includes(
        "  fix: `kiln add @ops/redis --name shop-cache --set memory=256Mi` or `kiln remove app/shop`",
      ),
      removed.stdout,
    );
    assert.equal(tree(dir)["k8s/shop-cache-redis.yaml"], undefined);
  });
});

describe("kiln registry validate and dependencies", () => {
  it("checks each item's dependencies as add would before fetching them: templates, names, reference kinds", async () => {
    const dir = tempDir();
    write(dir, "registry.json", JSON.stringify({ name: "team", items: ["web", "bad"] }));
    write(
      dir,
      "web/component.json",
      JSON.stringify({
        name: "web",
        category: "apps",
        fields: [{ name: "port", default: "80" }],
        files: [{ path: "{{ name }}.yaml", templateFile: "web.yaml.j2" }],
        dependencies: [
          { reference: "@acme/redis", name: "{{ name }}-db", fields: { port: "{{ port }}" } },
          { reference: "k8s/service", name: "{{ name }}" },
        ],
      }),
    );
    write(dir, "web/web.yaml.j2", "name: {{ name }}\n");
    write(
      dir,
      "bad/component.json",
      JSON.stringify({
        name: "bad",
        category: "apps",
        files: [{ path: "{{ name }}.yaml", templateFile: "bad.yaml.j2" }],
        dependencies: [
          { reference: "./other.json", name: "{{ name }}-x" },
          { reference: "k8s/service", name: "{{ '' }}" },
        ],
      }),
    );
    write(dir, "bad/bad.yaml.j2", "name: {{ name }}\n");
    const validated = await kilnAsync(["registry", "validate"], dir);
    assert.equal(validated.status, 1, validated.stderr);
    assert.equal(
      validated.stdout,
      [
        "ok     web 0.1.0: 1 file, checked: schema, render, dependencies, YAML",
        "error  bad 0.1.0",
        "  bad: dependencies[0]: the dependency `./other.json` is neither a built-in component, a registry's item (@acme/redis) nor an http(s) URL (rendered with its examples and defaults)",
        "  bad: dependencies[1].name renders empty: a dependency needs a name (rendered with its examples and defaults)",
        "validated registry team: 2 items, 1 failed",
        "",
      ].join("\n"),
    );
  });
});
