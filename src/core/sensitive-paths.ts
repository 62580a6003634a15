// Places kiln must not write to because something runs what is there: the version-control
// folders `.git` and `.hg` (never), and the files other tools execute or load as code (only when
// the user typed --allow-exec-paths). Pure string rules, no node:path: the CLI checks rendered paths, output
// folders and real destinations with them, and the dashboard's zip can use the same ones.
//
// A path is checked segment by segment, each segment read the way the file systems kiln's users
// have would read it (see `canonicalSegment`), so `.GIT`, `.git.` (NTFS), `git~1` (an NTFS short
// name) and `.g\u200cit` (HFS+ ignores U+200C) are all `.git`, as git's own protectNTFS and
// protectHFS rules say (git's path.c: is_ntfs_dotgit, is_hfs_dotgit, is_ntfs_dot_generic);
// `.hg` the same way, with Mercurial's own short names (`hg~1`, mercurial/pathutil.py).
import { KilnError } from "./errors.ts";

/** Code points HFS+ ignores in file names (git's next_hfs_char). */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;
/** A name of printable ASCII only: nothing for HFS+ to ignore (the common case, checked fast). */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/**
 * How one name reads where names are forgiving: HFS+'s ignorable code points dropped, NTFS's
 * trailing dots and spaces dropped, lower case. `.` and `..` stay as they are.
 */
export function foldSegment(segment: string): string {
  if (segment === "." || segment === "..") return segment;
  const name = PLAIN_ASCII.test(segment) ? segment : segment.replace(HFS_IGNORABLE, "");
  let end = name.length;
  while (end > 0 && (name[end - 1] === "." || name[end - 1] === " ")) end -= 1;
  return name.slice(0, end).toLowerCase();
}

/**
 * How one path segment reads on the most forgiving file system: `foldSegment`, after dropping
 * everything from an NTFS stream separator (`:`) on - `name::$DATA` is the file itself.
 */
export function canonicalSegment(segment: string): string {
  const stream = segment.indexOf(":");
  return foldSegment(stream >= 0 ? segment.slice(0, stream) : segment);
}

/** The segments of a path split at `/` and `\`, without empty ones and `.`. */
export function pathSegments(path: string): string[] {
  return path.split(/[/\\]/).filter((segment) => segment !== "" && segment !== ".");
}

/**
 * git's is_ntfs_dot_generic: an NTFS short (8.3) name of `.<name>` - the first six letters then
 * `~1` to `~4`, or the fall-back form `<prefix>~<digits>` - followed only by dots and spaces
 * (or a `:` stream suffix). `name` is lower case without the dot; `prefix` is git's hash prefix.
 */
function isNtfsShortName(segment: string, name: string, prefix: string): boolean {
  const onlyDotsAndSpaces = (from: number) => {
    for (let i = from; i < segment.length; i += 1) {
      const c = segment[i];
      if (c === ":") return true;
      if (c !== " " && c !== ".") return false;
    }
    return true;
  };
  const lower = segment.toLowerCase();
  if (lower.startsWith(name.slice(0, 6)) && lower[6] === "~" && /[1-4]/.test(lower[7] ?? "")) {
    return onlyDotsAndSpaces(8);
  }
  let sawTilde = false;
  for (let i = 0; i < 8; i += 1) {
    const c = lower[i];
    if (c === undefined) return false;
    if (sawTilde) {
      if (c < "0" || c > "9") return false;
    } else if (c === "~") {
      i += 1;
      const digit = lower[i];
      if (digit === undefined || digit < "1" || digit > "9") return false;
      sawTilde = true;
    } else if (i >= 6 || c !== prefix[i]) {
      return false;
    }
  }
  return onlyDotsAndSpaces(8);
}

/**
 * A segment that some file system reads as `.git`: any letter case, NTFS trailing dots and
 * spaces or a `:` stream, the short name `git~1`, HFS+ ignorable code points inside.
 */
export function isGitSegment(segment: string): boolean {
  return isGitName(canonicalSegment(segment));
}

/** A canonical segment (`canonicalSegment`) that names git's folder. */
function isGitName(name: string): boolean {
  return name === ".git" || name === "git~1";
}

/** The first segment of `path` that is `.git` in some spelling, or undefined. */
export function gitSegmentIn(path: string): string | undefined {
  return pathSegments(path).find(isGitSegment);
}

/**
 * A segment that some file system reads as `.hg`, Mercurial's folder: `[hooks]` in its `hgrc`
 * run commands before and after any `hg` command (`pre-status`), `[extensions]` load Python
 * from a path. Spellings as for `.git`, and the NTFS short names Mercurial itself refuses
 * (pathutil.py's pathauditor: `HG~<digits>`, `HG8B6C~<digits>`).
 */
export function isMercurialSegment(segment: string): boolean {
  return isMercurialName(canonicalSegment(segment));
}

/** Mercurial's NTFS short names, canonical: `hg~<digits>`, `hg8b6c~<digits>`. */
const MERCURIAL_SHORT_NAME = /^hg(?:8b6c)?~\d+$/;

/** A canonical segment (`canonicalSegment`) that names Mercurial's folder. */
function isMercurialName(name: string): boolean {
  return name === ".hg" || MERCURIAL_SHORT_NAME.test(name);
}

/** Printable ASCII without a `g` in either case. */
const PLAIN_ASCII_WITHOUT_G = /^[\x20-\x46\x48-\x66\x68-\x7e]*$/;

/**
 * A segment no file system reads as `.git` or `.hg`, told without folding it: every spelling of
 * either (`.git`, `git~1`, `.hg`, `hg~1`, `hg8b6c~1`) has a `g`, and folding printable ASCII only
 * cuts it and lowers its case, so it cannot make a `g` where there was neither `g` nor `G`.
 * Other text goes through the whole fold (Unicode's lower case maps some other letters to ASCII
 * ones, HFS+ drops code points). Most segments of a project's paths are like this (`infra`,
 * `roles`, `main.yml`), and every path is checked a few times per file written.
 */
function cannotNameVersionControl(segment: string): boolean {
  return PLAIN_ASCII_WITHOUT_G.test(segment);
}

/** The version-control folders kiln never writes to or into, whatever the flags. */
export type VersionControlFolder = ".git" | ".hg";

/** Which version-control folder `segment` is in some spelling, or undefined. */
export function versionControlFolderOf(segment: string): VersionControlFolder | undefined {
  if (cannotNameVersionControl(segment)) return undefined;
  // folded once for both names
  const name = canonicalSegment(segment);
  if (isGitName(name)) return ".git";
  if (isMercurialName(name)) return ".hg";
  return undefined;
}

/** The first segment of `path` that is `.git` or `.hg` in some spelling, or undefined. */
export function versionControlSegmentIn(path: string): string | undefined {
  return pathSegments(path).find((segment) => versionControlFolderOf(segment) !== undefined);
}

/** One kind of place another tool runs or loads as code. */
export interface ExecPathRule {
  /** The names the rule covers, as people read them (`.vscode/` is a folder and all below it). */
  pattern: string;
  /** Who runs or loads it, and when: shown next to each such file. */
  runBy: string;
  /**
   * Does the path fall under the rule? `segments` are its canonical segments relative to the
   * project folder (see `canonicalSegment`), `raw` the same segments as written.
   */
  matches(segments: readonly string[], raw: readonly string[]): boolean;
}

const anySegment = (segments: readonly string[], names: readonly string[]) =>
  segments.some((segment) => names.includes(segment));

/** `first/second` as two consecutive segments anywhere in the path. */
const anyPair = (segments: readonly string[], first: string, seconds: readonly string[]) =>
  segments.some(
    (segment, index) => segment === first && seconds.includes(segments[index + 1] ?? ""),
  );

/** direnv runs `.envrc` (a shell script) when a shell with its hook enters the folder. */
export function isDirenvFile(segments: readonly string[]): boolean {
  return anySegment(segments, [".envrc"]);
}

/**
 * VS Code runs tasks from `.vscode/tasks.json` (`"runOn": "folderOpen"` as the folder opens)
 * and loads settings that name programs (`terminal.integrated.*`, language servers' paths).
 */
export function isVsCodeFolder(segments: readonly string[]): boolean {
  return anySegment(segments, [".vscode"]);
}

/** JetBrains IDEs load run configurations and tool paths from `.idea/`. */
export function isJetBrainsFolder(segments: readonly string[]): boolean {
  return anySegment(segments, [".idea"]);
}

/** Dev Containers build the image and run `postCreateCommand` and friends from it. */
export function isDevContainerConfig(segments: readonly string[]): boolean {
  return anySegment(segments, [".devcontainer", ".devcontainer.json"]);
}

/** GitHub Actions runs workflows (and the local actions they use) on push, with the secrets. */
export function isGitHubActionsFolder(segments: readonly string[]): boolean {
  return anyPair(segments, ".github", ["workflows", "actions"]);
}

/** GitLab CI runs `.gitlab-ci.yml` on push, with the project's CI variables. */
export function isGitLabCiFile(segments: readonly string[]): boolean {
  return anySegment(segments, [".gitlab-ci.yml"]);
}

/** CircleCI runs `.circleci/config.yml` on push. */
export function isCircleCiFolder(segments: readonly string[]): boolean {
  return anySegment(segments, [".circleci"]);
}

/** husky's `prepare` script points git's hooks at `.husky/`: they run on commit and push. */
export function isHuskyFolder(segments: readonly string[]): boolean {
  return anySegment(segments, [".husky"]);
}

/** pre-commit installs and runs the hooks (any repository, any command) this file names. */
export function isPreCommitConfig(segments: readonly string[]): boolean {
  return anySegment(segments, [".pre-commit-config.yaml"]);
}

/** lefthook reads `lefthook.yml` and its variants: a leading dot, `-local`, .yaml/.toml/.json. */
export function isLefthookConfig(segments: readonly string[]): boolean {
  return segments.some((segment) =>
    /^\.?lefthook(?:-local)?\.(?:yml|yaml|toml|json|jsonc)$/.test(segment),
  );
}

export const SHELL_STARTUP_FILES = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
] as const;

/** The shells run these when they start or exit in a folder that is someone's home (or ZDOTDIR). */
export function isShellStartupFile(segments: readonly string[]): boolean {
  return anySegment(segments, SHELL_STARTUP_FILES);
}

/** fish runs `config.fish`, `conf.d/` and `functions/` below `.config/fish/` as it starts. */
export function isFishConfigFolder(segments: readonly string[]): boolean {
  return anyPair(segments, ".config", ["fish"]);
}

/** npm reads `.npmrc` from the project: `node-options`, `script-shell`, registries. */
export function isNpmConfig(segments: readonly string[]): boolean {
  return anySegment(segments, [".npmrc"]);
}

/** Yarn runs `yarnPath` and loads the plugins `.yarnrc.yml` names; Yarn 1's `.yarnrc` too. */
export function isYarnConfig(segments: readonly string[]): boolean {
  return anySegment(segments, [".yarnrc", ".yarnrc.yml"]);
}

/** pnpm runs `.pnpmfile.cjs` (its hooks) on every install. */
export function isPnpmfile(segments: readonly string[]): boolean {
  return anySegment(segments, [".pnpmfile.cjs", ".pnpmfile.mjs"]);
}

/**
 * git runs the filters and diff drivers `.gitattributes` names (defined in the user's config)
 * on checkout, add and diff; also as its NTFS short names (git's is_ntfs_dotgitattributes).
 */
export function isGitAttributes(segments: readonly string[], raw: readonly string[]): boolean {
  return (
    anySegment(segments, [".gitattributes"]) ||
    raw.some((segment) => isNtfsShortName(segment, "gitattributes", "gi7d29"))
  );
}

/**
 * git fetches and checks out the repositories `.gitmodules` names (`git submodule update`,
 * `clone --recursive`); also as its NTFS short names (git's is_ntfs_dotgitmodules).
 */
export function isGitModules(segments: readonly string[], raw: readonly string[]): boolean {
  return (
    anySegment(segments, [".gitmodules"]) ||
    raw.some((segment) => isNtfsShortName(segment, "gitmodules", "gi7eba"))
  );
}

/**
 * Cargo reads `.cargo/config.toml` (and the older `.cargo/config`) from the folder it runs in
 * and every folder above: `target.<triple>.runner`, `build.rustc-wrapper` and `[alias]` run
 * programs on `cargo build`, `run` and `test`.
 */
export function isCargoConfig(segments: readonly string[]): boolean {
  return anyPair(segments, ".cargo", ["config", "config.toml"]);
}

/**
 * Claude Code runs the shell commands `hooks` name in `.claude/settings.json` and
 * `.claude/settings.local.json` on its events (before and after each tool, at session start).
 */
export function isClaudeCodeSettings(segments: readonly string[]): boolean {
  return anyPair(segments, ".claude", ["settings.json", "settings.local.json"]);
}

/** Claude Code and other MCP clients start the commands `.mcp.json` lists as its servers. */
export function isMcpServersFile(segments: readonly string[]): boolean {
  return anySegment(segments, [".mcp.json"]);
}

/**
 * Vim with 'exrc' set runs `.vimrc` and `.exrc` (`_vimrc`, `_exrc` on Windows) from the folder
 * it starts in; Neovim runs `.nvim.lua`, `.nvimrc` and `.exrc` (after asking to trust them).
 */
export function isVimLocalConfig(segments: readonly string[]): boolean {
  return anySegment(segments, [".exrc", ".vimrc", "_exrc", "_vimrc", ".nvimrc", ".nvim.lua"]);
}

/** Zed runs the tasks of `.zed/tasks.json`; `.zed/settings.json` names language servers to run. */
export function isZedFolder(segments: readonly string[]): boolean {
  return anySegment(segments, [".zed"]);
}

/**
 * mise, hooked into the shell, loads the environment (`_.source` runs a script), hooks and
 * tasks of its config as the shell enters the folder: `mise.toml`, `.mise.toml` and their
 * `.local`/environment variants, `.mise/`, `mise/config.toml`, `.config/mise/`.
 */
export function isMiseConfig(segments: readonly string[]): boolean {
  return (
    segments.some((segment) => /^\.?mise(?:\.[^.]+)?\.toml$/.test(segment)) ||
    anySegment(segments, [".mise"]) ||
    anyPair(segments, "mise", ["config.toml", "config.local.toml"]) ||
    anyPair(segments, ".config", ["mise"])
  );
}

/**
 * asdf and mise choose the version of each tool `.tool-versions` names - mise also installs it,
 * from a backend it names (`npm:`, `ubi:`) - and their shims run that version for `node`,
 * `python`, `terraform`, ...
 */
export function isToolVersionsFile(segments: readonly string[]): boolean {
  return anySegment(segments, [".tool-versions"]);
}

/**
 * `.env` becomes the environment of what runs in the folder: direnv's `dotenv`, Docker
 * Compose, mise's `env_file`, Node's `--env-file`, python-dotenv. `NODE_OPTIONS=--require`,
 * `LD_PRELOAD`, `BASH_ENV` or `PATH` there run code.
 */
export function isDotenvFile(segments: readonly string[]): boolean {
  return anySegment(segments, [".env"]);
}

/**
 * `make` with no file argument runs the first of `GNUmakefile`, `makefile`, `Makefile` in the
 * folder it runs in: the project root, where people and CI type `make`. A Makefile in a
 * subfolder runs only when someone goes there to run it, so only the root counts.
 */
export function isRootMakefile(segments: readonly string[]): boolean {
  const [name] = segments;
  return segments.length === 1 && (name === "makefile" || name === "gnumakefile");
}

/**
 * Every place other tools run or load as code. kiln writes there only with --allow-exec-paths;
 * docs/cli.md and docs/security.md list the same table.
 */
export const EXEC_PATH_RULES: readonly ExecPathRule[] = [
  {
    pattern: ".envrc",
    runBy: "direnv runs it when a shell enters the folder",
    matches: isDirenvFile,
  },
  {
    pattern: ".vscode/",
    runBy: "VS Code runs its tasks and loads its settings",
    matches: isVsCodeFolder,
  },
  {
    pattern: ".idea/",
    runBy: "JetBrains IDEs load its run configurations",
    matches: isJetBrainsFolder,
  },
  {
    pattern: ".devcontainer/, .devcontainer.json",
    runBy: "Dev Containers build and run it",
    matches: isDevContainerConfig,
  },
  {
    pattern: ".github/workflows/, .github/actions/",
    runBy: "GitHub Actions runs it",
    matches: isGitHubActionsFolder,
  },
  { pattern: ".gitlab-ci.yml", runBy: "GitLab CI runs it", matches: isGitLabCiFile },
  { pattern: ".circleci/", runBy: "CircleCI runs it", matches: isCircleCiFolder },
  { pattern: ".husky/", runBy: "husky runs it as a git hook", matches: isHuskyFolder },
  {
    pattern: ".pre-commit-config.yaml",
    runBy: "pre-commit runs the hooks it names",
    matches: isPreCommitConfig,
  },
  {
    pattern: "lefthook.yml (also .lefthook.yml, lefthook-local.yml, .yaml, .toml, .json)",
    runBy: "lefthook runs it as git hooks",
    matches: isLefthookConfig,
  },
  {
    pattern: SHELL_STARTUP_FILES.join(", "),
    runBy: "the shell runs it when it starts or exits",
    matches: isShellStartupFile,
  },
  { pattern: ".config/fish/", runBy: "fish runs it when it starts", matches: isFishConfigFolder },
  { pattern: ".npmrc", runBy: "npm reads commands and registries from it", matches: isNpmConfig },
  {
    pattern: ".yarnrc, .yarnrc.yml",
    runBy: "Yarn loads plugins and paths from it",
    matches: isYarnConfig,
  },
  { pattern: ".pnpmfile.cjs, .pnpmfile.mjs", runBy: "pnpm runs it", matches: isPnpmfile },
  {
    pattern: ".gitattributes",
    runBy: "git runs the filters and diff drivers it names",
    matches: isGitAttributes,
  },
  {
    pattern: ".gitmodules",
    runBy: "git fetches and checks out what it names",
    matches: isGitModules,
  },
  {
    pattern: ".cargo/config.toml, .cargo/config",
    runBy: "Cargo runs the runners, wrappers and aliases it names",
    matches: isCargoConfig,
  },
  {
    pattern: ".claude/settings.json, .claude/settings.local.json",
    runBy: "Claude Code runs the hook commands it names",
    matches: isClaudeCodeSettings,
  },
  {
    pattern: ".mcp.json",
    runBy: "Claude Code and other MCP clients start the servers it names",
    matches: isMcpServersFile,
  },
  {
    pattern: ".exrc, .vimrc, .nvimrc, .nvim.lua, _exrc, _vimrc",
    runBy: "Vim and Neovim run it when started in the folder (with 'exrc')",
    matches: isVimLocalConfig,
  },
  {
    pattern: ".zed/",
    runBy: "Zed runs its tasks and the language servers its settings name",
    matches: isZedFolder,
  },
  {
    pattern: "mise.toml, .mise.toml (and .local and environment variants), .mise/, .config/mise/",
    runBy: "mise loads its environment and runs its hooks when a shell enters the folder",
    matches: isMiseConfig,
  },
  {
    pattern: ".tool-versions",
    runBy: "asdf and mise choose (mise installs) the tool versions it names",
    matches: isToolVersionsFile,
  },
  {
    pattern: ".env",
    runBy: "direnv, Docker Compose, mise and others load it as the environment",
    matches: isDotenvFile,
  },
  {
    pattern: "Makefile, makefile, GNUmakefile (at the project root)",
    runBy: "make runs it",
    matches: isRootMakefile,
  },
];

/**
 * A name some rule looks for that starts with neither `.` nor `~`: lefthook's and mise's
 * configs, make's files, Vim's Windows names (canonical: lower case).
 */
const BARE_NAME_CANDIDATE = /^(?:lefthook|mise|makefile$|gnumakefile$|_vimrc$|_exrc$)/;

/**
 * The rule a path relative to the project folder falls under, or undefined. Every segment is
 * compared in its canonical spelling (any case, NTFS and HFS+ variants).
 */
export function execPathRuleFor(path: string): ExecPathRule | undefined {
  const raw = pathSegments(path);
  const segments = raw.map(canonicalSegment);
  // every rule needs a name starting with `.`, one of BARE_NAME_CANDIDATE, or an NTFS short
  // name (`~`): most rendered paths (`roles/web/tasks/main.yml`) have none, and need no rule run
  const candidate = segments.some(
    (segment, index) =>
      segment.startsWith(".") || BARE_NAME_CANDIDATE.test(segment) || raw[index]?.includes("~"),
  );
  if (!candidate) return undefined;
  return EXEC_PATH_RULES.find((rule) => rule.matches(segments, raw));
}

/** A file of the run that falls under one of EXEC_PATH_RULES. */
export interface ExecPathHit {
  /** The path as people see it (from the working directory; in a zip, from its root). */
  shown: string;
  rule: ExecPathRule;
}

/**
 * The paths (each relative to the project folder, as a written project lays them out) that fall
 * under EXEC_PATH_RULES, in order: the dashboard's zip, which has no disk to resolve links on.
 */
export function execPathHitsIn(paths: readonly string[]): ExecPathHit[] {
  return paths.flatMap((path) => {
    const rule = execPathRuleFor(path);
    return rule === undefined ? [] : [{ shown: path, rule }];
  });
}

/** How many paths the one-line message names before `and <n> more` (the detail has them all). */
const NAMED_IN_MESSAGE = 5;

/** The refusal for files under EXEC_PATH_RULES when the user did not pass --allow-exec-paths. */
export function execPathsRefusal(hits: readonly ExecPathHit[]): KilnError {
  const named = hits.slice(0, NAMED_IN_MESSAGE).map((hit) => `\`${hit.shown}\``);
  if (hits.length > NAMED_IN_MESSAGE) named.push(`and ${hits.length - NAMED_IN_MESSAGE} more`);
  return new KilnError(
    "invalid_request",
    `refusing to write ${named.join(", ")} - other tools run or load ${hits.length === 1 ? "it" : "these"} as code; pass --allow-exec-paths if this is intended`,
    [
      ...hits.map((hit) => `${hit.shown}: ${hit.rule.runBy}`),
      "nothing was written; a preset or registry item from someone else can use these files to run commands on your machine, so read them before you allow them",
    ].join("\n"),
  );
}
