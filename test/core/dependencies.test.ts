// The pure resolution of dependencies between items (src/core/dependencies.ts): which
// components one add writes and in what order, the ones the project has kept, item cycles
// named, the depth and count bounds; and the lock's record of who needs whom.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  DEPENDENCY_LIMITS,
  type DependencyRequest,
  planDependencies,
} from "../../src/core/dependencies.ts";
import { parseLock, serializeLock } from "../../src/core/project/lock-format.ts";

/** A graph of items: each reference's dependencies, names templated as `<name>-<suffix>`. */
type Graph = Record<string, { reference: string; suffix: string }[]>;

/** A resolver over `graph`; `project` holds `key\0name` of the components the project has. */
function resolver(graph: Graph, project: string[] = [], expanded: string[] = []) {
  return {
    keyOf: (reference: string) => reference,
    inProject: (key: string, name: string) =>
      project.includes(`${key}\u0000${name}`)
        ? `cat/${key.slice(key.indexOf("/") + 1)}`
        : undefined,
    expand: async (request: DependencyRequest) => {
      expanded.push(`${request.reference} ${request.name}`);
      return {
        component: `cat/${request.reference.slice(request.reference.indexOf("/") + 1)}`,
        dependencies: (graph[request.reference] ?? []).map((dependency) => ({
          reference: dependency.reference,
          name: `${request.name}-${dependency.suffix}`,
          fields: {},
        })),
        value: request.name,
      };
    },
  };
}

const root = (reference: string, name = "x"): DependencyRequest => ({
  reference,
  name,
  fields: {},
});

describe("planDependencies", () => {
  test("the named component comes first, then its dependencies depth first in declared order", async () => {
    const graph: Graph = {
      "@a/app": [
        { reference: "@b/db", suffix: "db" },
        { reference: "@a/net", suffix: "net" },
      ],
      "@b/db": [{ reference: "@a/disk", suffix: "disk" }],
    };
    const plan = await planDependencies(root("@a/app"), "@a/app", resolver(graph));
    assert.deepEqual(
      plan.added.map((entry) => `${entry.request.reference} ${entry.request.name}`),
      ["@a/app x", "@b/db x-db", "@a/disk x-db-disk", "@a/net x-net"],
    );
    assert.deepEqual(plan.added[0]?.needs, [
      { component: "cat/db", name: "x-db" },
      { component: "cat/net", name: "x-net" },
    ]);
    assert.equal(plan.added[2]?.neededBy?.request.name, "x-db");
    assert.deepEqual(plan.kept, []);
  });

  test("a dependency needed twice with the same name is planned once, and both record it", async () => {
    const graph: Graph = {
      "@a/app": [
        { reference: "@a/left", suffix: "l" },
        { reference: "@a/right", suffix: "r" },
      ],
      "@a/left": [{ reference: "@a/shared", suffix: "" }],
      "@a/right": [{ reference: "@a/shared", suffix: "" }],
    };
    // names: x-l- and x-r- differ, so give the shared one a fixed name through a custom resolver
    const base = resolver(graph);
    const expanded: string[] = [];
    const plan = await planDependencies(root("@a/app"), "@a/app", {
      ...base,
      expand: async (request) => {
        expanded.push(request.name);
        const result = await base.expand(request);
        return {
          ...result,
          dependencies: result.dependencies.map((dependency) =>
            dependency.reference === "@a/shared" ? { ...dependency, name: "shared" } : dependency,
          ),
        };
      },
    });
    assert.deepEqual(expanded, ["x", "x-l", "shared", "x-r"]);
    assert.deepEqual(plan.added[3]?.needs, [{ component: "cat/shared", name: "shared" }]);
  });

  test("a dependency the project has (same item and name) is kept, and not followed further", async () => {
    const graph: Graph = {
      "@a/app": [{ reference: "@b/db", suffix: "db" }],
      "@b/db": [{ reference: "@a/disk", suffix: "disk" }],
    };
    const expanded: string[] = [];
    const plan = await planDependencies(
      root("@a/app"),
      "@a/app",
      resolver(graph, ["@b/db\u0000x-db"], expanded),
    );
    assert.deepEqual(expanded, ["@a/app x"]);
    assert.deepEqual(
      plan.kept.map((kept) => [kept.request.name, kept.component, kept.neededBy.request.name]),
      [["x-db", "cat/db", "x"]],
    );
    assert.deepEqual(plan.added[0]?.needs, [{ component: "cat/db", name: "x-db" }]);
  });

  test("a cycle between items is refused naming it, even though each level's name differs", async () => {
    const graph: Graph = {
      "@acme/a": [{ reference: "@acme/b", suffix: "b" }],
      "@acme/b": [{ reference: "@acme/a", suffix: "a" }],
    };
    await assert.rejects(planDependencies(root("@acme/a"), "@acme/a", resolver(graph)), {
      message: "dependency cycle: @acme/a -> @acme/b -> @acme/a - nothing was written",
    });
  });

  test("a cycle that starts below the named component is named from where it starts", async () => {
    const graph: Graph = {
      "@a/top": [{ reference: "@a/b", suffix: "b" }],
      "@a/b": [{ reference: "@a/c", suffix: "c" }],
      "@a/c": [{ reference: "@a/b", suffix: "b" }],
    };
    await assert.rejects(planDependencies(root("@a/top"), "@a/top", resolver(graph)), {
      message: "dependency cycle: @a/b -> @a/c -> @a/b - nothing was written",
    });
  });

  test(`dependencies nest at most ${DEPENDENCY_LIMITS.maxDepth} levels below the named component`, async () => {
    const chain = (levels: number): Graph =>
      Object.fromEntries(
        Array.from({ length: levels }, (_, level) => [
          `@a/i${level}`,
          [{ reference: `@a/i${level + 1}`, suffix: "d" }],
        ]),
      );
    const deepest = await planDependencies(
      root("@a/i0"),
      "@a/i0",
      resolver(chain(DEPENDENCY_LIMITS.maxDepth)),
    );
    assert.equal(deepest.added.length, DEPENDENCY_LIMITS.maxDepth + 1);
    await assert.rejects(
      planDependencies(root("@a/i0"), "@a/i0", resolver(chain(DEPENDENCY_LIMITS.maxDepth + 1))),
      {
        message:
          /^dependencies nest more than 8 levels deep: @a\/i0 -> .* -> @a\/i9 - nothing was written$/,
      },
    );
  });

  test(`one add writes at most ${DEPENDENCY_LIMITS.maxComponents} dependencies`, async () => {
    const wide = (count: number): Graph => ({
      "@a/app": Array.from({ length: count }, (_, index) => ({
        reference: `@a/d${index}`,
        suffix: `${index}`,
      })),
    });
    const most = await planDependencies(
      root("@a/app"),
      "@a/app",
      resolver(wide(DEPENDENCY_LIMITS.maxComponents)),
    );
    assert.equal(most.added.length, DEPENDENCY_LIMITS.maxComponents + 1);
    await assert.rejects(
      planDependencies(
        root("@a/app"),
        "@a/app",
        resolver(wide(DEPENDENCY_LIMITS.maxComponents + 1)),
      ),
      { message: "@a/app needs more than 32 components as dependencies - nothing was written" },
    );
  });
});

describe("kiln.lock's record of dependencies", () => {
  const component = (dependencies?: { component: string; name: string }[]) => ({
    name: "app",
    component: "apps/app",
    reference: "@a/app",
    source: { type: "builtin" as const, kiln: "0.1.0" },
    fingerprint: "sha256:0",
    fields: {},
    labels: {},
    namespace: "default",
    dependencies,
    files: [],
  });

  test("is written sorted, read back, and leaves the format version at 1 (an older kiln ignores it)", () => {
    const text = serializeLock({
      version: 1,
      components: [
        component([
          { component: "k8s/service", name: "db" },
          { component: "apps/redis", name: "db" },
        ]),
      ],
    });
    const lock = parseLock(text);
    assert.equal(lock.version, 1);
    assert.deepEqual(lock.components[0]?.dependencies, [
      { component: "apps/redis", name: "db" },
      { component: "k8s/service", name: "db" },
    ]);
  });

  test("an empty record is not written", () => {
    assert.doesNotMatch(serializeLock({ version: 1, components: [component([])] }), /dependencies/);
  });
});
