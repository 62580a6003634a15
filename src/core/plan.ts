// Write planning: the rules every written path must pass, as pure functions. The CLI asks the plan
// before it writes anything; the plan never touches the disk itself (the caller passes what
// exists). No node:path here: the dashboard's browser build applies the same rules to its zip.
import { JOURNAL_FILE, LOCK_FILE, PROJECT_FILE } from "./config.ts";
import { KilnError } from "./errors.ts";
import {
  canonicalSegment,
  foldSegment,
  pathSegments,
  versionControlFolderOf,
  versionControlSegmentIn,
} from "./sensitive-paths.ts";

/** A rendered file and the component it came from. */
export interface PlannedFile {
  /** Path relative to the target directory, as rendered. */
  path: string;
  content: string;
}

export type WriteStatus = "new" | "overwrite" | "unchanged";

export interface WriteStep extends PlannedFile {
  status: WriteStatus;
}

/**
 * A path already in its one spelling: segments of anything but `/` and `\\`, none of them
 * empty, `.` or `..` (a rendered file's path nearly always: one test instead of a split and a
 * join for every file of every render).
 */
const ONE_SPELLING = /^(?!\.\.?(?:\/|$))[^/\\]+(?:\/(?!\.\.?(?:\/|$))[^/\\]+)*$/;

/**
 * Collapses `./`, `//`, backslashes and inner `..` so two spellings of one path compare equal
 * (`a//b/./c`, `a/x/../b/c` and `a\b\c` are `a/b/c`); a leading `/` is kept.
 */
export function normalizeRelativePath(path: string): string {
  if (ONE_SPELLING.test(path)) return path;
  const unified = path.replaceAll("\\", "/");
  const segments: string[] = [];
  for (const segment of unified.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === ".." && segments.length > 0 && segments[segments.length - 1] !== "..") {
      segments.pop();
    } else {
      segments.push(segment);
    }
  }
  const joined = segments.join("/");
  return unified.startsWith("/") ? `/${joined}` : joined;
}

/** `/x`, `\x`, `C:\x`, `C:/x`: absolute on POSIX or on Windows. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(path);
}

/** Read left to right: does the path climb above its start at any `..`? */
export function escapesTarget(path: string): boolean {
  let depth = 0;
  for (const segment of path.split(/[/\\]/)) {
    if (segment === "..") {
      depth -= 1;
      if (depth < 0) return true;
    } else if (segment !== "." && segment !== "") {
      depth += 1;
    }
  }
  return false;
}

/** The refusal of a path that leads out of the folder it is written into (fixed text). */
export function escapeRefusal(path: string): KilnError {
  return new KilnError(
    "invalid_request",
    `refusing to write \`${path}\` - it escapes the target directory`,
  );
}

/** The message for two files of one run on one path; `shown` is the later one's path. */
export function duplicatePathRefusal(shown: string): KilnError {
  return new KilnError("invalid_request", `two files rendered to the same path: \`${shown}\``);
}

/** A file (or kiln.toml) that exists and may be replaced only with `--force`. */
export function alreadyExists(shown: string, detail?: string): KilnError {
  return new KilnError(
    "already_exists",
    `${shown} already exists - pass --force to overwrite`,
    detail,
  );
}

/** The absolute-path and escape rules for one rendered path. */
export function checkPathStaysInside(path: string): void {
  if (isAbsolutePath(path)) {
    throw new KilnError(
      "invalid_request",
      `refusing to write \`${path}\` - absolute paths are not allowed`,
    );
  }
  if (escapesTarget(path)) throw escapeRefusal(path);
}

/** The longest file or folder name file systems accept (ext4, APFS, NTFS: 255 bytes). */
export const MAX_NAME_BYTES = 255;
/** The longest path kiln writes (Linux's PATH_MAX). */
export const MAX_PATH_BYTES = 4096;

/** The UTF-8 length of `text`, as the file system counts it (a lone surrogate is 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** A path as messages show it: a very long one is cut in the middle. */
export function shortPath(path: string): string {
  return path.length <= 160 ? path : `${path.slice(0, 100)}...${path.slice(-40)}`;
}

/** Printable ASCII only: no Unicode normalization needed. */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

const FIX_TEMPLATE =
  "fix the path template of the registry item or preset that renders it, then run the command again";

function refuse(message: string, detail: string = FIX_TEMPLATE): never {
  throw new KilnError("invalid_request", message, detail);
}

/** A NUL byte ends a path for the system: whatever follows would be lost. */
function checkNoNul(path: string, what: string): void {
  if (path.includes("\0")) {
    refuse(`refusing to write ${what}\`${shortPath(path)}\` - it contains a NUL byte`);
  }
}

/** A path or one of its names longer than file systems accept (ENAMETOOLONG). */
function checkLength(path: string, what: string): void {
  // a UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4): short paths
  // and names need no counting
  if (path.length * 3 <= MAX_NAME_BYTES) return;
  const bytes = path.length * 3 <= MAX_PATH_BYTES ? 0 : utf8Length(path);
  if (bytes > MAX_PATH_BYTES) {
    refuse(
      `refusing to write ${what}\`${shortPath(path)}\` - the path is ${bytes} bytes long, more than the ${MAX_PATH_BYTES} file systems accept`,
    );
  }
  for (const segment of pathSegments(path)) {
    if (segment.length * 3 <= MAX_NAME_BYTES) continue;
    const length = utf8Length(segment);
    if (length > MAX_NAME_BYTES) {
      refuse(
        `refusing to write ${what}\`${shortPath(path)}\` - the name \`${shortPath(segment)}\` is ${length} bytes long, more than the ${MAX_NAME_BYTES} file systems accept`,
      );
    }
  }
}

/** Why each version-control folder is never written: what runs from it. */
const VERSION_CONTROL_RUNS = {
  ".git": "git runs hooks and reads its configuration from there",
  ".hg": "Mercurial runs the hooks and loads the extensions its configuration there (hgrc) names",
} as const;

/**
 * The message for anything in or named `.git` or `.hg` (`segment`, in the spelling found);
 * `shown` is the path as people see it.
 */
export function versionControlRefusal(shown: string, segment: string, into = false): KilnError {
  const folder = versionControlFolderOf(segment) ?? ".git";
  const spelling =
    segment === folder ? "" : ` (\`${segment}\` is \`${folder}\` on some file systems)`;
  return new KilnError(
    "invalid_request",
    `refusing to write ${into ? "into " : ""}\`${shortPath(shown)}\` - kiln never writes to \`${folder}\` or inside it${spelling}`,
    `${VERSION_CONTROL_RUNS[folder]}, so a file there can run commands on your machine; no option allows it - remove the file from the item or preset, or choose another folder`,
  );
}

/**
 * The files kiln keeps for itself. `kiln.toml` says where files go, `kiln.lock` which files
 * `update` and `remove` rewrite or delete, and `.kiln-journal.json` which files the next
 * writing command restores or deletes: a stranger's item, preset or zip that wrote one, at any
 * depth (`sub/` becomes a project of its own, `apply --into deploy` makes `deploy` one), would
 * steer kiln's next run there. Only kiln writes them, as its own group (`checkKilnOwnWrites`).
 */
export const KILN_OWN_FILES = [PROJECT_FILE, LOCK_FILE, JOURNAL_FILE] as const;

/**
 * NTFS short (8.3) names of kiln's own files (`KILN~1.TOM`, `KILN~1.LOC`, `KILN-J~1.JSO`):
 * Windows opens the long-named file through them, as it opens `.git` through `git~1`.
 */
const KILN_OWN_SHORT_NAMES: readonly (readonly [RegExp, string])[] = [
  [/^kiln~[1-9][0-9]*\.tom$/, PROJECT_FILE],
  [/^kiln~[1-9][0-9]*\.loc$/, LOCK_FILE],
  [/^kiln-j~[1-9][0-9]*\.jso$/, JOURNAL_FILE],
];

/**
 * Which of kiln's own files one name is, read the way the `.git` rule reads names (any letter
 * case, NTFS trailing dots, spaces and `:` streams, HFS+ ignorable code points, short names).
 */
export function kilnOwnFileNamed(segment: string): string | undefined {
  const name = canonicalSegment(segment);
  const own = KILN_OWN_FILES.find((file) => file === name);
  return own ?? KILN_OWN_SHORT_NAMES.find(([pattern]) => pattern.test(name))?.[1];
}

/** A segment of a path that is one of kiln's own files, and which one. */
export interface KilnOwnFileHit {
  /** The segment as written. */
  segment: string;
  /** The file it reads as: `kiln.toml`, `kiln.lock` or `.kiln-journal.json`. */
  file: string;
}

/** The first segment of `path` that names one of kiln's own files, or undefined. */
export function kilnOwnFileIn(path: string): KilnOwnFileHit | undefined {
  // printable ASCII holds no ignorable code point: without `kiln` in it, no segment is one
  if (PLAIN_ASCII.test(path) && !/kiln/i.test(path)) return undefined;
  for (const segment of pathSegments(path)) {
    const file = kilnOwnFileNamed(segment);
    if (file !== undefined) return { segment, file };
  }
  return undefined;
}

/** The refusal of a rendered path or output folder that names one of kiln's own files. */
export function kilnOwnFileRefusal(shown: string, hit: KilnOwnFileHit, into = false): KilnError {
  return new KilnError(
    "invalid_request",
    `refusing to write ${into ? "into " : ""}\`${shortPath(shown)}\` - \`${shortPath(hit.segment)}\` is a file kiln keeps for itself (${hit.file}); an item or preset cannot write it`,
    `${KILN_OWN_FILES.join(", ")} are written by kiln alone, in any folder and any spelling: the journal names files for the next kiln command to restore or delete, the lock files to remove, kiln.toml where files go - rename that file or folder in the item or preset; nothing was written`,
  );
}

/**
 * kiln's own writes of kiln.toml and kiln.lock (init, setup, add, update, remove), which the
 * rendered files' rules refuse: only those two names, each at the top of its group's folder.
 * Anything else in such a group is a mistake in kiln, not in a preset.
 */
export function checkKilnOwnWrites(files: readonly PlannedFile[]): void {
  for (const file of files) {
    if (file.path !== PROJECT_FILE && file.path !== LOCK_FILE) {
      throw new KilnError(
        "internal",
        `\`${shortPath(file.path)}\` was written as one of kiln's own files - only ${PROJECT_FILE} and ${LOCK_FILE} are`,
      );
    }
  }
}

/**
 * Every rule for one rendered path, in order: an empty path, a NUL byte, an absolute path, a
 * path that leads out of the target folder, names and paths too long for file systems, a path
 * that names a folder (ending in `/` or `\`, `.`, `a/..`) instead of a file, anything in `.git`
 * or `.hg` (in any spelling), and kiln's own files (`kiln.toml`, `kiln.lock`,
 * `.kiln-journal.json`) at any depth.
 */
export function checkRenderedPath(path: string): void {
  if (path === "") {
    refuse("refusing to write a file whose path is empty");
  }
  checkNoNul(path, "");
  checkPathStaysInside(path);
  checkLength(path, "");
  if (path.endsWith("/") || path.endsWith("\\")) {
    refuse(
      `refusing to write \`${shortPath(path)}\` - the path ends in \`${path.slice(-1)}\`, so it names a folder, not a file`,
    );
  }
  // a path whose last segment is a name cannot come down to the target folder itself
  const last = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
  if (last === "." || last === "..") {
    refuse(`refusing to write \`${shortPath(path)}\` - it names a folder, not a file`);
  }
  const versionControl = versionControlSegmentIn(path);
  if (versionControl !== undefined) throw versionControlRefusal(path, versionControl);
  const own = kilnOwnFileIn(path);
  if (own !== undefined) throw kilnOwnFileRefusal(path, own);
}

/**
 * An output folder from kiln.toml or a preset: an absolute path or one that leads out of the
 * project (the same messages as for a file), a NUL byte or a name too long, `.git` or `.hg` in
 * any spelling, and a folder named as one of kiln's own files.
 */
export function checkOutputFolder(dir: string): void {
  checkNoNul(dir, "into ");
  checkPathStaysInside(dir);
  checkLength(dir, "into ");
  const versionControl = versionControlSegmentIn(dir);
  if (versionControl !== undefined) throw versionControlRefusal(dir, versionControl, true);
  const own = kilnOwnFileIn(dir);
  if (own !== undefined) throw kilnOwnFileRefusal(dir, own, true);
}

/**
 * The key two paths collide on: the normalized path, Unicode-normalized (NFC), case-folded and
 * each name read as NTFS and HFS+ read it (`foldSegment`), because macOS and Windows keep
 * `X.txt` and `x.txt` (or a composed and a decomposed `é`, or `a.txt` and `a.txt.`) in one
 * file. Upper then lower case folds `ß`/`SS` and `ſ`/`s` too.
 */
export function collisionKey(path: string): string {
  const normalized = normalizeRelativePath(path);
  // the common case: printable ASCII, no name ending in a dot or a space
  if (PLAIN_ASCII.test(normalized) && !/[. ](?:\/|$)/.test(normalized)) {
    return normalized.toLowerCase();
  }
  return normalized
    .normalize("NFC")
    .split("/")
    .map((segment) => foldSegment(segment).toUpperCase().toLowerCase())
    .join("/");
}

/**
 * Two files of one run (setup, apply) must not render to the same path, nor to two paths that
 * differ only in letter case (they are one file on macOS and Windows).
 */
export function checkNoDuplicatePaths(files: readonly PlannedFile[]): void {
  const seen = new Set<string>();
  for (const file of files) {
    const key = collisionKey(file.path);
    if (seen.has(key)) throw duplicatePathRefusal(file.path);
    seen.add(key);
  }
}

export interface PlanOptions {
  force: boolean;
  /** The current content of each target file that exists, by rendered path. */
  existing: ReadonlyMap<string, string>;
  /** How a path is shown to people in messages (e.g. with the output folder in front). */
  display?: (path: string) => string;
  /**
   * A file whose bytes are already exactly the new content is `unchanged` without `force`
   * (setup and apply of a preset are idempotent); only files that would change need it.
   */
  unchangedWithoutForce?: boolean | undefined;
}

/** The rules that need no disk, for every file of a run: duplicates, then each path's rules. */
export function checkPlannedPaths(files: readonly PlannedFile[]): void {
  checkNoDuplicatePaths(files);
  for (const file of files) checkRenderedPath(file.path);
}

/**
 * What writing each file does - new, overwrite or unchanged - refusing an existing file
 * without `force`. The second half of `planWrites`, for a caller that ran `checkPlannedPaths`
 * (and its own checks on the disk) first.
 */
export function planStatuses(files: readonly PlannedFile[], options: PlanOptions): WriteStep[] {
  const display = options.display ?? ((path: string) => path);
  return files.map((file) => {
    const existing = options.existing.get(file.path);
    if (existing === undefined) return { ...file, status: "new" };
    if (existing === file.content && options.unchangedWithoutForce) {
      return { ...file, status: "unchanged" };
    }
    if (!options.force) throw alreadyExists(display(file.path));
    return { ...file, status: existing === file.content ? "unchanged" : "overwrite" };
  });
}

/**
 * Checks every rule for a whole run before anything is written: duplicates, absolute paths,
 * escapes, names, `.git`, then existing files without `force`. Returns each file with what
 * writing it does.
 */
export function planWrites(files: readonly PlannedFile[], options: PlanOptions): WriteStep[] {
  checkPlannedPaths(files);
  return planStatuses(files, options);
}
