// The lock file's format (src/core/project/lock-format.ts) and its Node half (src/node/lock-on-disk.ts):
// sorted, stable text that reads back unchanged; a lock of this format version stays readable
// (fixtures/kiln-v1.lock, written by the first version, must never stop parsing); a newer
// version is refused with the upgrade message.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { deflateSync } from "fflate";
import type { RegistryItem } from "../../src/core/item.ts";
import {
  itemFingerprint as fingerprintWith,
  type LockCodec,
  lockedFile as lockedFileWith,
  setupLock,
} from "../../src/core/project/lock-entry.ts";
import {
  emptyLock,
  LOCK_VERSION,
  type Lock,
  type LockedComponent,
  type LockedFile,
  lockSource,
  parseLock,
  recordComponent,
  serializeLock,
  urlForLock,
  withoutComponents,
} from "../../src/core/project/lock-format.ts";
import type { PresetComponent } from "../../src/core/project/preset-manifest.ts";
import {
  encodeBase,
  encodeBaseAsync,
  NODE_LOCK_CODEC,
  sha256Hex,
} from "../../src/node/lock-compression.ts";
import { baseContent } from "../../src/node/lock-on-disk.ts";

const lockedFile = (path: string, content: string, template: number, old?: LockedFile) =>
  lockedFileWith(path, content, template, NODE_LOCK_CODEC, old);
const itemFingerprint = (item: RegistryItem) => fingerprintWith(item, sha256Hex);

const FIXTURE = new URL("./fixtures/kiln-v1.lock", import.meta.url);

function entry(name: string, component: string, paths: string[]): LockedComponent {
  return {
    name,
    component,
    reference: component,
    source: { type: "builtin", kiln: "0.1.0" },
    fingerprint: `sha256:${"a".repeat(64)}`,
    fields: { zeta: "1", alpha: "2" },
    labels: {},
    namespace: "default",
    files: paths.map((path, index) => lockedFile(path, `content of ${path}\n`, index)),
  };
}

describe("kiln.lock format", () => {
  test("round trip: serialize then parse gives the same lock, and the same bytes again", () => {
    const lock: Lock = {
      version: LOCK_VERSION,
      components: [
        entry("web", "k8s/service", ["k8s/web-service.yaml"]),
        entry("api", "k8s/deployment", ["k8s/b.yaml", "k8s/a.yaml"]),
      ],
    };
    const text = serializeLock(lock);
    const parsed = parseLock(text);
    assert.equal(serializeLock(parsed), text);
    assert.equal(parsed.components.length, 2);
    assert.equal(parsed.components[0]?.name, "api");
  });

  test("sorted: components by name then component, files by path, every object's keys", () => {
    const lock: Lock = {
      version: LOCK_VERSION,
      components: [
        entry("web", "k8s/service", []),
        entry("api", "k8s/service", []),
        entry("api", "k8s/deployment", ["z.yaml", "a.yaml"]),
      ],
    };
    const text = serializeLock(lock);
    const parsed = JSON.parse(text) as {
      components: { name: string; component: string; files: { path: string }[] }[];
    };
    assert.deepEqual(
      parsed.components.map((c) => `${c.name} ${c.component}`),
      ["api k8s/deployment", "api k8s/service", "web k8s/service"],
    );
    assert.deepEqual(
      parsed.components[0]?.files.map((f) => f.path),
      ["a.yaml", "z.yaml"],
    );
    // keys in sorted order at every level, two-space indent, final newline
    assert.match(text, /^\{\n {2}"components": \[\n/);
    assert.match(text, /"fields": \{\n\s+"alpha": "2",\n\s+"zeta": "1"\n/);
    assert.ok(text.endsWith('\n  "version": 1\n}\n'));
    // the same lock in another order is the same text
    assert.equal(serializeLock({ ...lock, components: [...lock.components].reverse() }), text);
  });

  test("a lock written by format version 1 is read (fixture kept from the first version)", () => {
    const text = readFileSync(FIXTURE, "utf8");
    const lock = parseLock(text);
    assert.equal(lock.version, 1);
    assert.deepEqual(
      lock.components.map((c) => [c.name, c.source.type]),
      [
        ["api", "builtin"],
        ["cache", "url"],
        ["note", "file"],
      ],
    );
    const [api, cache] = lock.components;
    assert.equal(api?.fields.replicas, "2");
    assert.equal(cache?.automationProfile, "ansible");
    assert.equal(cache?.files[0]?.conflicted, true);
    assert.equal(baseContent(api?.files[0] as never), "kind: Deployment\nmetadata:\n  name: api\n");
  });

  test("a newer version is refused with the upgrade message, whatever else it holds", () => {
    for (const text of ['{"version": 3}', '{"version": 7, "components": "who knows"}']) {
      assert.throws(
        () => parseLock(text),
        (error: Error & { detail?: string }) => {
          assert.equal(error.message, "this kiln.lock was written by a newer kiln - upgrade kiln");
          assert.match(error.detail ?? "", /this kiln reads versions up to 2/);
          return true;
        },
      );
    }
  });

  test("text that is no lock: clear errors that never quote the file", () => {
    const cases: [string, RegExp][] = [
      ["PATH=/secret", /^kiln\.lock is not valid JSON - fix it/],
      ['{"components": []}', /^kiln\.lock is not a valid lock file/],
      ['{"version": 0}', /^kiln\.lock is not a valid lock file/],
      ['{"version": 1, "components": [{"name": "x"}]}', /^kiln\.lock is not a valid lock file/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => parseLock(text),
        (error: Error & { detail?: string }) => {
          assert.match(error.message, message);
          assert.doesNotMatch(`${error.message} ${error.detail}`, /secret/);
          return true;
        },
      );
    }
    const withString = '{"version": 1, "components": [{"name": 5}]}';
    assert.throws(() => parseLock(withString), {
      detail: "components[0].name: invalid type: integer `5`, expected a string",
    });
  });

  test("recording a component replaces its entry and takes over its files from others", () => {
    let lock = recordComponent(emptyLock(), entry("api", "k8s/deployment", ["a.yaml"]));
    lock = recordComponent(lock, entry("web", "k8s/service", ["b.yaml", "c.yaml"]));
    lock = recordComponent(lock, entry("api", "k8s/deployment", ["a2.yaml", "c.yaml"]));
    const files = Object.fromEntries(
      lock.components.map((c) => [c.name, c.files.map((f) => f.path)]),
    );
    assert.deepEqual(files, { web: ["b.yaml"], api: ["a2.yaml", "c.yaml"] });
    assert.deepEqual(
      withoutComponents(lock, (c) => c.name === "web").components.map((c) => c.name),
      ["api"],
    );
  });

  test("recording a component leaves the lock it was recorded into as it was", () => {
    const before = recordComponent(emptyLock(), entry("web", "k8s/service", ["b.yaml", "c.yaml"]));
    const withDb = recordComponent(before, entry("db", "k8s/service", ["d.yaml"]));
    const text = serializeLock(before);
    const taking = recordComponent(withDb, entry("api", "k8s/deployment", ["c.yaml"]));
    assert.equal(serializeLock(before), text);
    assert.deepEqual(
      taking.components.map((c) => [c.name, c.files.map((f) => f.path)]),
      [
        ["web", ["b.yaml"]],
        ["db", ["d.yaml"]],
        ["api", ["c.yaml"]],
      ],
    );
    assert.deepEqual(
      withDb.components.map((c) => c.files.map((f) => f.path)),
      [["b.yaml", "c.yaml"], ["d.yaml"]],
    );
  });

  test("a value keyed `__proto__` (a field's name) is an ordinary key in kiln.lock's text", () => {
    const own = {
      ...entry("api", "k8s/deployment", ["a.yaml"]),
      fields: JSON.parse('{"__proto__": "x", "alpha": "2"}') as Record<string, string>,
    };
    const text = serializeLock(recordComponent(emptyLock(), own));
    assert.match(text, /"fields": \{\n\s+"__proto__": "x",\n\s+"alpha": "2"\n/);
    assert.equal(serializeLock(parseLock(text)), text);
  });

  test("a component joins a stranger's lock of 300,000 components last, without a crash", () => {
    // more components than a function call takes arguments (Math.max(...all) threw RangeError)
    const many = { ...emptyLock() };
    many.components = Array.from({ length: 300_000 }, (_, index) => ({
      ...entry(`c${index}`, "k8s/service", []),
      order: index + 1,
    }));
    const recorded = recordComponent(many, entry("new", "k8s/deployment", ["n.yaml"]));
    assert.equal(recorded.components.find((c) => c.name === "new")?.order, 300_001);
  });

  test("sources: built-in with kiln's version, URL without credentials, file as typed", () => {
    assert.deepEqual(lockSource("k8s/deployment", true, "1.2.3"), {
      type: "builtin",
      kiln: "1.2.3",
    });
    assert.deepEqual(lockSource("https://u:token@example.com/x.json?v=1", false, "1"), {
      type: "url",
      url: "https://example.com/x.json?v=1",
    });
    assert.equal(urlForLock("http://example.com/a@b"), "http://example.com/a@b");
    assert.deepEqual(lockSource("./items/x.json", false, "1"), {
      type: "file",
      path: "./items/x.json",
    });
  });
});

describe("kiln.lock entries (src/core/project/lock-entry.ts, with Node's codec)", () => {
  test("a base any raw DEFLATE stream wrote reads back (fflate's, an older kiln's)", () => {
    const content = "apiVersion: v1\nkind: Service\n# é\n";
    const file = {
      ...lockedFile("k8s/s.yaml", content, 0),
      base: Buffer.from(deflateSync(Buffer.from(content), { level: 1 })).toString("base64"),
    };
    assert.equal(baseContent(file), content);
  });

  test("the service's bases (compressed off its thread) are the CLI's, byte for byte", async () => {
    for (const content of ["same\n", "kind: Deployment\n".repeat(50), "é ✓ \u0000\n", ""]) {
      assert.equal(await encodeBaseAsync(content), encodeBase(content));
    }
  });

  test("a file's base is its exact content, checked against its hash", () => {
    const content = "a: 1\n# é ✓\nno newline at the end";
    const file = lockedFile("k8s/x.yaml", content, 3);
    assert.equal(file.template, 3);
    assert.equal(baseContent(file), content);
    assert.throws(
      () => baseContent({ ...file, sha256: "0".repeat(64) }),
      /does not match its hash/,
    );
    assert.throws(() => baseContent({ ...file, base: "!!!" }), /cannot be read/);
  });

  test("an unchanged file keeps its recorded base bytes; a changed one gets the new", () => {
    const old = { ...lockedFile("x", "same\n", 0), base: "y87MT3cKtQ4w0NPSUHdMyVP3S9RUAE0A" };
    assert.equal(lockedFile("x", "same\n", 0, old).base, old.base);
    assert.notEqual(lockedFile("x", "other\n", 0, old).base, old.base);
  });

  test("the fingerprint changes with the item and not with key order", () => {
    const item: RegistryItem = {
      name: "n",
      category: "c",
      title: "",
      description: "",
      fields: [],
      files: [{ path: "a", template: "x" }],
    };
    const reordered = JSON.parse(
      JSON.stringify({
        files: item.files,
        name: "n",
        category: "c",
        title: "",
        description: "",
        fields: [],
      }),
    ) as RegistryItem;
    assert.equal(itemFingerprint(item), itemFingerprint(reordered));
    assert.match(itemFingerprint(item), /^sha256:[0-9a-f]{64}$/);
    assert.notEqual(
      itemFingerprint(item),
      itemFingerprint({ ...item, files: [{ path: "a", template: "y" }] }),
    );
  });
});

describe("a set-up project's lock", () => {
  test("hashes and compresses each distinct file content once: repeated files share the work, each still with its own hash and base", () => {
    const calls = { sha256: 0, encodeBase: 0 };
    const counting: LockCodec = {
      sha256: (text) => {
        calls.sha256 += 1;
        return NODE_LOCK_CODEC.sha256(text);
      },
      encodeBase: (content) => {
        calls.encodeBase += 1;
        return NODE_LOCK_CODEC.encodeBase(content);
      },
    };
    // three roles whose defaults, handlers and meta files are the same bytes, as the built-in
    // role's are
    const roles = ["web", "db", "cache"].map((name) => ({
      component: { reference: "automation/role", name, fields: {} } as PresetComponent,
      item: {
        component: "automation/role",
        source: { type: "builtin" as const, kiln: "0.1.0" },
        fingerprint: "sha256:0",
      },
      files: [
        { path: `roles/${name}/tasks/main.yml`, content: `---\n# ${name}\n` },
        { path: `roles/${name}/defaults/main.yml`, content: "---\n" },
        { path: `roles/${name}/meta/main.yml`, content: "---\ndependencies: []\n" },
      ],
    }));
    const lock = setupLock(roles, { outputDir: "infra", defaultNamespace: "default" }, counting);
    // 5 distinct contents: 3 tasks files, one defaults, one meta
    assert.equal(calls.encodeBase, 5);
    assert.equal(calls.sha256, 5);
    for (const component of lock.components) {
      for (const file of component.files) {
        const content = roles
          .flatMap((role) => role.files)
          .find((planned) => `infra/${planned.path}` === file.path)?.content as string;
        assert.equal(file.sha256, sha256Hex(content));
        assert.equal(file.base, encodeBase(content));
      }
    }
  });
});
