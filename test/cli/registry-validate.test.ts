// kiln registry validate, with the real binary: each item read, rendered in the sandbox and run
// through the real tools, broken ones named with their file and problem; and kiln's own
// registry (@kiln): its source validates, its Terraform parses with and without a private
// network, and the checks read its private networks.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ansibleSkip } from "../tools/ansible.ts";
import {
  parseTerraform,
  terraformFolderDuplicates,
  terraformInit,
  terraformSkip,
} from "../tools/hcl.ts";
import { cleanUp, ensureBuilt, kiln, project, REPO, tempDir, write, writeJson } from "./helpers.ts";
import { fixtureRegistry, redisComponent, sha256 } from "./registry-fixture.ts";

before(ensureBuilt);
after(cleanUp);

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

/** @kiln's server items: Terraform, each with a private_network field. */
const KILN_ITEMS = [
  "aws-server",
  "gcp-server",
  "scaleway-server",
  "linode-server",
  "hetzner-private",
  "digitalocean-private",
];

/** @kiln's Kubernetes items (their manifests are checked in deploy-manifests.test.ts). */
const KILN_K8S_ITEMS = ["k8s-hardened-deployment", "k8s-hpa", "k8s-pdb", "k8s-networkpolicy"];

/** The resources of a parsed Terraform file, as `type.name`. */
function resources(json: Record<string, unknown>): string[] {
  const byType = (json.resource ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(byType).flatMap(([type, names]) =>
    Object.keys(names).map((name) => `${type}.${name}`),
  );
}

interface KilnComponent {
  reference: string;
  name: string;
  fields: Record<string, string>;
  item: string;
  network: boolean;
}

let rendered: { component: KilnComponent; file: { path: string; content: string } }[] | undefined;

/**
 * Every @kiln item rendered with its examples and defaults, and (where `private_network` is
 * optional) without a network: one preset, rendered by one run of the built binary, once per
 * file.
 */
function renderedKilnItems(): {
  component: KilnComponent;
  file: { path: string; content: string };
}[] {
  if (rendered !== undefined) return rendered;
  const components = KILN_ITEMS.flatMap((name): KilnComponent[] => {
    const reference = join(REPO, "dist", "registries", "kiln", `${name}.json`);
    const item = JSON.parse(readFileSync(reference, "utf8")) as {
      fields: { name: string; required: boolean; example?: string; default?: string }[];
    };
    const fields = Object.fromEntries(
      item.fields.flatMap((field) => {
        const value = field.example ?? field.default;
        return value === undefined ? [] : [[field.name, value]];
      }),
    ) as Record<string, string>;
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
  rendered = components.map((component) => {
    const provider = component.item.split("-")[0] as string;
    const file = files.find((candidate) =>
      candidate.path.startsWith(`${component.name}-${provider}/`),
    );
    assert.ok(file, `${component.name}: ${files.map((candidate) => candidate.path).join(", ")}`);
    return { component, file };
  });
  return rendered;
}

describe("@kiln, kiln's own registry", () => {
  it("its source folder passes kiln registry validate", () => {
    const run = kiln(["registry", "validate", "registries/kiln"], REPO);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    for (const name of [...KILN_ITEMS, ...KILN_K8S_ITEMS]) {
      assert.match(
        run.stdout,
        new RegExp(`^ok {5}${name} 1\\.0\\.0: 1 file, checked: schema, render`, "m"),
      );
    }
    assert.match(run.stdout, /^validated registry kiln: 10 items, all passed$/m);
  });

  it("the build ships it in dist/registries/kiln: an index of the ten items, each file's digest matching", () => {
    const dir = join(REPO, "dist", "registries", "kiln");
    const index = JSON.parse(readFileSync(join(dir, "registry.json"), "utf8")) as {
      name: string;
      items: { name: string; version: string; digest: string }[];
    };
    assert.equal(index.name, "kiln");
    assert.deepEqual(
      index.items.map((item) => item.name),
      [...KILN_ITEMS, ...KILN_K8S_ITEMS],
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
    for (const { component, file } of renderedKilnItems()) {
      const provider = component.item.split("-")[0] as string;
      assert.equal(file.path, `${component.name}-${provider}/${component.name}-${provider}.tf`);
      const json = await parseTerraform(file.content, file.path);
      assert.deepEqual(await terraformFolderDuplicates([file]), [], file.path);
      const types = resources(json).map((resource) => resource.split(".")[0]);
      for (const type of networkResources[component.item] ?? []) {
        assert.equal(types.includes(type), component.network, `${component.name}: ${type}`);
      }
    }
  });

  it("each item's folder loads in terraform init (offline, stand-in providers)", {
    skip: terraformSkip(),
  }, async () => {
    const dir = tempDir();
    for (const { file } of renderedKilnItems()) {
      write(dir, file.path, file.content);
      await terraformInit(join(dir, file.path.slice(0, file.path.indexOf("/"))));
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
      /^checked the project \(kiln\.lock\): 2 components, 2 files \(0 edited by hand, checked as they are\), 0 errors, 1 warning$/m,
    );
  });
});
