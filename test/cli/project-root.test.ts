// Running kiln from a folder inside a project: the project is the nearest folder up that holds
// kiln.toml, commands run there and print paths from where the user stands; -C <dir> runs as if
// started in <dir>; init refuses to nest a project unless --nested; a parent's kiln.toml that
// another user owns is not taken as the user's project.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cleanUp, ensureBuilt, itemFile, kiln, project, tempDir, write } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

/** A project (output folder k8s/) with an empty folder infra/ to stand in. */
function projectWithInfra(): { dir: string; infra: string } {
  const dir = project({ namespace: "shop" });
  const infra = join(dir, "infra");
  mkdirSync(infra);
  return { dir, infra };
}

describe("the project root is found from a subfolder", () => {
  it("every project command run in infra/ works on the project above and prints paths from infra/", () => {
    const { dir, infra } = projectWithInfra();
    itemFile(dir, "item.json", [{ path: "thing.yaml", template: "a: 1\n" }]);

    const added = kiln(["add", "k8s/deployment", "--name", "web", "--image", "nginx:1.27"], infra);
    assert.equal(added.status, 0, added.stderr);
    assert.match(added.stdout, /^created {3}\.\.\/k8s\/web-deployment\.yaml$/m);
    assert.ok(existsSync(join(dir, "k8s", "web-deployment.yaml")));
    assert.ok(existsSync(join(dir, "kiln.lock")));

    // a file path typed in infra/ names the file from infra/; the lock records it from the root
    const fromFile = kiln(["add", "../item.json", "--name", "thing"], infra);
    assert.equal(fromFile.status, 0, fromFile.stderr);
    assert.match(fromFile.stdout, /^created {3}\.\.\/k8s\/thing\.yaml$/m);
    const lock = JSON.parse(readFileSync(join(dir, "kiln.lock"), "utf8"));
    const thing = lock.components.find((entry: { name: string }) => entry.name === "thing");
    assert.equal(thing.reference, "./item.json");

    write(
      dir,
      "k8s/web-deployment.yaml",
      `${readFileSync(join(dir, "k8s/web-deployment.yaml"), "utf8")}# edited\n`,
    );
    rmSync(join(dir, "k8s", "thing.yaml"));
    const status = kiln(["status"], infra);
    assert.equal(status.status, 0, status.stderr);
    assert.match(status.stdout, /^ {2}modified {3}\.\.\/k8s\/web-deployment\.yaml$/m);
    assert.match(status.stdout, /^ {2}missing {4}\.\.\/k8s\/thing\.yaml$/m);

    // a patch names its files from the project root, as git diff does
    const diff = kiln(["diff", "--exit-code"], infra);
    assert.equal(diff.status, 1, diff.stderr);
    assert.match(diff.stdout, /^\+\+\+ b\/k8s\/thing\.yaml$/m);

    const updated = kiln(["update", "thing"], infra);
    assert.equal(updated.status, 0, updated.stderr);
    assert.match(updated.stdout, /\.\.\/k8s\/thing\.yaml/);
    assert.equal(readFileSync(join(dir, "k8s", "thing.yaml"), "utf8"), "a: 1\n");

    const checked = kiln(["check"], infra);
    assert.equal(checked.status, 0, checked.stderr);
    assert.match(checked.stdout, /^checked the project \(kiln\.lock\): 2 components/m);

    const exported = kiln(["preset", "export", "--output", "../shop.preset.json"], infra);
    assert.equal(exported.status, 0, exported.stderr);
    assert.match(exported.stdout, /^created {3}\.\.\/shop\.preset\.json$/m);
    assert.ok(existsSync(join(dir, "shop.preset.json")));

    const removed = kiln(["remove", "thing"], infra);
    assert.equal(removed.status, 0, removed.stderr);
    assert.match(removed.stdout, /^removed {3}\.\.\/k8s\/thing\.yaml$/m);
    assert.equal(existsSync(join(dir, "k8s", "thing.yaml")), false);

    // setup runs at the root too: the existing project is not set up again by accident
    const setup = kiln(["setup", "k8s-web-app"], infra);
    assert.notEqual(setup.status, 0, setup.stdout);
    assert.deepEqual(readdirSync(infra), []);
  });

  it("-C <dir> runs as if kiln was started in <dir>; a folder that does not exist is a usage error", () => {
    const { dir } = projectWithInfra();
    const added = kiln(["-C", "infra", "add", "k8s/service", "--name", "web", "--port", "80"], dir);
    assert.equal(added.status, 0, added.stderr);
    assert.match(added.stdout, /^created {3}\.\.\/k8s\/web-service\.yaml$/m);
    assert.ok(existsSync(join(dir, "k8s", "web-service.yaml")));

    const missing = kiln(["-C", "nope", "status"], dir);
    assert.equal(missing.status, 2);
    assert.equal(
      missing.stderr,
      "error: cannot run in `nope` (-C): no such folder\npass a folder that exists: kiln -C <dir> <command>\n",
    );
  });
});

describe("setup --force from a subfolder", () => {
  it("merges into the project's tracked files at the root and names them from the subfolder", () => {
    const dir = tempDir();
    assert.equal(kiln(["setup", "k8s-web-app"], dir).status, 0);
    const deployment = join(dir, "k8s", "api-deployment.yaml");
    writeFileSync(deployment, `${readFileSync(deployment, "utf8")}# mine\n`);
    mkdirSync(join(dir, "infra"));
    const again = kiln(["setup", "k8s-web-app", "--force", "-v"], join(dir, "infra"));
    assert.equal(again.status, 0, again.stderr);
    assert.match(
      again.stdout,
      /^kept {6}\.\.\/k8s\/api-deployment\.yaml {2}\(edited since kiln wrote it/m,
    );
    assert.match(again.stdout, /^unchanged \.\.\/kiln\.toml$/m);
    assert.match(readFileSync(deployment, "utf8"), /# mine\n$/);
    assert.deepEqual(readdirSync(join(dir, "infra")), []);
  });
});

describe("the journal works from the project root", () => {
  it("a run interrupted at the root is rolled back by a writing command run from infra/", () => {
    const { dir, infra } = projectWithInfra();
    write(dir, "k8s/app.yaml", "kind: Deployment\n");
    const before = "restored\n";
    const journal = {
      version: 2,
      pid: 4242,
      folders: [],
      entries: [
        {
          path: "k8s/app.yaml",
          before: {
            sha256: createHash("sha256").update(before).digest("hex"),
            mode: 0o644,
            bytes: Buffer.from(before).toString("base64"),
          },
          after: {
            sha256: createHash("sha256").update("kind: Deployment\n").digest("hex"),
            size: 17,
          },
        },
      ],
    };
    write(dir, ".kiln-journal.json", JSON.stringify(journal));
    const added = kiln(["add", "k8s/service", "--name", "web", "--port", "80"], infra);
    assert.equal(added.status, 0, added.stderr);
    assert.match(
      added.stderr,
      /^note: a kiln run in this folder was interrupted part-way - rolled back/,
    );
    assert.equal(readFileSync(join(dir, "k8s", "app.yaml"), "utf8"), before);
    assert.equal(existsSync(join(dir, ".kiln-journal.json")), false);
    assert.deepEqual(readdirSync(infra), []);
  });
});

describe("kiln init inside a project", () => {
  it("refuses and names the project found above; --nested creates one, which commands below it then use", () => {
    const { dir, infra } = projectWithInfra();
    const refused = kiln(["init"], infra);
    assert.equal(refused.status, 1);
    assert.equal(
      refused.stderr,
      `error: refusing to create a project inside the project in ${dir} - kiln commands run here already work on it\n` +
        "  run the command you meant here (kiln add, status, ...), or `kiln init --nested` to create a separate project in this folder\n",
    );
    assert.deepEqual(readdirSync(infra), []);

    const nested = kiln(["init", "--nested", "--name", "inner"], infra);
    assert.equal(nested.status, 0, nested.stderr);
    assert.match(readFileSync(join(infra, "kiln.toml"), "utf8"), /name = "inner"/);
    mkdirSync(join(infra, "sub"));
    const inner = kiln(["status"], join(infra, "sub"));
    assert.equal(inner.status, 1);
    assert.match(inner.stderr, new RegExp(`no kiln\\.lock found in ${infra}\\b`));
  });
});

describe("a kiln.toml above that another user owns", () => {
  it("is refused as the project (naming it and -C), and is no project for init to nest in", (t) => {
    if (process.getuid?.() !== 0) {
      t.skip("giving a file to another user needs root");
      return;
    }
    const { dir, infra } = projectWithInfra();
    chownSync(join(dir, "kiln.toml"), 4242, 4242);
    const status = kiln(["status"], infra);
    assert.equal(status.status, 1);
    assert.equal(
      status.stderr,
      `error: refusing the project in ${dir} - its kiln.toml belongs to another user (uid 4242), not to you\n` +
        `  run kiln in a project of yours, or \`kiln -C ${dir} <command>\` to use that project on purpose\n`,
    );
    const init = kiln(["init"], infra);
    assert.equal(init.status, 0, init.stderr);
    assert.ok(existsSync(join(infra, "kiln.toml")));
    assert.equal(dirname(infra), dir);
  });
});
