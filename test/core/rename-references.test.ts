// What a rename must change elsewhere so that nothing pointing at the renamed component breaks,
// read from the project's facts against the built-in catalogue.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toItemMetaView } from "../../src/core/item.ts";
import type { CheckComponent, CheckProject } from "../../src/core/project/facts.ts";
import { renameFollowers } from "../../src/core/project/rename-references.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";

const catalogue = builtinRegistry().items.map(toItemMetaView);

function component(
  reference: string,
  name: string,
  fields: Record<string, string> = {},
  labels: Record<string, string> = {},
): CheckComponent {
  return { reference, name, fields, labels };
}

/** The edits of renaming component `index` of `components` to `newName`, as tuples. */
function follow(components: CheckComponent[], index: number, newName: string) {
  const project: CheckProject = { namespace: "web", components, catalogue };
  const renamed = { ...(components[index] as CheckComponent), name: newName };
  return renameFollowers(project, index, renamed).map((edit) => [
    components[edit.index]?.name,
    edit.kind,
    edit.key,
    edit.to,
  ]);
}

describe("rename references", () => {
  const web = [
    component("k8s/deployment", "api", { image: "x" }, { tier: "b" }),
    component("k8s/service", "api", {}, { tier: "b" }),
    component("k8s/ingress", "api", { service: "api" }),
    component("k8s/ingress", "bare"),
  ];

  it("a renamed deployment takes the selector of each service that selected it along", () => {
    assert.deepEqual(follow(web, 0, "backend"), [["api", "label", "app", "backend"]]);
  });

  it("a renamed service takes each ingress routed to it along, and keeps its own selector", () => {
    assert.deepEqual(follow(web, 1, "backend"), [
      ["api", "label", "app", "api"],
      ["api", "field", "service", "backend"],
    ]);
  });

  it("a renamed ingress that routed by its own name keeps its backend", () => {
    const project = [...web, component("k8s/service", "bare")];
    assert.deepEqual(follow(project, 3, "front"), [["bare", "field", "service", "bare"]]);
  });

  it("a renamed role is renamed in the plays that use it, a renamed playbook in the site", () => {
    const plays = JSON.stringify([
      { name: "Web", hosts: "all", roles: ["common", { role: "nginx", tags: ["x"] }] },
    ]);
    const project = [
      component("automation/role", "nginx"),
      component("automation/playbook", "web", { plays }),
      component("automation/site", "site", {
        playbooks: JSON.stringify([{ name: "web", path: "web.yml" }]),
      }),
    ];
    assert.deepEqual(follow(project, 0, "proxy"), [
      [
        "web",
        "field",
        "plays",
        JSON.stringify([
          { name: "Web", hosts: "all", roles: ["common", { role: "proxy", tags: ["x"] }] },
        ]),
      ],
    ]);
    assert.deepEqual(follow(project, 1, "front"), [
      ["site", "field", "playbooks", JSON.stringify([{ name: "web", path: "front.yml" }])],
    ]);
  });

  it("nothing pointing at the component: nothing to follow", () => {
    assert.deepEqual(follow([component("k8s/deployment", "solo", { image: "x" })], 0, "x"), []);
  });
});
