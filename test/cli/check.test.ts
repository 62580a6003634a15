// kiln check: the cross-component checks on a preset, run by the real binary.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CHECK_RULES } from "../../src/core/project/checks/check-project.ts";
import { builtinPresets } from "../../src/node/builtin-presets.ts";
import { cleanUp, ensureBuilt, kiln, tempDir, tree, writeJson } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

/** A preset with three mistakes: a play aimed at a missing group, a site importing a missing
 * playbook, and a role used but not vendored. */
const BROKEN = {
  name: "broken",
  components: [
    {
      reference: "automation/inventory",
      name: "prod",
      fields: {
        hosts: JSON.stringify([{ group: "web", members: [{ name: "web1", cm_host: "10.0.0.5" }] }]),
      },
    },
    { reference: "automation/common-role", name: "common" },
    {
      reference: "automation/playbook",
      name: "web",
      fields: {
        folder: "playbooks",
        plays: JSON.stringify([
          { name: "Web", hosts: "web", roles: ["common"] },
          { name: "Databases", hosts: "db", roles: ["postgres"] },
        ]),
      },
    },
    {
      reference: "automation/site",
      name: "site",
      fields: {
        playbooks: JSON.stringify([
          { name: "Web", path: "playbooks/web.yml" },
          { name: "Data", path: "playbooks/data.yml" },
        ]),
      },
    },
  ],
};

describe("kiln check", () => {
  it("every built-in preset checks clean, and nothing is written", () => {
    for (const preset of builtinPresets()) {
      const dir = tempDir();
      const run = kiln(["check", preset.name], dir);
      assert.equal(run.status, 0, `${preset.name}: ${run.stdout}${run.stderr}`);
      assert.equal(
        run.stdout,
        `checked ${preset.name}: ${preset.components.length} components, no findings\n`,
      );
      assert.equal(run.stderr, "");
      assert.deepEqual(tree(dir), {});
    }
  });

  it("reports a play aimed at a missing group, a missing playbook and a role not vendored; exit 1", () => {
    const dir = tempDir();
    writeJson(dir, "broken.preset.json", BROKEN);
    const run = kiln(["check", "./broken.preset.json"], dir);
    assert.equal(run.status, 1);
    assert.equal(run.stderr, "");
    assert.equal(
      run.stdout,
      [
        "error[play-unknown-group] automation/playbook `web`: play `Databases` is aimed at `db`, which no inventory defines - add the group to the inventory (groups: all, web), or change the play's hosts",
        "error[site-missing-playbook] automation/site `site` imports `playbooks/data.yml`, which no component writes - add an automation/playbook that writes `playbooks/data.yml` or fix the path",
        "error[role-not-vendored] role `postgres` is used by automation/playbook `web` but no component writes roles/postgres/ - add an automation/role named `postgres`",
        "  fix: Add role postgres",
        "checked broken: 4 components, 3 errors, 0 warnings",
        "",
      ].join("\n"),
    );
    assert.deepEqual(Object.keys(tree(dir)), ["broken.preset.json"], "nothing written");
  });

  it("--json prints the findings, with counts, and keeps the exit status", () => {
    const dir = tempDir();
    writeJson(dir, "broken.preset.json", BROKEN);
    const run = kiln(["check", "broken.preset.json", "--json"], dir);
    assert.equal(run.status, 1);
    const report = JSON.parse(run.stdout) as {
      findings: { rule: string; severity: string; message: string; components: unknown[] }[];
      errors: number;
      warnings: number;
    };
    assert.deepEqual(Object.keys(report), ["findings", "errors", "warnings"]);
    assert.deepEqual(
      report.findings.map((finding) => [finding.rule, finding.severity]),
      [
        ["play-unknown-group", "error"],
        ["site-missing-playbook", "error"],
        ["role-not-vendored", "error"],
      ],
    );
    assert.deepEqual(report.findings[0]?.components, [
      { index: 2, reference: "automation/playbook", name: "web" },
      { index: 0, reference: "automation/inventory", name: "prod" },
    ]);
    assert.equal(report.errors, 3);
    assert.equal(report.warnings, 0);
    assert.ok(run.stdout.startsWith('{\n  "findings": ['), "indented by two spaces");
    // the parts each message is built from come last, so the keys before keep their places
    const [play, , role] = report.findings as unknown as Record<string, unknown>[];
    assert.deepEqual(Object.keys(play ?? {}), [
      "rule",
      "severity",
      "message",
      "components",
      "params",
    ]);
    assert.deepEqual(play?.params, {
      component: { reference: "automation/playbook", name: "web" },
      play: "Databases",
      target: "db",
      groups: ["all", "web"],
    });
    assert.deepEqual(Object.keys(role ?? {}), [
      "rule",
      "severity",
      "message",
      "components",
      "fix",
      "params",
    ]);
    assert.deepEqual(role?.params, {
      role: "postgres",
      components: [{ reference: "automation/playbook", name: "web" }],
    });

    const clean = kiln(["check", "k8s-web-app", "--json"], dir);
    assert.equal(clean.status, 0);
    assert.deepEqual(JSON.parse(clean.stdout), { findings: [], errors: 0, warnings: 0 });
  });

  it("warnings alone pass; a component that does not render is an error finding", () => {
    const dir = tempDir();
    writeJson(dir, "w.preset.json", {
      components: [
        { reference: "k8s/service", name: "lonely" },
        { reference: "k8s/deployment", name: "web", fields: { image: "nginx:1.27" } },
      ],
    });
    const warned = kiln(["check", "./w.preset.json"], dir);
    assert.equal(warned.status, 0, warned.stdout);
    assert.match(warned.stdout, /^warning\[service-selects-nothing\] k8s\/service `lonely` /);
    assert.match(
      warned.stdout,
      /\nchecked \.\/w\.preset\.json: 2 components, 0 errors, 1 warning\n$/,
    );

    writeJson(dir, "r.preset.json", { components: [{ reference: "k8s/deployment", name: "web" }] });
    const failed = kiln(["check", "./r.preset.json"], dir);
    assert.equal(failed.status, 1);
    assert.match(
      failed.stdout,
      /^error\[render-error\] k8s\/deployment `web` does not render: --image is required for k8s\/deployment/,
    );
  });

  it("usage errors exit 2; a preset that cannot be found exits 1", () => {
    const dir = tempDir();
    for (const args of [
      ["check", "a", "b"],
      ["check", "k8s-web-app", "--force"],
    ]) {
      const run = kiln(args, dir);
      assert.equal(run.status, 2, args.join(" "));
      assert.match(run.stderr, /^error: /);
      assert.match(run.stderr, /run `kiln check --help` for usage/);
      assert.equal(run.stdout, "");
    }
    // without a preset, check checks the project here: none here
    const noProject = kiln(["check"], dir);
    assert.equal(noProject.status, 1);
    assert.match(noProject.stderr, /^error: no kiln\.toml found in /);
    const missing = kiln(["check", "no-such-preset"], dir);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^error: `no-such-preset` is not a preset template/);
  });

  it("--help shows the usage, every rule and examples", () => {
    const run = kiln(["check", "--help"], tempDir());
    assert.equal(run.status, 0);
    assert.match(run.stdout, /^kiln check - /);
    assert.match(run.stdout, /Usage: kiln check \[<preset\|component>...\] \[--json\]/);
    for (const rule of CHECK_RULES) assert.ok(run.stdout.includes(rule.id), rule.id);
    assert.match(run.stdout, /Examples:\n {2}kiln check /);
    assert.match(kiln(["--help"], tempDir()).stdout, /^ {2}check {4}/m);
  });
});
