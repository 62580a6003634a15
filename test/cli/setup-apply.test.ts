// kiln setup and kiln apply: whole presets, built-in and from files.
import assert from "node:assert/strict";
import { basename } from "node:path";
import { after, before, describe, it } from "node:test";
import { builtinPreset, renderPreset } from "../../src/node/builtin-presets.ts";
import { TemplateEngine } from "../../src/node/template-engine.ts";
import {
  cleanUp,
  ensureBuilt,
  itemFile,
  kiln,
  tempDir,
  tree,
  write,
  writeJson,
} from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

/** The files the core renders for a built-in preset, by path. */
async function presetFiles(name: string): Promise<Record<string, string>> {
  const preset = builtinPreset(name);
  assert.ok(preset);
  const files = await renderPreset(preset, { engine: new TemplateEngine() });
  return Object.fromEntries(files.map((file) => [file.path, file.content]));
}

function under(prefix: string, files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(files).map(([path, content]) => [`${prefix}${path}`, content]),
  );
}

/** The folders a set of file paths implies, as tree() lists them (`a/`, `a/b/`). */
function folders(paths: string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const path of paths) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) result[`${parts.slice(0, i).join("/")}/`] = "";
  }
  return result;
}

/** A small preset of local registry items, written into `dir`. */
function localPreset(dir: string, project?: Record<string, string>): string {
  itemFile(dir, "items/note.json", [
    { path: "notes/{{ name }}.md", template: "# {{ name }} in {{ namespace }}\n" },
  ]);
  writeJson(dir, "my.preset.json", {
    name: "mine",
    ...(project ? { project } : {}),
    components: [
      { reference: "items/note.json", name: "one" },
      { reference: "items/note.json", name: "two", fields: { namespace: "other" } },
    ],
  });
  return "my.preset.json";
}

describe("kiln setup", () => {
  it("k8s-web-app: writes every file under the preset's outputDir, then kiln.toml", async () => {
    const dir = tempDir();
    const run = kiln(["setup", "k8s-web-app"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, "");
    const files = under("k8s/", await presetFiles("k8s-web-app"));
    // and kiln.lock records them (test/cli/lock.test.ts reads it), though the output names it not
    const { "kiln.lock": lock, ...written } = tree(dir);
    assert.match(lock ?? "", /"path": "k8s\/frontend-deployment\.yaml"/);
    assert.deepEqual(written, {
      ...files,
      ...folders(Object.keys(files)),
      "kiln.toml": '[project]\nname = "web-app"\ndefault_namespace = "web"\noutput_dir = "k8s"\n',
    });
    assert.equal(
      run.stdout,
      `${Object.keys(files)
        .map((path) => `created   ${path}\n`)
        .join("")}created   kiln.toml\n` +
        "set up k8s-web-app: 7 files in k8s/ and kiln.toml - next: review the files, then `kiln add <reference> --name <name>` to add more\n",
    );
  });

  it("multi-tier-platform: 77 files in infra/, namespace shop", async () => {
    const dir = tempDir();
    const run = kiln(["setup", "multi-tier-platform"], dir);
    assert.equal(run.status, 0, run.stderr);
    const files = under("infra/", await presetFiles("multi-tier-platform"));
    assert.equal(Object.keys(files).length, 77);
    const written = tree(dir);
    for (const [path, content] of Object.entries(files)) assert.equal(written[path], content, path);
    assert.match(
      written["kiln.toml"] as string,
      /default_namespace = "shop"\noutput_dir = "infra"\n$/,
    );
  });

  it("a preset file: project name defaults to the folder's name, outputDir to k8s, namespace to default", () => {
    const dir = tempDir();
    const preset = localPreset(dir);
    const run = kiln(["setup", `./${preset}`], dir);
    assert.equal(run.status, 0, run.stderr);
    const written = tree(dir);
    assert.equal(written["k8s/notes/one.md"], "# one in default\n");
    assert.equal(written["k8s/notes/two.md"], "# two in other\n");
    assert.equal(
      written["kiln.toml"],
      `[project]\nname = "${basename(dir)}"\ndefault_namespace = "default"\noutput_dir = "k8s"\n`,
    );
  });

  it("uses the preset's project settings", () => {
    const dir = tempDir();
    const preset = localPreset(dir, { name: "p", namespace: "ns", outputDir: "deploy" });
    assert.equal(kiln(["setup", preset], dir).status, 0);
    const written = tree(dir);
    assert.equal(written["deploy/notes/one.md"], "# one in ns\n");
    assert.equal(
      written["kiln.toml"],
      '[project]\nname = "p"\ndefault_namespace = "ns"\noutput_dir = "deploy"\n',
    );
  });

  it("refuses when kiln.toml exists, before rendering; --force goes ahead", () => {
    const dir = tempDir();
    write(dir, "kiln.toml", "# mine\n");
    const run = kiln(["setup", "k8s-web-app"], dir);
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    assert.equal(
      run.stderr,
      "error: kiln.toml already exists - pass --force to overwrite\n" +
        "  this folder is already a kiln project: `kiln apply <preset>` adds a preset's files without touching it\n",
    );
    assert.deepEqual(tree(dir), { "kiln.toml": "# mine\n" });
    const forced = kiln(["setup", "k8s-web-app", "--force"], dir);
    assert.equal(forced.status, 0, forced.stderr);
    assert.match(forced.stdout, /\noverwrote kiln\.toml\n/);
  });

  it("--dry-run lists every file and kiln.toml and writes nothing", () => {
    const dir = tempDir();
    write(dir, "k8s/api-service.yaml", "old\n");
    const run = kiln(["setup", "k8s-web-app", "--dry-run", "--force"], dir);
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 9);
    assert.ok(lines.includes("overwrite k8s/api-service.yaml"));
    assert.ok(lines.includes("new       k8s/frontend-deployment.yaml"));
    assert.ok(lines.includes("new       kiln.toml"));
    assert.equal(
      lines[8],
      "dry run: nothing was written (7 new, 1 overwrite, 0 unchanged) - run again without --dry-run to write",
    );
    assert.deepEqual(tree(dir), { "k8s/": "", "k8s/api-service.yaml": "old\n" });
  });

  it("reports an unknown preset and an invalid preset (exit 1)", () => {
    const dir = tempDir();
    const unknown = kiln(["setup", "nope"], dir);
    assert.equal(unknown.status, 1);
    assert.equal(
      unknown.stderr,
      "error: `nope` is not a preset template, a URL or an existing file - run `kiln presets` to see the templates, or pass a URL or path to a .preset.json file\n",
    );
    writeJson(dir, "bad.preset.json", {
      components: [{ reference: "k8s/deployment", name: "w", fields: { replicas: 3 } }],
    });
    const invalid = kiln(["setup", "bad.preset.json"], dir);
    assert.equal(invalid.status, 1);
    assert.match(
      invalid.stderr,
      /^error: bad\.preset\.json is not a valid preset manifest\n {2}.*invalid type: integer `?3`?, expected a string/,
    );
    assert.deepEqual(Object.keys(tree(dir)), ["bad.preset.json"]);
  });

  it("a template name wins over a local file of that name; ./name loads the file", () => {
    const dir = tempDir();
    localPreset(dir);
    write(dir, "k8s-web-app", tree(dir)["my.preset.json"] as string);
    const builtin = kiln(["setup", "k8s-web-app", "--dry-run"], dir);
    assert.match(builtin.stdout, /k8s\/frontend-deployment\.yaml/);
    const file = kiln(["setup", "./k8s-web-app", "--dry-run"], dir);
    assert.equal(file.status, 0, file.stderr);
    assert.match(file.stdout, /new {7}k8s\/notes\/one\.md\n/);
  });
});

describe("kiln apply", () => {
  it("writes into the current folder, ignores outputDir, never writes kiln.toml", async () => {
    const dir = tempDir();
    const run = kiln(["apply", "k8s-web-app"], dir);
    assert.equal(run.status, 0, run.stderr);
    const files = await presetFiles("k8s-web-app");
    assert.deepEqual(tree(dir), files);
    assert.equal(
      run.stdout,
      `${Object.keys(files)
        .map((path) => `created   ${path}\n`)
        .join("")}applied k8s-web-app: 7 files in the current folder\n`,
    );
  });

  it("--into writes into a folder (created when missing)", async () => {
    const dir = tempDir();
    const run = kiln(["apply", "k8s-web-app", "--into", "deploy/base"], dir);
    assert.equal(run.status, 0, run.stderr);
    const files = under("deploy/base/", await presetFiles("k8s-web-app"));
    assert.deepEqual(tree(dir), { ...files, ...folders(Object.keys(files)) });
    assert.match(run.stdout, /\napplied k8s-web-app: 7 files in deploy\/base\/\n$/);
  });

  it("neither reads nor touches an existing kiln.toml", () => {
    const dir = tempDir();
    write(dir, "kiln.toml", '[project]\ndefault_namespace = "zzz"\noutput_dir = "elsewhere"\n');
    const preset = localPreset(dir, { namespace: "pns", outputDir: "ignored" });
    const run = kiln(["apply", preset], dir);
    assert.equal(run.status, 0, run.stderr);
    const written = tree(dir);
    assert.equal(
      written["kiln.toml"],
      '[project]\ndefault_namespace = "zzz"\noutput_dir = "elsewhere"\n',
    );
    assert.equal(written["notes/one.md"], "# one in pns\n");
    assert.equal(written["ignored/"], undefined);
  });

  it("--dry-run writes nothing; an existing file needs --force", () => {
    const dir = tempDir();
    write(dir, "api-ingress.yaml", "old\n");
    const refused = kiln(["apply", "k8s-web-app", "--dry-run"], dir);
    assert.equal(refused.status, 1);
    assert.equal(
      refused.stderr,
      "error: api-ingress.yaml already exists - pass --force to overwrite\n",
    );
    const dry = kiln(["apply", "k8s-web-app", "--dry-run", "--force"], dir);
    assert.equal(dry.status, 0);
    assert.match(dry.stdout, /^overwrite api-ingress\.yaml$/m);
    assert.deepEqual(tree(dir), { "api-ingress.yaml": "old\n" });
    const forced = kiln(["apply", "k8s-web-app", "--force"], dir);
    assert.equal(forced.status, 0);
    assert.match(forced.stdout, /^overwrote api-ingress\.yaml$/m);
  });
});
