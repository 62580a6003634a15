// kiln add: one component into kiln.toml's output folder.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { renderItem } from "../../src/core/render-item.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { TemplateEngine } from "../../src/node/template-engine.ts";
import { cleanUp, ensureBuilt, itemFile, kiln, project, tempDir, tree, write } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

/** What the core renders for a built-in component: the CLI must write exactly these bytes. */
function rendered(
  name: string,
  input: { name: string; fields?: Record<string, string>; labels?: Record<string, string> },
  defaultNamespace = "default",
) {
  const item = builtinRegistry().byComponentName(name);
  assert.ok(item);
  return renderItem(new TemplateEngine(), item, { ...input, defaultNamespace }).files;
}

const TOML = (namespace = "default", dir = "k8s") =>
  `[project]\nname = "demo"\ndefault_namespace = "${namespace}"\noutput_dir = "${dir}"\n`;

describe("kiln add", () => {
  it("writes the rendered files under output_dir and prints each path", () => {
    const dir = project();
    const run = kiln(["add", "k8s/deployment", "--name", "web", "--image", "nginx:1.27"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, "");
    assert.equal(
      run.stdout,
      "created   k8s/web-deployment.yaml\nadded deployment/web: 1 file in k8s/ (1 created)\n",
    );
    const [file] = rendered("deployment", { name: "web", fields: { image: "nginx:1.27" } });
    // and kiln.lock records it (test/cli/lock.test.ts reads it)
    const { "kiln.lock": lock, ...files } = tree(dir);
    assert.match(lock ?? "", /"path": "k8s\/web-deployment\.yaml"/);
    assert.deepEqual(files, {
      "kiln.toml": TOML(),
      "k8s/": "",
      "k8s/web-deployment.yaml": file?.content,
    });
  });

  it("defaults the namespace to kiln.toml's default_namespace; --namespace wins", () => {
    const dir = project({ namespace: "shop" });
    assert.equal(kiln(["add", "deployment", "--name", "a", "--image", "x"], dir).status, 0);
    assert.match(tree(dir)["k8s/a-deployment.yaml"] as string, /\n {2}namespace: shop\n/);
    assert.equal(
      kiln(["add", "deployment", "--name", "b", "--image", "x", "--namespace", "ops"], dir).status,
      0,
    );
    assert.match(tree(dir)["k8s/b-deployment.yaml"] as string, /\n {2}namespace: ops\n/);
  });

  it("sets each shortcut's field, and --set wins over a shortcut", () => {
    const dir = project();
    const args = ["--image", "nginx:1", "--replicas", "3", "--port", "8080"];
    const run = kiln(
      ["add", "k8s/deployment", "--name", "web", ...args, "--set", "image=caddy:2"],
      dir,
    );
    assert.equal(run.status, 0, run.stderr);
    const [file] = rendered("deployment", {
      name: "web",
      fields: { image: "caddy:2", replicas: "3", port: "8080" },
    });
    assert.equal(tree(dir)["k8s/web-deployment.yaml"], file?.content);

    const service = kiln(
      ["add", "k8s/service", "--name", "web", "--port", "80", "--target-port", "8080"],
      dir,
    );
    assert.equal(service.status, 0, service.stderr);
    const [svc] = rendered("service", { name: "web", fields: { port: "80", target_port: "8080" } });
    assert.equal(tree(dir)["k8s/web-service.yaml"], svc?.content);

    const ingress = ["--host", "shop.example.com", "--path", "/api", "--service", "api"];
    assert.equal(kiln(["add", "k8s/ingress", "--name", "edge", ...ingress], dir).status, 0);
    const [ing] = rendered("ingress", {
      name: "edge",
      fields: { host: "shop.example.com", path: "/api", service: "api" },
    });
    assert.equal(tree(dir)["k8s/edge-ingress.yaml"], ing?.content);
  });

  it("splits KEY=VALUE on the first `=`, passes JSON values and labels, last --set wins", () => {
    const dir = tempDir();
    write(dir, "kiln.toml", TOML());
    itemFile(dir, "item.json", [
      {
        path: "{{ name }}.txt",
        template:
          "{{ opt }}|{{ other }}|{% for k, v in labels|items %}{{ k }}={{ v }};{% endfor %}|{{ list[1] }}\n",
      },
    ]);
    const run = kiln(
      [
        "add",
        "./item.json",
        "--name",
        "t",
        "--set",
        "opt=a=b=c",
        "--set",
        "other=first",
        "--set",
        "other=second",
        "--set",
        'list=["x", "y"]',
        "--label",
        "tier=web",
        "--label",
        "app=custom",
      ],
      dir,
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(tree(dir)["k8s/t.txt"], "a=b=c|second|app=custom;tier=web;|y\n");
  });

  it("--dry-run shows new, overwrite and unchanged and writes nothing", () => {
    const dir = project();
    const args = ["add", "k8s/deployment", "--name", "web", "--image", "nginx:1.27"];
    const dry = kiln([...args, "--dry-run"], dir);
    assert.equal(dry.status, 0, dry.stderr);
    assert.equal(
      dry.stdout,
      "new       k8s/web-deployment.yaml\n" +
        "dry run: nothing was written (1 new, 0 overwrite, 0 unchanged) - run again without --dry-run to write\n",
    );
    assert.deepEqual(tree(dir), { "kiln.toml": TOML() });

    assert.equal(kiln(args, dir).status, 0);
    const before = tree(dir);
    const same = kiln([...args, "--force", "--dry-run", "--verbose"], dir);
    assert.equal(same.stdout.split("\n")[0], "unchanged k8s/web-deployment.yaml");
    const changed = kiln([...args, "--image", "nginx:1.28", "--force", "--dry-run"], dir);
    assert.equal(changed.status, 0, changed.stderr);
    assert.equal(changed.stdout.split("\n")[0], "overwrite k8s/web-deployment.yaml");
    assert.deepEqual(tree(dir), before);
  });

  it("refuses an existing file without --force (nothing written); --force overwrites", () => {
    const dir = project();
    write(dir, "k8s/web-deployment.yaml", "mine\n");
    const args = ["add", "k8s/deployment", "--name", "web", "--image", "nginx:1.27"];
    const refused = kiln(args, dir);
    assert.equal(refused.status, 1);
    assert.equal(refused.stdout, "");
    assert.equal(
      refused.stderr,
      "error: k8s/web-deployment.yaml already exists - pass --force to overwrite\n",
    );
    assert.equal(tree(dir)["k8s/web-deployment.yaml"], "mine\n");
    const forced = kiln([...args, "--force"], dir);
    assert.equal(forced.status, 0, forced.stderr);
    assert.equal(
      forced.stdout,
      "overwrote k8s/web-deployment.yaml\nadded deployment/web: 1 file in k8s/ (1 overwritten)\n",
    );
    const [file] = rendered("deployment", { name: "web", fields: { image: "nginx:1.27" } });
    assert.equal(tree(dir)["k8s/web-deployment.yaml"], file?.content);
    const again = kiln([...args, "--force"], dir);
    assert.equal(again.stdout, "added deployment/web: 1 file in k8s/ (1 unchanged)\n");
  });

  it("needs kiln.toml", () => {
    const dir = tempDir();
    const run = kiln(["add", "k8s/deployment", "--name", "web", "--image", "x"], dir);
    assert.equal(run.status, 1);
    assert.equal(run.stderr, `error: no kiln.toml found in ${dir} - run \`kiln init\` first\n`);
    assert.deepEqual(tree(dir), {});
  });

  it("reports a required field, an unknown reference and a bad item file (exit 1)", () => {
    const dir = project();
    const missing = kiln(["add", "k8s/deployment", "--name", "web"], dir);
    assert.equal(missing.status, 1);
    assert.equal(
      missing.stderr,
      "error: --image is required for k8s/deployment\n  pass it with --image <value> (or --set image=<value>), for example --image nginx:1.27\n",
    );

    const unknown = kiln(["add", "nothing-here.json", "--name", "web"], dir);
    assert.equal(unknown.status, 1);
    assert.equal(
      unknown.stderr,
      "error: `nothing-here.json` is not a built-in component and not a URL or existing local file - run `kiln list` to see the built-ins, or pass a URL or path to a registry-item JSON file\n",
    );

    write(dir, "bad.json", '{"name": "x"}');
    const bad = kiln(["add", "bad.json", "--name", "web"], dir);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /^error: bad\.json is not a valid registry item\n {2}\S/);
    assert.deepEqual(tree(dir), { "kiln.toml": TOML(), "bad.json": '{"name": "x"}' });
  });

  it("resolves a built-in by the last segment: other/deployment is k8s/deployment", () => {
    const dir = project();
    const run = kiln(["add", "other/deployment", "--name", "web", "--image", "x"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      "created   k8s/web-deployment.yaml\nadded deployment/web: 1 file in k8s/ (1 created)\n",
    );
  });

  it("refuses an output_dir outside the project", () => {
    for (const outputDir of ["/tmp", "../elsewhere"]) {
      const dir = project({ outputDir });
      const run = kiln(["add", "k8s/deployment", "--name", "web", "--image", "x"], dir);
      assert.equal(run.status, 1);
      assert.equal(
        run.stderr,
        `error: kiln.toml: output_dir \`${outputDir}\` must be a folder inside the project - fix it or run \`kiln init --force\`\n`,
      );
    }
  });

  it("says what is wrong with a broken kiln.toml", () => {
    const dir = tempDir();
    write(dir, "kiln.toml", "[project\n");
    const run = kiln(["add", "k8s/deployment", "--name", "web", "--image", "x"], dir);
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /^error: kiln\.toml is not valid TOML - fix it or run `kiln init --force`\n {2}/,
    );
  });
});
