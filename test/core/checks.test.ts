import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  CHECK_RULES,
  type CheckComponent,
  checkPreset,
  checkProject,
  componentKind,
  formatFinding,
  hostPatternTargets,
  normalizePath,
  yamlTopLevelKeys,
} from "../../src/core/checks.ts";

const json = (value: unknown) => JSON.stringify(value);

function component(
  reference: string,
  name: string,
  fields: Record<string, string> = {},
  extra: Partial<CheckComponent> = {},
): CheckComponent {
  return { reference, name, fields, labels: {}, ...extra };
}

const inventory = (groups: unknown[], files?: string[]) =>
  component("automation/inventory", "site", { hosts: json(groups) }, files ? { files } : {});

const rules = (components: CheckComponent[], namespace?: string) =>
  checkProject({ namespace, components }).map((finding) => finding.rule);

describe("checks: helpers", () => {
  it("kind is the part after the last slash, as reference resolution matches built-ins", () => {
    assert.equal(componentKind("automation/playbook"), "playbook");
    assert.equal(componentKind("other/deployment"), "deployment");
    assert.equal(componentKind("https://example.com/items/custom"), undefined);
  });
  it("normalizes paths", () => {
    assert.equal(normalizePath("./a//b/../c.yml"), "c.yml".replace(/^/, "a/"));
    assert.equal(normalizePath("../x"), "../x");
  });
  it("host patterns name groups and hosts, not wildcards", () => {
    assert.deepEqual(hostPatternTargets("web:&prod:!db"), ["web", "prod", "db"]);
    assert.deepEqual(hostPatternTargets("a,b"), ["a", "b"]);
    assert.deepEqual(hostPatternTargets("web*:~db.*"), []);
    assert.deepEqual(hostPatternTargets("web[0]"), ["web"]);
  });
  it("reads top-level yaml keys", () => {
    assert.deepEqual(yamlTopLevelKeys("a: 1\nb:\n  c: 2\n'd': x\n# e: 1\n"), ["a", "b", "d"]);
  });
  it("every rule is listed once with a severity", () => {
    const ids = CHECK_RULES.map((rule) => rule.id);
    assert.equal(new Set(ids).size, ids.length);
  });
});

describe("checks: rules", () => {
  it("a clean automation project has no findings", () => {
    const findings = checkProject({
      components: [
        inventory([
          { group: "web", members: [{ name: "w1", cm_host: "10.0.0.1" }] },
          { group: "app", children: ["web"] },
        ]),
        component("automation/group-vars", "web", { group: "web", vars: json({ a: "1" }) }),
        component(
          "automation/playbook",
          "web",
          { folder: "playbooks", plays: json([{ hosts: "app", roles: ["nginx"] }]) },
          { files: ["playbooks/web.yml"] },
        ),
        component("automation/role", "nginx", {}, { files: ["roles/nginx/tasks/main.yml"] }),
        component(
          "automation/site",
          "site",
          { playbooks: json([{ name: "web", path: "playbooks/web.yml" }]) },
          { files: ["site.yml"] },
        ),
      ],
    });
    assert.deepEqual(findings, []);
  });

  it("host-two-addresses: one host, two cm_host values", () => {
    const findings = checkProject({
      components: [
        inventory([
          { group: "web", members: [{ name: "h1", cm_host: "10.0.0.1" }] },
          { group: "db", members: [{ name: "h1", cm_host: "10.0.0.2" }] },
          { group: "ok", members: [{ name: "h2", cm_host: "10.0.0.3" }] },
          { group: "ok2", members: [{ name: "h2", cm_host: "10.0.0.3" }] },
        ]),
      ],
    });
    assert.deepEqual(
      findings.map((f) => f.rule),
      ["host-two-addresses"],
    );
    assert.match(findings[0]?.message ?? "", /`h1`.*`10\.0\.0\.1` in web and `10\.0\.0\.2` in db/);
    assert.match(findings[0]?.message ?? "", / - give it one cm_host/);
    assert.deepEqual(findings[0]?.components, [
      { index: 0, reference: "automation/inventory", name: "site" },
    ]);
  });

  it("play-unknown-group: a play aimed at a group no inventory defines", () => {
    const components = [
      inventory([{ group: "web", members: [{ name: "w1" }] }]),
      component("automation/playbook", "pb", {
        plays: json([
          { name: "ok", hosts: "web:&all:!w1" },
          { name: "bad", hosts: "webs" },
        ]),
      }),
    ];
    const findings = checkProject({ components });
    assert.deepEqual(
      findings.map((f) => f.rule),
      ["play-unknown-group"],
    );
    assert.match(findings[0]?.message ?? "", /play `bad` is aimed at `webs`/);
    assert.deepEqual(
      findings[0]?.components.map((c) => c.index),
      [1, 0],
    );
  });

  it("play-unknown-group: legacy hosts field", () => {
    assert.deepEqual(
      rules([
        inventory([{ group: "web" }]),
        component("automation/playbook", "pb", { hosts: "db" }),
      ]),
      ["play-unknown-group"],
    );
  });

  it("bootstrap-unknown-group", () => {
    const components = [
      inventory([{ group: "k8s", children: ["cp"] }]),
      component("automation/k8s-bootstrap", "a", { hosts: "cp", k8s_version: "1.31" }),
      component("automation/k8s-bootstrap", "b", { hosts: "all", k8s_version: "1.31" }),
      component("automation/k8s-bootstrap", "c", { hosts: "workers", k8s_version: "1.31" }),
    ];
    const findings = checkProject({ components });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.components[0]?.name]),
      [["bootstrap-unknown-group", "c"]],
    );
  });

  it("children-cycle: reported once per cycle", () => {
    const findings = checkProject({
      components: [
        inventory([
          { group: "a", children: ["b"] },
          { group: "b", children: ["c"] },
          { group: "c", children: ["a"] },
          { group: "d", children: ["d"] },
        ]),
      ],
    });
    assert.deepEqual(
      findings.map((f) => f.rule),
      ["children-cycle", "children-cycle"],
    );
    assert.match(findings[0]?.message ?? "", /a → b → c → a/);
    assert.match(findings[1]?.message ?? "", /d → d/);
  });

  it("group-vars-unknown-group and group-vars-key-twice", () => {
    const findings = checkProject({
      components: [
        inventory([{ group: "web" }]),
        component("automation/group-vars", "all", { group: "all" }),
        component("automation/group-vars", "db", { group: "db" }),
        component("automation/group-vars", "web", {
          group: "web",
          vars: json({ port: "80", name: "x" }),
          yaml: "port: 81\nother: 1\n",
        }),
      ],
    });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity, f.components[0]?.name]),
      [
        ["group-vars-unknown-group", "warning", "db"],
        ["group-vars-key-twice", "error", "web"],
      ],
    );
    assert.match(findings[1]?.message ?? "", /`port` in both vars and yaml/);
  });

  it("site-missing-playbook: resolved against the site's folder", () => {
    const findings = checkProject({
      components: [
        component(
          "automation/playbook",
          "web",
          { folder: "playbooks" },
          { files: ["playbooks/web.yml"] },
        ),
        component(
          "automation/site",
          "site",
          {
            playbooks: json([
              { name: "web", path: "playbooks/web.yml" },
              { name: "db", path: "playbooks/db.yml" },
            ]),
          },
          { files: ["site.yml"] },
        ),
        component(
          "automation/site",
          "nested",
          { playbooks: json([{ name: "web", path: "../playbooks/web.yml" }]) },
          { files: ["sub/nested.yml"] },
        ),
      ],
    });
    assert.deepEqual(
      findings.map((f) => f.rule),
      ["site-missing-playbook"],
    );
    assert.match(
      findings[0]?.message ?? "",
      /imports `playbooks\/db\.yml`, which no component writes/,
    );
  });

  it("site-missing-playbook: unrendered playbooks count by their expected path", () => {
    assert.deepEqual(
      rules([
        component("automation/playbook", "web", { folder: "playbooks" }),
        component("automation/site", "site", {
          playbooks: json([{ name: "web", path: "playbooks/web.yml" }]),
        }),
      ]),
      [],
    );
  });

  it("role-not-vendored: one finding per role with a fix that adds it", () => {
    const findings = checkProject({
      components: [
        inventory([{ group: "web" }]),
        component("automation/playbook", "a", {
          plays: json([
            { hosts: "web", roles: ["common", "nginx", { role: "tls", when: "x" }, "ns.col.r"] },
          ]),
        }),
        component("automation/playbook", "b", { hosts: "web", roles: json(["nginx"]) }),
        component("automation/common-role", "common"),
        component("https://example.com/r.json", "x", {}, { files: ["roles/tls/tasks/main.yml"] }),
      ],
    });
    assert.deepEqual(
      findings.map((f) => f.rule),
      ["role-not-vendored"],
    );
    const finding = findings[0];
    assert.deepEqual(
      finding?.components.map((c) => c.name),
      ["a", "b"],
    );
    assert.deepEqual(finding?.fix?.add, [
      { reference: "automation/role", name: "nginx", fields: {}, labels: {} },
    ]);
  });

  it("role-not-vendored: honours the config's roles_path", () => {
    assert.deepEqual(
      rules([
        component("automation/config", "cm", { roles_path: "vendor" }),
        component("automation/playbook", "a", { hosts: "all", roles: json(["r"]) }),
        component("https://x/y.json", "r", {}, { files: ["vendor/r/tasks/main.yml"] }),
      ]),
      [],
    );
  });

  it("service-selects-nothing: labels and namespace must match a deployment", () => {
    const findings = checkProject({
      namespace: "web",
      components: [
        component("k8s/deployment", "api", { image: "x" }, { labels: { tier: "b" } }),
        component("k8s/service", "api", {}, { labels: { tier: "b" } }),
        component("k8s/service", "orphan"),
        component("k8s/service", "api2", { namespace: "other" }, { labels: { app: "api" } }),
      ],
    });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity, f.components[0]?.name]),
      [
        ["service-selects-nothing", "warning", "orphan"],
        ["service-selects-nothing", "warning", "api2"],
      ],
    );
  });

  it("ingress-missing-service: the service field, else the ingress name", () => {
    assert.deepEqual(
      checkProject({
        components: [
          component("k8s/deployment", "front", { image: "x" }),
          component("k8s/service", "front"),
          component("k8s/ingress", "front"),
          component("k8s/ingress", "other", { service: "front" }),
          component("k8s/ingress", "broken", { service: "nope" }),
        ],
      }).map((f) => [f.rule, f.components[0]?.name]),
      [["ingress-missing-service", "broken"]],
    );
  });

  it("duplicate-path, invalid-json and render-error", () => {
    const findings = checkProject({
      components: [
        component("k8s/deployment", "a", { image: "x" }, { files: ["a-deployment.yaml"] }),
        component("k8s/deployment", "b", { image: "x" }, { files: ["./a-deployment.yaml"] }),
        inventory([]),
        component("automation/site", "s", { playbooks: "[{oops" }, { renderError: "boom" }),
      ],
    });
    assert.deepEqual(
      findings.map((f) => f.rule),
      ["render-error", "invalid-json", "duplicate-path"],
    );
    assert.deepEqual(
      findings[2]?.components.map((c) => c.index),
      [0, 1],
    );
    assert.match(formatFinding(findings[1] as never), /^error\[invalid-json\] /);
  });

  it("checkPreset renders each component and turns failures into render-error", async () => {
    const findings = await checkPreset(
      {
        project: { namespace: "web" },
        components: [
          { reference: "k8s/service", name: "s", fields: {}, labels: {} },
          { reference: "k8s/deployment", name: "d", fields: {}, labels: {} },
        ],
      },
      (component, namespace) => {
        assert.equal(namespace, "web");
        if (component.reference === "k8s/deployment") {
          throw new Error("--image is required for k8s/deployment");
        }
        return [`${component.name}-service.yaml`];
      },
    );
    assert.deepEqual(
      findings.map((f) => f.rule),
      ["render-error", "service-selects-nothing"],
    );
  });
});

describe("checks: the built-in presets", () => {
  const dir = new URL("../../src/core/presets/", import.meta.url);
  let names: string[] = [];
  try {
    names = JSON.parse(readFileSync(new URL("index.json", dir), "utf8")) as string[];
  } catch {
    names = [];
  }
  for (const name of names) {
    it(`${name} has no error findings`, () => {
      const preset = JSON.parse(readFileSync(new URL(`${name}.preset.json`, dir), "utf8")) as {
        project?: { namespace?: string };
        components: CheckComponent[];
      };
      const findings = checkProject({
        namespace: preset.project?.namespace,
        components: preset.components.map((c) => ({
          ...c,
          fields: c.fields ?? {},
          labels: c.labels ?? {},
        })),
      }).filter((finding) => finding.severity === "error");
      assert.deepEqual(findings.map(formatFinding), []);
    });
  }
});
