// The automation tool profile, end to end: `kiln setup` of a preset whose project says
// `"automationProfile": "ansible"` writes the names the real tool reads (ansible_host,
// ansible_user, ansible_port, ansible_ssh_private_key_file, ansible.cfg), and `ansible all -m
// ping`, run from the output folder with no environment variable pointing anywhere, really
// connects: to Debian's openssh-server on 127.0.0.1 and a non-default port, as a generated user
// with a generated key. Under the spec's default profile the same files steer nothing: the
// tool reads neither cm.cfg nor the cm_ variables, until `kiln update --profile ansible`
// switches the project.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ansibleSkip } from "../tools/ansible.ts";
import { sshdSkip, startSshd, type TestSshd } from "../tools/sshd.ts";
import { cleanUp, ensureBuilt, kiln, tempDir, writeJson } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

/** The automation tool as a user runs it: from `cwd`, no ANSIBLE_* variable set. */
function ansible(args: string[], cwd: string) {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("ANSIBLE_")) env[key] = value;
  }
  env.NO_COLOR = "1";
  return spawnSync("ansible", args, { cwd, env, encoding: "utf8", timeout: 120_000 });
}

function preset(profile: "ansible" | undefined, server: TestSshd) {
  return {
    name: "ping",
    project: { outputDir: "infra", ...(profile ? { automationProfile: profile } : {}) },
    components: [
      {
        reference: "automation/inventory",
        name: "lab",
        fields: {
          hosts: JSON.stringify([
            {
              group: "lab",
              members: [
                {
                  name: "box",
                  cm_host: server.host,
                  cm_user: server.user,
                  cm_port: server.port,
                  ssh_key_file: server.keyFile,
                  vars: {
                    ansible_ssh_common_args: `-o UserKnownHostsFile=${server.knownHosts}`,
                  },
                },
              ],
            },
          ]),
        },
        labels: {},
      },
      {
        reference: "automation/config",
        name: "config",
        fields: { inventory: "lab-inventory.ini" },
        labels: {},
      },
    ],
  };
}

const skip = ansibleSkip() || sshdSkip();

describe("the automation tool profile", { skip }, () => {
  let server: TestSshd;
  before(async () => {
    server = await startSshd();
  });
  after(() => server?.stop());

  it("with `ansible`, `ansible all -m ping` from the output folder connects over real SSH", () => {
    const dir = tempDir();
    writeJson(dir, "ping.preset.json", preset("ansible", server));
    const setup = kiln(["setup", "./ping.preset.json"], dir);
    assert.equal(setup.status, 0, setup.stderr);
    const inventory = readFileSync(join(dir, "infra", "lab-inventory.ini"), "utf8");
    assert.match(
      inventory,
      new RegExp(
        `^box ansible_host=${server.host} ansible_user=${server.user} ansible_port=${server.port} ansible_ssh_private_key_file=`,
        "m",
      ),
    );
    assert.equal(
      readFileSync(join(dir, "infra", "ansible.cfg"), "utf8"),
      "[defaults]\ninventory = lab-inventory.ini\nroles_path = roles\n",
    );
    assert.match(readFileSync(join(dir, "kiln.toml"), "utf8"), /^automation_profile = "ansible"$/m);
    const ping = ansible(["all", "-m", "ping"], join(dir, "infra"));
    assert.equal(ping.status, 0, `${ping.stdout}\n${ping.stderr}`);
    assert.match(ping.stdout, /box \| SUCCESS/);
    assert.match(ping.stdout, /"ping": "pong"/);
  });

  it("with the spec's default profile the tool reads neither cm.cfg nor the cm_ variables", () => {
    const dir = tempDir();
    writeJson(dir, "ping.preset.json", preset(undefined, server));
    const setup = kiln(["setup", "./ping.preset.json"], dir);
    assert.equal(setup.status, 0, setup.stderr);
    const folder = join(dir, "infra");
    assert.match(readFileSync(join(folder, "lab-inventory.ini"), "utf8"), /^box cm_host=/m);
    // no ansible.cfg: the tool finds no inventory, so `all` matches no host at all
    const ping = ansible(["all", "-m", "ping"], folder);
    assert.doesNotMatch(ping.stdout, /SUCCESS/);
    assert.match(`${ping.stdout}${ping.stderr}`, /provided hosts list is empty|No hosts matched/);
    // given the inventory by hand, it still connects to the name `box`, not to cm_host
    const direct = ansible(["-i", "lab-inventory.ini", "box", "-m", "ping"], folder);
    assert.notEqual(direct.status, 0);
    assert.match(`${direct.stdout}${direct.stderr}`, /UNREACHABLE|Could not resolve hostname box/);
  });

  it("a project set up under the default profile, switched with `kiln update --profile ansible`, connects with `ansible all -m ping`", () => {
    const dir = tempDir();
    writeJson(dir, "ping.preset.json", preset(undefined, server));
    const setup = kiln(["setup", "./ping.preset.json"], dir);
    assert.equal(setup.status, 0, setup.stderr);
    const folder = join(dir, "infra");
    // the user's own line in the tool's config moves with it
    appendFileSync(join(folder, "cm.cfg"), "timeout = 30\n");
    const update = kiln(["update", "--profile", "ansible"], dir);
    assert.equal(update.status, 0, update.stderr);
    assert.equal(
      readFileSync(join(folder, "ansible.cfg"), "utf8"),
      "[defaults]\ninventory = lab-inventory.ini\nroles_path = roles\ntimeout = 30\n",
    );
    assert.match(readFileSync(join(dir, "kiln.toml"), "utf8"), /^automation_profile = "ansible"$/m);
    const ping = ansible(["all", "-m", "ping"], folder);
    assert.equal(ping.status, 0, `${ping.stdout}\n${ping.stderr}`);
    assert.match(ping.stdout, /box \| SUCCESS/);
  });

  it("kiln add reads the profile from kiln.toml, and refuses one it does not know", () => {
    const dir = tempDir();
    const init = kiln(["init", "--dir", "infra"], dir);
    assert.equal(init.status, 0, init.stderr);
    appendFileSync(join(dir, "kiln.toml"), 'automation_profile = "ansible"\n');
    const add = kiln(["add", "automation/config", "--name", "c", "--set", "inventory=x.ini"], dir);
    assert.equal(add.status, 0, add.stderr);
    assert.match(add.stdout, /infra\/ansible\.cfg/);
    const toml = readFileSync(join(dir, "kiln.toml"), "utf8");
    writeFileSync(join(dir, "kiln.toml"), toml.replace('"ansible"', '"chef"'));
    const wrong = kiln(["add", "automation/config", "--name", "d", "--force"], dir);
    assert.equal(wrong.status, 1);
    assert.match(
      wrong.stderr,
      /project\.automation_profile must be one of `cm`, `ansible`, got "chef"/,
    );
  });
});
