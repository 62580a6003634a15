import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { toItemView } from "../../src/core/item.ts";
import { BUILTIN_REGISTRY_DIR, builtinRegistry } from "../../src/core/registry.ts";

const SPEC_ORDER = [
  "k8s/deployment",
  "k8s/service",
  "k8s/ingress",
  "infra/cloud-a",
  "infra/cloud-b",
  "automation/k8s-bootstrap",
  "automation/inventory",
  "automation/group-vars",
  "automation/common-role",
  "automation/role",
  "automation/playbook",
  "automation/site",
  "automation/config",
];

describe("built-in registry", () => {
  test("13 components in the spec's registry order", () => {
    assert.deepEqual(builtinRegistry().references(), SPEC_ORDER);
  });

  test("every component folder is listed in index.json, and each holds only what it uses", () => {
    const folders = readdirSync(BUILTIN_REGISTRY_DIR)
      .filter((category) => statSync(join(BUILTIN_REGISTRY_DIR, category)).isDirectory())
      .flatMap((category) =>
        readdirSync(join(BUILTIN_REGISTRY_DIR, category)).map((name) => `${category}/${name}`),
      )
      .sort();
    assert.deepEqual(folders, [...SPEC_ORDER].sort());
  });

  test("component names are unique (step 1 of resolution compares names only)", () => {
    const names = builtinRegistry().items.map((item) => item.name);
    assert.equal(new Set(names).size, names.length);
  });

  test("every component has a title and a one-line description", () => {
    for (const item of builtinRegistry().items) {
      assert.ok(item.title.length > 0, item.name);
      assert.ok(item.description.length > 0 && !item.description.includes("\n"), item.name);
    }
  });

  test("spec'd output paths", () => {
    const paths = Object.fromEntries(
      builtinRegistry().items.map((item) => [item.name, toItemView(item).files]),
    );
    assert.deepEqual(paths.deployment, ["{{ name }}-deployment.yaml"]);
    assert.deepEqual(paths.service, ["{{ name }}-service.yaml"]);
    assert.deepEqual(paths.ingress, ["{{ name }}-ingress.yaml"]);
    assert.deepEqual(paths.config, ["cm.cfg"]);
  });

  test("k8s/deployment fields: image required with an example, replicas 1, port 80", () => {
    const view = toItemView(builtinRegistry().byComponentName("deployment") as never);
    assert.equal(view.title, "Deployment");
    assert.equal(view.description, "Pods running one container image.");
    assert.deepEqual(
      view.fields.map((field) => [field.name, field.required, field.default]),
      [
        ["image", true, null],
        ["replicas", false, "1"],
        ["port", false, "80"],
      ],
    );
    assert.ok(view.fields[0]?.example);
  });
});

describe("docs/catalogue.md", () => {
  test("is the catalogue as it is now (run `npm run docs:catalogue` after changing a component)", async () => {
    const { readFileSync } = await import("node:fs");
    const { catalogueMarkdown } = await import("../../scripts/catalogue-doc.ts");
    assert.equal(
      readFileSync(new URL("../../docs/catalogue.md", import.meta.url), "utf8"),
      catalogueMarkdown(),
    );
  });
});
