// kiln registry build and validate, with the real binary: a registry's source folder published
// as static files (bytes, digests, versions kept and never changed), the built item file added
// like any item file, validation item by item with the real tools, the hostile source folders
// a stranger can hand over, and kiln's own registry (@kiln) - its source validates, its
// Terraform parses, and the checks read its private networks.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, truncateSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ansibleSkip } from "../tools/ansible.ts";
import { parseTerraform, terraformFolderDuplicates } from "../tools/hcl.ts";
import {
  cleanUp,
  ensureBuilt,
  kiln,
  kilnAsync,
  project,
  REPO,
  tempDir,
  tree,
  write,
  writeJson,
} from "./helpers.ts";

before(ensureBuilt);
after(cleanUp);

const REDIS_TEMPLATE =
  "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ name | yaml }}\nspec:\n  containers:\n    - name: redis\n      image: {{ image | yaml }}\n";

/** The component.json of the fixture's redis item (its template file beside it). */
function redisComponent(version: string | undefined): Record<string, unknown> {
  return {
    name: "redis",
    category: "apps",
    ...(version === undefined ? {} : { version }),
    title: "Redis",
    description: "A single Redis pod.",
    fields: [{ name: "image", required: true, example: "redis:7.4" }],
    files: [{ path: "{{ name }}-redis.yaml", templateFile: "redis.yaml.j2" }],
    kiln: { stage: "deploy" },
  };
}

/** A source folder: registry.json, `redis` (1.2.0) and `notes` (no version: 0.1.0). */
function fixtureRegistry(): string {
  const dir = tempDir();
  writeJson(dir, "registry.json", {
    name: "acme",
    homepage: "https://registry.acme.dev",
    items: ["redis", "extras/notes"],
  });
  writeJson(dir, "redis/component.json", redisComponent("1.2.0"));
  write(dir, "redis/redis.yaml.j2", REDIS_TEMPLATE);
  writeJson(dir, "extras/notes/component.json", {
    name: "notes",
    category: "docs",
    files: [{ path: "{{ name }}.md", templateFile: "notes.md.j2" }],
  });
  write(dir, "extras/notes/notes.md.j2", "# {{ name }}\n");
  return dir;
}

function sha256(bytes: string): string {
  return `sha256:${createHash("sha256").update(bytes, "utf8").digest("hex")}`;
}

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
    assert.equal(run.stdout, "created   k8s/cache-redis.yaml\n");
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
      assert.equal(run.stdout, "created   k8s/cache-redis.yaml\n");
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

/** A source folder with a good item and one whose template renders YAML that does not parse. */
function registryWithBrokenItem(): string {
  const dir = fixtureRegistry();
  writeJson(dir, "registry.json", { name: "acme", items: ["redis", "broken"] });
  writeJson(dir, "broken/component.json", {
    name: "broken",
    category: "apps",
    fields: [{ name: "port", default: "80" }],
    files: [{ path: "{{ name }}-broken.yaml", templateFile: "broken.yaml.j2" }],
  });
  write(dir, "broken/broken.yaml.j2", "ports: [{{ port }}\nname: {{ name }}\n");
  return dir;
}

describe("kiln registry validate", () => {
  it("a good registry passes: each item on a line with what was checked, and a summary (exit 0)", () => {
    const dir = fixtureRegistry();
    const run = kiln(["registry", "validate"], dir);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^ok {5}redis 1\.2\.0: 1 file, checked: schema, render, YAML$/m);
    assert.match(
      run.stdout,
      /^ok {5}notes 0\.1\.0 \(extras\/notes\): 1 file, checked: schema, render$/m,
    );
    assert.match(run.stdout, /^skipped: Kubernetes schemas: kiln does not ship them/m);
    assert.match(run.stdout, /^validated registry acme: 2 items, all passed\n$/m);
    assert.equal(existsSync(join(dir, "public")), false, "validate writes nothing");
  });

  it("a registry with one broken item fails (exit 1), naming the item, the file and the problem", () => {
    const dir = registryWithBrokenItem();
    const run = kiln(["registry", "validate", dir], tempDir());
    assert.equal(run.status, 1);
    assert.match(run.stdout, /^ok {5}redis 1\.2\.0: /m);
    assert.match(run.stdout, /^error {2}broken 0\.1\.0$/m);
    assert.match(
      run.stdout,
      /^ {2}broken: broken-broken\.yaml \(rendered with its examples and defaults\): YAML does not parse: /m,
    );
    assert.match(run.stdout, /^validated registry acme: 2 items, 1 failed$/m);
  });

  it("an item that is no valid registry item is named with what did not fit, the others still validated", () => {
    const dir = fixtureRegistry();
    writeJson(dir, "extras/notes/component.json", {
      name: "notes",
      category: "docs",
      fields: [{ name: "title", required: "yes" }],
      files: [{ path: "{{ name }}.md", templateFile: "notes.md.j2" }],
    });
    const run = kiln(["registry", "validate"], dir);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /^error {2}extras\/notes$/m);
    assert.match(
      run.stdout,
      /^ {2}extras\/notes: extras\/notes\/component\.json is not a valid registry item \(fields\[0\]\.required: invalid type: string, expected a boolean\)$/m,
    );
    assert.match(run.stdout, /^ok {5}redis 1\.2\.0: /m);
    assert.match(run.stdout, /^validated registry acme: 2 items, 1 failed$/m);
  });

  it("a required field without an example or default is a problem: nobody could try the item", () => {
    const dir = fixtureRegistry();
    writeJson(dir, "redis/component.json", {
      ...redisComponent("1.2.0"),
      fields: [{ name: "image", required: true }],
    });
    const run = kiln(["registry", "validate"], dir);
    assert.equal(run.status, 1);
    assert.match(
      run.stdout,
      /^ {2}redis: component\.json: a required field without an example or default: image - give it an `example`/m,
    );
  });

  it("a playbook the automation tool refuses fails its syntax check", {
    skip: ansibleSkip(),
  }, () => {
    const dir = fixtureRegistry();
    writeJson(dir, "registry.json", { name: "acme", items: ["play"] });
    writeJson(dir, "play/component.json", {
      name: "play",
      category: "automation",
      files: [{ path: "{{ name }}.yml", templateFile: "play.yml.j2" }],
    });
    // valid YAML, but a task with two actions, which ansible-playbook refuses
    write(
      dir,
      "play/play.yml.j2",
      "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n        msg: a\n      ansible.builtin.command: ls\n",
    );
    const run = kiln(["registry", "validate"], dir);
    assert.equal(run.status, 1);
    assert.match(
      run.stdout,
      /^ {2}play: play\.yml \(rendered .*\): ansible-playbook --syntax-check: /m,
    );
    // a role the item does not write gets a stand-in, so the play is checked on its own
    write(dir, "play/play.yml.j2", "- hosts: all\n  roles:\n    - common\n");
    const fixed = kiln(["registry", "validate"], dir);
    assert.equal(fixed.status, 0, fixed.stdout);
    assert.match(fixed.stdout, /checked: schema, render, YAML, ansible-playbook --syntax-check$/m);
  });
});

const KILN_ITEMS = [
  "aws-server",
  "gcp-server",
  "scaleway-server",
  "linode-server",
  "hetzner-private",
  "digitalocean-private",
];

/** The resources of a parsed Terraform file, as `type.name`. */
function resources(json: Record<string, unknown>): string[] {
  const byType = (json.resource ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(byType).flatMap(([type, names]) =>
    Object.keys(names).map((name) => `${type}.${name}`),
  );
}

describe("@kiln, kiln's own registry", () => {
  it("its source folder passes kiln registry validate", () => {
    const run = kiln(["registry", "validate", "registries/kiln"], REPO);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    for (const name of KILN_ITEMS) {
      assert.match(
        run.stdout,
        new RegExp(`^ok {5}${name} 1\\.0\\.0: 1 file, checked: schema, render`, "m"),
      );
    }
    assert.match(run.stdout, /^validated registry kiln: 6 items, all passed$/m);
  });

  it("the build ships it in dist/registries/kiln: an index of the six items, each file's digest matching", () => {
    const dir = join(REPO, "dist", "registries", "kiln");
    const index = JSON.parse(readFileSync(join(dir, "registry.json"), "utf8")) as {
      name: string;
      items: { name: string; version: string; digest: string }[];
    };
    assert.equal(index.name, "kiln");
    assert.deepEqual(
      index.items.map((item) => item.name),
      KILN_ITEMS,
    );
    for (const item of index.items) {
      const text = readFileSync(join(dir, `${item.name}@${item.version}.json`), "utf8");
      assert.equal(item.digest, sha256(text), item.name);
      assert.equal(readFileSync(join(dir, `${item.name}.json`), "utf8"), text);
    }
  });

  it("each item's Terraform parses (HCL parser) and loads as one folder, with the private network's resources only when it is set", async () => {
    const networkResources: Record<string, string[]> = {
      "aws-server": ["aws_vpc", "aws_subnet", "aws_internet_gateway", "aws_route"],
      "gcp-server": ["google_compute_network", "google_compute_subnetwork"],
      "scaleway-server": ["scaleway_vpc_private_network"],
      "linode-server": ["linode_vpc", "linode_vpc_subnet"],
      "hetzner-private": ["hcloud_network", "hcloud_network_subnet"],
      "digitalocean-private": ["digitalocean_vpc"],
    };
    // every item with its examples and defaults, and (where it is optional) without a network:
    // one preset, rendered by one run
    const components = KILN_ITEMS.flatMap((name) => {
      const reference = join(REPO, "dist", "registries", "kiln", `${name}.json`);
      const item = JSON.parse(readFileSync(reference, "utf8")) as {
        fields: { name: string; required: boolean; example?: string; default?: string }[];
      };
      const fields = Object.fromEntries(
        item.fields.flatMap((field) => {
          const value = field.example ?? field.default;
          return value === undefined ? [] : [[field.name, value]];
        }),
      );
      const optional = !item.fields.find((field) => field.name === "private_network")?.required;
      const { private_network: _network, ...without } = fields;
      return [
        { reference, name: `${name}-net`, fields, item: name, network: true },
        ...(optional
          ? [{ reference, name: `${name}-pub`, fields: without, item: name, network: false }]
          : []),
      ];
    });
    const dir = tempDir();
    writeJson(dir, "kiln.preset.json", {
      name: "kiln-items",
      components: components.map(({ reference, name, fields }) => ({ reference, name, fields })),
    });
    const run = kiln(["render", "./kiln.preset.json", "--json"], dir);
    assert.equal(run.status, 0, run.stderr);
    const files = (JSON.parse(run.stdout) as { files: { path: string; content: string }[] }).files;
    assert.equal(files.length, components.length);
    for (const component of components) {
      const provider = component.item.split("-")[0] as string;
      const file = files.find((candidate) =>
        candidate.path.startsWith(`${component.name}-${provider}/`),
      );
      assert.ok(file, `${component.name}: ${files.map((candidate) => candidate.path).join(", ")}`);
      assert.equal(file.path, `${component.name}-${provider}/${component.name}-${provider}.tf`);
      const json = await parseTerraform(file.content, file.path);
      assert.deepEqual(await terraformFolderDuplicates([file]), [], file.path);
      const types = resources(json).map((resource) => resource.split(".")[0]);
      for (const type of networkResources[component.item] ?? []) {
        assert.equal(types.includes(type), component.network, `${component.name}: ${type}`);
      }
    }
  });

  it("cidr-overlap fires on two of its items whose private networks overlap", () => {
    const dir = project();
    const item = (name: string) => join(REPO, "dist", "registries", "kiln", `${name}.json`);
    const aws = kiln(
      [
        "add",
        item("aws-server"),
        "--name",
        "app",
        "--set",
        "region=eu-central-1",
        "--set",
        "size=t3.micro",
        "--set",
        "private_network=10.0.0.0/16",
      ],
      dir,
    );
    assert.equal(aws.status, 0, aws.stderr);
    const hetzner = kiln(
      [
        "add",
        item("hetzner-private"),
        "--name",
        "db",
        "--set",
        "region=fsn1",
        "--set",
        "size=cx22",
        "--set",
        "private_network=10.0.128.0/20",
      ],
      dir,
    );
    assert.equal(hetzner.status, 0, hetzner.stderr);
    const check = kiln(["check"], dir);
    assert.equal(check.status, 0, "a warning");
    assert.match(
      check.stdout,
      /^warning\[cidr-overlap\] .*aws-server\.json `app` \(private_network `10\.0\.0\.0\/16`\) and .*hetzner-private\.json `db` \(private_network `10\.0\.128\.0\/20`\) overlap/m,
    );
    assert.match(
      check.stdout,
      /^checked the project \(kiln\.lock\): 2 components, 0 errors, 1 warning$/m,
    );
  });
});
