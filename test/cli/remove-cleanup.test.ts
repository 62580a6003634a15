// kiln remove cleans up after itself, from the real binary: the folders its removals leave
// empty go in the same all-or-nothing run (a killed run makes them again), what still refers
// to the removed component is warned about with the command that fixes it, and `kiln update`'s
// rename takes the renamed role's old folders the same way. `kiln preset export` keeps the
// order the project's components were added or set up in.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { cleanUp, ensureBuilt, kiln, setUpProject, tempDir, tree, write } from "./helpers.ts";

before(ensureBuilt);
after(cleanUp);

/**
 * A project set up from the single-server preset: a common role used by a playbook. A copy of
 * one setup made once for this file (the tests start from a set-up project, they do not test
 * the setup).
 */
function singleServer(): string {
  return setUpProject("single-server");
}

/** The folders below `dir`, sorted, as tree() names them. */
function folders(dir: string): string[] {
  return Object.keys(tree(dir))
    .filter((path) => path.endsWith("/"))
    .sort();
}

describe("kiln remove cleans up", () => {
  it("removes the folders it empties below the output folder, never one holding another file, and warns what still uses the component", () => {
    const dir = singleServer();
    write(dir, "infra/roles/common/files/notes.txt", "mine\n");
    const run = kiln(["remove", "common"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      [
        "removed   infra/roles/common/defaults/main.yml",
        "removed   infra/roles/common/handlers/main.yml",
        "removed   infra/roles/common/tasks/main.yml",
        "removed   infra/roles/common/templates/motd.j2",
        "removed   infra/roles/common/defaults/",
        "removed   infra/roles/common/handlers/",
        "removed   infra/roles/common/tasks/",
        "removed   infra/roles/common/templates/",
        "removed common: 4 files and 4 empty folders - kiln.lock no longer records it",
        "warning[role-not-vendored] role `common` is used by automation/playbook `app` but no component writes roles/common/ - add an automation/role named `common`",
        "  fix: `kiln add automation/role --name common` or `kiln remove playbook/app`",
        "",
      ].join("\n"),
    );
    // the user's file keeps its folders; the output folder and its other folders stay
    assert.deepEqual(folders(dir), [
      "infra/",
      "infra/app-digitalocean/",
      "infra/group_vars/",
      "infra/playbooks/",
      "infra/roles/",
      "infra/roles/common/",
      "infra/roles/common/files/",
    ]);
    assert.equal(tree(dir)["infra/roles/common/files/notes.txt"], "mine\n");
  });

  it("an ingress whose service is removed is warned about with the command that adds the service back as it was", () => {
    const dir = tempDir();
    assert.equal(kiln(["setup", "k8s-web-app"], dir).status, 0);
    const service = tree(dir)["k8s/api-service.yaml"];
    const run = kiln(["remove", "service/api"], dir);
    assert.equal(run.status, 0, run.stderr);
    const fix =
      "kiln add k8s/service --name api --set port=80 --set target_port=8080 --label tier=backend";
    assert.equal(
      run.stdout,
      [
        "removed   k8s/api-service.yaml",
        "removed service/api: 1 file - kiln.lock no longer records it",
        "warning[ingress-missing-service] k8s/ingress `api` routes to service `api` in namespace `web`, which the project does not define - add a k8s/service named `api` or change the ingress's service",
        `  fix: \`${fix}\` or \`kiln remove ingress/api\``,
        "",
      ].join("\n"),
    );
    // the command given brings back the very file
    assert.equal(kiln(fix.split(" ").slice(1), dir).status, 0);
    assert.equal(tree(dir)["k8s/api-service.yaml"], service);
  });

  it("a removal killed after it removed folders is rolled back whole, folders and files, by the next command that writes", () => {
    const dir = singleServer();
    const whole = tree(dir);
    // the lock, the 4 files, then 2 of the 6 emptied folders
    const killed = kiln(["remove", "common"], dir, { KILN_TEST_CRASH_AFTER_WRITES: "7" });
    assert.equal(killed.status, null, killed.stderr);
    assert.deepEqual(
      Object.keys(whole).filter((path) => path.endsWith("/") && tree(dir)[path] === undefined)
        .length,
      2,
    );
    const next = kiln(["remove", "nosuch"], dir);
    assert.match(
      next.stderr,
      /^note: a kiln run in this folder was interrupted part-way - rolled back the 5 files it was changing \(\.kiln-journal\.json removed\)\n/,
    );
    assert.deepEqual(tree(dir), whole);
  });

  it("a file kept by an edit names git diff, which shows local edits", () => {
    const dir = singleServer();
    write(dir, "infra/roles/common/tasks/main.yml", "mine\n");
    const refused = kiln(["remove", "common"], dir);
    assert.equal(refused.status, 1);
    assert.equal(
      refused.stderr,
      "error: infra/roles/common/tasks/main.yml was edited since kiln wrote it - pass --force to remove it anyway\n  `git diff` shows the edits (`kiln diff` shows what an update would change); nothing was removed\n",
    );
  });

  it("update's rename of a role removes the old role's folders once its files moved", () => {
    const dir = singleServer();
    const run = kiln(["update", "common-role/common", "--name", "base"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /\nremoved {3}infra\/roles\/common\/\nupdated 2 components:/);
    assert.deepEqual(
      folders(dir).filter((path) => path.startsWith("infra/roles/")),
      [
        "infra/roles/",
        "infra/roles/base/",
        "infra/roles/base/defaults/",
        "infra/roles/base/handlers/",
        "infra/roles/base/tasks/",
        "infra/roles/base/templates/",
      ],
    );
  });
});

describe("kiln preset export", () => {
  it("lists the components in the order they were set up and added, not by name", () => {
    const dir = singleServer();
    assert.equal(kiln(["add", "k8s/deployment", "--name", "aaa", "--image", "x:1"], dir).status, 0);
    const exported = kiln(["preset", "export"], dir);
    assert.equal(exported.status, 0, exported.stderr);
    const components = (
      JSON.parse(exported.stdout) as { components: { reference: string; name: string }[] }
    ).components.map((component) => `${component.reference}:${component.name}`);
    assert.deepEqual(components, [
      "infra/cloud-b:app",
      "automation/inventory:single-server",
      "automation/config:cm",
      "automation/group-vars:app",
      "automation/common-role:common",
      "automation/playbook:app",
      "automation/site:site",
      "k8s/deployment:aaa",
    ]);
  });

  it("an --output outside the project is refused, saying stdout goes anywhere", () => {
    const dir = singleServer();
    const refused = kiln(["preset", "export", "--output", "../shop.preset.json"], dir);
    assert.equal(refused.status, 1);
    assert.equal(
      refused.stderr,
      "error: refusing to write `../shop.preset.json` - it escapes the target directory\n  --output writes only inside the project; the manifest goes to stdout without it: `kiln preset export > ../shop.preset.json`\n",
    );
  });
});
