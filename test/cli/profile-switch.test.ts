// Switching a project's automation tool profile with the real binary: `kiln update --profile
// ansible` renders every component of a `multi-tier-platform` project under the real tool's
// names, moves cm.cfg to ansible.cfg, keeps the user's edits, records `ansible` in kiln.lock and
// in kiln.toml (only that key rewritten), in one all-or-nothing write - and the real tool then
// reads the inventory and the playbooks. `--profile cm` switches back. `kiln status` names the
// command when kiln.toml and kiln.lock disagree; `kiln setup` names it after a preset whose
// automation files use the `cm_` names.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ansibleSkip } from "../tools/ansible.ts";
import { cleanUp, ensureBuilt, kiln, setUpProject, tempDir, tree, writeJson } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

const SWITCH_HINT =
  "the automation files use the `cm_` names (cm_host, cm.cfg), which ansible-core does not read - `kiln update --profile ansible` switches them to the real tool's names";

/** The automation tool as a user runs it: from `cwd`, no ANSIBLE_* variable set. */
function ansibleTool(tool: string, args: string[], cwd: string) {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("ANSIBLE_")) env[key] = value;
  }
  env.NO_COLOR = "1";
  return spawnSync(tool, args, { cwd, env, encoding: "utf8", timeout: 120_000 });
}

function read(dir: string, path: string): string {
  return readFileSync(join(dir, path), "utf8");
}

/** The profile each kiln.lock entry records (absent: the default `cm`). */
function lockedProfiles(dir: string): string[] {
  const lock = JSON.parse(read(dir, "kiln.lock")) as {
    components: { automationProfile?: string }[];
  };
  return [...new Set(lock.components.map((entry) => entry.automationProfile ?? "cm"))];
}

/** kiln.toml with a comment and a trailing comment the user wrote, which a switch must keep. */
const COMMENTED_TOML =
  '# the storefront\n[project]\nname = "multi-tier-platform"\ndefault_namespace = "shop"\n\n# every vendored file lives here\noutput_dir = "infra"   # not the repo root\n';

/**
 * A `multi-tier-platform` project with the user's edits: kiln.toml commented, the inventory's
 * `environment` changed and a group added, a variable added to group_vars/db.yml, a line added
 * to cm.cfg.
 */
function editedPlatform(): string {
  const dir = setUpProject("multi-tier-platform");
  writeFileSync(join(dir, "kiln.toml"), COMMENTED_TOML);
  const inventory = join(dir, "infra", "platform-inventory.ini");
  writeFileSync(
    inventory,
    `${readFileSync(inventory, "utf8").replace("environment=production", "environment=staging")}\n[bastion]\nbastion-1\n`,
  );
  appendFileSync(join(dir, "infra", "group_vars", "db.yml"), "postgres_shared_buffers: 256MB\n");
  appendFileSync(join(dir, "infra", "cm.cfg"), "forks = 20\n");
  return dir;
}

describe("kiln update --profile", () => {
  it("renders every component under ansible: cm.cfg moves to ansible.cfg, edits are kept, kiln.lock and kiln.toml record it", () => {
    const dir = editedPlatform();
    const before = tree(dir);
    const run = kiln(["update", "--profile", "ansible"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^kept {6}infra\/cm\.cfg -> infra\/ansible\.cfg$/m);
    assert.match(run.stdout, /^merged {4}infra\/platform-inventory\.ini$/m);
    assert.match(
      run.stdout,
      /^automation profile: `ansible` - kiln\.lock and kiln\.toml record it$/m,
    );
    // the moved file carries the user's line; the old name is gone
    assert.equal(
      read(dir, "infra/ansible.cfg"),
      "[defaults]\ninventory = platform-inventory.ini\nroles_path = roles\nforks = 20\n",
    );
    assert.equal(existsSync(join(dir, "infra", "cm.cfg")), false);
    // the inventory: the real tool's names, and both of the user's edits
    const inventory = read(dir, "infra/platform-inventory.ini");
    assert.match(
      inventory,
      /^lb-1 ansible_host=10\.10\.0\.10 ansible_user=deploy ansible_port=22$/m,
    );
    assert.doesNotMatch(inventory, /cm_host|cm_user|cm_port/);
    assert.match(inventory, /^environment=staging$/m);
    assert.ok(inventory.endsWith("\n[bastion]\nbastion-1\n"));
    assert.equal(read(dir, "infra/group_vars/db.yml"), before["infra/group_vars/db.yml"]);
    // kiln.toml: the one key added, every other byte the user's
    assert.equal(read(dir, "kiln.toml"), `${COMMENTED_TOML}automation_profile = "ansible"\n`);
    assert.deepEqual(lockedProfiles(dir), ["ansible"]);
    // nothing else moved or changed
    const after = tree(dir);
    const changed = Object.keys({ ...before, ...after })
      .filter((path) => before[path] !== after[path])
      .sort();
    assert.deepEqual(changed, [
      "infra/ansible.cfg",
      "infra/cm.cfg",
      "infra/platform-inventory.ini",
      "kiln.lock",
      "kiln.toml",
    ]);
    // the project agrees with itself now: status has nothing to say about the profile
    const status = kiln(["status"], dir);
    assert.equal(status.status, 0, status.stderr);
    assert.doesNotMatch(status.stdout, /automation profile/);
  });

  it("after the switch the real tool reads the inventory and syntax-checks site.yml from the output folder", {
    skip: ansibleSkip(),
  }, () => {
    const dir = editedPlatform();
    const run = kiln(["update", "--profile", "ansible"], dir);
    assert.equal(run.status, 0, run.stderr);
    const folder = join(dir, "infra");
    // no -i: the tool finds the inventory through ansible.cfg, as a user's run does
    // one --list answers both questions: the groups with their hosts, and each host's variables
    const inventory = ansibleTool("ansible-inventory", ["--list"], folder);
    assert.equal(inventory.status, 0, inventory.stderr);
    const list = JSON.parse(inventory.stdout) as Record<
      string,
      { hosts?: string[]; children?: string[] }
    > & { _meta: { hostvars: Record<string, Record<string, unknown>> } };
    assert.deepEqual(list.db_primary, { hosts: ["db-1"] });
    assert.deepEqual(list.bastion, { hosts: ["bastion-1"] });
    assert.equal(list._meta.hostvars["lb-1"]?.ansible_host, "10.10.0.10");
    const syntax = ansibleTool("ansible-playbook", ["--syntax-check", "site.yml"], folder);
    assert.equal(syntax.status, 0, `${syntax.stdout}\n${syntax.stderr}`);
  });

  it("--profile cm switches back: the files as they were before, kiln.toml and kiln.lock say cm", () => {
    const dir = editedPlatform();
    const before = tree(dir);
    assert.equal(kiln(["update", "--profile", "ansible"], dir).status, 0);
    const back = kiln(["update", "--profile", "cm"], dir);
    assert.equal(back.status, 0, back.stderr);
    assert.match(back.stdout, /^kept {6}infra\/ansible\.cfg -> infra\/cm\.cfg$/m);
    const after = tree(dir);
    for (const path of Object.keys(before).filter((path) => path.startsWith("infra/"))) {
      assert.equal(after[path], before[path], path);
    }
    assert.equal(existsSync(join(dir, "infra", "ansible.cfg")), false);
    assert.equal(read(dir, "kiln.toml"), `${COMMENTED_TOML}automation_profile = "cm"\n`);
    assert.deepEqual(lockedProfiles(dir), ["cm"]);
  });

  it("a switch that conflicts with an edit writes nothing: no file, no kiln.lock, no kiln.toml", () => {
    const dir = editedPlatform();
    const inventory = join(dir, "infra", "platform-inventory.ini");
    // the user changed a host line that the switch changes too
    writeFileSync(
      inventory,
      readFileSync(inventory, "utf8").replace("lb-1 cm_host=10.10.0.10", "lb-1 cm_host=10.10.0.99"),
    );
    const before = tree(dir);
    const run = kiln(["update", "--profile", "ansible"], dir);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /conflicts? in 1 file - nothing was written/);
    assert.match(run.stderr, /infra\/platform-inventory\.ini/);
    assert.deepEqual(tree(dir), before);
  });

  it("a switch whose last write fails leaves every file, kiln.lock and kiln.toml as they were", (t) => {
    if (process.getuid?.() !== 0) {
      t.skip("needs root to make kiln.toml immutable");
      return;
    }
    const dir = editedPlatform();
    const before = tree(dir);
    const toml = join(dir, "kiln.toml");
    execFileSync("chattr", ["+i", toml]);
    try {
      const run = kiln(["update", "--profile", "ansible"], dir);
      assert.equal(run.status, 1, run.stdout);
    } finally {
      execFileSync("chattr", ["-i", toml]);
    }
    assert.deepEqual(tree(dir), before);
  });

  it("an untouched file whose name changes is moved: written at its new name, its old one removed", () => {
    const dir = setUpProject("multi-tier-platform");
    const config = read(dir, "infra/cm.cfg");
    const run = kiln(["update", "--profile", "ansible"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^moved {5}infra\/cm\.cfg -> infra\/ansible\.cfg$/m);
    assert.equal(read(dir, "infra/ansible.cfg"), config);
    assert.equal(existsSync(join(dir, "infra", "cm.cfg")), false);
    // kiln.toml had no automation_profile key: it gets one, after the others
    assert.ok(
      read(dir, "kiln.toml").endsWith('output_dir = "infra"\nautomation_profile = "ansible"\n'),
    );
  });

  it("takes no component names, and only a profile kiln knows", () => {
    const dir = editedPlatform();
    const named = kiln(["update", "platform", "--profile", "ansible"], dir);
    assert.equal(named.status, 2, named.stderr);
    assert.match(
      named.stderr,
      /--profile switches every component of the project: run it without component names, e\.g\. kiln update --profile ansible/,
    );
    const unknown = kiln(["update", "--profile", "chef"], dir);
    assert.equal(unknown.status, 2, unknown.stderr);
    assert.match(unknown.stderr, /--profile must be `cm` or `ansible`, got `chef`/);
  });
});

describe("kiln status and the automation profile", () => {
  it("says when kiln.toml names another profile than the files were rendered with, and the command that switches them", () => {
    const dir = editedPlatform();
    const agreeing = kiln(["status"], dir);
    assert.doesNotMatch(agreeing.stdout, /automation profile/);
    // setting the key by hand changes no file: the lock records what they were rendered with
    appendFileSync(join(dir, "kiln.toml"), 'automation_profile = "ansible"\n');
    const status = kiln(["status"], dir);
    assert.equal(status.status, 0, status.stderr);
    assert.ok(
      status.stdout.endsWith(
        "automation profile: kiln.toml says `ansible`, the files in kiln.lock were rendered with `cm` - run `kiln update --profile ansible` to switch them\n",
      ),
      status.stdout,
    );
    const json = kiln(["status", "--json"], dir);
    assert.deepEqual(JSON.parse(json.stdout).profile, {
      project: "ansible",
      lock: ["cm"],
      command: "kiln update --profile ansible",
    });
    // the command it names brings them together
    assert.equal(kiln(["update", "--profile", "ansible"], dir).status, 0);
    const after = kiln(["status", "--json"], dir);
    assert.equal(JSON.parse(after.stdout).profile, undefined);
  });
});

describe("kiln setup and the automation profile", () => {
  it("names the switch after a preset whose automation files use the cm_ names", () => {
    const dir = tempDir();
    const setup = kiln(["setup", "multi-tier-platform"], dir);
    assert.equal(setup.status, 0, setup.stderr);
    assert.ok(setup.stdout.endsWith(`${SWITCH_HINT}\n`), setup.stdout);
  });

  it("says nothing of it for a preset without automation files", () => {
    const dir = tempDir();
    const setup = kiln(["setup", "k8s-web-app"], dir);
    assert.equal(setup.status, 0, setup.stderr);
    assert.doesNotMatch(setup.stdout, /cm_|--profile/);
  });

  it("says nothing of it for a preset set up under ansible already", () => {
    const dir = tempDir();
    writeJson(dir, "lab.preset.json", {
      name: "lab",
      project: { outputDir: "infra", automationProfile: "ansible" },
      components: [
        { reference: "automation/config", name: "config", fields: { inventory: "x.ini" } },
      ],
    });
    const setup = kiln(["setup", "./lab.preset.json"], dir);
    assert.equal(setup.status, 0, setup.stderr);
    assert.match(setup.stdout, /infra\/ansible\.cfg/);
    assert.doesNotMatch(setup.stdout, /cm_|--profile/);
  });
});
