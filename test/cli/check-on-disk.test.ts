// `kiln check` of a project checks the files as they are on disk, not the values kiln.lock
// records: after `kiln setup`, each hand edit a platform engineer makes by mistake - a second
// host on an address already taken, a play aimed at a group no inventory defines, a role folder
// deleted while a playbook uses it, conflict markers left in a file - is a finding. A file that
// does not read (or is a stranger's trap: a link to /dev/zero, a FIFO, a huge file, YAML nested
// without end or an alias bomb) is named, and its component is checked by its recorded values.
// The summary counts the files and those edited by hand; `kiln check <preset>` still checks the
// rendered preset; every file of every built-in preset reads back clean. Run by the real
// binary, each case in a copy of one set-up project.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { appendFileSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  cleanUp,
  copyOfBuilt,
  ensureBuilt,
  FIFO_PROBE_SKIP,
  kiln,
  setUpProject,
} from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

const PRESET = "web-and-database";
const INVENTORY = "infra/web-and-database-inventory.ini";
const WEB_PLAYBOOK = "infra/playbooks/web.yml";
const SUMMARY = "checked the project (kiln.lock): 13 components, 25 files";

/** A copy of the set-up preset with `edit` applied to its files; `kiln check` there. */
function checkAfter(edit: (dir: string) => void, args: string[] = []) {
  const dir = setUpProject(PRESET);
  edit(dir);
  return { dir, ...kiln(["check", ...args], dir) };
}

/** Replaces `from` by `to` in the file at `path` (which must hold it). */
function replaceIn(dir: string, path: string, from: string, to: string): void {
  const text = readFileSync(join(dir, path), "utf8");
  assert.ok(text.includes(from), `${path} holds ${from}`);
  writeFileSync(join(dir, path), text.replace(from, to));
}

describe("kiln check reads the project's files as they are", () => {
  it("an untouched project has no findings, and the summary counts its files and 0 edited by hand", () => {
    const run = checkAfter(() => {});
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, `${SUMMARY} (0 edited by hand, checked as they are), no findings\n`);
  });

  it("a host added to the inventory on an address another host has is a finding (hosts-share-address)", () => {
    const run = checkAfter((dir) =>
      replaceIn(
        dir,
        INVENTORY,
        "web-2 cm_host=192.0.2.12 cm_user=deploy cm_port=22\n",
        "web-2 cm_host=192.0.2.12 cm_user=deploy cm_port=22\nweb-3 cm_host=192.0.2.12 cm_user=deploy cm_port=22\n",
      ),
    );
    assert.equal(run.status, 0, "a warning alone passes");
    assert.match(
      run.stdout,
      /^warning\[hosts-share-address\] automation\/inventory `web-and-database`: hosts `web-2` and `web-3` share the address `192\.0\.2\.12` port 22/m,
    );
    assert.match(run.stdout, /\(1 edited by hand, checked as they are\), 0 errors, 1 warning\n$/);
  });

  it("a host listed again in another group with another address is an error (host-two-addresses)", () => {
    const run = checkAfter((dir) =>
      appendFileSync(join(dir, INVENTORY), "\n[db_replicas]\nweb-2 cm_host=192.0.2.99\n"),
    );
    assert.equal(run.status, 1);
    assert.match(
      run.stdout,
      /^error\[host-two-addresses\] automation\/inventory `web-and-database`: host `web-2` has two addresses \(`192\.0\.2\.12` in web and `192\.0\.2\.99` in db_replicas\)/m,
    );
  });

  it("a play aimed at a group no inventory defines is an error (play-unknown-group)", () => {
    const run = checkAfter((dir) =>
      replaceIn(dir, WEB_PLAYBOOK, "hosts: web\n", "hosts: webservers\n"),
    );
    assert.equal(run.status, 1);
    assert.match(
      run.stdout,
      /^error\[play-unknown-group\] automation\/playbook `web`: play `Web tier` is aimed at `webservers`, which no inventory defines/m,
    );
    assert.match(run.stdout, /1 edited by hand, checked as they are\), 1 error, 0 warnings\n$/);
  });

  it("a role folder deleted while a playbook uses it is an error, and its missing files say how to restore them", () => {
    const run = checkAfter((dir) => rmSync(join(dir, "infra/roles/nginx"), { recursive: true }));
    assert.equal(run.status, 1);
    assert.match(
      run.stdout,
      /^error\[role-not-vendored\] role `nginx` is used by automation\/playbook `web` but no component writes roles\/nginx\//m,
    );
    assert.match(
      run.stdout,
      /^warning\[missing-file\] automation\/role `nginx`: 4 files kiln\.lock tracks are not on disk \(`infra\/roles\/nginx\/defaults\/main\.yml`, `infra\/roles\/nginx\/handlers\/main\.yml`, `infra\/roles\/nginx\/meta\/main\.yml` and 1 more\) - `kiln update role\/nginx` writes them again, or `kiln remove role\/nginx` stops tracking the component$/m,
    );
    // the fix the message names works: the role is back and the check is clean
    const restored = kiln(["update", "role/nginx"], run.dir);
    assert.equal(restored.status, 0, restored.stderr);
    assert.equal(kiln(["check"], run.dir).status, 0);
  });

  it("the site importing a playbook by a path no file has is an error (site-missing-playbook)", () => {
    const run = checkAfter((dir) =>
      replaceIn(dir, "infra/site.yml", "playbooks/db.yml", "playbooks/database.yml"),
    );
    assert.equal(run.status, 1);
    assert.match(
      run.stdout,
      /^error\[site-missing-playbook\] automation\/site `site` imports `playbooks\/database\.yml`, which no component writes/m,
    );
  });

  it("a Service's selector and an Ingress's backend edited in the manifests are findings", () => {
    const dir = setUpProject("k8s-web-app");
    replaceIn(
      dir,
      "k8s/api-service.yaml",
      "    tier: backend\n  ports:",
      "    tier: api\n  ports:",
    );
    replaceIn(
      dir,
      "k8s/frontend-ingress.yaml",
      "                name: frontend\n",
      "                name: www\n",
    );
    const run = kiln(["check"], dir);
    assert.equal(run.status, 1);
    assert.match(
      run.stdout,
      /^warning\[service-selects-nothing\] k8s\/service `api` selects pods labelled app=api, tier=api in namespace `web`/m,
    );
    assert.match(
      run.stdout,
      /^error\[ingress-missing-service\] k8s\/ingress `frontend` routes to service `www` in namespace `web`/m,
    );
    assert.match(
      run.stdout,
      /7 files \(2 edited by hand, checked as they are\), 1 error, 1 warning\n$/,
    );
  });

  it("an inventory written with the real tool's names (`ansible` profile) is read by them", () => {
    const dir = copyOfBuilt(`setup ${PRESET} --profile ansible`, () => {
      const seed = setUpProject(PRESET);
      const update = kiln(["update", "--profile", "ansible"], seed);
      assert.equal(update.status, 0, update.stderr);
      return seed;
    });
    appendFileSync(
      join(dir, INVENTORY),
      "\n[web]\nweb-3 ansible_host=192.0.2.12 ansible_port=22\n",
    );
    const run = kiln(["check"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /^warning\[hosts-share-address\] automation\/inventory `web-and-database`: hosts `web-2` and `web-3` share the address `192\.0\.2\.12` port 22/m,
    );
  });

  it("unresolved conflict markers in a tracked file are an error naming the file and line", () => {
    const run = checkAfter((dir) =>
      replaceIn(
        dir,
        "infra/group_vars/web.yml",
        "---\n",
        "---\n<<<<<<< yours\nnginx_worker_processes: 4\n=======\nnginx_worker_processes: auto\n>>>>>>> kiln update\n",
      ),
    );
    assert.equal(run.status, 1);
    assert.match(
      run.stdout,
      /^error\[conflict-markers\] automation\/group-vars `web`: `infra\/group_vars\/web\.yml` holds unresolved conflict markers \(`<<<<<<<` at line 2\) - keep the lines you want between `<<<<<<<`, `=======` and `>>>>>>>`, delete the marker lines and run `kiln check` again$/m,
    );
    assert.match(run.stdout, /1 edited by hand, checked as they are\), 1 error, 0 warnings\n$/);
  });

  it("the markers `kiln update --conflicts=markers` writes are found until they are resolved", () => {
    const dir = setUpProject("k8s-web-app");
    replaceIn(dir, "k8s/api-deployment.yaml", "replicas: 2\n", "replicas: 5\n");
    const update = kiln(
      ["update", "deployment/api", "--replicas", "4", "--conflicts=markers"],
      dir,
    );
    assert.equal(update.status, 1, update.stdout);
    const conflicted = kiln(["check"], dir);
    assert.equal(conflicted.status, 1);
    assert.match(
      conflicted.stdout,
      /^error\[conflict-markers\] k8s\/deployment `api`: `k8s\/api-deployment\.yaml` holds unresolved conflict markers \(`<<<<<<<` at line \d+\)/m,
    );
    // resolved by hand: the markers gone, the check passes
    const text = readFileSync(join(dir, "k8s/api-deployment.yaml"), "utf8");
    writeFileSync(
      join(dir, "k8s/api-deployment.yaml"),
      text.replace(
        /<<<<<<< yours\n {2}replicas: 5\n=======\n( {2}replicas: 4\n)>>>>>>> kiln update\n/,
        "$1",
      ),
    );
    const resolved = kiln(["check"], dir);
    assert.equal(resolved.status, 0, resolved.stdout);
    assert.doesNotMatch(resolved.stdout, /conflict-markers/);
  });

  it("a file that does not parse is named, and its component is checked by the values kiln.lock records", () => {
    // the inventory's groups are gone from the file's facts, but the plays aimed at them
    // still find them: the recorded inventory stands in for the file that does not read
    const run = checkAfter((dir) => appendFileSync(join(dir, INVENTORY), "\n[web]\nweb-9 oops\n"));
    assert.equal(run.status, 0, run.stdout);
    assert.equal(
      run.stdout,
      `warning: ${INVENTORY} was not read: it is not a valid INI inventory (line 23: a host's variables must be \`key=value\`) - checked with the values kiln.lock records for it instead\n${SUMMARY} (1 edited by hand, checked as they are), no findings\n`,
    );
    const yaml = checkAfter((dir) => appendFileSync(join(dir, WEB_PLAYBOOK), "  roles: [nginx\n"));
    assert.equal(yaml.status, 0, yaml.stdout);
    assert.match(
      yaml.stdout,
      /^warning: infra\/playbooks\/web\.yml was not read: it is not valid YAML \(line \d+, column \d+: .+\) - checked with the values kiln\.lock records for it instead$/m,
    );
  });

  it("paths are named from the folder the user stands in", () => {
    const run = checkAfter((dir) => replaceIn(dir, WEB_PLAYBOOK, "hosts: web\n", "hosts: [web\n"));
    const below = kiln(["check"], join(run.dir, "infra", "playbooks"));
    assert.match(below.stdout, /^warning: web\.yml was not read: /m);
  });

  it("--json adds the files, those edited by hand and those not read, after the keys it had", () => {
    const run = checkAfter(
      (dir) => appendFileSync(join(dir, INVENTORY), "\n[web]\nweb-9 oops\n"),
      ["--json"],
    );
    const answer = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(answer), [
      "findings",
      "errors",
      "warnings",
      "files",
      "edited",
      "unread",
    ]);
    assert.equal(answer.files, 25);
    assert.deepEqual(answer.edited, [INVENTORY]);
    assert.deepEqual(answer.unread, [
      {
        path: INVENTORY,
        reason: "it is not a valid INI inventory (line 23: a host's variables must be `key=value`)",
      },
    ]);
  });

  it("kiln check <preset> checks the rendered preset, not the files of the folder it runs in", () => {
    const run = checkAfter(
      (dir) => replaceIn(dir, WEB_PLAYBOOK, "hosts: web\n", "hosts: webservers\n"),
      ["k8s-web-app"],
    );
    assert.equal(run.status, 0, run.stdout);
    assert.equal(run.stdout, "checked k8s-web-app: 7 components, no findings\n");
  });
});

describe("kiln check reads every file the built-in presets write", () => {
  const presets: [string, number, number][] = [
    ["k8s-web-app", 7, 7],
    ["single-server", 7, 10],
    ["bootstrap-cluster", 11, 20],
    ["web-and-database", 13, 25],
    ["multi-tier-platform", 35, 77],
  ];
  for (const [preset, components, files] of presets) {
    it(`${preset}: every file edited (a comment added) is read, and the project stays clean`, () => {
      const dir = setUpProject(preset);
      everyFileEdited(dir, components, files);
    });
  }
  it("multi-tier-platform under the ansible profile (ansible_host, ansible.cfg): the same", () => {
    const dir = copyOfBuilt("multi-tier-platform --profile ansible", () => {
      const seed = setUpProject("multi-tier-platform");
      const update = kiln(["update", "--profile", "ansible"], seed);
      assert.equal(update.status, 0, update.stderr);
      return seed;
    });
    everyFileEdited(dir, 35, 77);
  });
});

/** Adds a comment to every file of the project's lock; `kiln check` then reads them all. */
function everyFileEdited(dir: string, components: number, files: number): void {
  const lock = JSON.parse(readFileSync(join(dir, "kiln.lock"), "utf8")) as {
    components: { files: { path: string }[] }[];
  };
  const tracked = lock.components.flatMap((component) => component.files);
  assert.equal(tracked.length, files);
  for (const file of tracked) appendFileSync(join(dir, file.path), "\n# edited by hand\n");
  const run = kiln(["check"], dir);
  assert.equal(run.status, 0, run.stdout);
  assert.equal(
    run.stdout,
    `checked the project (kiln.lock): ${components} components, ${files} files (${files} edited by hand, checked as they are), no findings\n`,
  );
}

describe("kiln check reads a stranger's files within bounds", () => {
  const traps: [string, (dir: string) => void, RegExp][] = [
    [
      "a link to /dev/zero",
      (dir) => {
        rmSync(join(dir, WEB_PLAYBOOK));
        symlinkSync("/dev/zero", join(dir, WEB_PLAYBOOK));
      },
      /^warning: infra\/playbooks\/web\.yml was not read: .*it escapes the target directory/m,
    ],
    [
      "a YAML file nested 50,000 deep",
      (dir) =>
        writeFileSync(
          join(dir, WEB_PLAYBOOK),
          `- hosts: ${"[".repeat(50_000)}${"]".repeat(50_000)}\n`,
        ),
      /^warning: infra\/playbooks\/web\.yml was not read: it nests deeper than 100 levels - /m,
    ],
    [
      "80,000 nested `- ` and a document of 80,000 `[` (the YAML library's own recursion overflows)",
      (dir) =>
        writeFileSync(
          join(dir, WEB_PLAYBOOK),
          `${"- ".repeat(80_000)}x\n---\n${"[".repeat(80_000)}${"]".repeat(80_000)}\n`,
        ),
      /^warning: infra\/playbooks\/web\.yml was not read: it nests deeper than 100 levels - /m,
    ],
    [
      "a billion-laughs alias bomb",
      (dir) => {
        const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
        for (let level = 1; level < 9; level++) {
          const name = String.fromCharCode(97 + level);
          const previous = String.fromCharCode(96 + level);
          levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(", ")}]`);
        }
        writeFileSync(
          join(dir, WEB_PLAYBOOK),
          `- hosts: web\n  vars:\n    ${levels.join("\n    ")}\n`,
        );
      },
      /^warning: infra\/playbooks\/web\.yml was not read: it could not be read \(Excessive alias count/m,
    ],
    [
      "a 2 MiB file",
      (dir) =>
        writeFileSync(join(dir, "infra/group_vars/web.yml"), `a: ${"x".repeat(2 * 1024 * 1024)}\n`),
      /^warning: infra\/group_vars\/web\.yml was not read: it is larger than 1048576 characters - /m,
    ],
    [
      "an inventory whose host ranges expand to 100,000,000 names",
      (dir) =>
        appendFileSync(join(dir, INVENTORY), "\n[web]\nh[0:9999]-[0:9999] cm_host=192.0.2.99\n"),
      /^warning: infra\/web-and-database-inventory\.ini was not read: it lists more than 10000 hosts and entries - /m,
    ],
  ];
  for (const [trap, make, named] of traps) {
    it(`${trap} is named as not read, and the check runs on`, () => {
      const run = checkAfter(make);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, named);
      assert.match(run.stdout, /^checked the project \(kiln\.lock\): 13 components, 25 files/m);
    });
  }

  it("a FIFO in a tracked file's place is never opened: named as not read", {
    skip: FIFO_PROBE_SKIP,
  }, () => {
    const run = checkAfter((dir) => {
      rmSync(join(dir, WEB_PLAYBOOK));
      execFileSync("mkfifo", [join(dir, WEB_PLAYBOOK)]);
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /^warning: infra\/playbooks\/web\.yml was not read: .*named pipe \(FIFO\), not a regular file - /m,
    );
  });
});
