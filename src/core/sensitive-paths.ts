// Places kiln must not write to because something runs what is there: git's own folder (never),
// and the files other tools execute or load as code (only when the user typed
// --allow-exec-paths). Pure string rules, no node:path: the CLI checks rendered paths, output
// folders and real destinations with them, and the dashboard's zip can use the same ones.
//
// A path is checked segment by segment, each segment read the way the file systems kiln's users
// have would read it (see `canonicalSegment`), so `.GIT`, `.git.` (NTFS), `git~1` (an NTFS short
// name) and `.g\u200cit` (HFS+ ignores U+200C) are all `.git`, as git's own protectNTFS and
// protectHFS rules say (git's path.c: is_ntfs_dotgit, is_hfs_dotgit, is_ntfs_dot_generic).
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
  const name = canonicalSegment(segment);
  return name === ".git" || name === "git~1";
}

/** The first segment of `path` that is `.git` in some spelling, or undefined. */
export function gitSegmentIn(path: string): string | undefined {
  return pathSegments(path).find(isGitSegment);
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

export function isDirenvFile(segments: readonly string[]): boolean {
  return anySegment(segments, [".envrc"]);
}

export function isVsCodeFolder(segments: readonly string[]): boolean {
  return anySegment(segments, [".vscode"]);
}

export function isJetBrainsFolder(segments: readonly string[]): boolean {
  return anySegment(segments, [".idea"]);
}

export function isDevContainerConfig(segments: readonly string[]): boolean {
  return anySegment(segments, [".devcontainer", ".devcontainer.json"]);
}

export function isGitHubActionsFolder(segments: readonly string[]): boolean {
  return anyPair(segments, ".github", ["workflows", "actions"]);
}

export function isGitLabCiFile(segments: readonly string[]): boolean {
  return anySegment(segments, [".gitlab-ci.yml"]);
}

export function isCircleCiFolder(segments: readonly string[]): boolean {
  return anySegment(segments, [".circleci"]);
}

export function isHuskyFolder(segments: readonly string[]): boolean {
  return anySegment(segments, [".husky"]);
}

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

export function isShellStartupFile(segments: readonly string[]): boolean {
  return anySegment(segments, SHELL_STARTUP_FILES);
}

export function isFishConfigFolder(segments: readonly string[]): boolean {
  return anyPair(segments, ".config", ["fish"]);
}

export function isNpmConfig(segments: readonly string[]): boolean {
  return anySegment(segments, [".npmrc"]);
}

export function isYarnConfig(segments: readonly string[]): boolean {
  return anySegment(segments, [".yarnrc", ".yarnrc.yml"]);
}

export function isPnpmfile(segments: readonly string[]): boolean {
  return anySegment(segments, [".pnpmfile.cjs", ".pnpmfile.mjs"]);
}

/** `.gitattributes`, also as its NTFS short names (git's is_ntfs_dotgitattributes). */
export function isGitAttributes(segments: readonly string[], raw: readonly string[]): boolean {
  return (
    anySegment(segments, [".gitattributes"]) ||
    raw.some((segment) => isNtfsShortName(segment, "gitattributes", "gi7d29"))
  );
}

/** `.gitmodules`, also as its NTFS short names (git's is_ntfs_dotgitmodules). */
export function isGitModules(segments: readonly string[], raw: readonly string[]): boolean {
  return (
    anySegment(segments, [".gitmodules"]) ||
    raw.some((segment) => isNtfsShortName(segment, "gitmodules", "gi7eba"))
  );
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
];

/**
 * The rule a path relative to the project folder falls under, or undefined. Every segment is
 * compared in its canonical spelling (any case, NTFS and HFS+ variants).
 */
export function execPathRuleFor(path: string): ExecPathRule | undefined {
  const raw = pathSegments(path);
  const segments = raw.map(canonicalSegment);
  // every rule needs a name starting with `.` or `lefthook`, or an NTFS short name (`~`):
  // most rendered paths (`roles/web/tasks/main.yml`) have none, and need no rule run
  const candidate = segments.some(
    (segment, index) =>
      segment.startsWith(".") || segment.startsWith("lefthook") || raw[index]?.includes("~"),
  );
  if (!candidate) return undefined;
  return EXEC_PATH_RULES.find((rule) => rule.matches(segments, raw));
}

/** A file of the run that falls under one of EXEC_PATH_RULES. */
export interface ExecPathHit {
  /** The path as people see it (from the working directory). */
  shown: string;
  rule: ExecPathRule;
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
