// Planning a write of rendered files into the user's tree: every rule is checked for the whole
// run before the first write (write-commit.ts then writes the plan, all or nothing).
//
// The plan: the path rules (no absolute path, none that leads out of its target folder) and
// kiln's own (the core's planWrites: names that are no file, too long, in `.git` or `.hg`), an
// output folder that leads out of the project through a link, symbolic links that lead out of
// the target, `.git` or `.hg` in the real path, something in the way (a file where a folder is
// needed, a folder, FIFO, socket or device where a file goes), files other tools run as code
// (only with --allow-exec-paths). What is on the disk is looked up first (each destination,
// then the bytes of the files that exist), and the statuses (new, overwrite, unchanged) are
// computed from what was read, by the core's pure planStatuses.
import { lstatSync, readdirSync, readlinkSync, realpathSync, type Stats, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { KilnError } from "../core/errors.ts";
import {
  checkKilnOwnWrites,
  checkOutputFolder,
  checkPlannedPaths,
  checkRenderedPath,
  collisionKey,
  duplicatePathRefusal,
  escapeRefusal,
  kilnOwnFileIn,
  kilnOwnFileRefusal,
  normalizeRelativePath,
  type PlannedFile,
  planStatuses,
  shortPath,
  versionControlRefusal,
  type WriteStatus,
} from "../core/plan.ts";
import { MAX_VENDORED_FILE_BYTES } from "../core/project/file-outcomes.ts";
import {
  type ExecPathHit,
  type ExecPathRule,
  execPathRuleFor,
  execPathsRefusal,
  versionControlSegmentIn,
} from "../core/sensitive-paths.ts";
import { readRegularFileBytes } from "./read-regular-file.ts";
import { relativePath } from "./relative-path.ts";

/** Rendered files and the folder their paths are relative to (the target directory). */
export interface WriteGroup {
  /** Absolute path of the target directory; it may not exist yet. */
  root: string;
  files: PlannedFile[];
  /**
   * The project folder: `root` must lie inside its real path, links resolved (add and setup:
   * the working directory, where kiln.toml is), and files other tools run as code are found
   * relative to it. Without it `root` is its own project (apply --into, init): the user typed
   * it, so it may be anywhere, but nothing below it may lead out of it.
   */
  project?: string;
  /** Overrides the run's `force` for this group: kiln.lock is kiln's own and always rewritten. */
  force?: boolean;
  /**
   * kiln's own kiln.toml or kiln.lock, written by kiln itself (init, setup, add, update,
   * remove): checked by the core's checkKilnOwnWrites instead of the rendered files' rules,
   * which refuse these names to every item, preset and output folder.
   */
  kilnOwn?: boolean;
  /** Bookkeeping written with the run but not listed in its report (kiln.lock). */
  quiet?: boolean;
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
  /** The rule of a file other tools run or load as code, written because of --allow-exec-paths. */
  execRule?: ExecPathRule | undefined;
  /** Not listed in the run's report (kiln.lock). */
  quiet?: boolean | undefined;
}

export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** `path` is `root` or below it. */
function isInside(root: string, path: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

/**
 * The real path of `path`: its deepest existing ancestor resolved, the missing rest appended.
 * A loop of links (ELOOP) or a file on the way (ENOTDIR) is thrown, not stepped over.
 */
export function realPathOf(path: string): string {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(current), ...missing.reverse());
    } catch (error) {
      const parent = dirname(current);
      if (parent === current || errorCode(error) !== "ENOENT") throw error;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** Where a symbolic link leads; for a dangling link, where it would lead. */
function linkTarget(link: string): string {
  try {
    return realpathSync(link);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
    return realPathOf(resolve(dirname(link), readlinkSync(link)));
  }
}

/** What a non-regular file is, for the message that refuses to write over it. */
function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "not a regular file";
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
 * `join(folder, name)` for a normalized absolute `folder` and a `name` that is one path segment
 * (no separator), without `join`'s normalizing of the whole path at every segment of every file
 * (5 ms of a 77-file setup, measured); `.` and `..` still go through `join`.
 */
function childPath(folder: string, name: string): string {
  if (name === "." || name === "..") return join(folder, name);
  return folder.endsWith(sep) ? `${folder}${name}` : `${folder}${sep}${name}`;
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
  // an index loop: entries() made an iterator result and a pair for each segment of each file
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index] as string;
    const last = index === segments.length - 1;
    if (segment === "..") {
      current = dirname(current);
      if (!isInside(rootReal, current)) throw escapeRefusal(path);
      stats = disk.entry(current);
      continue;
    }
    current = childPath(current, segment);
    if (stats === undefined) continue; // below a missing folder nothing exists yet
    stats = disk.entry(current);
    if (stats?.isSymbolicLink()) {
      current = linkTarget(current);
      if (!isInside(rootReal, current)) throw escapeRefusal(path);
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
    // a FIFO would block the read (and the write) for ever; a device or socket is no file
    // to replace: only lstat and stat ever look at it
    if (last && !stats.isFile()) {
      throw new KilnError(
        "invalid_request",
        `cannot write \`${display}\` - it is ${kindOf(stats)}, not a regular file`,
        "kiln replaces only regular files: move or remove it, then run the command again",
      );
    }
  }
  return { destination: current, stats };
}

/**
 * Follows the output folder `folder` (relative to the project, as `path.relative` writes it)
 * from the project's real path `projectReal`, links resolved, the way the system will when the
 * files are written, and returns its real path. Throws when a link on the way leads outside the
 * project: kiln.toml or a preset must not send files elsewhere through `k8s -> /elsewhere`.
 */
export function resolveOutputFolder(
  projectReal: string,
  folder: string,
  disk: DiskView = new DiskView(),
): string {
  let current = projectReal;
  let exists = true;
  const segments = folder.split("/").filter((segment) => segment !== "");
  for (const [index, segment] of segments.entries()) {
    current = childPath(current, segment);
    if (!exists) continue;
    const stats = disk.entry(current);
    if (stats === undefined) {
      exists = false;
    } else if (stats.isSymbolicLink()) {
      current = linkTarget(current);
      if (!isInside(projectReal, current)) {
        const link = segments.slice(0, index + 1).join("/");
        throw new KilnError(
          "invalid_request",
          `refusing to write into \`${shortPath(segments.join("/"))}\` - it escapes the project directory`,
          `\`${shortPath(link)}\` is a symbolic link that leads outside the project (the folder with kiln.toml); kiln writes only inside it - replace the link with a folder, or run \`kiln apply <preset> --into <folder>\` to write elsewhere`,
        );
      }
      exists = statSync(current, { throwIfNoEntry: false }) !== undefined;
    }
  }
  return current;
}

/** What a system error code means, for people. */
const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  ENOTDIR: "a file is in the way of a folder",
  EISDIR: "a folder is in the way",
  EEXIST: "it appeared while kiln was writing",
  ELOOP: "the symbolic links on its way form a loop",
  ENAMETOOLONG: "the path is too long for this system",
  EMFILE: "too many open files",
  EIO: "an input/output error",
};

/** The reason for a system error code, as messages give it. */
export function reasonFor(code: string): string {
  return `${REASONS[code] ?? "the system refused"} (${code})`;
}

/** What to do about a system error met while checking a path. */
const REMEDIES: Record<string, string> = {
  ELOOP: "fix or remove the symbolic link that points back to itself, then run the command again",
  ENAMETOOLONG: "shorten the file's path or the output folder, then run the command again",
  EACCES: "make the folder readable for you, then run the command again",
  ENOTDIR: "move or rename that file, then run the command again",
};

/**
 * Runs a check of `shown` on the disk; a system error (a link loop, a name too long for this
 * system, permission denied) becomes a KilnError naming the path as people see it, never the
 * system's message with absolute paths.
 */
function onDisk<T>(shown: string, what: "file" | "folder", check: () => T): T {
  try {
    return check();
  } catch (error) {
    const code = errorCode(error);
    if (error instanceof KilnError || code === undefined) throw error;
    throw new KilnError(
      "invalid_request",
      `cannot write ${what === "folder" ? "into " : ""}\`${shortPath(shown)}\` - ${reasonFor(code)}`,
      REMEDIES[code] ?? "check the path, then run the command again",
    );
  }
}

export interface PlanRunOptions {
  force: boolean;
  cwd: string;
  /**
   * --allow-exec-paths, typed by the user: write files other tools run or load as code
   * (EXEC_PATH_RULES). Never taken from a preset, an item or kiln.toml.
   */
  allowExecPaths?: boolean;
  /** Files already byte-identical need no `force` (setup, apply: see planStatuses). */
  unchangedWithoutForce?: boolean;
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
 * The longest real path of a file kiln writes: the system's 4096 bytes (PATH_MAX, with its
 * closing NUL) less room for the temporary file's longer name in the same folder.
 */
const MAX_DESTINATION_BYTES = 4095 - 64;

/** Where a file of the tree really is (links resolved), and what is there (undefined: nothing). */
export interface Destination {
  destination: string;
  stats: Stats | undefined;
}

/**
 * The rules of a write that look at the disk, for the file at `path` below the real folder
 * `rootReal` (`shown`: the path as people see it): no link on the way that leads out, nothing
 * in the way (a file for a folder, a folder, FIFO, socket or device for the file), a real path
 * the system can take, and no `.git` in the real path (through a link, or above the folder).
 * Only lstat and stat look at it: nothing is opened.
 */
function checkOnDisk(rootReal: string, path: string, shown: string, disk: DiskView): Destination {
  const result = onDisk(shown, "file", () => resolveDestination(rootReal, path, shown, disk));
  // the system's limit for a whole path, with room for the temporary file beside it
  if (Buffer.byteLength(result.destination) > MAX_DESTINATION_BYTES) {
    throw new KilnError(
      "invalid_request",
      `cannot write \`${shortPath(shown)}\` - ${reasonFor("ENAMETOOLONG")}`,
      REMEDIES.ENAMETOOLONG,
    );
  }
  // `.git` or `.hg` anywhere in the real path: through a link, or above the project
  const versionControl = versionControlSegmentIn(result.destination);
  if (versionControl !== undefined) throw versionControlRefusal(shown, versionControl);
  return result;
}

/**
 * Every rule of a write for one file of the project (`path` from the project's real path
 * `projectReal`, as kiln.lock records it): the rules of a rendered path (absolute, `..`, NUL,
 * names, a folder's name, `.git` and `.hg`, kiln's own files), then those on the disk
 * (checkOnDisk). A file kiln reads back from the tree passes exactly these before it is opened,
 * as a file it writes or removes does: a path kiln.lock or a new render gives is a stranger's as
 * much as a path it writes. kiln's own files at the root (kiln.toml, kiln.lock) are read by kiln
 * itself (`kiln diff <preset>` compares kiln.toml): `kilnOwn` takes exactly those, as kiln's own
 * writes do.
 */
export function resolveProjectFile(
  projectReal: string,
  path: string,
  shown: string,
  disk: DiskView = new DiskView(),
  kilnOwn = false,
): Destination {
  if (kilnOwn) checkKilnOwnWrites([{ path, content: "" }]);
  else checkRenderedPath(path);
  return checkOnDisk(projectReal, path, shown, disk);
}

/**
 * The bytes of the file at `destination` (as resolveProjectFile found it), read through one
 * descriptor - opened without blocking and checked again with fstat - and at most
 * MAX_VENDORED_FILE_BYTES; undefined when it went away meanwhile.
 */
export function readTreeFile(destination: string, shown: string): Buffer | undefined {
  return onDisk(shown, "file", () =>
    readRegularFileBytes(destination, `\`${shortPath(shown)}\``, MAX_VENDORED_FILE_BYTES),
  );
}

/** A group with its folder resolved and every file's destination looked up. */
interface ResolvedGroup {
  group: WriteGroup;
  display: (path: string) => string;
  found: Map<string, { destination: string; stats: Stats | undefined }>;
  rules: Map<string, ExecPathRule>;
}

/** The project-relative text of a path, with `/` separators (`""` for the project itself). */
function fromProject(project: string, path: string): string {
  const text = relativePath(project, path);
  return sep === "/" ? text : text.replaceAll(sep, "/");
}

/**
 * The bytes and mode of every file of the group that exists: what the plan compares with and
 * what a failed run restores.
 */
function readOriginals(
  files: readonly PlannedFile[],
  found: ResolvedGroup["found"],
  display: (path: string) => string,
): Map<string, { bytes: Buffer; mode: number }> {
  const originals = new Map<string, { bytes: Buffer; mode: number }>();
  for (const file of files) {
    const { destination, stats } = found.get(file.path) as {
      destination: string;
      stats: Stats | undefined;
    };
    if (stats === undefined) continue;
    const bytes = readTreeFile(destination, display(file.path));
    if (bytes === undefined) continue;
    originals.set(file.path, { bytes, mode: stats.mode & 0o7777 });
  }
  return originals;
}

/**
 * Checks every rule for every file of the run and returns the steps in order. Nothing is
 * written. Throws the first rule that fails, with that rule's message; the order is: each
 * group's rendered paths (duplicates, absolute, `..`, names, `.git`, `.hg`), its output
 * folder, then each file on the disk (links, things in the way, `.git` or `.hg` in the real
 * path), then files other tools run as code (all of them in one message), then existing files
 * without `force`.
 */
export function planRun(groups: WriteGroup[], options: PlanRunOptions): Step[] {
  const resolved: ResolvedGroup[] = [];
  const hits: ExecPathHit[] = [];
  for (const group of groups) {
    if (group.kilnOwn === true) checkKilnOwnWrites(group.files);
    else checkPlannedPaths(group.files);
    const display = displayFrom(options.cwd, group.root);
    const rootShown = displayPath(options.cwd, group.root, ".");
    // a target folder typed as `--into kiln.lock` is no place for files either
    const rootOwn = group.kilnOwn === true ? undefined : kilnOwnFileIn(rootShown);
    if (rootOwn !== undefined) throw kilnOwnFileRefusal(rootShown, rootOwn, true);
    const disk = new DiskView();
    let rootReal: string;
    let projectReal: string;
    /** The text of the output folder from the project: `""` when they are one. */
    let folder = "";
    if (group.project === undefined) {
      rootReal = onDisk(rootShown, "folder", () => realPathOf(group.root));
      projectReal = rootReal;
    } else {
      const project = group.project;
      folder = fromProject(project, group.root);
      if (folder !== "") checkOutputFolder(folder);
      projectReal = onDisk(".", "folder", () => realPathOf(project));
      rootReal = onDisk(rootShown, "folder", () => resolveOutputFolder(projectReal, folder, disk));
    }
    const rootVersionControl = versionControlSegmentIn(rootReal);
    if (rootVersionControl !== undefined) {
      throw versionControlRefusal(rootShown, rootVersionControl, true);
    }
    const rootStats = onDisk(rootShown, "folder", () =>
      statSync(rootReal, { throwIfNoEntry: false }),
    );
    if (rootStats && !rootStats.isDirectory()) {
      throw new KilnError(
        "invalid_request",
        `cannot write into \`${rootShown}\` - it is a file, not a folder`,
      );
    }
    const found = new Map<string, { destination: string; stats: Stats | undefined }>();
    const rules = new Map<string, ExecPathRule>();
    for (const file of group.files) {
      const shown = display(file.path);
      const result = checkOnDisk(rootReal, file.path, shown, disk);
      found.set(file.path, result);
      // as written (output folder and path) and as it really is (links resolved), both seen
      // from the project folder
      const text = folder === "" ? file.path : normalizeRelativePath(`${folder}/${file.path}`);
      const real = fromProject(projectReal, result.destination);
      // a link inside the target (`app.yaml -> kiln.toml`) must not lead to kiln's own files
      const ownReal = group.kilnOwn === true ? undefined : kilnOwnFileIn(real);
      if (ownReal !== undefined) throw kilnOwnFileRefusal(shown, ownReal);
      // the real path is the written one unless a link is on the way: one check then
      const rule = execPathRuleFor(text) ?? (real === text ? undefined : execPathRuleFor(real));
      if (rule !== undefined) {
        rules.set(file.path, rule);
        hits.push({ shown, rule });
      }
    }
    resolved.push({ group, display, found, rules });
  }
  if (hits.length > 0 && options.allowExecPaths !== true) throw execPathsRefusal(hits);

  const steps: Step[] = [];
  for (const { group, display, found, rules } of resolved) {
    const originals = readOriginals(group.files, found, display);
    const planned = planStatuses(group.files, {
      force: group.force ?? options.force,
      unchangedWithoutForce: options.unchangedWithoutForce,
      display,
      existing: new Map([...originals].map(([path, { bytes }]) => [path, bytes.toString("utf8")])),
    });
    for (const step of planned) {
      steps.push({
        path: step.path,
        display: display(step.path),
        content: step.content,
        status: step.status,
        destination: found.get(step.path)?.destination as string,
        original: originals.get(step.path),
        execRule: rules.get(step.path),
        quiet: group.quiet,
      });
    }
  }
  // two groups (setup's output folder and its kiln.toml) can still meet in one file, also
  // in two spellings that differ only in letter case (one file on macOS and Windows)
  const seen = new Set<string>();
  for (const step of steps) {
    const key = collisionKey(step.destination);
    if (seen.has(key)) throw duplicatePathRefusal(step.display);
    seen.add(key);
  }
  return steps;
}

/** A file a run removes (kiln update: a path that moved, a file the item dropped; kiln remove). */
export interface RemoveStep {
  /** The path from the project root. */
  path: string;
  display: string;
  destination: string;
  /** Its bytes and mode, to put it back when the run fails. */
  original: { bytes: Buffer; mode: number };
}

/**
 * Plans removing `paths` (relative to the project folder `project`) with the rules of a write:
 * never through a link that leads out, never in `.git` or `.hg`, only regular files. A path with
 * no file is left out (there is nothing to remove).
 */
export function planRemovals(project: string, paths: readonly string[], cwd: string): RemoveStep[] {
  const display = displayFrom(cwd, project);
  const projectReal = onDisk(".", "folder", () => realPathOf(project));
  const disk = new DiskView();
  const removals: RemoveStep[] = [];
  for (const path of paths) {
    const shown = display(path);
    const { destination, stats } = resolveProjectFile(projectReal, path, shown, disk);
    if (stats === undefined) continue;
    const bytes = readTreeFile(destination, shown);
    if (bytes === undefined) continue;
    removals.push({
      path,
      display: shown,
      destination,
      original: { bytes, mode: stats.mode & 0o7777 },
    });
  }
  return removals;
}

/** A folder a removal leaves empty, removed after its files in the same run. */
export interface FolderRemoval {
  /** Relative to the working folder, with a trailing `/`, as the report shows it. */
  display: string;
  /** Absolute, links resolved (below the project's real folder). */
  destination: string;
}

/**
 * The folders that `removals` leave empty, innermost first: a folder whose every entry is a
 * removed file or a folder this list already holds, and in which the run writes nothing
 * (`written`, absolute). Only folders strictly below `keepReal` are taken (the project's output
 * folder, links resolved); for a file outside it, only folders below the project's top folders:
 * the folders a user made for the project stay, even empty. A folder that gains a file between
 * planning and the removal is left (rmdir refuses a folder that is not empty).
 */
export function planEmptiedFolders(
  project: string,
  removals: readonly RemoveStep[],
  written: readonly string[],
  keepReal: string,
  cwd: string,
): FolderRemoval[] {
  const projectReal = realPathOf(project);
  const gone = new Set(removals.map((removal) => removal.destination));
  const kept = new Set<string>();
  for (const file of written) {
    for (let folder = dirname(file); !kept.has(folder); folder = dirname(folder)) {
      kept.add(folder);
      if (dirname(folder) === folder) break;
    }
  }
  const candidates = new Set<string>();
  for (const destination of gone) {
    const limit = isStrictlyBelow(keepReal, destination)
      ? keepReal
      : topFolderOf(projectReal, destination);
    if (limit === undefined) continue;
    for (
      let folder = dirname(destination);
      isStrictlyBelow(limit, folder);
      folder = dirname(folder)
    )
      candidates.add(folder);
  }
  const emptied: FolderRemoval[] = [];
  // innermost first: a child's path is longer than its parent's
  for (const folder of [...candidates].sort((a, b) => b.length - a.length)) {
    if (kept.has(folder)) continue;
    let entries: string[];
    try {
      entries = readdirSync(folder);
    } catch {
      continue;
    }
    if (!entries.every((entry) => gone.has(join(folder, entry)))) continue;
    gone.add(folder);
    emptied.push({
      display: `${displayPath(cwd, project, relative(projectReal, folder))}/`,
      destination: folder,
    });
  }
  return emptied;
}

function isStrictlyBelow(folder: string, path: string): boolean {
  const text = relative(folder, path);
  return text !== "" && text !== ".." && !text.startsWith(`..${sep}`) && !isAbsolute(text);
}

/** The folder at the project's top that holds `path`, or undefined for a file at the top. */
function topFolderOf(projectReal: string, path: string): string | undefined {
  if (!isStrictlyBelow(projectReal, path)) return undefined;
  const [first, ...rest] = relative(projectReal, path).split(sep);
  return rest.length === 0 || first === undefined ? undefined : join(projectReal, first);
}

/** The emptied folders not inside another emptied one: what a report names. */
export function outermost(emptied: readonly FolderRemoval[]): FolderRemoval[] {
  const all = new Set(emptied.map((folder) => folder.destination));
  return emptied
    .filter((folder) => !all.has(dirname(folder.destination)))
    .sort((a, b) => (a.display < b.display ? -1 : a.display > b.display ? 1 : 0));
}
