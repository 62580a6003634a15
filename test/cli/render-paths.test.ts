// The CLI renders built-ins from templates compiled ahead of time; `KILN_ENGINE=sandbox` renders
// them with the WASM engine. A whole project set up both ways comes out byte for byte the same:
// every vendored file and kiln.lock (its hashes and compressed bases) alike.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { builtinPresets } from "../../src/node/builtin-presets.ts";
import { cleanUp, ensureBuilt, kiln, tempDir, tree } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

/** A project made by `steps` (each a kiln command), with the given engine choice. */
function projectMadeWith(engine: string, steps: string[][]): Record<string, string> {
  const dir = tempDir();
  for (const args of steps) {
    const run = kiln(args, dir, { KILN_ENGINE: engine });
    assert.equal(run.status, 0, `${args.join(" ")}: ${run.stderr}`);
  }
  const files = tree(dir);
  // `kiln init` names the project after its (temporary, random) folder
  delete files["kiln.toml"];
  return files;
}

describe("the compiled path and the engine write the same project", () => {
  for (const preset of builtinPresets()) {
    it(`kiln setup ${preset.name}: every file and kiln.lock byte for byte`, () => {
      const steps = [["setup", preset.name]];
      const compiled = projectMadeWith("", steps);
      assert.ok(Object.keys(compiled).includes("kiln.lock"));
      assert.deepEqual(compiled, projectMadeWith("sandbox", steps));
    });
  }

  it("kiln add with awkward values: the same files, kiln.lock and refusal", () => {
    const steps = [
      ["init"],
      [
        "add",
        "k8s/deployment",
        "--name",
        "web",
        "--image",
        "nginx:1.27",
        "--set",
        'labels={"tier":"a: b"}',
      ],
      ["add", "k8s/service", "--name", "web", "--set", "target_port=http"],
      [
        "add",
        "automation/inventory",
        "--name",
        "inv",
        "--set",
        'hosts=[{"group":"web","members":["a",{"name":"b","cm_port":2222,"vars":{"x":null,"y":"it\'s"}}],"vars":{"z":1.5}}]',
      ],
      [
        "add",
        "automation/group-vars",
        "--name",
        "web-vars",
        "--set",
        "group=web",
        "--set",
        'vars={"b":[1,"on"],"a":{"k":null}}',
        "--set",
        "yaml=c: 1\n",
      ],
      [
        "add",
        "automation/playbook",
        "--name",
        "site-web",
        "--set",
        'plays=[{"hosts":"web","roles":"a, b","become":"no","tags":["x,y"]}]',
      ],
    ];
    assert.deepEqual(projectMadeWith("", steps), projectMadeWith("sandbox", steps));
    const refused = [
      "add",
      "k8s/deployment",
      "--name",
      "w",
      "--image",
      "x",
      "--set",
      "replicas=three",
    ];
    const dir = tempDir();
    kiln(["init"], dir);
    const compiled = kiln(refused, dir, { KILN_ENGINE: "" });
    const engine = kiln(refused, dir, { KILN_ENGINE: "sandbox" });
    assert.notEqual(compiled.status, 0);
    assert.deepEqual(compiled, engine);
  });
});
