// Writing rendered files into the user's tree, all or nothing.
//
// 1. plan: every rule is checked for the whole run before the first write - the spec's path
//    rules (the core's planWrites), symbolic links that lead out of the target, something in
//    the way (a file where a folder is needed, a folder where a file goes);
// 2. commit: each file is written atomically (a temporary file in the same folder, then a
//    rename), and when any write fails the run is undone - new files and the folders made for
//    them removed, overwritten files restored from the bytes read while planning.
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  type Stats,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { KilnError } from "../core/errors.ts";
import { type PlannedFile, planWrites, type WriteStatus } from "../core/plan.ts";

/** Rendered files and the folder their paths are relative to (the target directory). */
export interface WriteGroup {
  /** Absolute path of the target directory; it may not exist yet. */
  root: string;
  files: PlannedFile[];
}

export interface Step {
  /** The path as rendered, relative to its target directory. */
  path: string;
  /** The path as people see it: relative to the working directory. */
  display: string;
  content: string;
  status: WriteStatus;
  /** Where the bytes go: absolute, with every symbolic link on the way resolved. */
  destination: string;
  /** The bytes and mode of the file being overwritten, to restore it on failure. */
  original?: { bytes: Buffer; mode: number } | undefined;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** `path` is `root` or below it. */
function isInside(root: string, path: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

function escapeError(path: string): KilnError {
  return new KilnError(
    "invalid_request",
    `refusing to write \`${path}\` - it escapes the target directory`,
  );
}

/** The real path of `path`: its deepest existing ancestor resolved, the missing rest appended. */
export function realPathOf(path: string): string {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(current), ...missing.reverse());
    } catch (error) {
      const parent = dirname(current);
      if (parent === current) throw error;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** Where a symbolic link leads; for a dangling link, where it would lead. */
function linkTarget(link: string): string {
  try {
    return realpathSync(link);
  } catch {
    return realPathOf(resolve(dirname(link), readlinkSync(link)));
  }
}

/**
 * What exists on disk, looked up once per path for a whole run: a preset's 77 files share a
 * few folders, and a failed lookup that throws (ENOENT) costs far more than one that returns
 * undefined.
 */
export class DiskView {
  private readonly entries = new Map<string, Stats | undefined>();

  /** lstat: the entry itself (a link is reported as a link); undefined when missing. */
  entry(path: string): Stats | undefined {
    if (!this.entries.has(path)) {
      this.entries.set(path, lstatSync(path, { throwIfNoEntry: false }));
    }
    return this.entries.get(path);
  }
}

/**
 * Follows `path` from the real target directory `rootReal` the way the kernel will, segment by
 * segment, and returns the real destination and whether it exists. Throws the escape error
 * when a symbolic link (or a `..` after one) leads outside the target, and a clear error when
 * a file stands where a folder is needed or a folder where the file goes.
 */
export function resolveDestination(
  rootReal: string,
  path: string,
  display: string,
  disk: DiskView = new DiskView(),
): { destination: string; stats: Stats | undefined } {
  const segments = path.split(/[/\\]/).filter((segment) => segment !== "" && segment !== ".");
  let current = rootReal;
  let stats: Stats | undefined = disk.entry(rootReal);
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === "..") {
      current = dirname(current);
      if (!isInside(rootReal, current)) throw escapeError(path);
      stats = disk.entry(current);
      continue;
    }
    current = join(current, segment);
    if (stats === undefined) continue; // below a missing folder nothing exists yet
    stats = disk.entry(current);
    if (stats?.isSymbolicLink()) {
      current = linkTarget(current);
      if (!isInside(rootReal, current)) throw escapeError(path);
      stats = statSync(current, { throwIfNoEntry: false });
    }
    if (stats === undefined) continue;
    if (!last && !stats.isDirectory()) {
      throw new KilnError(
        "invalid_request",
        `cannot write \`${display}\` - \`${segments.slice(0, index + 1).join("/")}\` is a file, not a folder`,
        "move or rename that file, then run the command again",
      );
    }
    if (last && stats.isDirectory()) {
      throw new KilnError(
        "invalid_request",
        `cannot write \`${display}\` - a folder of that name is in the way`,
        "move or rename that folder, then run the command again",
      );
    }
  }
  return { destination: current, stats };
}

export interface PlanRunOptions {
  force: boolean;
  cwd: string;
}

/** How `root`/`path` reads from the working directory, with `/` separators. */
export function displayPath(cwd: string, root: string, path: string): string {
  const shown = relative(cwd, resolve(root, path)) || ".";
  return sep === "/" ? shown : shown.replaceAll(sep, "/");
}

/** A SIMPLE relative path: segments without `.`, `..`, `\\` or empty ones. */
const SIMPLE_PATH = /^(?!\.{1,2}(?:\/|$))(?:[^/\\]+?)(?:\/(?!\.{1,2}(?:\/|$))[^/\\]+)*$/;

/**
 * `displayPath` for the files of one target folder, remembered per path. When the folder is
 * inside the working directory and the path is simple (as rendered paths almost always are),
 * the answer is the folder's own display path joined with the path, without resolving each
 * path again (path.relative and path.resolve took about 5 ms for the 77 files of
 * `setup multi-tier-platform`, called three times per file).
 */
function displayFrom(cwd: string, root: string): (path: string) => string {
  const rootShown = displayPath(cwd, root, ".");
  const inside =
    sep === "/" && rootShown !== ".." && !rootShown.startsWith("../") && !isAbsolute(rootShown);
  const known = new Map<string, string>();
  return (path) => {
    let shown = known.get(path);
    if (shown === undefined) {
      shown =
        inside && SIMPLE_PATH.test(path)
          ? rootShown === "."
            ? path
            : `${rootShown}/${path}`
          : displayPath(cwd, root, path);
      known.set(path, shown);
    }
    return shown;
  };
}

/**
 * Checks every rule for every file of the run and returns the steps in order. Nothing is
 * written. Throws the first rule that fails, with the spec's message.
 */
export function planRun(groups: WriteGroup[], options: PlanRunOptions): Step[] {
  const steps: Step[] = [];
  for (const group of groups) {
    const rootReal = realPathOf(group.root);
    const disk = new DiskView();
    const rootStats = statSync(rootReal, { throwIfNoEntry: false });
    if (rootStats && !rootStats.isDirectory()) {
      throw new KilnError(
        "invalid_request",
        `cannot write into \`${displayPath(options.cwd, group.root, ".")}\` - it is a file, not a folder`,
      );
    }
    const destinations = new Map<string, string>();
    const originals = new Map<string, { bytes: Buffer; mode: number }>();
    const display = displayFrom(options.cwd, group.root);
    const planned = planWrites(group.files, {
      force: options.force,
      display,
      // called once per file, after the duplicate, absolute and `..` rules passed for all
      readExisting: (path) => {
        const { destination, stats } = resolveDestination(rootReal, path, display(path), disk);
        destinations.set(path, destination);
        if (stats === undefined) return undefined;
        const bytes = readFileSync(destination);
        originals.set(path, { bytes, mode: stats.mode & 0o7777 });
        return bytes.toString("utf8");
      },
    });
    for (const step of planned) {
      steps.push({
        path: step.path,
        display: display(step.path),
        content: step.content,
        status: step.status,
        destination: destinations.get(step.path) as string,
        original: originals.get(step.path),
      });
    }
  }
  // two groups (setup's output folder and its kiln.toml) can still meet in one file
  const seen = new Set<string>();
  for (const step of steps) {
    if (seen.has(step.destination)) {
      throw new KilnError(
        "invalid_request",
        `two files rendered to the same path: \`${step.display}\``,
      );
    }
    seen.add(step.destination);
  }
  return steps;
}

/** What the run did, to undo it in reverse order. */
type Undo =
  | { kind: "folder"; path: string }
  | { kind: "new"; path: string }
  | { kind: "overwritten"; path: string; bytes: Buffer; mode: number };

let temporaryCounter = 0;

/** A name in the same folder (so the rename is atomic), hidden, unlikely to meet a real file. */
function temporaryPath(destination: string): string {
  temporaryCounter += 1;
  return join(
    dirname(destination),
    `.${basename(destination)}.kiln-${process.pid}-${temporaryCounter}.tmp`,
  );
}

/** Writes `bytes` to `destination` atomically: readers see the old file or the new, never half. */
function writeAtomically(destination: string, bytes: string | Buffer, mode?: number): void {
  const temporary = temporaryPath(destination);
  try {
    writeFileSync(temporary, bytes, { flag: "wx" });
    if (mode !== undefined) chmodSync(temporary, mode);
    renameSync(temporary, destination);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // the temporary file was never created
    }
    throw error;
  }
}

/**
 * Creates the missing folders above `file` one by one, journalling each for the undo.
 * `folders` remembers the folders known to exist, so siblings cost no further lookups.
 */
function makeParents(file: string, journal: Undo[], folders: Set<string>): void {
  const missing: string[] = [];
  for (let folder = dirname(file); !folders.has(folder); folder = dirname(folder)) {
    if (statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
      folders.add(folder);
      break;
    }
    missing.push(folder);
    if (dirname(folder) === folder) break;
  }
  for (const folder of missing.reverse()) {
    mkdirSync(folder);
    journal.push({ kind: "folder", path: folder });
    folders.add(folder);
  }
}

/** Undoes the journal in reverse; returns what could not be undone, for the error message. */
function undo(journal: Undo[]): string[] {
  const failures: string[] = [];
  for (const entry of journal.reverse()) {
    try {
      if (entry.kind === "folder") rmdirSync(entry.path);
      else if (entry.kind === "new") unlinkSync(entry.path);
      else writeAtomically(entry.path, entry.bytes, entry.mode);
    } catch (error) {
      failures.push(`${entry.path} (${errorCode(error) ?? (error as Error).message})`);
    }
  }
  return failures;
}

const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  ENOTDIR: "a file is in the way of a folder",
  EISDIR: "a folder is in the way",
  EEXIST: "it appeared while kiln was writing",
};

function reason(error: unknown): string {
  const code = errorCode(error);
  if (code && REASONS[code]) return `${REASONS[code]} (${code})`;
  return (error as Error).message;
}

/**
 * Writes the steps in order. On any failure everything already written is undone and a
 * KilnError says which file failed and why; the tree is as it was before the run.
 */
export function commit(steps: readonly Step[]): void {
  const journal: Undo[] = [];
  const folders = new Set<string>();
  // While writing, SIGINT/SIGTERM must not kill the process between two files. The writes are
  // synchronous, so a listener only delays the signal until the run is complete (or undone).
  const ignore = () => {};
  process.on("SIGINT", ignore);
  process.on("SIGTERM", ignore);
  try {
    for (const step of steps) {
      if (step.status === "unchanged") continue;
      try {
        makeParents(step.destination, journal, folders);
        if (step.status === "new") {
          // a file that appeared since planning is not ours to replace
          if (lstatSync(step.destination, { throwIfNoEntry: false })) {
            throw Object.assign(new Error("file exists"), { code: "EEXIST" });
          }
          writeAtomically(step.destination, step.content);
          journal.push({ kind: "new", path: step.destination });
        } else {
          const original = step.original as { bytes: Buffer; mode: number };
          writeAtomically(step.destination, step.content, original.mode);
          journal.push({ kind: "overwritten", path: step.destination, ...original });
        }
      } catch (error) {
        const failures = undo(journal);
        const detail =
          failures.length === 0
            ? "nothing was changed: the files written before it were removed or restored"
            : `these could not be undone - check them by hand:\n${failures.map((f) => `  ${f}`).join("\n")}`;
        throw new KilnError(
          "internal",
          `could not write \`${step.display}\` - ${reason(error)}`,
          detail,
        );
      }
    }
  } finally {
    process.off("SIGINT", ignore);
    process.off("SIGTERM", ignore);
  }
}
