// kiln registry build, with the real binary: a registry's source folder published as static
// files (bytes, digests, versions kept and never changed), the built item added like any item
// file or URL, and the hostile source folders a stranger can hand over.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, truncateSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  cleanUp,
  ensureBuilt,
  kiln,
  kilnAsync,
  project,
  tempDir,
  tree,
  write,
  writeJson,
} from "./helpers.ts";
import { fixtureRegistry, REDIS_TEMPLATE, redisComponent, sha256 } from "./registry-fixture.ts";

before(ensureBuilt);
after(cleanUp);

const REDIS_ITEM = `{
  "name": "redis",
  "category": "apps",
  "version": "1.2.0",
  "title": "Redis",
  "description": "A single Redis pod.",
  "fields": [
    {
      "name": "image",
      "required": true,
      "example": "redis:7.4"
    }
  ],
  "files": [
    {
      "path": "{{ name }}-redis.yaml",
      "template": ${JSON.stringify(REDIS_TEMPLATE)}
    }
  ],
  "kiln": {
    "stage": "deploy"
  }
}
`;

const NOTES_ITEM = `{
  "name": "notes",
  "category": "docs",
  "version": "0.1.0",
  "files": [
    {
      "path": "{{ name }}.md",
      "template": "# {{ name }}\\n"
    }
  ]
}
`;

describe("kiln registry build", () => {
  it("publishes registry.json (the index) and each item as <name>.json and <name>@<version>.json, each digest the sha256 of the item file's bytes", () => {
    const dir = fixtureRegistry();
    const run = kiln(["registry", "build"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      [
        "created   public/r/redis.json",
        "created   public/r/redis@1.2.0.json",
        "created   public/r/notes.json",
        "created   public/r/notes@0.1.0.json",
        "created   public/r/registry.json",
        "built registry acme: 2 items into public/r",
        "",
      ].join("\n"),
    );
    const out = join(dir, "public", "r");
    const files = tree(out);
    assert.deepEqual(Object.keys(files).sort(), [
      "notes.json",
      "notes@0.1.0.json",
      "redis.json",
      "redis@1.2.0.json",
      "registry.json",
    ]);
    assert.equal(files["redis.json"], REDIS_ITEM);
    assert.equal(files["redis@1.2.0.json"], REDIS_ITEM);
    assert.equal(files["notes.json"], NOTES_ITEM);
    assert.equal(files["notes@0.1.0.json"], NOTES_ITEM);
    assert.equal(
      files["registry.json"],
      `${JSON.stringify(
        {
          name: "acme",
          homepage: "https://registry.acme.dev",
          items: [
            {
              name: "redis",
              category: "apps",
              title: "Redis",
              description: "A single Redis pod.",
              version: "1.2.0",
              digest: sha256(REDIS_ITEM),
            },
            {
              name: "notes",
              category: "docs",
              title: "",
              description: "",
              version: "0.1.0",
              digest: sha256(NOTES_ITEM),
            },
          ],
        },
        null,
        2,
      )}\n`,
    );
  });

  it("a second build of the same source gives the same bytes and writes nothing", () => {
    const dir = fixtureRegistry();
    assert.equal(kiln(["registry", "build", ".", "--output", "site"], dir).status, 0);
    const first = tree(join(dir, "site"));
    const again = kiln(["registry", "build", ".", "--output", "site"], dir);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^unchanged site\/redis\.json$/m);
    assert.doesNotMatch(again.stdout, /created|overwrote/);
    assert.deepEqual(tree(join(dir, "site")), first);
  });

  it("keeps the files of versions published before; an item changed without a new version is refused and nothing is written", () => {
    const dir = fixtureRegistry();
    assert.equal(kiln(["registry", "build"], dir).status, 0);
    const out = join(dir, "public", "r");
    const published = tree(out);
    write(dir, "redis/redis.yaml.j2", `${REDIS_TEMPLATE}  # changed\n`);
    const refused = kiln(["registry", "build"], dir);
    assert.equal(refused.status, 1);
    assert.match(
      refused.stderr,
      /^error: the item redis@1\.2\.0 changed without a new version - public\/r\/redis@1\.2\.0\.json already holds other bytes$/m,
    );
    assert.match(refused.stderr, /raise `version` in redis\/component\.json/);
    assert.deepEqual(tree(out), published);

    writeJson(dir, "redis/component.json", redisComponent("1.3.0"));
    const bumped = kiln(["registry", "build"], dir);
    assert.equal(bumped.status, 0, bumped.stderr);
    const files = tree(out);
    assert.equal(files["redis@1.2.0.json"], REDIS_ITEM, "the published version stays as it was");
    assert.match(files["redis@1.3.0.json"] as string, /"version": "1\.3\.0"/);
    assert.equal(files["redis.json"], files["redis@1.3.0.json"]);
    const index = JSON.parse(files["registry.json"] as string) as {
      items: { name: string; version: string; digest: string }[];
    };
    assert.deepEqual(index.items[0], {
      ...index.items[0],
      version: "1.3.0",
      digest: sha256(files["redis@1.3.0.json"] as string),
    });

    writeJson(dir, "redis/component.json", redisComponent("1.1.0"));
    const older = kiln(["registry", "build"], dir);
    assert.equal(older.status, 1);
    assert.match(
      older.stderr,
      /the item redis is at version 1\.1\.0, older than 1\.3\.0 already published in public\/r/,
    );
  });

  it("kiln add <the built item file> renders it as the source item would", () => {
    const registry = fixtureRegistry();
    assert.equal(kiln(["registry", "build"], registry).status, 0);
    const dir = project();
    const item = join(registry, "public", "r", "redis.json");
    const run = kiln(["add", item, "--name", "cache", "--image", "redis:7.4"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      "created   k8s/cache-redis.yaml\nadded redis/cache: 1 file in k8s/ (1 created)\n",
    );
    assert.equal(
      tree(dir)["k8s/cache-redis.yaml"],
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: cache\nspec:\n  containers:\n    - name: redis\n      image: redis:7.4\n",
    );
  });

  it("kiln add <URL of the built item> renders it, served as static files by a web server", async () => {
    const registry = fixtureRegistry();
    assert.equal(kiln(["registry", "build"], registry).status, 0);
    const served = join(registry, "public");
    // a static file server: the built folder as it is, nothing else
    const server = createServer((request, response) => {
      const path = join(served, ...(request.url ?? "/").split("/").filter((part) => part !== ".."));
      try {
        response.end(readFileSync(path));
      } catch {
        response.statusCode = 404;
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const dir = project();
      const run = await kilnAsync(
        ["add", `${base}/r/redis@1.2.0.json`, "--name", "cache", "--image", "redis:7.4"],
        dir,
      );
      assert.equal(run.status, 0, run.stderr);
      assert.equal(
        run.stdout,
        "created   k8s/cache-redis.yaml\nadded redis/cache: 1 file in k8s/ (1 created)\n",
      );
      assert.match(tree(dir)["k8s/cache-redis.yaml"] as string, /^ {6}image: redis:7\.4$/m);
    } finally {
      server.close();
    }
  });

  it("a built folder given as the source is named as a built index", () => {
    const dir = fixtureRegistry();
    assert.equal(kiln(["registry", "build"], dir).status, 0);
    const run = kiln(["registry", "validate", "public/r"], dir);
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /^error: public\/r\/registry\.json is a built registry's index, not a source folder's manifest$/m,
    );
  });

  it("refuses an item named `registry` (the index's name) and an invalid version", () => {
    const dir = fixtureRegistry();
    writeJson(dir, "redis/component.json", { ...redisComponent("1.2.0"), name: "registry" });
    const named = kiln(["registry", "build"], dir);
    assert.equal(named.status, 1);
    assert.match(named.stderr, /redis\/component\.json: no item may be named `registry`/);
    writeJson(dir, "redis/component.json", redisComponent("v1"));
    const version = kiln(["registry", "build"], dir);
    assert.equal(version.status, 1);
    assert.match(
      version.stderr,
      /redis\/component\.json: `version` must be a semantic version such as 1\.2\.0/,
    );
    assert.equal(existsSync(join(dir, "public")), false, "nothing was written");
  });
});

describe("hostile registry source folders are refused, nothing written", () => {
  it("a template file that is a symbolic link leading out of the folder", () => {
    const dir = fixtureRegistry();
    const secret = write(tempDir(), "secret.txt", "TOKEN=hunter2\n");
    // the template replaced by a link to a file outside the registry folder
    const link = join(dir, "redis", "redis.yaml.j2");
    rmSync(link);
    symlinkSync(secret, link);
    const run = kiln(["registry", "build"], dir);
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /^error: `redis\/redis\.yaml\.j2` leads out of the registry folder through a symbolic link/m,
    );
    assert.doesNotMatch(run.stdout + run.stderr, /hunter2/);
    assert.equal(existsSync(join(dir, "public")), false);
  });

  it("an item folder or template file with `..` in its path", () => {
    const dir = fixtureRegistry();
    writeJson(dir, "registry.json", { name: "acme", items: ["../outside"] });
    const folder = kiln(["registry", "build"], dir);
    assert.equal(folder.status, 1);
    assert.match(
      folder.stderr,
      /^error: registry\.json is not a valid registry manifest: items\[0\] holds `\.\.`: name a path inside the registry folder$/m,
    );
    writeJson(dir, "registry.json", { name: "acme", items: ["redis"] });
    writeJson(dir, "redis/component.json", {
      ...redisComponent("1.2.0"),
      files: [{ path: "x.yaml", templateFile: "../../../etc/passwd" }],
    });
    const template = kiln(["registry", "build"], dir);
    assert.equal(template.status, 1);
    assert.match(
      template.stderr,
      /^error: redis\/component\.json: files\[0\]\.templateFile holds `\.\.`: name a path inside the registry folder$/m,
    );
    assert.equal(existsSync(join(dir, "public")), false);
  });

  it("a file larger than the 10 MiB a client fetches", () => {
    const dir = fixtureRegistry();
    truncateSync(join(dir, "redis", "redis.yaml.j2"), 11 * 1024 * 1024);
    const run = kiln(["registry", "build"], dir);
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /^error: `redis\/redis\.yaml\.j2` is larger than 10485760 bytes - kiln reads it only up to that size$/m,
    );
    assert.equal(existsSync(join(dir, "public")), false);
  });

  it("an item over 10 MiB with its templates, counted as they are read (one 6 MiB template named twice)", () => {
    const dir = fixtureRegistry();
    truncateSync(join(dir, "redis", "redis.yaml.j2"), 6 * 1024 * 1024);
    const component = redisComponent("1.2.0");
    writeJson(dir, "redis/component.json", {
      ...component,
      files: [
        { path: "a.yaml", templateFile: "redis.yaml.j2" },
        { path: "b.yaml", templateFile: "redis.yaml.j2" },
      ],
    });
    const run = kiln(["registry", "build"], dir);
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /^error: redis\/component\.json: the item is larger than 10485760 bytes with its templates - kiln fetches items only up to that size$/m,
    );
    assert.equal(existsSync(join(dir, "public")), false);
  });

  it("a component.json nested too deeply to write back as JSON", () => {
    const dir = fixtureRegistry();
    const depth = 200_000;
    write(
      dir,
      "redis/component.json",
      `${JSON.stringify(redisComponent("1.2.0")).slice(0, -1)},"x":${"[".repeat(depth)}${"]".repeat(depth)}}`,
    );
    const run = kiln(["registry", "build"], dir);
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /^error: redis\/component\.json nests lists or objects too deeply to publish$/m,
    );
    assert.equal(existsSync(join(dir, "public")), false);
  });

  it("a link in the output folder leading out of it is refused by the rules of every write", () => {
    const dir = fixtureRegistry();
    const elsewhere = write(tempDir(), "keep.json", "{}\n");
    mkdirSync(join(dir, "public", "r"), { recursive: true });
    symlinkSync(elsewhere, join(dir, "public", "r", "redis.json"));
    const run = kiln(["registry", "build"], dir);
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /^error: refusing to write `redis\.json` - it escapes the target directory$/m,
    );
    assert.equal(readFileSync(elsewhere, "utf8"), "{}\n");
    assert.equal(existsSync(join(dir, "public", "r", "registry.json")), false);
  });
});
