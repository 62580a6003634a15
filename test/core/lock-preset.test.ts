// A project's inputs read back from kiln.lock (src/core/project/preset-from-lock.ts): the preset
// `kiln preset export` prints and the dashboard opens, and how the dashboard learns the project's
// settings from a lock alone.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Lock, LockedComponent } from "../../src/core/project/lock-format.ts";
import {
  lockNamespace,
  outputDirOf,
  presetFromLock,
  sharedTopFolder,
} from "../../src/core/project/preset-from-lock.ts";

function entry(name: string, namespace: string, paths: string[]): LockedComponent {
  return {
    name,
    component: "k8s/deployment",
    reference: "k8s/deployment",
    source: { type: "builtin", kiln: "0.1.0" },
    fingerprint: "sha256:0",
    fields: { image: "x" },
    labels: {},
    namespace,
    files: paths.map((path, template) => ({ path, sha256: "0", base: "", template })),
  };
}

const lockOf = (...components: LockedComponent[]): Lock => ({ version: 1, components });

describe("a project's preset from its lock", () => {
  test("components in lock order; one rendered in another namespace keeps it as a field", () => {
    const preset = presetFromLock(
      lockOf(entry("api", "shop", ["k8s/a.yaml"]), entry("db", "data", ["k8s/d.yaml"])),
      { name: "p", defaultNamespace: "shop", outputDir: "k8s", automationProfile: "ansible" },
    );
    assert.deepEqual(preset.project, {
      name: "p",
      namespace: "shop",
      outputDir: "k8s",
      automationProfile: "ansible",
    });
    assert.deepEqual(
      preset.components.map((component) => [component.name, component.fields]),
      [
        ["api", { image: "x" }],
        ["db", { image: "x", namespace: "data" }],
      ],
    );
  });

  test("the namespace most components were rendered in; the first on a tie", () => {
    assert.equal(
      lockNamespace(lockOf(entry("a", "x", []), entry("b", "y", []), entry("c", "y", [])), "d"),
      "y",
    );
    assert.equal(lockNamespace(lockOf(entry("a", "x", []), entry("b", "y", [])), "d"), "x");
    assert.equal(lockNamespace(lockOf(), "default"), "default");
  });

  test("the output folder is the locked path less the rendered one", () => {
    assert.equal(outputDirOf("infra/group_vars/web.yml", "group_vars/web.yml"), "infra");
    assert.equal(outputDirOf("deploy/k8s/a.yaml", "./a.yaml"), "deploy/k8s");
    assert.equal(outputDirOf("a.yaml", "a.yaml"), ".");
    // the item changed since: no answer rather than a wrong one
    assert.equal(outputDirOf("infra/web.yml", "group_vars/web.yml"), undefined);
    assert.equal(outputDirOf("infra/xweb.yml", "web.yml"), undefined);
  });

  test("without a render: the first folder all files share, else the default", () => {
    assert.equal(sharedTopFolder(lockOf(entry("a", "x", ["infra/a", "infra/g/b"]))), "infra");
    assert.equal(sharedTopFolder(lockOf(entry("a", "x", ["infra/a", "deploy/b"]))), "k8s");
    assert.equal(sharedTopFolder(lockOf()), "k8s");
  });
});
