// Where a stranger's preset, registry item or kiln.toml must not make kiln write, run with the
// REAL built binary in temporary folders: never in `.git` (in any spelling), into places other
// tools run as code only with --allow-exec-paths, never out of the project through a linked
// output folder, never into a FIFO, socket or device, never to a name that is no file; and
// nothing a stranger wrote reaches the terminal as a control sequence. Every refused run
// writes nothing.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  BIN,
  cleanEnv,
  cleanUp,
  ensureBuilt,
  itemFile,
  presetOf,
  project,
  type Run,
  tempDir,
  write,
  writeJson,
} from "./helpers.ts";
import { EXEC_PATHS, EXEC_SPELLINGS, GIT_PATHS } from "./hostile-payloads.ts";

before(() => ensureBuilt());
after(cleanUp);

/**
 * Every entry below `dir`: files with their content, links as `-> target`, folders as `/`, and
 * FIFOs, sockets and devices by kind only - reading a FIFO would block (helpers' `tree` reads).
 */
function tree(dir: string): Record<string, string> {
  const result: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const key = relative(dir, path);
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) result[key] = `-> ${readlinkSync(path)}`;
      else if (stats.isDirectory()) {
        result[`${key}/`] = "";
        walk(path);
      } else if (stats.isFile()) result[key] = readFileSync(path, "utf8");
      else result[key] = `<not a regular file, mode ${stats.mode.toString(8)}>`;
    }
  };
  walk(dir);
  return result;
}

/** The binary with a deadline: a run that hangs (a FIFO read today) fails instead of waiting. */
function kiln(args: string[], cwd: string): Run {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: cleanEnv(),
    encoding: "utf8",
    timeout: 15_000,
  });
  if (result.error) assert.fail(`kiln ${args.join(" ")} did not finish: ${result.error.message}`);
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A git repository's folder as `git init` leaves it, with a config worth protecting. */
function withGitFolder(dir: string): void {
  write(dir, ".git/config", "[core]\n\trepositoryformatversion = 0\n");
  write(dir, ".git/hooks/README", "hooks\n");
}

/**
 * Runs and expects exit 1, nothing on stdout, an untouched tree, and a clean message: the first
 * line `error: ...` matching `message`, no stack trace, no absolute path of the machine.
 */
function refused(dir: string, args: string[], message: string | RegExp): Run {
  const before = tree(dir);
  const run = kiln(args, dir);
  assert.equal(run.status, 1, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.equal(run.stdout, "");
  const first = run.stderr.split("\n")[0] as string;
  if (typeof message === "string") assert.equal(first, `error: ${message}`);
  else assert.match(first, message);
  assert.doesNotMatch(run.stderr, /\n\s+at /, "no stack trace");
  assert.equal(run.stderr.includes(dir), false, "no absolute path");
  assert.equal(run.stderr.includes("/tmp/"), false, "no absolute path");
  assert.deepEqual(tree(dir), before, "nothing was written");
  return run;
}

const NEVER_GIT = /kiln never writes to `\.git` or inside it/;

describe("1. never inside .git", () => {
  it("setup --force with a preset's outputDir `.git` leaves .git/config alone", () => {
    const dir = tempDir();
    withGitFolder(dir);
    itemFile(dir, "items/fsmonitor.json", [
      { path: "config", template: '[core]\n\tfsmonitor = "touch pwned"\n' },
    ]);
    writeJson(dir, "run.preset.json", {
      name: "run",
      project: { outputDir: ".git" },
      components: [{ reference: "items/fsmonitor.json", name: "c" }],
    });
    for (const extra of [[], ["--allow-exec-paths"]]) {
      refused(
        dir,
        ["setup", "run.preset.json", "--force", ...extra],
        "refusing to write into `.git` - kiln never writes to `.git` or inside it",
      );
    }
    assert.equal(readFileSync(join(dir, ".git/config"), "utf8").includes("fsmonitor"), false);
  });

  it("every spelling of .git as an output folder is refused (case, NTFS, short name, HFS+)", () => {
    const spellings = [
      ".git",
      ".GIT",
      ".Git",
      ".git.",
      ".git ",
      ".git. .",
      ".git::$INDEX_ALLOCATION",
      "git~1",
      "GIT~1",
      ".g\u200cit",
      ".\u200dgit\ufeff",
      "sub/.git",
      "./.git/hooks",
      "a/b/.GiT/x",
    ];
    // every spelling through the real binary, with the flag that allows the most (each
    // spelling's rule is also tested on its own in test/core/plan.test.ts); without it once
    for (const [index, outputDir] of spellings.entries()) {
      const dir = tempDir();
      withGitFolder(dir);
      // a built-in component: what is refused is the output folder, whatever writes into it
      // (and a built-in renders in kiln's own thread, without a worker to start)
      const preset = writeJson(dir, "builtin.preset.json", {
        name: "builtin",
        project: { outputDir },
        components: [{ reference: "k8s/service", name: "config" }],
      });
      refused(dir, ["setup", preset, "--force", "--allow-exec-paths"], NEVER_GIT);
      if (index === 0) refused(dir, ["setup", preset, "--force"], NEVER_GIT);
    }
  });

  it("every spelling of .git in a rendered path is refused, with outputDir `.` too", () => {
    const paths = GIT_PATHS;
    for (const path of paths) {
      const dir = tempDir();
      withGitFolder(dir);
      const preset = presetOf(dir, ["fine.txt", path], { outputDir: "." });
      refused(dir, ["setup", preset, "--force"], NEVER_GIT);
      refused(dir, ["apply", preset, "--force", "--allow-exec-paths"], NEVER_GIT);
    }
  });

  it("kiln.toml `output_dir = .git` makes add refuse", () => {
    const dir = project({ outputDir: ".git" });
    withGitFolder(dir);
    itemFile(dir, "c.json", [{ path: "config", template: "x" }]);
    for (const extra of [[], ["--allow-exec-paths"]]) {
      refused(
        dir,
        ["add", "./c.json", "--name", "x", "--force", ...extra],
        "refusing to write into `.git` - kiln never writes to `.git` or inside it",
      );
    }
  });

  it("apply --into .git (or a folder below it) is refused, though the user typed it", () => {
    const dir = tempDir();
    withGitFolder(dir);
    const preset = presetOf(dir, ["pre-commit"]);
    for (const into of [".git", ".git/hooks", ".GIT/hooks", join(dir, ".git", "hooks")]) {
      refused(dir, ["apply", preset, "--into", into, "--force"], NEVER_GIT);
      refused(dir, ["apply", preset, "--into", into, "--force", "--allow-exec-paths"], NEVER_GIT);
    }
  });

  it("a symbolic link into .git inside the target is refused too (folder and file links)", () => {
    const dir = project({ outputDir: "." });
    withGitFolder(dir);
    symlinkSync(join(dir, ".git"), join(dir, "cfg"));
    symlinkSync(join(dir, ".git", "config"), join(dir, "settings.ini"));
    itemFile(dir, "via-folder.json", [{ path: "cfg/config", template: "x" }]);
    itemFile(dir, "via-file.json", [{ path: "settings.ini", template: "x" }]);
    refused(dir, ["add", "./via-folder.json", "--name", "x", "--force"], NEVER_GIT);
    refused(dir, ["add", "./via-file.json", "--name", "x", "--force"], NEVER_GIT);
  });
});

describe("2. places other tools run as code need --allow-exec-paths", () => {
  it("apply refuses them all in one message that names each and the flag, writing nothing", () => {
    const dir = tempDir();
    const preset = presetOf(dir, ["fine.txt", ...EXEC_PATHS]);
    const run = refused(
      dir,
      ["apply", preset, "--force"],
      /^error: refusing to write `\.envrc`, `\.vscode\/tasks\.json`, .* and \d+ more - other tools run or load these as code; pass --allow-exec-paths if this is intended$/,
    );
    const detail = run.stderr.split("\n").slice(1);
    for (const path of EXEC_PATHS) {
      assert.ok(
        detail.some((line) => line.startsWith(`  ${path}: `)),
        `${path} is named: ${run.stderr}`,
      );
    }
    assert.equal(
      detail.some((line) => line.includes("fine.txt")),
      false,
    );
  });

  it("other spellings of them are refused too, each named", () => {
    // several spellings to a run, each named on its own line as above; `.ENVRC`, `.envrc.` and
    // `.envrc::$DATA` are one file where case, trailing dots or streams do not count, so they
    // go in separate runs (one run with two of them is refused as two files on one path)
    const runs = [
      EXEC_SPELLINGS.filter((path) => !/^\.envrc[.:]/.test(path)),
      [".envrc."],
      [".envrc::$DATA"],
    ];
    assert.deepEqual(runs.flat().sort(), [...EXEC_SPELLINGS].sort(), "every spelling is run");
    for (const paths of runs) {
      const dir = tempDir();
      const preset = presetOf(dir, ["fine.txt", ...paths]);
      const run = refused(
        dir,
        ["apply", preset, "--force"],
        /^error: refusing to write `.+ - other tools run or load (it|these) as code; pass --allow-exec-paths if this is intended$/,
      );
      const detail = run.stderr.split("\n").slice(1);
      for (const path of paths) {
        assert.ok(
          detail.some((line) => line.startsWith(`  ${path}: `)),
          `${path} is named: ${run.stderr}`,
        );
      }
    }
  });

  it("setup with outputDir `.` refuses .envrc and .vscode/tasks.json (paths are from the project)", () => {
    for (const path of [".envrc", ".vscode/tasks.json", ".github/workflows/deploy.yml"]) {
      const dir = tempDir();
      const preset = presetOf(dir, ["fine.txt", path], { outputDir: "." });
      refused(
        dir,
        ["setup", preset],
        `refusing to write \`${path}\` - other tools run or load it as code; pass --allow-exec-paths if this is intended`,
      );
    }
  });

  it("an output folder that is such a place is caught: outputDir `.vscode`, output_dir `.husky`", () => {
    const dir = tempDir();
    const preset = presetOf(dir, ["tasks.json"], { outputDir: ".vscode" });
    refused(
      dir,
      ["setup", preset],
      "refusing to write `.vscode/tasks.json` - other tools run or load it as code; pass --allow-exec-paths if this is intended",
    );
    const other = project({ outputDir: ".husky" });
    itemFile(other, "hook.json", [{ path: "pre-commit", template: "x" }]);
    refused(
      other,
      ["add", "./hook.json", "--name", "x"],
      "refusing to write `.husky/pre-commit` - other tools run or load it as code; pass --allow-exec-paths if this is intended",
    );
  });

  it("a link inside the project that leads to such a place is caught by its real path", () => {
    const dir = project({ outputDir: "." });
    mkdirSync(join(dir, ".vscode"));
    symlinkSync(join(dir, ".vscode"), join(dir, "editor"));
    symlinkSync(".envrc", join(dir, "env.sh"));
    itemFile(dir, "via.json", [
      { path: "editor/tasks.json", template: "x" },
      { path: "env.sh", template: "x" },
    ]);
    refused(
      dir,
      ["add", "./via.json", "--name", "x"],
      "refusing to write `editor/tasks.json`, `env.sh` - other tools run or load these as code; pass --allow-exec-paths if this is intended",
    );
  });

  it("nothing in a preset turns the flag on", () => {
    const dir = tempDir();
    presetOf(dir, [".envrc"]);
    const manifest = JSON.parse(tree(dir)["run.preset.json"] as string);
    writeJson(dir, "run.preset.json", {
      ...manifest,
      allowExecPaths: true,
      "allow-exec-paths": true,
      project: { outputDir: ".", allowExecPaths: true },
    });
    refused(dir, ["setup", "run.preset.json"], /pass --allow-exec-paths if this is intended$/);
  });

  it("with --allow-exec-paths they are written, and the plan and --dry-run name each", () => {
    const dir = tempDir();
    const preset = presetOf(dir, ["fine.txt", ".envrc", ".vscode/tasks.json"]);
    const dry = kiln(["apply", preset, "--allow-exec-paths", "--dry-run"], dir);
    assert.equal(dry.status, 0, dry.stderr);
    assert.deepEqual(dry.stdout.split("\n"), [
      "new       fine.txt",
      "new       .envrc  (run as code: direnv runs it when a shell enters the folder)",
      "new       .vscode/tasks.json  (run as code: VS Code runs its tasks and loads its settings)",
      "note: 2 files other tools run or load as code would be written (--allow-exec-paths): .envrc, .vscode/tasks.json - read them before you run those tools",
      "dry run: nothing was written (3 new, 0 overwrite, 0 unchanged) - run again without --dry-run to write",
      "",
    ]);
    assert.equal(tree(dir)[".envrc"], undefined);
    const real = kiln(["apply", preset, "--allow-exec-paths"], dir);
    assert.equal(real.status, 0, real.stderr);
    assert.match(real.stdout, /^created {3}\.envrc {2}\(run as code: direnv/m);
    assert.match(real.stdout, /^note: 2 files other tools run or load as code were written/m);
    assert.equal(tree(dir)[".envrc"], "x\n");
    assert.equal(tree(dir)[".vscode/tasks.json"], "x\n");
  });

  it("add takes the flag too", () => {
    const dir = project({ outputDir: "." });
    itemFile(dir, "env.json", [{ path: ".envrc", template: "use nix\n" }]);
    refused(dir, ["add", "./env.json", "--name", "x"], /^error: refusing to write `\.envrc`/);
    const run = kiln(["add", "./env.json", "--name", "x", "--allow-exec-paths"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(tree(dir)[".envrc"], "use nix\n");
  });
});

/** The places added with issue 19: each with what the error's detail says runs it. */
const MORE_EXEC_PATHS: [string, string][] = [
  [".cargo/config.toml", "Cargo runs the runners, wrappers and aliases it names"],
  [".cargo/config", "Cargo runs the runners, wrappers and aliases it names"],
  [".claude/settings.json", "Claude Code runs the hook commands it names"],
  [".claude/settings.local.json", "Claude Code runs the hook commands it names"],
  [".mcp.json", "Claude Code and other MCP clients start the servers it names"],
  [".nvim.lua", "Vim and Neovim run it when started in the folder (with 'exrc')"],
  [".nvimrc", "Vim and Neovim run it when started in the folder (with 'exrc')"],
  [".exrc", "Vim and Neovim run it when started in the folder (with 'exrc')"],
  [".vimrc", "Vim and Neovim run it when started in the folder (with 'exrc')"],
  [".zed/settings.json", "Zed runs its tasks and the language servers its settings name"],
  [".zed/tasks.json", "Zed runs its tasks and the language servers its settings name"],
  [".mise.toml", "mise loads its environment and runs its hooks when a shell enters the folder"],
  ["mise.toml", "mise loads its environment and runs its hooks when a shell enters the folder"],
  [
    ".mise/config.toml",
    "mise loads its environment and runs its hooks when a shell enters the folder",
  ],
  [".tool-versions", "asdf and mise choose (mise installs) the tool versions it names"],
  [".env", "direnv, Docker Compose, mise and others load it as the environment"],
  ["Makefile", "make runs it"],
  ["makefile", "make runs it"],
  ["GNUmakefile", "make runs it"],
];

describe("2b. more places other tools run as code (issue 19)", () => {
  const refusal = (path: string) =>
    `refusing to write \`${path}\` - other tools run or load it as code; pass --allow-exec-paths if this is intended`;

  it("setup (outputDir `.`) and add refuse each with the usual message; the flag writes it", () => {
    // setup names one with its exact message (each path with what runs it: setup and apply of
    // them all below); add refuses and, with the flag, writes a few
    for (const [index, [path, runBy]] of MORE_EXEC_PATHS.entries()) {
      if (index % 5 !== 0 && path !== "makefile") continue;
      const dir = tempDir();
      const preset = presetOf(dir, ["fine.txt", path], { outputDir: "." });
      const run = refused(dir, ["setup", preset], refusal(path));
      assert.equal(run.stderr.split("\n")[1], `  ${path}: ${runBy}`);
      if (index % 5 !== 0) continue;
      const other = project({ outputDir: "." });
      itemFile(other, "item.json", [{ path, template: "x\n" }]);
      refused(other, ["add", "./item.json", "--name", "x"], refusal(path));
      const allowed = kiln(["add", "./item.json", "--name", "x", "--allow-exec-paths"], other);
      assert.equal(allowed.status, 0, allowed.stderr);
      assert.equal(tree(other)[path], "x\n", path);
    }
  });

  it("apply refuses them all in one message, and writes them all with the flag", () => {
    const dir = tempDir();
    // `makefile` and `Makefile` are one file on macOS and Windows: one run cannot hold both
    const together = MORE_EXEC_PATHS.filter(([path]) => path !== "makefile");
    const paths = together.map(([path]) => path);
    const preset = presetOf(dir, ["fine.txt", ...paths]);
    const run = refused(
      dir,
      ["apply", preset],
      /^error: refusing to write `\.cargo\/config\.toml`, .* and \d+ more - other tools run or load these as code; pass --allow-exec-paths if this is intended$/,
    );
    const detail = run.stderr.split("\n").slice(1);
    for (const [path, runBy] of together) {
      assert.ok(detail.includes(`  ${path}: ${runBy}`), `${path} is named: ${run.stderr}`);
    }
    const allowed = kiln(["apply", preset, "--allow-exec-paths"], dir);
    assert.equal(allowed.status, 0, allowed.stderr);
    for (const path of paths) assert.equal(tree(dir)[path], "x\n", path);
    const root = tempDir();
    const atRoot = presetOf(root, paths, { outputDir: "." });
    const setupRefused = refused(root, ["setup", atRoot], /other tools run or load these as code/);
    const setupDetail = setupRefused.stderr.split("\n").slice(1);
    for (const [path, runBy] of together) {
      assert.ok(
        setupDetail.includes(`  ${path}: ${runBy}`),
        `setup names ${path}: ${setupRefused.stderr}`,
      );
    }
    const setup = kiln(["setup", atRoot, "--allow-exec-paths"], root);
    assert.equal(setup.status, 0, setup.stderr);
    for (const path of paths) assert.equal(tree(root)[path], "x\n", path);
  });

  it("a Makefile counts at the project root only: k8s/Makefile is written without the flag", () => {
    const dir = tempDir();
    const preset = presetOf(dir, ["Makefile"]);
    const run = kiln(["setup", preset], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(tree(dir)["k8s/Makefile"], "x\n");
  });
});

const NEVER_HG = /kiln never writes to `\.hg` or inside it/;

describe("1b. never inside .hg, Mercurial's folder (issue 19)", () => {
  /** A Mercurial repository's folder, with an hgrc worth protecting. */
  const withHgFolder = (dir: string) => write(dir, ".hg/hgrc", "[ui]\nusername = me\n");

  it("a rendered .hg/hgrc is refused, also with --allow-exec-paths, in every spelling", () => {
    for (const path of [".hg/hgrc", ".HG/hgrc", ".hg./hgrc", "hg~1/hgrc", "sub/.hg/hgrc"]) {
      const dir = tempDir();
      withHgFolder(dir);
      const preset = presetOf(dir, ["fine.txt", path], { outputDir: "." });
      refused(dir, ["setup", preset, "--force"], NEVER_HG);
      refused(dir, ["apply", preset, "--force", "--allow-exec-paths"], NEVER_HG);
    }
    const dir = tempDir();
    withHgFolder(dir);
    const run = refused(
      dir,
      ["setup", presetOf(dir, [".hg/hgrc"], { outputDir: "." }), "--force"],
      "refusing to write `.hg/hgrc` - kiln never writes to `.hg` or inside it",
    );
    assert.match(run.stderr, /\n {2}Mercurial runs the hooks and loads the extensions/);
  });

  it("an output folder, apply --into and kiln.toml's output_dir in .hg are refused", () => {
    const dir = tempDir();
    withHgFolder(dir);
    const preset = presetOf(dir, ["hgrc"], { outputDir: ".hg" });
    refused(
      dir,
      ["setup", preset, "--force", "--allow-exec-paths"],
      "refusing to write into `.hg` - kiln never writes to `.hg` or inside it",
    );
    refused(dir, ["apply", preset, "--into", ".hg", "--force", "--allow-exec-paths"], NEVER_HG);
    const other = project({ outputDir: ".hg" });
    itemFile(other, "c.json", [{ path: "hgrc", template: "x" }]);
    refused(other, ["add", "./c.json", "--name", "x", "--force", "--allow-exec-paths"], NEVER_HG);
  });

  it("a link into .hg inside the target is caught by its real path", () => {
    const dir = project({ outputDir: "." });
    withHgFolder(dir);
    symlinkSync(join(dir, ".hg"), join(dir, "cfg"));
    itemFile(dir, "via.json", [{ path: "cfg/hgrc", template: "x" }]);
    refused(dir, ["add", "./via.json", "--name", "x", "--force", "--allow-exec-paths"], NEVER_HG);
  });
});

describe("3. an output folder that leads out of the project through a link", () => {
  it("add refuses `k8s -> /abs/outside`", () => {
    const outside = tempDir();
    const dir = project();
    symlinkSync(outside, join(dir, "k8s"));
    refused(
      dir,
      ["add", "k8s/deployment", "--name", "web", "--image", "x"],
      "refusing to write into `k8s` - it escapes the project directory",
    );
    assert.deepEqual(tree(outside), {});
  });

  it("add refuses output_dir `lnk/sub` with `lnk -> ../outside`, also when it dangles", () => {
    const parent = tempDir();
    mkdirSync(join(parent, "project"));
    mkdirSync(join(parent, "outside"));
    const dir = join(parent, "project");
    write(dir, "kiln.toml", '[project]\nname = "x"\noutput_dir = "lnk/sub"\n');
    symlinkSync("../outside", join(dir, "lnk"));
    refused(
      dir,
      ["add", "k8s/deployment", "--name", "web", "--image", "x"],
      "refusing to write into `lnk/sub` - it escapes the project directory",
    );
    symlinkSync("../not-there", join(dir, "ghost"));
    write(dir, "kiln.toml", '[project]\nname = "x"\noutput_dir = "ghost/sub"\n');
    refused(
      dir,
      ["add", "k8s/deployment", "--name", "web", "--image", "x"],
      "refusing to write into `ghost/sub` - it escapes the project directory",
    );
    assert.deepEqual(tree(join(parent, "outside")), {});
  });

  it("setup refuses a preset outputDir under a link that leads out", () => {
    const outside = tempDir();
    const dir = tempDir();
    symlinkSync(outside, join(dir, "lnk"));
    const preset = presetOf(dir, ["x.txt"], { outputDir: "lnk/sub" });
    refused(
      dir,
      ["setup", preset, "--force"],
      "refusing to write into `lnk/sub` - it escapes the project directory",
    );
    assert.deepEqual(tree(outside), {});
  });

  it("apply --into a link is what the user typed; links below it still may not lead out", () => {
    const outside = tempDir();
    const dir = tempDir();
    symlinkSync(outside, join(dir, "out"));
    const preset = presetOf(dir, ["x.txt"]);
    const run = kiln(["apply", preset, "--into", "out"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(tree(outside)["x.txt"], "x\n");
    const elsewhere = tempDir();
    symlinkSync(elsewhere, join(outside, "away"));
    const below = presetOf(dir, ["away/y.txt"]);
    refused(
      dir,
      ["apply", below, "--into", "out"],
      "refusing to write `away/y.txt` - it escapes the target directory",
    );
  });
});

describe("4. a target that is not a regular file", () => {
  it("a FIFO at the target is refused at once, without opening it (also with --force)", () => {
    const dir = project();
    mkdirSync(join(dir, "k8s"));
    execFileSync("mkfifo", [join(dir, "k8s", "web-deployment.yaml")]);
    for (const extra of [[], ["--force"]]) {
      refused(
        dir,
        ["add", "k8s/deployment", "--name", "web", "--image", "x", ...extra],
        "cannot write `k8s/web-deployment.yaml` - it is a named pipe (FIFO), not a regular file",
      );
    }
  });

  it("a link to a FIFO inside the target is refused too", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "out"));
    execFileSync("mkfifo", [join(dir, "out", "pipe")]);
    symlinkSync(join(dir, "out", "pipe"), join(dir, "out", "x.txt"));
    const preset = presetOf(dir, ["x.txt"]);
    refused(
      dir,
      ["apply", preset, "--into", "out", "--force"],
      "cannot write `out/x.txt` - it is a named pipe (FIFO), not a regular file",
    );
  });

  describe("a socket", () => {
    let server: Server | undefined;
    after(() => server?.close());
    it("at the target is refused", async () => {
      const dir = tempDir();
      const socket = join(dir, "x.sock");
      server = createServer();
      await new Promise<void>((resolve) => server?.listen(socket, resolve));
      assert.ok(statSync(socket).isSocket());
      const preset = presetOf(dir, ["x.sock"]);
      refused(
        dir,
        ["apply", preset, "--force"],
        "cannot write `x.sock` - it is a socket, not a regular file",
      );
    });
  });

  it("a character device at the target is refused", (t) => {
    const dir = tempDir();
    try {
      execFileSync("mknod", [join(dir, "null.txt"), "c", "1", "3"], { stdio: "pipe" });
    } catch {
      t.skip("mknod is not allowed here");
      return;
    }
    const preset = presetOf(dir, ["null.txt"]);
    refused(
      dir,
      ["apply", preset, "--force"],
      "cannot write `null.txt` - it is a character device, not a regular file",
    );
  });
});

describe("5. rendered paths that name no file are clear errors", () => {
  const cases: [string, string[], string][] = [
    [
      "a trailing slash",
      ["dir/"],
      "refusing to write `dir/` - the path ends in `/`, so it names a folder, not a file",
    ],
    [
      "a trailing backslash",
      ["dir\\"],
      "refusing to write `dir\\` - the path ends in `\\`, so it names a folder, not a file",
    ],
    ["an empty path", [""], "refusing to write a file whose path is empty"],
    ["`.`", ["."], "refusing to write `.` - it names a folder, not a file"],
    ["`a/..`", ["a/.."], "refusing to write `a/..` - it names a folder, not a file"],
    ["a NUL byte", ["a\u0000b.txt"], "refusing to write `a\\x00b.txt` - it contains a NUL byte"],
  ];
  for (const [name, paths, message] of cases) {
    it(`${name}: setup and apply refuse`, () => {
      const dir = tempDir();
      const preset = presetOf(dir, ["fine.txt", ...paths]);
      refused(dir, ["apply", preset], message);
      refused(dir, ["setup", preset], message);
    });
  }

  it("a name over 255 bytes and a path over 4096 bytes are refused", () => {
    const dir = tempDir();
    const long = "n".repeat(256);
    refused(
      dir,
      ["apply", presetOf(dir, [`a/${long}.txt`])],
      /^error: refusing to write `a\/n+\.\.\.n+\.txt` - the name `n+\.\.\.n+\.txt` is 260 bytes long, more than the 255 file systems accept$/,
    );
    const deep = Array.from({ length: 20 }, () => "d".repeat(250)).join("/");
    refused(
      dir,
      ["apply", presetOf(dir, [`${deep}/x.txt`])],
      /^error: refusing to write `d+\.\.\.d+\/x\.txt` - the path is 5025 bytes long, more than the 4096 file systems accept$/,
    );
    // under 4096 bytes as rendered, over the system's limit once joined with the folder
    const near = Array.from({ length: 16 }, () => "d".repeat(249)).join("/");
    const tooLong = refused(
      dir,
      ["apply", presetOf(dir, [`${near}/x.txt`]), "--into", "e".repeat(120)],
      /^error: cannot write `e{100}\.\.\.d+\/x\.txt` - the path is too long for this system \(ENAMETOOLONG\)$/,
    );
    assert.match(tooLong.stderr, /\n {2}shorten the file's path or the output folder/);
    // multi-byte: 86 three-byte letters are 258 bytes
    refused(
      dir,
      ["apply", presetOf(dir, ["\u20ac".repeat(86)])],
      /is 258 bytes long, more than the 255 file systems accept$/,
    );
  });

  it("a path whose links loop (ELOOP) names the path and what to do", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "out"));
    symlinkSync("b", join(dir, "out", "a"));
    symlinkSync("a", join(dir, "out", "b"));
    const run = refused(
      dir,
      ["apply", presetOf(dir, ["a/x.txt"]), "--into", "out"],
      "cannot write `out/a/x.txt` - the symbolic links on its way form a loop (ELOOP)",
    );
    assert.match(run.stderr, /\n {2}fix or remove the symbolic link/);
  });

  it("paths that differ only in letter case are refused like duplicates", () => {
    const dir = tempDir();
    refused(
      dir,
      ["apply", presetOf(dir, ["X.txt", "other.txt", "x.txt"])],
      "two files rendered to the same path: `x.txt`",
    );
    refused(
      dir,
      ["setup", presetOf(dir, ["Roles/web/main.yml", "roles/WEB/main.yml"])],
      "two files rendered to the same path: `roles/WEB/main.yml`",
    );
    const other = project();
    itemFile(other, "twice.json", [
      { path: "{{ name }}.yaml", template: "a" },
      { path: "{{ name | upper }}.yaml", template: "b" },
    ]);
    refused(
      other,
      ["add", "./twice.json", "--name", "x"],
      "two files rendered to the same path: `X.yaml`",
    );
    // setup's own kiln.toml in another spelling: refused as one of kiln's own files
    refused(
      dir,
      ["setup", presetOf(dir, ["KILN.TOML"], { outputDir: "." })],
      "refusing to write `KILN.TOML` - `KILN.TOML` is a file kiln keeps for itself (kiln.toml); an item or preset cannot write it",
    );
  });
});

const ESC = "\u001b";

describe("6. control characters never reach the terminal", () => {
  it("a rendered path with an OSC title and a clear-screen sequence is shown escaped", () => {
    const dir = tempDir();
    const path = `a${ESC}]0;owned\u0007${ESC}[2Jb\u009b31m\u202etxt.exe\r.txt`;
    const preset = presetOf(dir, [path]);
    const run = kiln(["apply", preset, "--dry-run"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout.split("\n")[0],
      "new       a\\x1b]0;owned\\x07\\x1b[2Jb\\u009b31m\\u202etxt.exe\\x0d.txt",
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we look for
    assert.doesNotMatch(run.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it("error messages and their details are escaped, line breaks in a value too", () => {
    const dir = tempDir();
    const preset = presetOf(dir, [`/abs${ESC}[2J\nerror: fake`]);
    const run = refused(
      dir,
      ["apply", preset],
      /^error: refusing to write `\/abs\\x1b\[2J\\x0aerror: fake` - absolute paths are not allowed$/,
    );
    assert.equal(run.stderr.includes(ESC), false);
    const hidden = tempDir();
    const item = presetOf(hidden, [".env\u202erc", `.vscode/x${ESC}c`]);
    const exec = refused(hidden, ["apply", item], /pass --allow-exec-paths/);
    assert.match(exec.stderr, /^error: refusing to write `\.env\\u202erc`, /);
    assert.match(exec.stderr, /\n {2}\.vscode\/x\\x1bc: VS Code/);
    assert.equal(exec.stderr.includes(ESC), false);
  });

  it("names from a preset are escaped in the closing line, and --json stays JSON", () => {
    const dir = tempDir();
    presetOf(dir, ["fine.txt"]);
    const manifest = JSON.parse(tree(dir)["run.preset.json"] as string);
    writeJson(dir, "run.preset.json", {
      ...manifest,
      name: `shop${ESC}]8;;http://x${ESC}\\\u202e\u0085`,
    });
    const run = kiln(["apply", "run.preset.json"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /^applied shop\\x1b\]8;;http:\/\/x\\x1b\\\\u202e\\u0085: 1 file in the current folder$/m,
    );
    const check = kiln(["check", "run.preset.json", "--json"], dir);
    assert.doesNotMatch(check.stdout, /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    JSON.parse(check.stdout);
  });

  it("kiln's own colours still work on a terminal, around escaped text", (t) => {
    if (spawnSync("script", ["--version"]).status !== 0) {
      t.skip("no `script` command");
      return;
    }
    const dir = tempDir();
    const preset = presetOf(dir, [`x${ESC}[31mred.txt`]);
    const text = execFileSync(
      "script",
      ["-qec", `"${process.execPath}" "${BIN}" apply ${preset} --dry-run`, "/dev/null"],
      { cwd: dir, env: cleanEnv(), encoding: "utf8" },
    );
    assert.ok(text.includes(`${ESC}[32mnew      ${ESC}[39m x\\x1b[31mred.txt`), text);
  });
});
