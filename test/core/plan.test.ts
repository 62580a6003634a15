import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { KilnError } from "../../src/core/errors.ts";
import {
  checkKilnOwnWrites,
  checkNoDuplicatePaths,
  checkOutputFolder,
  checkPathStaysInside,
  checkRenderedPath,
  collisionKey,
  escapesTarget,
  isAbsolutePath,
  kilnOwnFileIn,
  normalizeRelativePath,
  planWrites,
  utf8Length,
} from "../../src/core/plan.ts";
import {
  canonicalSegment,
  EXEC_PATH_RULES,
  execPathHitsIn,
  execPathRuleFor,
  execPathsRefusal,
  gitSegmentIn,
  isGitModules,
  isGitSegment,
  isMercurialSegment,
  versionControlFolderOf,
  versionControlSegmentIn,
} from "../../src/core/sensitive-paths.ts";

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof KilnError);
    return error.message;
  }
  assert.fail("expected a KilnError");
}

const file = (path: string, content = "x") => ({ path, content });

describe("path spelling", () => {
  test("one spelling per path: ./, //, backslashes and inner .. collapse; a leading / stays", () => {
    assert.equal(normalizeRelativePath("a//b/./c"), "a/b/c");
    assert.equal(normalizeRelativePath("a/x/../b/c"), "a/b/c");
    assert.equal(normalizeRelativePath("a\\b\\c"), "a/b/c");
    assert.equal(normalizeRelativePath("a/../../b"), "../b");
    assert.equal(normalizeRelativePath("/etc/x"), "/etc/x");
  });

  test("a path already in its one spelling comes back as it is; any other is collapsed as before", () => {
    // the rule, written plainly: split on both slashes, drop empty and `.` segments, let `..`
    // take back the segment before it
    const collapsed = (path: string): string => {
      const segments: string[] = [];
      for (const segment of path.replaceAll("\\", "/").split("/")) {
        if (segment === "" || segment === ".") continue;
        if (segment === ".." && segments.length > 0 && segments.at(-1) !== "..") segments.pop();
        else segments.push(segment);
      }
      return (path.startsWith("/") || path.startsWith("\\") ? "/" : "") + segments.join("/");
    };
    const fragments = ["a", "b.yaml", ".", "..", "", "/", "\\", ".x", "x.", "...", "..y", " "];
    let paths = [""];
    for (let depth = 0; depth < 4; depth++) {
      paths = paths.flatMap((path) => fragments.map((fragment) => `${path}${fragment}`));
      for (const path of paths) assert.equal(normalizeRelativePath(path), collapsed(path), path);
    }
    assert.equal(normalizeRelativePath("web-1-deployment.yaml"), "web-1-deployment.yaml");
    assert.equal(normalizeRelativePath("roles/web/tasks/main.yml"), "roles/web/tasks/main.yml");
  });

  test("absolute on POSIX or Windows", () => {
    for (const path of ["/x", "\\x", "C:\\x", "c:/x", "//server/share"])
      assert.equal(isAbsolutePath(path), true, path);
    for (const path of ["x", "./x", "C:x", "..\\x"])
      assert.equal(isAbsolutePath(path), false, path);
  });
});

describe("path rules", () => {
  test("an absolute rendered path is refused", () => {
    assert.equal(
      message(() => checkPathStaysInside("/etc/passwd")),
      "refusing to write `/etc/passwd` - absolute paths are not allowed",
    );
    assert.equal(
      message(() => checkPathStaysInside("C:\\x.yaml")),
      "refusing to write `C:\\x.yaml` - absolute paths are not allowed",
    );
  });

  test("a path that climbs above the target at any `..`, read left to right, is refused", () => {
    assert.equal(
      message(() => checkPathStaysInside("../x.yaml")),
      "refusing to write `../x.yaml` - it escapes the target directory",
    );
    assert.equal(escapesTarget("a/../../b"), true);
    assert.equal(escapesTarget("../a/b"), true);
    assert.equal(escapesTarget("a/../b"), false);
    assert.equal(escapesTarget("./a/./b/.."), false);
    assert.equal(escapesTarget("a\\..\\..\\b"), true);
  });

  test("two files of one run rendering to the same path are refused", () => {
    assert.equal(
      message(() => checkNoDuplicatePaths([file("a/b.yml"), file("c.yml"), file("a//b.yml")])),
      "two files rendered to the same path: `a//b.yml`",
    );
  });

  test("an existing target without force is refused, with the path as shown to people", () => {
    assert.equal(
      message(() =>
        planWrites([file("new.yml"), file("web.yaml")], {
          force: false,
          existing: new Map([["web.yaml", "old"]]),
          display: (path) => `k8s/${path}`,
        }),
      ),
      "k8s/web.yaml already exists - pass --force to overwrite",
    );
  });

  test("with force, each file is new, an overwrite or unchanged", () => {
    const existing = new Map([
      ["same.yml", "x"],
      ["changed.yml", "old"],
    ]);
    const plan = planWrites([file("same.yml"), file("changed.yml"), file("fresh.yml")], {
      force: true,
      existing,
    });
    assert.deepEqual(
      plan.map((step) => [step.path, step.status]),
      [
        ["same.yml", "unchanged"],
        ["changed.yml", "overwrite"],
        ["fresh.yml", "new"],
      ],
    );
  });

  test("the plan checks every path before reporting an existing file", () => {
    assert.match(
      message(() =>
        planWrites([file("exists.yml"), file("../out.yml")], {
          force: false,
          existing: new Map([
            ["exists.yml", "x"],
            ["../out.yml", "x"],
          ]),
        }),
      ),
      /escapes the target directory/,
    );
  });
});

describe("names that are no file, or too long", () => {
  test("empty, `.`, `a/..`, a trailing `/` or `\\`, a NUL byte", () => {
    assert.equal(
      message(() => checkRenderedPath("")),
      "refusing to write a file whose path is empty",
    );
    assert.equal(
      message(() => checkRenderedPath(".")),
      "refusing to write `.` - it names a folder, not a file",
    );
    assert.equal(
      message(() => checkRenderedPath("a/b/..")),
      "refusing to write `a/b/..` - it names a folder, not a file",
    );
    assert.equal(
      message(() => checkRenderedPath("dir/")),
      "refusing to write `dir/` - the path ends in `/`, so it names a folder, not a file",
    );
    assert.equal(
      message(() => checkRenderedPath("dir\\")),
      "refusing to write `dir\\` - the path ends in `\\`, so it names a folder, not a file",
    );
    assert.equal(
      message(() => checkRenderedPath("a\0b")),
      "refusing to write `a\0b` - it contains a NUL byte",
    );
    for (const fine of ["a", "a/b.yml", "./a", "a/../b", ".gitignore", ".github/CODEOWNERS"]) {
      checkRenderedPath(fine);
    }
  });

  test("a name over 255 bytes or a path over 4096 bytes, counted in UTF-8", () => {
    assert.equal(utf8Length("a\u00e9\u20ac\u{1f600}"), 1 + 2 + 3 + 4);
    checkRenderedPath("n".repeat(255));
    checkRenderedPath("\u20ac".repeat(85)); // 255 bytes
    assert.match(
      message(() => checkRenderedPath("\u20ac".repeat(86))),
      /is 258 bytes long, more than the 255 file systems accept$/,
    );
    const deep = Array.from({ length: 17 }, () => "d".repeat(240)).join("/");
    checkRenderedPath(deep); // 4096 bytes
    assert.match(
      message(() => checkRenderedPath(`${deep}x`)),
      /^refusing to write `d{100}\.\.\.d{39}x` - the path is 4097 bytes long, more than the 4096 file systems accept$/,
    );
  });

  test("the spec's rules keep their messages and come first", () => {
    assert.equal(
      message(() => checkRenderedPath("/etc/x/")),
      "refusing to write `/etc/x/` - absolute paths are not allowed",
    );
    assert.equal(
      message(() => checkRenderedPath("../.git/config")),
      "refusing to write `../.git/config` - it escapes the target directory",
    );
  });
});

describe(".git in any spelling", () => {
  test("git's protectNTFS and protectHFS spellings are .git", () => {
    for (const name of [
      ".git",
      ".GIT",
      ".Git",
      ".git.",
      ".git ",
      ".git. .",
      ".git...",
      ".git:",
      ".git::$INDEX_ALLOCATION",
      "git~1",
      "GIT~1",
      "git~1.",
      ".g\u200cit",
      ".gI\u200dt",
      "\u200e.git\ufeff",
      ".g\u206ait",
    ]) {
      assert.equal(isGitSegment(name), true, JSON.stringify(name));
    }
    for (const name of [
      ".gitignore",
      ".github",
      ".gitx",
      "git",
      "..git",
      " .git",
      ".git x",
      "x.git",
      ".git-crypt",
      "git~2",
      ".g\u2066it",
    ]) {
      assert.equal(isGitSegment(name), false, JSON.stringify(name));
    }
  });

  test("any segment of a rendered path or an output folder", () => {
    assert.equal(gitSegmentIn("a/b/.GIT/hooks/x"), ".GIT");
    assert.equal(gitSegmentIn("a\\git~1\\config"), "git~1");
    assert.equal(gitSegmentIn("a/.github/x"), undefined);
    assert.equal(
      message(() => checkRenderedPath(".git/config")),
      "refusing to write `.git/config` - kiln never writes to `.git` or inside it",
    );
    assert.equal(
      message(() => checkRenderedPath("x/.git. /hooks/pre-commit")),
      "refusing to write `x/.git. /hooks/pre-commit` - kiln never writes to `.git` or inside it (`.git. ` is `.git` on some file systems)",
    );
    assert.equal(
      message(() => checkOutputFolder("./.git")),
      "refusing to write into `./.git` - kiln never writes to `.git` or inside it",
    );
    assert.equal(
      message(() => checkOutputFolder("../x")),
      "refusing to write `../x` - it escapes the target directory",
    );
    checkOutputFolder(".");
    checkOutputFolder("k8s/");
  });
});

describe("places other tools run as code", () => {
  test("every listed place, in any case and spelling, in any folder", () => {
    const cases: [string, string][] = [
      [".envrc", ".envrc"],
      ["sub/.ENVRC.", ".envrc"],
      [".envrc::$DATA", ".envrc"],
      [".vscode/tasks.json", ".vscode/"],
      [".vs\u200ccode/settings.json", ".vscode/"],
      [".idea/workspace.xml", ".idea/"],
      [".devcontainer/devcontainer.json", ".devcontainer/, .devcontainer.json"],
      [".devcontainer.json", ".devcontainer/, .devcontainer.json"],
      [".github/workflows/ci.yml", ".github/workflows/, .github/actions/"],
      ["x/.GitHub/Actions/a/action.yml", ".github/workflows/, .github/actions/"],
      [".gitlab-ci.yml", ".gitlab-ci.yml"],
      [".circleci/config.yml", ".circleci/"],
      [".husky/pre-commit", ".husky/"],
      [".pre-commit-config.yaml", ".pre-commit-config.yaml"],
      ["lefthook.yml", EXEC_PATH_RULES[9]?.pattern as string],
      [".lefthook-local.toml", EXEC_PATH_RULES[9]?.pattern as string],
      [".bashrc", EXEC_PATH_RULES[10]?.pattern as string],
      [".zlogin", EXEC_PATH_RULES[10]?.pattern as string],
      [".config/fish/config.fish", ".config/fish/"],
      [".npmrc", ".npmrc"],
      [".yarnrc.yml", ".yarnrc, .yarnrc.yml"],
      [".pnpmfile.cjs", ".pnpmfile.cjs, .pnpmfile.mjs"],
      [".gitattributes", ".gitattributes"],
      ["GITATT~1", ".gitattributes"],
      [".gitmodules", ".gitmodules"],
    ];
    for (const [path, pattern] of cases) {
      assert.equal(execPathRuleFor(path)?.pattern, pattern, path);
    }
    for (const path of [
      "envrc",
      "my.envrc",
      ".github/CODEOWNERS",
      "github/workflows/x.yml",
      ".config/nvim/init.lua",
      "vscode/x",
      "lefthook.yml.bak",
      ".gitignore",
      "k8s/web-deployment.yaml",
    ]) {
      assert.equal(execPathRuleFor(path), undefined, path);
    }
  });

  test(".gitmodules in git's NTFS and HFS+ spellings (git's t0060 list)", () => {
    const yes = [
      ".gitmodules",
      ".git\u200cmodules",
      ".Gitmodules",
      ".gitmoduleS",
      ".gitmodules ",
      ".gitmodules.",
      ".gitmodules . ",
      ".gitmodules ::",
      ".gitmodules::$DATA",
      "gitmod~4",
      "GI7EBA~1",
      "gi7eba~9",
      "GI7EB~10",
      "GI7E~999",
      "~1000000",
      "~9999999",
    ];
    const no = [
      ".gitmodules x",
      ".gitmodules .x",
      " .gitmodules",
      "..gitmodules",
      "gitmodules",
      ".gitmodule",
      "GI7EBA~",
      "GI7EBA~0",
      "GI7EBA~~1",
      "GI7EBA~X",
      "Gx7EBA~1",
      "GI7EBX~1",
      "GI7EB~1",
      "GI7EB~01",
      "GI7EB~1X",
      ".gitmodules,:$DATA",
    ];
    for (const name of yes) {
      assert.equal(isGitModules([canonicalSegment(name)], [name]), true, JSON.stringify(name));
    }
    for (const name of no) {
      assert.equal(isGitModules([canonicalSegment(name)], [name]), false, JSON.stringify(name));
    }
  });

  test("the refusal names every path, what runs it, and the flag", () => {
    const rule = execPathRuleFor(".envrc");
    assert.ok(rule);
    const hits = Array.from({ length: 7 }, (_, index) => ({ shown: `d${index}/.envrc`, rule }));
    const error = execPathsRefusal(hits);
    assert.equal(
      error.message,
      "refusing to write `d0/.envrc`, `d1/.envrc`, `d2/.envrc`, `d3/.envrc`, `d4/.envrc`, and 2 more - other tools run or load these as code; pass --allow-exec-paths if this is intended",
    );
    assert.equal(error.detail?.split("\n").length, 8);
    assert.equal(
      error.detail?.split("\n")[6],
      "d6/.envrc: direnv runs it when a shell enters the folder",
    );
  });
});

describe("Mercurial's folder, like git's", () => {
  test("`.hg` in any spelling, and Mercurial's NTFS short names", () => {
    for (const name of [
      ".hg",
      ".HG",
      ".Hg.",
      ".hg ",
      ".hg::$DATA",
      ".h\u200cg",
      "hg~1",
      "HG~12",
      "hg8b6c~2",
    ]) {
      assert.equal(isMercurialSegment(name), true, JSON.stringify(name));
    }
    for (const name of [".hgrc", ".hgignore", "hg", "..hg", ".hgx", "hg~", "hg~x", "hgx~1"]) {
      assert.equal(isMercurialSegment(name), false, JSON.stringify(name));
    }
    assert.equal(versionControlSegmentIn("a/.HG/hgrc"), ".HG");
    assert.equal(versionControlSegmentIn("a/.git/config"), ".git");
    assert.equal(versionControlSegmentIn("a/.hgignore"), undefined);
  });

  test("a segment's folder is the one its whole fold names, with or without a `g` in it", () => {
    // the characters that make or break a spelling: both cases of each letter of git and hg,
    // Mercurial's short-name letters, dots, spaces, `~`, digits, a stream `:`, HFS+'s ignorable
    // code points, and letters whose lower case is another (Kelvin's K, dotted I, Greek)
    const character = fc.constantFrom(
      ..."gGiItThH8bB6cCxX. ~1290:$aA".split(""),
      "\u200c",
      "\ufeff",
      "\u212a",
      "\u0130",
      "\u03a3",
      "é",
    );
    const segment = fc.oneof(
      fc.constantFrom(".git", ".GIT", "git~1", ".hg", "HG~12", "hg8b6c~2", "infra", "main.yml"),
      fc.array(character, { maxLength: 10 }).map((characters) => characters.join("")),
    );
    fc.assert(
      fc.property(segment, (name) => {
        const whole = isGitSegment(name) ? ".git" : isMercurialSegment(name) ? ".hg" : undefined;
        assert.equal(versionControlFolderOf(name), whole, JSON.stringify(name));
      }),
      { numRuns: 20_000 },
    );
  });

  test("refused in rendered paths and output folders, with its own reason", () => {
    assert.equal(
      message(() => checkRenderedPath(".hg/hgrc")),
      "refusing to write `.hg/hgrc` - kiln never writes to `.hg` or inside it",
    );
    assert.equal(
      message(() => checkRenderedPath("x/HG~1/hgrc")),
      "refusing to write `x/HG~1/hgrc` - kiln never writes to `.hg` or inside it (`HG~1` is `.hg` on some file systems)",
    );
    assert.equal(
      message(() => checkOutputFolder("sub/.hg")),
      "refusing to write into `sub/.hg` - kiln never writes to `.hg` or inside it",
    );
    assert.throws(
      () => checkRenderedPath(".hg/hgrc"),
      (error: KilnError) => /^Mercurial runs the hooks/.test(error.detail ?? ""),
    );
  });
});

describe("more places other tools run as code", () => {
  test("each new rule, in any case and spelling, and what is left alone", () => {
    const cases: [string, string][] = [
      [".cargo/config.toml", ".cargo/config.toml, .cargo/config"],
      ["sub/.CARGO/config", ".cargo/config.toml, .cargo/config"],
      [".claude/settings.json", ".claude/settings.json, .claude/settings.local.json"],
      [".claude/settings.local.json", ".claude/settings.json, .claude/settings.local.json"],
      [".mcp.json", ".mcp.json"],
      [".nvim.lua", ".exrc, .vimrc, .nvimrc, .nvim.lua, _exrc, _vimrc"],
      [".exrc.", ".exrc, .vimrc, .nvimrc, .nvim.lua, _exrc, _vimrc"],
      ["_VIMRC", ".exrc, .vimrc, .nvimrc, .nvim.lua, _exrc, _vimrc"],
      [".zed/settings.json", ".zed/"],
      [".zed/tasks.json", ".zed/"],
      ["mise.toml", EXEC_PATH_RULES[22]?.pattern as string],
      [".mise.toml", EXEC_PATH_RULES[22]?.pattern as string],
      ["mise.local.toml", EXEC_PATH_RULES[22]?.pattern as string],
      [".mise/config.toml", EXEC_PATH_RULES[22]?.pattern as string],
      ["mise/config.toml", EXEC_PATH_RULES[22]?.pattern as string],
      [".config/mise/config.toml", EXEC_PATH_RULES[22]?.pattern as string],
      [".tool-versions", ".tool-versions"],
      [".env", ".env"],
      ["k8s/.ENV", ".env"],
      ["Makefile", "Makefile, makefile, GNUmakefile (at the project root)"],
      ["makefile", "Makefile, makefile, GNUmakefile (at the project root)"],
      ["GNUmakefile", "Makefile, makefile, GNUmakefile (at the project root)"],
    ];
    for (const [path, pattern] of cases) {
      assert.equal(execPathRuleFor(path)?.pattern, pattern, path);
    }
    for (const path of [
      "k8s/Makefile",
      "roles/web/makefile",
      ".cargo/credentials.toml",
      ".claude/commands/x.md",
      "mise.toml.bak",
      "premise.toml",
      ".env.example",
      "env",
      "tool-versions",
      "Makefile.am",
    ]) {
      assert.equal(execPathRuleFor(path), undefined, path);
    }
  });

  test("every rule has a named function and says what runs it", () => {
    for (const rule of EXEC_PATH_RULES) {
      assert.match(rule.matches.name, /^is[A-Z]/, rule.pattern);
      assert.ok(rule.runBy.length > 0, rule.pattern);
    }
  });

  test("the zip's files: each path under a rule, in order, as it lies in the zip", () => {
    const hits = execPathHitsIn(["k8s/a.yaml", ".envrc", "k8s/.vscode/tasks.json", "kiln.toml"]);
    assert.deepEqual(
      hits.map((hit) => [hit.shown, hit.rule.pattern]),
      [
        [".envrc", ".envrc"],
        ["k8s/.vscode/tasks.json", ".vscode/"],
      ],
    );
  });
});

describe("paths that collide on macOS and Windows", () => {
  test("letter case, Unicode normalization and NTFS trailing dots are one path", () => {
    assert.equal(collisionKey("Roles/Web.YML"), collisionKey("roles/web.yml"));
    assert.equal(collisionKey("caf\u00e9.txt"), collisionKey("cafe\u0301.txt"));
    assert.equal(collisionKey("stra\u00dfe"), collisionKey("STRASSE"));
    assert.equal(collisionKey("a.txt."), collisionKey("a.txt"));
    assert.notEqual(collisionKey("a.txt"), collisionKey("b.txt"));
  });

  test("refused with the duplicate message, naming the later path", () => {
    assert.equal(
      message(() => checkNoDuplicatePaths([file("X.txt"), file("other"), file("x.txt")])),
      "two files rendered to the same path: `x.txt`",
    );
  });
});

describe("kiln's own files: kiln.toml, kiln.lock, .kiln-journal.json", () => {
  const own = (path: string, segment: string, file: string) =>
    `refusing to write \`${path}\` - \`${segment}\` is a file kiln keeps for itself (${file}); an item or preset cannot write it`;

  test("refused at any depth, in every spelling the .git rule reads", () => {
    for (const [path, segment, file] of [
      ["kiln.toml", "kiln.toml", "kiln.toml"],
      ["kiln.lock", "kiln.lock", "kiln.lock"],
      [".kiln-journal.json", ".kiln-journal.json", ".kiln-journal.json"],
      ["deploy/.kiln-journal.json", ".kiln-journal.json", ".kiln-journal.json"],
      ["sub/KILN.LOCK", "KILN.LOCK", "kiln.lock"],
      ["a/b/c/Kiln.Toml", "Kiln.Toml", "kiln.toml"],
      ["kiln.lock. ", "kiln.lock. ", "kiln.lock"],
      ["kiln.toml::$DATA", "kiln.toml::$DATA", "kiln.toml"],
      ["ki\u200cln.toml", "ki\u200cln.toml", "kiln.toml"],
      ["sub\\kiln.lock", "kiln.lock", "kiln.lock"],
      ["KILN~1.TOM", "KILN~1.TOM", "kiln.toml"],
      ["x/kiln~2.loc", "kiln~2.loc", "kiln.lock"],
      ["KILN-J~1.JSO", "KILN-J~1.JSO", ".kiln-journal.json"],
      ["kiln.lock/x.yaml", "kiln.lock", "kiln.lock"],
    ] as const) {
      assert.deepEqual(kilnOwnFileIn(path), { segment, file }, path);
      assert.equal(
        message(() => checkRenderedPath(path)),
        own(path, segment, file),
        path,
      );
    }
  });

  test("names that merely look alike are files like any other", () => {
    for (const path of [
      "kiln.toml.bak",
      "my-kiln.lock",
      "kiln.lock.d/x",
      "kiln-journal.json",
      ".kiln-journal.json.1234.tmp",
      "k8s/kiln/app.yaml",
      "KILN~1.TXT",
    ]) {
      assert.equal(kilnOwnFileIn(path), undefined, path);
      checkRenderedPath(path);
    }
  });

  test("an output folder named so is refused too; the detail says what to do", () => {
    assert.equal(
      message(() => checkOutputFolder("deploy/kiln.toml")),
      "refusing to write into `deploy/kiln.toml` - `kiln.toml` is a file kiln keeps for itself (kiln.toml); an item or preset cannot write it",
    );
    try {
      checkRenderedPath("kiln.lock");
    } catch (error) {
      assert.match(
        (error as KilnError).detail ?? "",
        /rename that file or folder in the item or preset; nothing was written$/,
      );
    }
  });

  test("the planner refuses them before anything else of the run, also with force", () => {
    assert.equal(
      message(() =>
        planWrites([file("a.yaml"), file("KILN.TOML")], { force: true, existing: new Map() }),
      ),
      own("KILN.TOML", "KILN.TOML", "kiln.toml"),
    );
  });

  test("kiln's own writes take exactly kiln.toml and kiln.lock", () => {
    checkKilnOwnWrites([file("kiln.toml"), file("kiln.lock")]);
    for (const path of ["sub/kiln.lock", ".kiln-journal.json", "a.yaml", "KILN.TOML"]) {
      assert.throws(() => checkKilnOwnWrites([file(path)]), KilnError, path);
    }
  });
});
