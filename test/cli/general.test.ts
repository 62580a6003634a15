// The binary as a whole: help, version, unknown commands and options, exit statuses, colour.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { BIN, cleanEnv, cleanUp, ensureBuilt, kiln, REPO, tempDir } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

const COMMANDS = [
  "init",
  "add",
  "list",
  "presets",
  "setup",
  "apply",
  "check",
  "render",
  "serve",
  "completion",
];

describe("kiln (no command, help, version)", () => {
  it("without a command prints the help on stderr and exits 2", () => {
    const run = kiln([], tempDir());
    assert.equal(run.status, 2);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /^kiln - render infrastructure files/);
    for (const command of COMMANDS) assert.match(run.stderr, new RegExp(`\\n  ${command} +`));
  });

  it("--help and -h print the help on stdout and exit 0", () => {
    for (const flag of ["--help", "-h"]) {
      const run = kiln([flag], tempDir());
      assert.equal(run.status, 0);
      assert.equal(run.stderr, "");
      assert.match(run.stdout, /Usage: kiln <command> \[options\]/);
      assert.match(run.stdout, /Examples:\n {2}kiln init/);
    }
  });

  it("--version prints `kiln <package.json version>`", () => {
    const { version } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
    const run = kiln(["--version"], tempDir());
    assert.equal(run.status, 0);
    assert.equal(run.stdout, `kiln ${version}\n`);
  });

  it("an unknown command is a usage error (exit 2) that points to --help", () => {
    const run = kiln(["frobnicate"], tempDir());
    assert.equal(run.status, 2);
    assert.equal(run.stdout, "");
    assert.equal(
      run.stderr,
      "error: unknown command `frobnicate`\nrun `kiln --help` to see the commands\n",
    );
  });
});

describe("--help on every command", () => {
  for (const command of COMMANDS) {
    it(`kiln ${command} --help shows usage and an example, exit 0`, () => {
      const run = kiln([command, "--help"], tempDir());
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stderr, "");
      assert.match(run.stdout, new RegExp(`Usage: kiln ${command}`));
      assert.match(run.stdout, new RegExp(`Examples:\\n {2}kiln ${command}`));
      assert.deepEqual(kiln(["help", command], tempDir()), run, "kiln help <command> is the same");
      assert.deepEqual(kiln([command, "-h"], tempDir()), run, "-h is the same");
    });
  }
});

describe("usage errors exit 2 with kiln's own messages", () => {
  const cases: [string[], string][] = [
    [["list", "--bogus"], "unknown option `--bogus`"],
    [["list", "-x"], "unknown option `-x`"],
    [["list", "extra"], "unexpected argument `extra`"],
    [["presets", "--json=yes"], "--json takes no value"],
    [["add", "k8s/deployment", "--name"], "--name needs a value"],
    [["add", "--name", "web"], "missing <reference>"],
    [["add", "k8s/deployment"], "missing --name <name> - e.g. kiln add k8s/deployment --name web"],
    [
      ["add", "k8s/deployment", "--name", "web", "--set", "image"],
      "--set expects KEY=VALUE, got `image`",
    ],
    [
      ["add", "k8s/deployment", "--name", "web", "--set", "=x"],
      "--set expects KEY=VALUE, got `=x`",
    ],
    [
      ["add", "k8s/deployment", "--name", "web", "--label", "tier"],
      "--label expects KEY=VALUE, got `tier`",
    ],
    [["add", "k8s/service", "--name", "web", "--target-port", "-1"], "--target-port needs a value"],
    [["render"], "missing <reference|preset>"],
    [
      ["render", "k8s/deployment"],
      "missing --name <name> - e.g. kiln render k8s/deployment --name web",
    ],
    [
      ["render", "k8s-web-app", "--name", "web", "--set", "a=b"],
      "--name, --set are for a component - a preset's components carry their own names and values",
    ],
    [["completion"], "missing <shell>"],
    [["completion", "tcsh"], "unknown shell `tcsh` - kiln completes bash, zsh and fish"],
    [["setup"], "missing <preset>"],
    [["setup", "a", "b"], "unexpected argument `b`"],
    [["apply"], "missing <preset>"],
    [["apply", "k8s-web-app", "--into", ""], "--into needs a folder"],
    [["init", "--dir", "/etc"], "--dir must be a folder inside the project, got `/etc`"],
    [["init", "--dir", "../up"], "--dir must be a folder inside the project, got `../up`"],
  ];
  for (const [args, message] of cases) {
    it(`kiln ${args.join(" ")}`, () => {
      const run = kiln(args, tempDir());
      assert.equal(run.status, 2);
      assert.equal(run.stdout, "");
      assert.equal(run.stderr, `error: ${message}\nrun \`kiln ${args[0]} --help\` for usage\n`);
    });
  }
});

/** The escape character that starts every ANSI colour sequence. */
const ESC = String.fromCharCode(27);

describe("colour", () => {
  // `script` (util-linux) runs the binary on a pseudo-terminal, as a person would
  const hasScript = spawnSync("script", ["--version"]).status === 0;
  const onTerminal = (args: string, env: Record<string, string> = {}) =>
    execFileSync("script", ["-qec", `"${process.execPath}" "${BIN}" ${args}`, "/dev/null"], {
      cwd: tempDir(),
      env: cleanEnv(env),
      encoding: "utf8",
    });

  it("is used on a terminal", { skip: !hasScript && "no `script` command" }, () => {
    assert.ok(onTerminal("list").includes(`${ESC}[1mk8s/deployment`));
  });

  it("is never used with NO_COLOR, even on a terminal", {
    skip: !hasScript && "no `script`",
  }, () => {
    const text = onTerminal("list", { NO_COLOR: "1" });
    assert.match(text, /k8s\/deployment/);
    assert.equal(text.includes(ESC), false);
  });

  it("is not used when the output is a pipe", () => {
    const run = kiln(["list"], tempDir());
    assert.equal(run.stdout.includes(ESC), false);
    const failed = kiln(["add", "k8s/deployment", "--name", "w"], tempDir());
    assert.match(failed.stderr, /^error: /);
  });
});

describe("the bundle starts lean", () => {
  const file = (name: string) => readFileSync(join(REPO, "dist", "cli", name), "utf8");
  /**
   * The JavaScript files of kiln a real run compiles, in order: those Node's module loader
   * requires (NODE_DEBUG=module: the bundle is CommonJS, so Node logs each `load "<file>"`), and
   * those src/node/code-cache.ts compiles from the V8 code cache beside them (seen by a preloaded
   * hook on `fs.readFileSync`: it reads `<file>.cache` first; a file without one is required), relative to the repository. An ES
   * module (the server) does not show up here; it is checked by name below.
   */
  const loadedFiles = (args: string[], cwd = tempDir()) => {
    const hook = join(tempDir(), "cache-reads.cjs");
    writeFileSync(
      hook,
      `const fs = require("node:fs");
const read = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  const bytes = read.call(this, path, ...rest);
  if (String(path).endsWith(".cache")) process.stderr.write('CACHED "' + String(path).slice(0, -6) + '"\\n');
  return bytes;
};
`,
    );
    // the compiled path, whatever the test run asks for (KILN_ENGINE=sandbox runs the suites on the engine)
    const run = kiln(args, cwd, {
      NODE_DEBUG: "module",
      KILN_ENGINE: "",
      NODE_OPTIONS: `--require ${hook}`,
    });
    return [...run.stderr.matchAll(/^(?:MODULE \d+: load|CACHED) "([^"]+)"/gm)]
      .map((match) => match[1] as string)
      .filter((file) => file.startsWith(`${REPO}/`))
      .map((file) => file.replace(`${REPO}/`, ""));
  };

  it("the command files are CommonJS, loaded without Node's ES module loader", () => {
    assert.equal(JSON.parse(file("package.json")).type, "commonjs");
    assert.equal(file("main.js").startsWith("#!/usr/bin/env node\n"), true);
  });

  it("kiln --version and kiln list load main.js and the command's file only", () => {
    // the bin (main.js) and the program (main-body.js): from its code cache only for a command
    // whose own file has one, which loads node:crypto for the cache's check anyway
    const program = ["dist/cli/main.js", "dist/cli/main-body.js"];
    assert.deepEqual(loadedFiles(["--version"]), program);
    assert.deepEqual(loadedFiles(["list"]), [...program, "dist/cli/list.js"]);
    assert.deepEqual(loadedFiles(["presets"]), [...program, "dist/cli/presets.js"]);
  });

  it("kiln add and kiln setup load their file and the built-ins' compiled templates (setup also the built-ins' compiled JSON-shape validators; add @kiln/x also @kiln's compiled templates)", () => {
    const project = tempDir();
    kiln(["init"], project);
    assert.deepEqual(
      loadedFiles(["add", "k8s/deployment", "--name", "w", "--image", "x"], project),
      [
        "dist/cli/main.js",
        "dist/cli/main-body.js",
        "dist/cli/add.js",
        "dist/core/registry/compiled-templates.cjs",
      ],
    );
    // @kiln's compiled templates are a module of their own, loaded only for an @kiln item
    const aws = ["--name", "w", "--set", "region=eu-central-1", "--set", "size=t3.micro"];
    const forKiln = loadedFiles(["add", "@kiln/aws-server", ...aws], project);
    assert.ok(forKiln.includes("dist/core/registry/compiled-kiln-templates.cjs"), `${forKiln}`);
    // the shapes of JSON-valued fields (hosts, plays, ...) are checked by validators compiled
    // ahead of time, loaded only when a component has such a field: never ajv itself
    assert.deepEqual(loadedFiles(["setup", "multi-tier-platform", "--dry-run"]), [
      "dist/cli/main.js",
      "dist/cli/main-body.js",
      "dist/cli/setup.js",
      "dist/core/registry/compiled-templates.cjs",
      "dist/core/registry/field-validators.cjs",
    ]);
  });

  /**
   * The files a real run reads whose names end in `.wasm` or are the engine's glue, seen by a
   * preloaded hook on `fs.readFileSync` (the engine reads both with it).
   */
  const engineFilesRead = (args: string[], cwd: string, env: Record<string, string> = {}) => {
    const hook = join(tempDir(), "hook.cjs");
    writeFileSync(
      hook,
      `const fs = require("node:fs");
const read = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  if (/minijinja_js(_bg\\.wasm|\\.js)$/.test(String(path))) process.stderr.write("ENGINE READ " + require("node:path").basename(String(path)) + "\\n");
  return read.call(this, path, ...rest);
};
`,
    );
    const run = kiln(args, cwd, { KILN_ENGINE: "", ...env, NODE_OPTIONS: `--require ${hook}` });
    assert.equal(run.status, 0, run.stderr);
    return [...run.stderr.matchAll(/^ENGINE READ (\S+)$/gm)].map((match) => match[1]);
  };

  it("kiln add and kiln setup render built-ins without loading the template engine; KILN_ENGINE=sandbox loads it", () => {
    const project = tempDir();
    kiln(["init"], project);
    const add = ["add", "k8s/deployment", "--name", "w", "--image", "x"];
    assert.deepEqual(engineFilesRead(add, project), []);
    assert.deepEqual(engineFilesRead(["setup", "multi-tier-platform", "--dry-run"], tempDir()), []);
    assert.deepEqual(
      engineFilesRead(["add", "k8s/service", "--name", "w"], project, { KILN_ENGINE: "sandbox" }),
      ["minijinja_js_bg.wasm", "minijinja_js.js"],
    );
  });

  it("list and presets hold neither the template engine nor the server", () => {
    for (const name of ["list.js", "presets.js"]) {
      assert.equal(file(name).includes("minijinja"), false, name);
      assert.equal(file(name).includes("serve-command"), false, name);
    }
  });

  it("kiln render of a built-in loads its file and the built-ins' compiled templates only", () => {
    assert.deepEqual(loadedFiles(["render", "k8s/deployment", "--name", "w", "--image", "x"]), [
      "dist/cli/main.js",
      "dist/cli/main-body.js",
      "dist/cli/render.js",
      "dist/core/registry/compiled-templates.cjs",
    ]);
  });

  it("add, setup, apply, check and render hold the engine but not the server; only serve loads the server", () => {
    for (const name of ["add.js", "setup.js", "apply.js", "check.js", "render.js"]) {
      assert.equal(file(name).includes("minijinja-js"), true, name);
      assert.equal(file(name).includes("serve-command"), false, name);
    }
    // serve's command module reads its options; the program's entry hands them to the server
    assert.equal(file("serve.js").includes("serve-command"), false);
    assert.equal(file("main-body.js").includes("../server/serve-command.js"), true);
  });
});
