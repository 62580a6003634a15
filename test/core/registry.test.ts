import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { type RegistryItem, toItemView } from "../../src/core/item.ts";
import { Registry } from "../../src/core/registry.ts";
import {
  BUILTIN_REGISTRY_DIR,
  builtinRegistry,
  loadComponentFolder,
} from "../../src/node/builtin-registry.ts";
import { SPEC_COMPONENT_ORDER } from "../tools/spec.ts";

const SPEC_ORDER = SPEC_COMPONENT_ORDER;

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

  test("a component is found by its name whatever its category; of two with one name, the later", () => {
    const [deployment, service] = builtinRegistry().items.filter((item) =>
      ["deployment", "service"].includes(item.name),
    ) as [RegistryItem, RegistryItem];
    const again = { ...service, category: "infra", name: "deployment" };
    const registry = new Registry([deployment, service, again]);
    assert.equal(registry.byComponentName("deployment"), again);
    assert.equal(registry.byComponentName("service"), service);
    assert.equal(registry.byComponentName("k8s/deployment"), undefined);
    assert.equal(registry.byComponentName("__proto__"), undefined);
    const lazy = Registry.lazy(["k8s/deployment", "k8s/service"], (reference) =>
      reference === "k8s/service" ? service : deployment,
    );
    assert.equal(lazy.byComponentName("service"), service);
    assert.equal(lazy.byComponentName("ingress"), undefined);
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

describe("reading components when needed", () => {
  function counting(): { registry: Registry; reads: string[] } {
    const reads: string[] = [];
    const registry = Registry.lazy(SPEC_ORDER, (reference) => {
      reads.push(reference);
      return loadComponentFolder(join(BUILTIN_REGISTRY_DIR, reference), reference);
    });
    return { registry, reads };
  }

  test("byComponentName reads only that component, once; references() reads none", () => {
    const { registry, reads } = counting();
    assert.deepEqual(registry.references(), SPEC_ORDER);
    assert.deepEqual(reads, []);
    const item = registry.byComponentName("deployment");
    assert.equal(item?.name, "deployment");
    assert.equal(registry.byComponentName("deployment"), item);
    assert.equal(registry.byComponentName("redis.json"), undefined);
    assert.deepEqual(reads, ["k8s/deployment"]);
  });

  test("items reads the rest, in registry order, and gives the same objects", () => {
    const { registry, reads } = counting();
    const site = registry.byComponentName("site");
    const items = registry.items;
    assert.deepEqual(
      items.map((item) => `${item.category}/${item.name}`),
      SPEC_ORDER,
    );
    assert.equal(items[SPEC_ORDER.indexOf("automation/site")], site);
    assert.equal(reads.length, SPEC_ORDER.length);
    assert.equal(registry.items, items);
  });

  test("the same answers as a registry built from the items", () => {
    const eager = new Registry([...counting().registry.items]);
    const lazy = counting().registry;
    for (const reference of SPEC_ORDER) {
      const name = reference.split("/")[1] as string;
      assert.deepEqual(lazy.byComponentName(name), eager.byComponentName(name));
    }
    assert.deepEqual(lazy.references(), eager.references());
  });

  test("a broken component fails when it is asked for, not before", () => {
    const registry = Registry.lazy(["k8s/deployment", "k8s/broken"], (reference) => {
      if (reference === "k8s/broken") throw new Error("broken component");
      return loadComponentFolder(join(BUILTIN_REGISTRY_DIR, reference), reference);
    });
    assert.equal(registry.byComponentName("deployment")?.name, "deployment");
    assert.throws(() => registry.items, /broken component/);
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
