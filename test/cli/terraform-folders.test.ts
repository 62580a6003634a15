// Terraform loads a folder, not a file: every `.tf` of one folder is one configuration, and a
// provider requirement, variable, provider, resource or output declared twice there makes
// `terraform init` refuse it. Run by the real binary: a project of several server components
// (two Hetzner, a Hetzner and a DigitalOcean of one name, two names with one Terraform
// identifier) loads folder by folder, read with the HCL parser always and with the real
// `terraform init -backend=false` where terraform is installed; the flat layout these files had
// before is refused by both; `kiln check` reports Terraform files of two components in one
// folder (rule `terraform-folder-shared`).
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, posix } from "node:path";
import { after, before, describe, it } from "node:test";
import { terraformFolderDuplicates, terraformInit, terraformSkip } from "../tools/hcl.ts";
import { cleanUp, ensureBuilt, itemFile, kiln, tempDir, tree, writeJson } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

const SERVERS = {
  name: "servers",
  project: { outputDir: "infra" },
  components: [
    { reference: "infra/cloud-a", name: "web", fields: { region: "fsn1", size: "cx22" } },
    { reference: "infra/cloud-b", name: "web", fields: { region: "fra1", size: "s-1vcpu-1gb" } },
    { reference: "infra/cloud-a", name: "my.app", fields: { region: "nbg1", size: "cx22" } },
    { reference: "infra/cloud-a", name: "my_app", fields: { region: "hel1", size: "cx22" } },
  ],
};

/** The folders the components write, in path order. */
const FOLDERS = [
  "infra/my.app-hetzner",
  "infra/my_app-hetzner",
  "infra/web-digitalocean",
  "infra/web-hetzner",
];

/** The project's `.tf` files by folder, in path order: path relative to the project, content. */
function terraformFolders(dir: string): Map<string, { path: string; content: string }[]> {
  const folders = new Map<string, { path: string; content: string }[]>();
  const entries = Object.entries(tree(dir)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [path, content] of entries) {
    if (!path.endsWith(".tf")) continue;
    const folder = posix.dirname(path);
    folders.set(folder, [...(folders.get(folder) ?? []), { path, content }]);
  }
  return folders;
}

describe("Terraform folders: server components of any mix, set up in one project", () => {
  const dir = tempDir();
  let setup: ReturnType<typeof kiln>;
  let check: ReturnType<typeof kiln>;
  before(() => {
    writeJson(dir, "servers.preset.json", SERVERS);
    setup = kiln(["setup", "./servers.preset.json"], dir);
    check = kiln(["check"], dir);
  });

  it("each server component writes a folder of its own, named after it and its provider", () => {
    assert.equal(setup.status, 0, setup.stderr);
    assert.deepEqual([...terraformFolders(dir).keys()], FOLDERS);
    for (const folder of FOLDERS) {
      const files = terraformFolders(dir).get(folder) ?? [];
      assert.deepEqual(
        files.map((file) => file.path),
        [`${folder}/${basename(folder)}.tf`],
      );
    }
  });

  it("every folder declares its provider requirements, token variable and provider once (HCL parser)", async () => {
    for (const [folder, files] of terraformFolders(dir)) {
      assert.deepEqual(await terraformFolderDuplicates(files), [], folder);
    }
  });

  it("terraform init -backend=false succeeds in every folder", {
    skip: terraformSkip(),
  }, async () => {
    for (const folder of FOLDERS) {
      assert.match(await terraformInit(join(dir, folder)), /successfully initialized/);
    }
  });

  it("kiln check finds nothing to report", () => {
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.doesNotMatch(check.stdout, /terraform-folder-shared/);
    assert.match(
      check.stdout,
      /checked the project \(kiln\.lock\): 4 components, 4 files \(0 edited by hand, checked as they are\), no findings/,
    );
  });

  it("the same files side by side in one folder (the old layout) are refused by both checks", async () => {
    const flat = join(dir, "flat");
    mkdirSync(flat);
    const files = [...terraformFolders(dir).values()].flat().map((file) => ({
      path: basename(file.path),
      content: file.content,
    }));
    for (const file of files) writeFileSync(join(flat, file.path), file.content);
    assert.deepEqual(await terraformFolderDuplicates(files), [
      'resource "hcloud_server" "my_app" in my.app-hetzner.tf, my_app-hetzner.tf',
      'variable "hcloud_token" in my.app-hetzner.tf, my_app-hetzner.tf, web-hetzner.tf',
      'output "my_app_ipv4" in my.app-hetzner.tf, my_app-hetzner.tf',
      'provider "hcloud" in my.app-hetzner.tf, my_app-hetzner.tf, web-hetzner.tf',
      "terraform { required_providers } in my.app-hetzner.tf, my_app-hetzner.tf, web-digitalocean.tf, web-hetzner.tf",
      'output "web_ipv4" in web-digitalocean.tf, web-hetzner.tf',
    ]);
    if (terraformSkip() === false) {
      await assert.rejects(terraformInit(flat), (error: Error) => {
        for (const diagnostic of [
          "Duplicate required providers configuration",
          "Duplicate variable declaration",
          "Duplicate provider configuration",
          "Duplicate resource",
          "Duplicate output definition",
        ]) {
          assert.ok(error.message.includes(diagnostic), `${diagnostic} in:\n${error.message}`);
        }
        return true;
      });
    }
  });
});

describe("kiln check: terraform-folder-shared", () => {
  it("reports two components writing Terraform files into one folder, with exit status 1", () => {
    const dir = tempDir();
    // an item of the user's own that writes a whole configuration flat into the output folder
    const hetzner = readFileSync(
      new URL("../../src/core/registry/infra/cloud-a/hetzner.tf.j2", import.meta.url),
      "utf8",
    );
    itemFile(dir, "items/flat-server.json", [{ path: "{{ name }}.tf", template: hetzner }]);
    writeJson(dir, "flat.preset.json", {
      name: "flat",
      components: [
        { reference: "items/flat-server.json", name: "a", fields: { region: "r", size: "s" } },
        { reference: "items/flat-server.json", name: "b", fields: { region: "r", size: "s" } },
      ],
    });
    const run = kiln(["check", "./flat.preset.json"], dir);
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /^error\[terraform-folder-shared\] items\/flat-server\.json `a` and items\/flat-server\.json `b` all write Terraform files into the output folder, which Terraform loads as one configuration: .* - give each component its own folder$/m,
    );
  });
});
