// The real binary refusing values that do not fit their declared format or shape (exit 1, the
// message naming the component, the field and the place, the detail saying what to do, nothing
// written), pointing out undeclared fields without refusing them, and saying how to pass a
// required field on the command line.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { cleanUp, ensureBuilt, kiln, project, tempDir, tree, writeJson } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

/** Runs a command that must fail with exit 1, write nothing, and print `stderr` exactly. */
function refused(dir: string, args: string[], stderr: string | RegExp): void {
  const before = tree(dir);
  const run = kiln(args, dir);
  assert.equal(run.status, 1, run.stderr);
  assert.equal(run.stdout, "");
  if (typeof stderr === "string") assert.equal(run.stderr, stderr);
  else assert.match(run.stderr, stderr);
  assert.deepEqual(tree(dir), before, "nothing was written");
}

describe("kiln add refuses values that do not fit", () => {
  it("a number that is not one", () => {
    refused(
      project(),
      ["add", "k8s/deployment", "--name", "web", "--image", "nginx", "--set", "replicas=three"],
      'error: k8s/deployment: `replicas` must be a whole number from 0 to 2147483647, written in digits; got "three"\n  replicas: Number of pods.\n',
    );
  });

  it("a Kubernetes name that is not a DNS label: My_Service, sub/dir, web.app", () => {
    const dir = project();
    for (const name of ["My_Service", "sub/dir", "web.app"]) {
      refused(
        dir,
        ["add", "k8s/deployment", "--name", name, "--image", "nginx"],
        new RegExp(
          `^error: k8s/deployment: \`name\` must be a DNS label \\(RFC 1123\\): 1 to 63 lowercase letters, digits and \`-\`, starting and ending with a letter or digit; got ${JSON.stringify(name).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\n {2}the name is the component's \`name\``,
        ),
      );
    }
    // an empty --name is a usage error before anything else
    assert.equal(kiln(["add", "k8s/service", "--name", "", "--image", "x"], dir).status, 2);
  });

  it("hosts JSON with a trailing comma: the line and column", () => {
    refused(
      project(),
      [
        "add",
        "automation/inventory",
        "--name",
        "prod",
        "--set",
        'hosts=[\n  {"group": "web", "members": [{"name": "web-1", "cm_host": "10.0.0.5"}]},\n]',
      ],
      /^error: automation\/inventory: `hosts` is not valid JSON - line 3, column 1: expected a value \(an object, array, string, number, true, false or null\)\n {2}a value starting with `\[` or `\{` is read as JSON\n {2}hosts: JSON array of groups/,
    );
  });

  it("a malformed plays value: JSON that does not parse, a misspelt key, a wrong type", () => {
    const dir = project();
    const plays = (value: string) => [
      "add",
      "automation/playbook",
      "--name",
      "web",
      "--set",
      `plays=${value}`,
    ];
    refused(
      dir,
      plays('[{"hosts": "web", "roles": ["common"]'),
      /^error: automation\/playbook: `plays` is not valid JSON - line 1, column 38: unexpected end of the text, expected `,` or `\}` after a property value\n/,
    );
    refused(
      dir,
      plays('[{"host": "web"}]'),
      /^error: automation\/playbook: `plays\[0\]` has an unknown key "host"; did you mean `hosts`\?\n {2}plays: JSON list of plays/,
    );
    refused(
      dir,
      plays(
        '[{"hosts": "web", "roles": [{"role": "nginx", "when": "x", "tags": "web", "vars": []}]}]',
      ),
      /^error: automation\/playbook: `plays\[0\]\.roles\[0\]\.vars` must be an object; got an array\n/,
    );
  });

  it("a misspelt field is a warning with the field it was meant to be, and still reaches the template", () => {
    const dir = project();
    const run = kiln(
      ["add", "k8s/deployment", "--name", "web", "--image", "nginx", "--set", "replica=3"],
      dir,
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stderr,
      "warning: replica is not a field of k8s/deployment; did you mean replicas?\n",
    );
    assert.equal(
      run.stdout,
      "created   k8s/web-deployment.yaml\nadded deployment/web: 1 file in k8s/ (1 created)\n",
    );
    assert.match(tree(dir)["k8s/web-deployment.yaml"] as string, /\n {2}replicas: 1\n/);
  });

  it("a required field says how to pass it: --set, or the shortcut option when there is one", () => {
    const dir = project();
    refused(
      dir,
      ["add", "automation/group-vars", "--name", "web"],
      "error: --group is required for automation/group-vars\n  pass it with --set group=<value>, for example --set group=web\n",
    );
    refused(
      dir,
      ["add", "k8s/deployment", "--name", "web"],
      "error: --image is required for k8s/deployment\n  pass it with --image <value> (or --set image=<value>), for example --image nginx:1.27\n",
    );
    // a misspelling of the missing field is pointed out before the error
    const typo = kiln(["add", "automation/group-vars", "--name", "web", "--set", "grup=web"], dir);
    assert.equal(typo.status, 1);
    assert.match(
      typo.stderr,
      /^warning: grup is not a field of automation\/group-vars; did you mean group\?\nerror: --group is required/,
    );
  });

  it("an item that declares nothing is not checked: invalid JSON reaches the template as text", () => {
    const dir = project();
    writeJson(dir, "plain.json", {
      name: "plain",
      category: "test",
      fields: [{ name: "hosts" }],
      files: [{ path: "{{ name }}.txt", template: "{{ hosts }}|{{ hosts is string }}\n" }],
    });
    const run = kiln(["add", "./plain.json", "--name", "My_Name", "--set", "hosts=[1, 2,]"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, "");
    assert.equal(tree(dir)["k8s/My_Name.txt"], "[1, 2,]|true\n");
  });
});

describe("presets with a malformed value", () => {
  const preset = (fields: Record<string, string>) => ({
    name: "bad",
    project: { name: "bad", namespace: "default", outputDir: "out" },
    components: [
      { reference: "k8s/deployment", name: "web", fields: { image: "nginx" } },
      { reference: "k8s/deployment", name: "api", fields: { image: "api", ...fields } },
    ],
  });

  it("setup exits 1, names the component and its place in the preset, and writes nothing", () => {
    const dir = tempDir();
    writeJson(dir, "bad.preset.json", preset({ port: "http" }));
    refused(
      dir,
      ["setup", "./bad.preset.json"],
      'error: k8s/deployment: `port` must be a whole number from 1 to 65535 (a port number), written in digits; got "http"\n  port: Port the container listens on.\n  in the preset: components[1], k8s/deployment `api`\n',
    );
  });

  it("a spec message too gets the component's place (apply)", () => {
    const dir = tempDir();
    writeJson(dir, "bad.preset.json", {
      components: [
        { reference: "automation/group-vars", name: "all", fields: { group: "all" } },
        { reference: "automation/group-vars", name: "web" },
      ],
    });
    refused(
      dir,
      ["apply", "./bad.preset.json"],
      'error: --group is required for automation/group-vars\n  give it a value in the component\'s fields: "fields": {"group": "web"}\n  in the preset: components[1], automation/group-vars `web`\n',
    );
  });
});
