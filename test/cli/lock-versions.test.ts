// kiln.lock and the version of kiln, from the real binary: a lock whose built-ins a newer kiln
// recorded is refused by every command that writes it (add, setup, update, remove) unless
// --allow-older-kiln, and warned about by the commands that only read it (status, diff);
// versions are ordered by semver, not as text. And a built-in whose item changed since the
// kiln that recorded it shows as changed upstream in status, also where its files render the
// same.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  cleanUp,
  copyOfBuilt,
  ensureBuilt,
  kiln,
  project,
  REPO,
  tree,
  writeJson,
} from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

const VERSION = (
  JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }
).version;
const NEWER = "99.0.0";

interface LockJson {
  components: {
    name: string;
    component: string;
    source: { type: string; kiln?: string };
    fingerprint: string;
  }[];
}

function readLockJson(dir: string): LockJson {
  return JSON.parse(readFileSync(join(dir, "kiln.lock"), "utf8")) as LockJson;
}

/** Rewrites kiln.lock with `change` applied to its component `component` named `name`. */
function editLock(
  dir: string,
  name: string,
  component: string,
  change: (entry: LockJson["components"][number]) => void,
): void {
  const lock = readLockJson(dir);
  const entry = lock.components.find((c) => c.name === name && c.component === component);
  assert.ok(entry, `no ${component} ${name} in kiln.lock`);
  change(entry);
  writeJson(dir, "kiln.lock", lock);
}

/** A project with a deployment and a service named api, the service recorded by kiln `by`. */
function projectRecordedBy(by: string): string {
  // the two adds run once per file; each test edits its own copy of their result
  const dir = copyOfBuilt("api deployment and service", () => {
    const seed = project();
    assert.equal(
      kiln(["add", "k8s/deployment", "--name", "api", "--image", "a:1"], seed).status,
      0,
    );
    assert.equal(kiln(["add", "k8s/service", "--name", "api", "--port", "80"], seed).status, 0);
    return seed;
  });
  editLock(dir, "api", "k8s/service", (entry) => {
    entry.source.kiln = by;
  });
  return dir;
}

const REFUSAL = `error: kiln.lock was written by kiln ${NEWER} - upgrade kiln, or pass --allow-older-kiln\n`;

describe("a kiln.lock written by a newer kiln", () => {
  const writers: [string, string[]][] = [
    ["add", ["add", "k8s/ingress", "--name", "web", "--service", "api"]],
    ["setup", ["setup", "k8s-web-app", "--force"]],
    ["update", ["update", "api", "--image", "a:2"]],
    ["remove", ["remove", "api"]],
  ];
  for (const [command, args] of writers) {
    it(`${command} refuses it with the version it records and writes nothing; --allow-older-kiln goes on`, () => {
      const dir = projectRecordedBy(NEWER);
      const before = tree(dir);
      const refused = kiln(args, dir);
      assert.equal(refused.status, 1, refused.stderr);
      assert.ok(refused.stderr.startsWith(REFUSAL), refused.stderr);
      assert.match(
        refused.stderr,
        new RegExp(`^ {2}this is kiln ${VERSION.replaceAll(".", "\\.")}: `, "m"),
      );
      assert.equal(refused.stdout, "");
      assert.deepEqual(tree(dir), before);

      const allowed = kiln([...args, "--allow-older-kiln"], dir);
      assert.equal(allowed.status, 0, allowed.stderr);
      assert.notDeepEqual(tree(dir), before);
    });
  }

  it("update --allow-older-kiln records this kiln's built-ins: the next run needs no flag", () => {
    const dir = projectRecordedBy(NEWER);
    assert.equal(kiln(["update", "--allow-older-kiln"], dir).status, 0);
    assert.deepEqual(
      readLockJson(dir).components.map((entry) => entry.source.kiln),
      [VERSION, VERSION],
    );
    const again = kiln(["update", "api", "--image", "a:2"], dir);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stderr, "");
  });

  it("status and diff warn first, then report as usual (exit 0)", () => {
    const dir = projectRecordedBy(NEWER);
    const warning = `warning: kiln.lock was written by kiln ${NEWER}, newer than this kiln ${VERSION} - upgrade kiln to see what it recorded; this is kiln ${VERSION}'s reading of it\n`;
    const status = kiln(["status"], dir);
    assert.equal(status.status, 0, status.stderr);
    assert.equal(status.stderr, warning);
    assert.match(status.stdout, /^2 components, 2 files: 2 unchanged; /m);
    const json = kiln(["status", "--json"], dir);
    assert.equal(json.stderr, warning);
    assert.equal((JSON.parse(json.stdout) as { components: unknown[] }).components.length, 2);
    const diff = kiln(["diff", "--exit-code"], dir);
    assert.equal(diff.status, 0, diff.stderr);
    assert.equal(diff.stderr, warning);
  });

  it("versions are ordered by semver, not as text: a pre-release of this version is older, a two-digit minor newer", () => {
    // as text `0.1.0-rc.1` sorts after `0.1.0`; by semver it comes before
    const dir = projectRecordedBy(`${VERSION}-rc.1`);
    const status = kiln(["status"], dir);
    assert.equal(status.stderr, "");
    const update = kiln(["update", "api", "--image", "a:2"], dir);
    assert.equal(update.status, 0, update.stderr);
    // the minor version ten above this one (`0.11.0` after `0.1.0`) is newer
    const [major, minor] = VERSION.split(".").map(Number) as [number, number];
    const newer = `${major}.${minor + 10}.0`;
    const refused = kiln(["remove", "api"], projectRecordedBy(newer));
    assert.equal(refused.status, 1);
    assert.match(
      refused.stderr,
      new RegExp(`^error: kiln\\.lock was written by kiln ${newer.replaceAll(".", "\\.")} - `),
    );
    // a version semver cannot read is no version: nothing to compare
    const odd = projectRecordedBy("not-a-version");
    assert.equal(kiln(["remove", "api"], odd).status, 0);
  });
});

describe("changed upstream: the item kiln.lock records against this kiln's built-in", () => {
  it("a built-in whose recorded fingerprint differs shows as changed upstream (text and --json)", () => {
    const dir = projectRecordedBy(VERSION);
    const clean = kiln(["status", "--all"], dir);
    assert.match(clean.stdout, /^api k8s\/service$/m);
    assert.match(clean.stdout, /; 0 changed upstream;/);
    assert.equal(
      (
        JSON.parse(kiln(["status", "--json"], dir).stdout) as { components: { upstream: string }[] }
      ).components
        .map((entry) => entry.upstream)
        .join(),
      "unchanged,unchanged",
    );

    // as an older kiln recorded it: its version, and the fingerprint of its (other) service item
    editLock(dir, "api", "k8s/service", (entry) => {
      entry.source.kiln = "0.0.9";
      entry.fingerprint = `sha256:${"0".repeat(64)}`;
    });
    // without --all too: the component's line has something to say, its files do not
    assert.match(
      kiln(["status"], dir).stdout,
      /^api k8s\/service {2}\(changed upstream: [^\n]*\)\n2 components, 2 files: 2 unchanged; 1 changed upstream;/,
    );
    const status = kiln(["status", "--all"], dir);
    assert.equal(status.status, 0, status.stderr);
    assert.match(
      status.stdout,
      new RegExp(
        `^api k8s/service {2}\\(changed upstream: the built-in of kiln 0\\.0\\.9 differs from kiln ${VERSION.replaceAll(".", "\\.")}'s\\)$`,
        "m",
      ),
    );
    // the files render the same: the line is the component's
    assert.match(status.stdout, /^ {2}unchanged {2}k8s\/api-service\.yaml$/m);
    assert.match(status.stdout, /^api k8s\/deployment$/m);
    assert.match(status.stdout, /; 1 changed upstream;/);
    const json = JSON.parse(kiln(["status", "--json"], dir).stdout) as {
      components: { name: string; component: string; upstream: string }[];
    };
    assert.deepEqual(
      json.components.map((entry) => [entry.component, entry.upstream]),
      [
        ["k8s/deployment", "unchanged"],
        ["k8s/service", "changed"],
      ],
    );
    // update records this kiln's item: no longer changed upstream
    assert.equal(kiln(["update", "api"], dir).status, 0);
    assert.match(kiln(["status"], dir).stdout, /; 0 changed upstream;/);
  });
});
