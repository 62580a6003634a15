import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parseRegistryItem, toItemMetaView } from "../../src/core/item.ts";
import {
  CHECK_RULES,
  checkProject,
  formatFinding,
} from "../../src/core/project/checks/check-project.ts";
import {
  type CheckComponent,
  type CheckProject,
  hostPatternTargets,
  normalizePath,
  yamlTopLevelKeys,
} from "../../src/core/project/facts.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";

/** The built-in catalogue's metadata, as GET /api/registry/meta gives it to the dashboard. */
const catalogue = builtinRegistry().items.map(toItemMetaView);

/** Checks a project against the built-in catalogue. */
const check = (project: Omit<CheckProject, "catalogue">) => checkProject({ ...project, catalogue });

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
  check({ namespace, components }).map((finding) => finding.rule);

describe("checks: helpers", () => {
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
  it("docs/cli.md lists the registered rules (run `npm run docs:catalogue` after changing one)", async () => {
    const { cliDocWithRules } = await import("../../scripts/catalogue-doc.ts");
    const text = readFileSync(new URL("../../docs/cli.md", import.meta.url), "utf8");
    assert.equal(text, cliDocWithRules(text));
  });
  it("every rule is listed once with a severity", () => {
    const ids = CHECK_RULES.map((rule) => rule.id);
    assert.equal(new Set(ids).size, ids.length);
  });
});

describe("checks: rules", () => {
  it("a clean automation project has no findings", () => {
    const findings = check({
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
    const findings = check({
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
    const findings = check({ components });
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
      inventory([
        { group: "k8s", children: ["cp"] },
        { group: "cp", members: [{ name: "cp1" }] },
      ]),
      component("automation/k8s-bootstrap", "a", { hosts: "cp", k8s_version: "1.31" }),
      component("automation/k8s-bootstrap", "b", { hosts: "all", k8s_version: "1.31" }),
      component("automation/k8s-bootstrap", "c", { hosts: "workers", k8s_version: "1.31" }),
    ];
    const findings = check({ components });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.components[0]?.name]),
      [["bootstrap-unknown-group", "c"]],
    );
  });

  it("children-cycle: reported once per cycle", () => {
    const findings = check({
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
    const findings = check({
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
    const findings = check({
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
    const findings = check({
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
    const findings = check({
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
      check({
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

  it("service-target-port: a number must be the selected deployment's container port, a name one of its port names", () => {
    const found = (components: CheckComponent[]) =>
      check({ components })
        .filter((f) => f.rule === "service-target-port")
        .map((f) => [f.severity, f.components.map((c) => c.name), f.message]);
    // the default ports agree (80 and 80), and the k8s-web-app spelling (8080 to 8080)
    assert.deepEqual(
      found([
        component("k8s/deployment", "web", { image: "x" }),
        component("k8s/service", "web"),
        component("k8s/deployment", "api", { image: "x", port: "8080" }),
        component("k8s/service", "api", { port: "80", target_port: "8080" }),
      ]),
      [],
    );
    assert.deepEqual(
      found([
        component("k8s/deployment", "api", { image: "x", port: "9090" }),
        component("k8s/service", "api", { port: "80", target_port: "8080" }),
        component("k8s/service", "named", { target_port: "http" }, { labels: { app: "api" } }),
      ]),
      [
        [
          "warning",
          ["api", "api"],
          "k8s/service `api` sends traffic to target port `8080`, which is not a container port of the deployment it selects: k8s/deployment `api` (9090) - set the service's target_port to the container port, or the deployment's port to `8080`",
        ],
        [
          "warning",
          ["named", "api"],
          "k8s/service `named` sends traffic to target port `http`, which is not a port name of the deployment it selects: k8s/deployment `api` (9090) - set the service's target_port to the container port, or the deployment's port to `http`",
        ],
      ],
    );
    // a target port left out is the service port; a service selecting nothing is another rule's
    assert.deepEqual(
      found([
        component("k8s/deployment", "api", { image: "x", port: "8080" }),
        component("k8s/service", "api", { port: "8080" }),
        component("k8s/service", "lonely", { target_port: "1" }),
      ]),
      [],
    );
  });

  it("duplicate-path, invalid-json and render-error", () => {
    const findings = check({
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
});

describe("checks: Terraform folders", () => {
  const servers = (reference: string, name: string, files: string[]) =>
    component(reference, name, { region: "r", size: "s" }, { files });

  it("terraform-folder-shared: two components' .tf files in one folder are an error", () => {
    const findings = check({
      components: [
        servers("infra/cloud-a", "a", ["a-hetzner.tf"]),
        servers("infra/cloud-b", "b", ["b-digitalocean.tf"]),
        servers("infra/cloud-a", "c", ["net/c.tf"]),
        servers("infra/cloud-a", "d", ["net/d.tf.json"]),
      ],
    });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity, f.components.map((c) => c.index)]),
      [
        ["terraform-folder-shared", "error", [0, 1]],
        ["terraform-folder-shared", "error", [2, 3]],
      ],
    );
    assert.equal(
      findings[0]?.message,
      "infra/cloud-a `a` and infra/cloud-b `b` all write Terraform files into the output folder, which Terraform loads as one configuration: their provider requirements, token variables, providers, resources or outputs are declared twice there and `terraform init` refuses the folder - give each component its own folder",
    );
    assert.match(findings[1]?.message ?? "", /into `net\/`, which Terraform loads/);
  });

  it("terraform-folder-shared: the built-in server components, each in its own folder, pass", () => {
    // the paths the built-ins render: a Hetzner and a DigitalOcean component of one name too
    assert.deepEqual(
      rules([
        servers("infra/cloud-a", "x", ["x-hetzner/x-hetzner.tf"]),
        servers("infra/cloud-b", "x", ["x-digitalocean/x-digitalocean.tf"]),
        servers("infra/cloud-a", "my.app", ["my.app-hetzner/my.app-hetzner.tf"]),
        servers("infra/cloud-a", "my_app", ["my_app-hetzner/my_app-hetzner.tf"]),
        component("k8s/deployment", "x", { image: "i" }, { files: ["x-hetzner/x.yaml"] }),
      ]),
      [],
    );
  });
});

describe("checks: the rules users of the original tool rely on", () => {
  it("hosts-share-address: two host names, one address and port (a warning)", () => {
    const findings = check({
      components: [
        inventory([
          {
            group: "web",
            members: [
              { name: "web-1", cm_host: "10.0.0.1" },
              { name: "web-2", cm_host: "10.0.0.1" },
              { name: "nat-a", cm_host: "203.0.113.9", cm_port: 2201 },
              { name: "nat-b", cm_host: "203.0.113.9", cm_port: 2202 },
            ],
          },
          { group: "all-web", members: [{ name: "web-1", cm_host: "10.0.0.1" }] },
        ]),
      ],
    });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity]),
      [["hosts-share-address", "warning"]],
    );
    assert.match(
      findings[0]?.message ?? "",
      /^automation\/inventory `site`: hosts `web-1` and `web-2` share the address `10\.0\.0\.1`/,
    );
  });

  it("host-var-overrides-group-var: in the inventory's group vars and in group vars of a parent group", () => {
    const findings = check({
      components: [
        inventory([
          {
            group: "web",
            members: [{ name: "w1", vars: { http_port: 8080, tls: "on", own: 1 } }],
            vars: { http_port: 80 },
          },
          { group: "app", children: ["web"] },
          { group: "db", members: [{ name: "d1", vars: { tls: "off" } }] },
        ]),
        component("automation/group-vars", "app", { group: "app", yaml: "tls: on\n" }),
      ],
    });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity, f.components.map((c) => c.index)]),
      [["host-var-overrides-group-var", "warning", [0, 1]]],
    );
    assert.equal(
      findings[0]?.message,
      "automation/inventory `site`: host `w1` sets `http_port` (also set for group `web` in the inventory), `tls` (also set for group `app` by automation/group-vars `app`) - the host's value wins for this host; remove it from the host or the group unless that is meant",
    );
  });

  it("group-vars-key-in-inventory: one key for one group in group vars and in the inventory", () => {
    const findings = check({
      components: [
        inventory([{ group: "web", members: [{ name: "w1" }], vars: { port: 80, name: "x" } }]),
        component("automation/group-vars", "web", {
          group: "web",
          vars: json({ port: "81" }),
          yaml: "name: y\nother: 1\n",
        }),
        component("automation/group-vars", "all", { group: "all", vars: json({ port: "1" }) }),
      ],
    });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity, f.components.map((c) => c.index)]),
      [["group-vars-key-in-inventory", "warning", [1, 0]]],
    );
    assert.match(
      findings[0]?.message ?? "",
      /sets `port`, `name` for group `web`, which automation\/inventory `site` also sets/,
    );
  });

  it("empty-child-group: a child with no hosts and no children", () => {
    const findings = check({
      components: [
        inventory([
          { group: "web", members: [{ name: "w1" }] },
          { group: "app", children: ["web", "wbe"] },
          { group: "top", children: ["app", "wbe"] },
        ]),
      ],
    });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity]),
      [["empty-child-group", "warning"]],
    );
    assert.match(
      findings[0]?.message ?? "",
      /group `wbe` is a child of `app`, `top` but has no hosts/,
    );
  });

  it("group-vars-both-layouts: group_vars/<group>.yml and group_vars/<group>/", () => {
    const findings = check({
      components: [
        inventory([{ group: "web", members: [{ name: "w1" }] }]),
        component(
          "automation/group-vars",
          "a",
          { group: "web" },
          { files: ["group_vars/web.yml"] },
        ),
        component(
          "automation/group-vars",
          "b",
          { group: "web", layout: "dir" },
          { files: ["group_vars/web/main.yml"] },
        ),
        // another inventory folder's group_vars is another set
        component(
          "https://example.com/vault.json",
          "v",
          {},
          { files: ["prod/group_vars/web/vault.yml"] },
        ),
      ],
    });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity, f.components.map((c) => c.index)]),
      [["group-vars-both-layouts", "warning", [1, 2]]],
    );
    assert.match(
      findings[0]?.message ?? "",
      /`group_vars\/web\.yml` by automation\/group-vars `a` and `group_vars\/web\/main\.yml` by automation\/group-vars `b`/,
    );
  });

  it("two-inventories: a warning naming both", () => {
    const findings = check({
      components: [
        inventory([{ group: "web", members: [{ name: "w1" }] }]),
        component("automation/inventory", "staging", {
          hosts: json([{ group: "web", members: [{ name: "s1" }] }]),
        }),
      ],
    });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity, f.components.map((c) => c.index)]),
      [["two-inventories", "warning", [1, 0]]],
    );
  });

  it("playbook-not-imported: only in a project with a site", () => {
    const playbooks = [
      component("automation/playbook", "web", { folder: "playbooks", hosts: "all" }),
      component("automation/playbook", "upgrade", { folder: "playbooks", hosts: "all" }),
      component("automation/k8s-bootstrap", "nodes", { hosts: "all", k8s_version: "1.31" }),
    ];
    assert.deepEqual(rules(playbooks), []);
    const findings = check({
      components: [
        ...playbooks,
        component("automation/site", "site", {
          playbooks: json([{ name: "web", path: "playbooks/web.yml" }]),
        }),
      ],
    });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity, f.components[0]?.name]),
      [
        ["playbook-not-imported", "warning", "upgrade"],
        ["playbook-not-imported", "warning", "nodes"],
      ],
    );
    assert.match(
      findings[1]?.message ?? "",
      /writes `nodes-k8s-bootstrap\.yml`, which no site imports/,
    );
  });

  it("cidr-overlap: fields declared `format: cidr` by a custom item", () => {
    const network = parseRegistryItem(
      {
        name: "network",
        category: "custom",
        fields: [
          { name: "cidr", format: "cidr" },
          { name: "allow", format: "cidr" },
          { name: "note" },
        ],
        files: [{ path: "{{ name }}.tf", template: "" }],
        kiln: { stage: "provision" },
      },
      "./network.json",
    );
    const net = (name: string, fields: Record<string, string>) =>
      component("./network.json", name, fields, { meta: network.meta });
    const findings = check({
      components: [
        net("a", { cidr: "10.0.0.0/16", note: "10.0.0.0/8" }),
        net("b", { cidr: "10.0.1.0/24" }),
        net("c", { cidr: "10.1.0.0/16", allow: json(["192.0.2.0/24", "2001:db8::/32"]) }),
        net("d", { cidr: "2001:db8:1::/48, 198.51.100.7" }),
      ],
    });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity, f.components.map((c) => c.name)]),
      [
        ["cidr-overlap", "warning", ["a", "b"]],
        ["cidr-overlap", "warning", ["c", "d"]],
      ],
    );
    assert.equal(
      findings[0]?.message,
      "./network.json `a` (cidr `10.0.0.0/16`) and ./network.json `b` (cidr `10.0.1.0/24`) overlap - addresses in both ranges are ambiguous; give each its own range",
    );
    // the same fields without the declaration are plain text
    const plain = parseRegistryItem(
      { ...network, meta: undefined, fields: [{ name: "cidr" }] },
      "p",
    );
    assert.deepEqual(
      rules([
        component("./p.json", "a", { cidr: "10.0.0.0/16" }, { meta: plain.meta }),
        component("./p.json", "b", { cidr: "10.0.0.0/16" }, { meta: plain.meta }),
      ]),
      [],
    );
  });
});

describe("checks: the catalogue decides what a component is", () => {
  /** An inventory-like item from a file: hosts under another field name, declared an inventory. */
  const machines = parseRegistryItem(
    {
      name: "machines",
      category: "custom",
      fields: [{ name: "machines", required: true, editor: "inventory" }],
      files: [{ path: "{{ name }}.ini", template: "" }],
      kiln: { stage: "inventory", kind: "inventory", facts: { groups: "machines" } },
    },
    "./machines.json",
  );
  const groups = json([
    { group: "web", members: [{ name: "h1", cm_host: "10.0.0.1" }] },
    { group: "db", members: [{ name: "h1", cm_host: "10.0.0.2" }] },
    { group: "app", children: ["nowhere"] },
  ]);

  it("a custom item declared an inventory gets the inventory checks", () => {
    const findings = check({
      components: [
        component("./items/machines.json", "prod", { machines: groups }, { meta: machines.meta }),
        component("automation/playbook", "pb", { hosts: "web:db:nope" }),
      ],
    });
    assert.deepEqual(
      findings.map((f) => f.rule),
      ["host-two-addresses", "play-unknown-group", "empty-child-group"],
    );
    assert.match(
      findings[1]?.message ?? "",
      /aimed at `nope`.*\(groups: all, web, db, app, nowhere\)/,
    );
  });

  it("the same item without the declaration is checked by its paths alone", () => {
    const plain = parseRegistryItem({ ...machines, meta: undefined, kiln: undefined }, "x");
    assert.equal(plain.meta?.kind, null);
    assert.deepEqual(
      rules([
        component("./items/machines.json", "prod", { machines: groups }, { meta: plain.meta }),
      ]),
      [],
    );
  });

  it("a built-in reference resolves by its name; without a catalogue messages use plain words", () => {
    const components = [
      component("automation/playbook", "pb", { plays: json([{ hosts: "all", roles: ["nginx"] }]) }),
    ];
    assert.deepEqual(
      check({ components: [component("other/playbook", "pb", components[0]?.fields)] }).map(
        (f) => f.rule,
      ),
      ["role-not-vendored"],
    );
    assert.deepEqual(checkProject({ components }), [], "nothing says what automation/playbook is");
    const playbook = catalogue.find((entry) => entry.reference === "automation/playbook");
    const [finding] = checkProject({
      components: components.map((c) => ({ ...c, meta: playbook })),
    });
    assert.equal(
      finding?.message,
      "role `nginx` is used by automation/playbook `pb` but no component writes roles/nginx/ - add a role named `nginx`",
    );
    assert.equal(finding?.fix, undefined, "no catalogue, no component to add");
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
    it(`${name} has no findings (kiln check passes it clean)`, () => {
      const preset = JSON.parse(readFileSync(new URL(`${name}.preset.json`, dir), "utf8")) as {
        project?: { namespace?: string };
        components: CheckComponent[];
      };
      const findings = check({
        namespace: preset.project?.namespace,
        components: preset.components.map((c) => ({
          ...c,
          fields: c.fields ?? {},
          labels: c.labels ?? {},
        })),
      });
      assert.deepEqual(findings.map(formatFinding), []);
    });
  }
});
