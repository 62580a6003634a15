// The write journal: what a run is about to change, written before its first write and removed
// after its last, so a run killed part-way (SIGKILL, power loss: no undo can run) is found and
// rolled back by the next kiln command that writes in the same folder, before it does anything
// else. Files and kiln.lock are then never left half-way: each file is written atomically (old
// or new), and the journal holds every overwritten or removed file's bytes and mode, every new
// file, every folder the run makes and every folder it removes because its removals left it
// empty (made again, outermost first, before the files are put back).
//
// The journal is also a file a stranger can put in the user's way - a cloned repository may
// hold one - and replaying it writes and deletes files. So a journal is replayed only when it
// is one this kiln could have written for the folder it sits in, and the whole of it is checked
// before any entry is acted on (`checkJournal`):
// - it is read as kiln.toml is read, but never through a link: a regular file (lstat, then
//   opened O_NONBLOCK|O_NOFOLLOW and checked again with fstat) of at most MAX_JOURNAL_BYTES;
// - every field has its type and the version is the one this kiln writes (2);
// - every path is relative to the journal's folder, `/`-separated, without `.`, `..` or empty
//   segments, and leads through no symbolic link (kiln journals real paths, links resolved):
//   so it stays inside the folder. None is in `.git` or `.hg`, none is a place other tools run
//   as code (EXEC_PATH_RULES), and of kiln's own files only `kiln.toml` and `kiln.lock` at the
//   top (`.kiln-journal.json` itself never);
// - every file is in a state the run could have left it in (`planEntry`): its bytes before
//   the run (or absent, when the run creates it), or the bytes the run writes (or absent, when
//   the run removes it) - both recorded as sha256 and compared with the file now. Only a file
//   in the second state is touched. A planted journal therefore cannot overwrite or delete a
//   file whose exact bytes it does not know, cannot reach outside its folder, into `.git` or an
//   exec path, and cannot follow a link; what is left to it - writing a file of its folder
//   whose bytes it knows, or creating one there - is what anyone who can put a file in that
//   folder can do without kiln. (Items, presets, zips and `--into` can never write a journal:
//   the core's path rules refuse kiln's own file names at any depth - plan.ts.)
// Anything else refuses the whole journal with an error that names it and says how to remove
// it; nothing is restored, deleted or created.
import { createHash } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  type Stats,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { JOURNAL_FILE, LOCK_FILE, PROJECT_FILE } from "../core/config.ts";
import { KilnError } from "../core/errors.ts";
import { JsonTextError, parseJsonText } from "../core/json-text.ts";
import { isAbsolutePath, kilnOwnFileIn, MAX_PATH_BYTES, shortPath } from "../core/plan.ts";
import { rememberedIn } from "../core/project/lock-entry.ts";
import {
  execPathRuleFor,
  versionControlFolderOf,
  versionControlSegmentIn,
} from "../core/sensitive-paths.ts";
import {
  array,
  type Decoder,
  isPlainObject,
  optional,
  required,
  ShapeError,
  string,
  struct,
  unsigned,
} from "../core/shape.ts";
import { shellWord } from "../core/shell-words.ts";
import { temporaryNameStart } from "./atomic-write.ts";
import { type ReadProblem, readRegularFile } from "./read-regular-file.ts";
import { relativePath } from "./relative-path.ts";

/** The format this kiln writes and the only one it replays (1 held absolute paths, no hashes). */
const JOURNAL_VERSION = 2;

/**
 * The largest journal kiln writes or reads: 256 MiB. A journal holds, base64 (4/3 of their
 * size), the bytes before the run of every file the run overwrites or removes - kiln.lock among
 * them, whose own cap is 64 MiB (85.4 MiB as base64) - so 256 MiB holds that lock and about
 * 120 MiB of other files. A run that would need more writes no journal and keeps its
 * in-process undo, as in a folder it cannot write the journal to.
 */
const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;

/**
 * The largest file a run writes whose state a replay compares (a render's output lives in the
 * CLI engine's 256 MiB of WASM memory): bounds the bytes hashed per entry.
 */
const MAX_WRITTEN_BYTES = 256 * 1024 * 1024;

/** A file's bytes before the run, to put back. */
interface PriorFile {
  /** sha256 of `bytes` (decoded): the file as the run found it. */
  sha256: string;
  /** Permission bits, 0 to 0o777 (setuid, setgid and sticky bits are never restored). */
  mode: number;
  /** base64. */
  bytes: string;
}

/** What the run writes to a file. */
interface WrittenFile {
  sha256: string;
  size: number;
}

interface JournalEntry {
  /** Relative to the journal's folder, `/`-separated, links resolved when written. */
  path: string;
  /** null: there was no file before the run (the run creates it). */
  before: PriorFile | null;
  /** null: the run removes the file. */
  after: WrittenFile | null;
}

interface Journal {
  version: number;
  /** The process that wrote it: its temporary files carry this number. */
  pid: number;
  entries: JournalEntry[];
  /** Folders the run creates, relative like the entries, outermost first. */
  folders: string[];
  /**
   * Folders the run removes once its removals leave them empty, relative like the entries:
   * a replay makes the missing ones again before it puts their files back. Absent when none
   * (a journal of a run that removes no folder reads as before).
   */
  emptied?: string[] | undefined;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** One file a run changes, as commit() knows it. */
export interface JournalChange {
  /** Absolute, every link resolved. */
  destination: string;
  /** Its bytes and mode before the run; absent when the run creates it. */
  original?: { bytes: Buffer; mode: number } | undefined;
  /** What the run writes; undefined when the run removes the file. */
  content?: string | undefined;
}

/** The folders above `files` that do not exist yet, outermost first. */
export function missingFolders(files: readonly string[]): string[] {
  const missing = new Set<string>();
  for (const file of files) {
    for (let folder = dirname(file); !missing.has(folder); folder = dirname(folder)) {
      if (statSync(folder, { throwIfNoEntry: false })?.isDirectory()) break;
      missing.add(folder);
      if (dirname(folder) === folder) break;
    }
  }
  return [...missing].sort((a, b) => a.length - b.length);
}

function sha256(bytes: string | Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** `path` relative to `folderReal`, `/`-separated; undefined when it is not below it. */
function below(folderReal: string, path: string): string | undefined {
  const text = relativePath(folderReal, path);
  if (text === "" || text === ".." || text.startsWith(`..${sep}`) || isAbsolute(text)) {
    return undefined;
  }
  return sep === "/" ? text : text.replaceAll(sep, "/");
}

/** The error for a journal already in the folder when a run is about to write its own. */
function journalInTheWay(shown: string): KilnError {
  return new KilnError(
    "invalid_request",
    `${shown} appeared while kiln was planning - another kiln run is writing in this folder`,
    "nothing was written; wait for that run to end, then run the command again",
  );
}

/**
 * A name beside `path` that nothing else uses, created only if absent (O_EXCL, which never
 * follows a link planted at that name): a leftover from a killed process is removed first.
 */
function writeExclusive(path: string, bytes: string | Buffer): void {
  // `encoding` named, so that Node writes a string in one call of its own (atomic-write.ts)
  const options = { flag: "wx", mode: 0o600, encoding: "utf8" } as const;
  try {
    writeFileSync(path, bytes, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    unlinkSync(path);
    writeFileSync(path, bytes, options);
  }
}

/**
 * Writes the journal into `dir` (atomically), or returns undefined when it is not written: a
 * folder kiln cannot write to, a file outside `dir`, a file over MAX_WRITTEN_BYTES, or more
 * than MAX_JOURNAL_BYTES in all. The run then goes on with its in-process undo alone. Files a
 * replay refuses - places other tools run as code (written only with --allow-exec-paths), or
 * in `.hg` - are left out of it: a run killed part-way leaves them as it wrote them. Throws
 * when a journal is already there (another run is writing in this folder).
 */
export function writeJournal(
  dir: string,
  changes: readonly JournalChange[],
  folders: readonly string[],
  emptied: readonly string[] = [],
): string | undefined {
  const path = join(dir, JOURNAL_FILE);
  let dirReal: string;
  try {
    dirReal = realpathSync(dir);
    if (lstatSync(path, { throwIfNoEntry: false }) !== undefined) {
      throw journalInTheWay(relative(process.cwd(), path) || JOURNAL_FILE);
    }
  } catch (error) {
    if (error instanceof KilnError) throw error;
    return undefined;
  }
  const entries: JournalEntry[] = [];
  // each distinct content hashed once: a preset's files repeat (39 of multi-tier-platform's 77
  // are 3 texts), and the same text always has the same hash
  const hashes = new Map<string, string>();
  for (const change of changes) {
    const entryPath = below(dirReal, change.destination);
    if (entryPath === undefined) return undefined;
    // a file a replay would refuse (a place other tools run as code) is left out of it
    if (entryProblem(entryPath) !== undefined) continue;
    const { original, content } = change;
    const size = content === undefined ? 0 : Buffer.byteLength(content, "utf8");
    if (size > MAX_WRITTEN_BYTES) return undefined;
    entries.push({
      path: entryPath,
      before:
        original === undefined
          ? null
          : {
              sha256: sha256(original.bytes),
              mode: original.mode & 0o777,
              bytes: original.bytes.toString("base64"),
            },
      after: content === undefined ? null : { sha256: rememberedIn(hashes, content, sha256), size },
    });
  }
  const folderPaths: string[] = [];
  for (const folder of folders) {
    const folderPath = below(dirReal, folder);
    if (folderPath === undefined) return undefined;
    // a folder a replay would refuse is left for the user to remove (as its files are)
    if (folderProblem(folderPath) === undefined) folderPaths.push(folderPath);
  }
  const emptiedPaths: string[] = [];
  for (const folder of emptied) {
    const folderPath = below(dirReal, folder);
    if (folderPath === undefined) return undefined;
    if (folderProblem(folderPath) === undefined) emptiedPaths.push(folderPath);
  }
  if (entries.length === 0) return undefined;
  const journal: Journal = {
    version: JOURNAL_VERSION,
    pid: process.pid,
    entries,
    folders: folderPaths,
    ...(emptiedPaths.length === 0 ? {} : { emptied: emptiedPaths }),
  };
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    // JSON.stringify throws past V8's longest string (about 512 MiB): no journal either
    const text = JSON.stringify(journal);
    if (Buffer.byteLength(text) > MAX_JOURNAL_BYTES) return undefined;
    writeExclusive(temporary, text);
    renameSync(temporary, path);
    return path;
  } catch {
    try {
      unlinkSync(temporary);
    } catch {
      // never created
    }
    return undefined;
  }
}

export function removeJournal(path: string | undefined): void {
  if (path === undefined) return;
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

// ---------------------------------------------------------------------------------------------
// Checking: the shape

const SHA256 = /^[0-9a-f]{64}$/;
/**
 * base64 with its padding only at the end (the length is checked apart). One character class
 * repeated: a grouped repetition (`(?:x{4})*`) keeps a backtrack entry per group and overflows
 * the stack on a prior file of some 20 MiB.
 */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A struct whose keys are exactly `keys`: kiln writes no other. */
function closed<T>(keys: readonly string[], decode: Decoder<T>): Decoder<T> {
  return (value, path) => {
    if (isPlainObject(value)) {
      const extra = Object.keys(value).find((key) => !keys.includes(key));
      if (extra !== undefined) {
        throw new ShapeError(path, "unknown field", `unknown field \`${extra}\``);
      }
    }
    return decode(value, path);
  };
}

/** `decode`, or null for a JSON null; the key itself must be there (`required`). */
function nullable<T>(decode: Decoder<T>): Decoder<T | null> {
  return (value, path) => (value === null ? null : decode(value, path));
}

const sha256Text: Decoder<string> = (value, path) => {
  const text = string(value, path);
  if (!SHA256.test(text)) throw new ShapeError(path, "not a sha256 (64 lower-case hex digits)");
  return text;
};

const mode: Decoder<number> = (value, path) => {
  const bits = unsigned(16)(value, path);
  if (bits > 0o777) {
    throw new ShapeError(path, `invalid value: integer \`${bits}\`, expected a mode up to 0o777`);
  }
  return bits;
};

const size: Decoder<number> = (value, path) => {
  const bytes = unsigned(32)(value, path);
  if (bytes > MAX_WRITTEN_BYTES) {
    throw new ShapeError(
      path,
      `invalid value: integer \`${bytes}\`, expected at most ${MAX_WRITTEN_BYTES}`,
    );
  }
  return bytes;
};

const base64: Decoder<string> = (value, path) => {
  const text = string(value, path);
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw new ShapeError(path, "not base64");
  return text;
};

const decodePrior = closed(
  ["sha256", "mode", "bytes"],
  struct("PriorFile", {
    sha256: required(sha256Text),
    mode: required(mode),
    bytes: required(base64),
  }),
);

const decodeWritten = closed(
  ["sha256", "size"],
  struct("WrittenFile", { sha256: required(sha256Text), size: required(size) }),
);

const decodeEntry = closed(
  ["path", "before", "after"],
  struct("JournalEntry", {
    path: required(string),
    before: required(nullable(decodePrior)),
    after: required(nullable(decodeWritten)),
  }),
);

const decodeJournal = closed(
  ["version", "pid", "entries", "folders", "emptied"],
  struct("Journal", {
    version: required(unsigned(32)),
    pid: required(unsigned(32)),
    entries: required(array(decodeEntry)),
    folders: required(array(string)),
    emptied: optional(array(string)),
  }),
);

// ---------------------------------------------------------------------------------------------
// Checking: the paths

/** A path as a reason shows it: quoted as JSON (control characters escaped), cut when long. */
function quoted(path: string): string {
  return shortPath(JSON.stringify(path));
}

/**
 * Why `path` is not one kiln journals, as a relative path of the journal's folder (entries and
 * folders alike), or undefined: kiln writes `relative()` of a real path below the folder.
 */
function relativePathProblem(path: string): string | undefined {
  if (path === "") return "is empty";
  if (path.includes("\0")) return "holds a NUL byte";
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return `is longer than ${MAX_PATH_BYTES} bytes`;
  if (isAbsolutePath(path)) return "is absolute";
  if (path.includes("\\")) return "holds a backslash";
  const segments = path.split("/");
  if (segments.includes("..")) return "leads out of the folder (`..`)";
  if (segments.some((segment) => segment === "" || segment === ".")) {
    return "has an empty or `.` segment";
  }
  const versionControl = versionControlSegmentIn(path);
  if (versionControl !== undefined) return `is in ${versionControlFolderOf(versionControl)}`;
  return undefined;
}

/** Why an entry's path is not one kiln journals, or undefined. */
function entryProblem(path: string): string | undefined {
  const problem = relativePathProblem(path);
  if (problem !== undefined) return problem;
  // kiln's own files: kiln.toml and kiln.lock at the top are kiln's writes; no other
  const own = kilnOwnFileIn(path);
  if (own !== undefined && path !== PROJECT_FILE && path !== LOCK_FILE) {
    return `names kiln's own ${own.file}`;
  }
  const rule = execPathRuleFor(path);
  if (rule !== undefined) return `is a place other tools run as code (${rule.pattern})`;
  return undefined;
}

/**
 * Why a folder's path is not one kiln journals, or undefined. A replay only removes folders
 * that are empty, so places other tools run as code are not refused here (a run with
 * --allow-exec-paths makes `.github/workflows`); kiln's own names never are folders.
 */
function folderProblem(path: string): string | undefined {
  const problem = relativePathProblem(path);
  if (problem !== undefined) return problem;
  const own = kilnOwnFileIn(path);
  return own === undefined ? undefined : `names kiln's own ${own.file}`;
}

/**
 * What is at `path` (relative, checked) below `dirReal`, looked at with lstat only: undefined
 * when it or a folder above it is missing. Refuses (returns a reason) a symbolic link or a
 * non-folder on the way, and a link at the end: kiln journals real paths, links resolved.
 */
function lookUp(dirReal: string, path: string): { stats: Stats | undefined } | { problem: string } {
  const segments = path.split("/");
  let current = dirReal;
  for (const [index, segment] of segments.entries()) {
    current = join(current, segment);
    let stats: Stats | undefined;
    try {
      stats = lstatSync(current, { throwIfNoEntry: false });
    } catch (error) {
      return { problem: `cannot be looked at (${(error as NodeJS.ErrnoException).code})` };
    }
    if (stats === undefined) return { stats: undefined };
    const upTo = segments.slice(0, index + 1).join("/");
    if (stats.isSymbolicLink()) {
      return {
        problem:
          index === segments.length - 1
            ? "is a symbolic link"
            : `goes through the symbolic link ${quoted(upTo)}`,
      };
    }
    if (index === segments.length - 1) return { stats };
    if (!stats.isDirectory())
      return { problem: `goes through ${quoted(upTo)}, which is no folder` };
  }
  return { stats: undefined };
}

// ---------------------------------------------------------------------------------------------
// Checking: the state of each file

const READ_FLAGS =
  constants.O_RDONLY |
  (constants.O_NONBLOCK ?? 0) |
  (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NOCTTY ?? 0);

/**
 * sha256 of the regular file at `path` when it holds exactly `size` bytes, else undefined
 * (it changed size, or is no longer a regular file). Read in blocks: at most `size` + 1 bytes.
 */
function hashOfSize(path: string, size: number): string | undefined {
  const fd = openSync(path, READ_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size !== size) return undefined;
    const hash = createHash("sha256");
    const block = Buffer.allocUnsafe(64 * 1024);
    let total = 0;
    for (;;) {
      const read = readSync(fd, block, 0, block.length, null);
      if (read === 0) break;
      total += read;
      if (total > size) return undefined;
      hash.update(block.subarray(0, read));
    }
    return total === size ? hash.digest("hex") : undefined;
  } finally {
    closeSync(fd);
  }
}

/** What a replay does to one file. */
type Step =
  | { kind: "none" }
  | { kind: "restore"; path: string; prior: PriorFile }
  | { kind: "delete"; path: string };

/**
 * The state of an entry's file now, against the two the run could have left it in (see the
 * header): before the run (nothing to do) or as the run wrote it (restore it, or delete a file
 * the run created). A third state means the file is not the one the run changed - someone
 * edited it since, or the journal was not written by this run - and refuses the journal.
 */
function planEntry(
  dirReal: string,
  entry: JournalEntry,
  index: number,
  emptied: ReadonlySet<string>,
): Step | string {
  const shown = `entries[${index}].path ${quoted(entry.path)}`;
  const found = lookUp(dirReal, entry.path);
  if ("problem" in found) return `${shown} ${found.problem}`;
  const target = join(dirReal, ...entry.path.split("/"));
  const { before, after } = entry;
  if (found.stats === undefined) {
    if (before === null) return { kind: "none" }; // the run had not created it yet
    if (after === null) {
      // removed by the run; a run removes only the folders it lists as emptied, so the
      // file's folder is there, or made again before the file is put back
      if (!folderIsThereOrEmptied(dirReal, dirname(entry.path), emptied)) {
        return `${shown} was removed and its folder is gone`;
      }
      return { kind: "restore", path: target, prior: before };
    }
    return `${shown} is gone: the run never removes it`;
  }
  if (!found.stats.isFile()) return `${shown} is not a regular file`;
  const sizes = new Set<number>();
  if (before !== null) sizes.add(decodedLength(before.bytes));
  if (after !== null) sizes.add(after.size);
  let hash: string | undefined;
  if (sizes.has(found.stats.size)) {
    try {
      hash = hashOfSize(target, found.stats.size);
    } catch (error) {
      return `${shown} cannot be read (${(error as NodeJS.ErrnoException).code})`;
    }
  }
  if (hash !== undefined && before !== null && hash === before.sha256) return { kind: "none" };
  if (hash !== undefined && after !== null && hash === after.sha256) {
    return before === null
      ? { kind: "delete", path: target }
      : { kind: "restore", path: target, prior: before };
  }
  return `${shown} holds neither its bytes from before the run nor those the run wrote`;
}

/** The length of checked base64 text once decoded. */
function decodedLength(base64Text: string): number {
  const padding = base64Text.endsWith("==") ? 2 : base64Text.endsWith("=") ? 1 : 0;
  return (base64Text.length / 4) * 3 - padding;
}

function lookUpFolder(dirReal: string, path: string): boolean {
  const found = lookUp(dirReal, path);
  return "stats" in found && found.stats?.isDirectory() === true;
}

/** `folder` (relative) is there, or it and each missing folder above it are listed as emptied. */
function folderIsThereOrEmptied(
  dirReal: string,
  folder: string,
  emptied: ReadonlySet<string>,
): boolean {
  for (let current = folder; current !== "."; current = dirname(current)) {
    if (lookUpFolder(dirReal, current)) return true;
    if (!emptied.has(current)) return false;
  }
  return true;
}

/** A journal checked whole: what to do, file by file, and the folders to remove. */
interface Replay {
  journal: Journal;
  steps: Step[];
  /** Absolute, innermost first. */
  folders: string[];
  /** Absolute, outermost first: the emptied folders to make again. */
  emptied: string[];
}

/**
 * Checks the journal's text whole (see the header) and returns what replaying it does, or the
 * reason it is refused. Nothing is changed on the disk.
 */
function checkJournal(dirReal: string, text: string): Replay | string {
  let json: unknown;
  try {
    json = parseJsonText(text);
  } catch (error) {
    return `not JSON: ${error instanceof JsonTextError ? error.message : "unreadable"}`;
  }
  const version = isPlainObject(json) ? json.version : undefined;
  if (typeof version === "number" && version !== JOURNAL_VERSION) {
    return `it has format version ${version}; this kiln writes version ${JOURNAL_VERSION}`;
  }
  let journal: Journal;
  try {
    journal = decodeJournal(json, "");
  } catch (error) {
    if (error instanceof ShapeError) return error.messageWithoutStrings;
    throw error;
  }
  if (journal.pid === 0) return "pid: invalid value: integer `0`, expected a process id";
  if (journal.entries.length === 0) return "it lists no file";
  const seen = new Set<string>();
  for (const [index, entry] of journal.entries.entries()) {
    const where = `entries[${index}].path ${quoted(entry.path)}`;
    const problem = entryProblem(entry.path);
    if (problem !== undefined) return `${where} ${problem}`;
    if (seen.has(entry.path)) return `${where} is listed twice`;
    seen.add(entry.path);
    if (entry.before === null && entry.after === null) {
      return `entries[${index}] neither had a file before the run nor writes one`;
    }
    // decoded one at a time and let go: a replay decodes each again when it restores it
    const before = entry.before;
    if (before !== null && sha256(Buffer.from(before.bytes, "base64")) !== before.sha256) {
      return `entries[${index}].before.sha256 is not the sha256 of its bytes`;
    }
  }
  for (const [index, folder] of journal.folders.entries()) {
    const problem = folderProblem(folder);
    if (problem !== undefined) return `folders[${index}] ${quoted(folder)} ${problem}`;
    const found = lookUp(dirReal, folder);
    if ("problem" in found) return `folders[${index}] ${quoted(folder)} ${found.problem}`;
    if (found.stats !== undefined && !found.stats.isDirectory()) {
      return `folders[${index}] ${quoted(folder)} is not a folder`;
    }
  }
  const emptied = journal.emptied ?? [];
  for (const [index, folder] of emptied.entries()) {
    const problem = folderProblem(folder);
    if (problem !== undefined) return `emptied[${index}] ${quoted(folder)} ${problem}`;
    const found = lookUp(dirReal, folder);
    if ("problem" in found) return `emptied[${index}] ${quoted(folder)} ${found.problem}`;
    if (found.stats !== undefined && !found.stats.isDirectory()) {
      return `emptied[${index}] ${quoted(folder)} is not a folder`;
    }
  }
  const emptiedSet = new Set(emptied);
  const steps: Step[] = [];
  for (const [index, entry] of journal.entries.entries()) {
    const step = planEntry(dirReal, entry, index, emptiedSet);
    if (typeof step === "string") return step;
    steps.push(step);
  }
  const folders = journal.folders
    .map((folder) => join(dirReal, ...folder.split("/")))
    .sort((a, b) => b.length - a.length);
  const emptiedFolders = emptied
    .map((folder) => join(dirReal, ...folder.split("/")))
    .sort((a, b) => a.length - b.length);
  return { journal, steps, folders, emptied: emptiedFolders };
}

// ---------------------------------------------------------------------------------------------
// Replaying

function refusal(shown: string, folder: string, reason: string): KilnError {
  return new KilnError(
    "invalid_request",
    `${shown} is not a journal this kiln wrote for ${folder} (${reason}) - nothing was restored; inspect it and delete it (rm ${shellWord(shown)}) to go on`,
    "kiln writes this file before a run's first write and removes it after the last, and the next command that writes rolls back a run killed in between; it replays only a journal whose every file stays in its folder, out of .git and places other tools run as code, and is as that run left it",
  );
}

function readReason(problem: ReadProblem): string {
  switch (problem.kind) {
    case "link":
      return "it is a symbolic link";
    case "not_regular":
      return "it is not a regular file";
    case "too_large":
      return `it is larger than ${problem.maxBytes} bytes, the most kiln writes`;
    case "unreadable":
      return `it cannot be read (${problem.code})`;
  }
}

/** Removes the temporary files the killed process (or a killed replay) left beside its files. */
function removeTemporaries(journal: Journal, dirReal: string): void {
  const prefixes = new Map<string, Set<string>>();
  for (const entry of journal.entries) {
    const folder = join(dirReal, ...entry.path.split("/").slice(0, -1));
    const set = prefixes.get(folder) ?? new Set<string>();
    set.add(temporaryNameStart(basename(entry.path), journal.pid));
    prefixes.set(folder, set);
  }
  for (const [folder, starts] of prefixes) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = [...starts].some(
        (start) =>
          name.startsWith(start) &&
          // `<n>-<12 hex>` now, `<n>` from an older kiln, `restore` from a killed replay
          /^(?:\d+(?:-[0-9a-f]{12})?|restore)\.tmp$/.test(name.slice(start.length)),
      );
      if (!match) continue;
      const path = join(folder, name);
      try {
        // a file or a link (unlink removes the link, never what it points to); not a folder
        if (lstatSync(path).isDirectory()) continue;
        unlinkSync(path);
      } catch {
        // gone meanwhile
      }
    }
  }
}

/** Puts the bytes back atomically, with their mode, through a temporary file of our own. */
function restoreFile(path: string, prior: PriorFile, pid: number): void {
  const temporary = join(dirname(path), `${temporaryNameStart(basename(path), pid)}restore.tmp`);
  writeExclusive(temporary, Buffer.from(prior.bytes, "base64"));
  chmodSync(temporary, prior.mode);
  renameSync(temporary, path);
}

function replay(dirReal: string, shownFolder: string, checked: Replay): void {
  const { journal } = checked;
  // first the temporaries: a leftover (or a link planted) at the name a restore uses is gone
  removeTemporaries(journal, dirReal);
  // the folders the run emptied, outermost first, so that their files have a place again
  for (const folder of checked.emptied) {
    try {
      mkdirSync(folder);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
      if (code === "EEXIST") continue;
      throw new KilnError(
        "internal",
        `could not make \`${shortPath(relative(process.cwd(), folder))}\` again (${code}) - the interrupted run in ${shownFolder} is not rolled back`,
        `${JOURNAL_FILE} is left in place: fix the cause, then run the command again to finish the roll-back`,
      );
    }
  }
  for (const step of checked.steps) {
    if (step.kind === "none") continue;
    try {
      if (step.kind === "delete") unlinkSync(step.path);
      else restoreFile(step.path, step.prior, journal.pid);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
      throw new KilnError(
        "internal",
        `could not roll back \`${shortPath(relative(process.cwd(), step.path))}\` (${code}) - the interrupted run in ${shownFolder} is only partly rolled back`,
        `${JOURNAL_FILE} is left in place: fix the cause, then run the command again to finish the roll-back`,
      );
    }
  }
  for (const folder of checked.folders) {
    try {
      rmdirSync(folder);
    } catch {
      // not empty (someone else's files) or already gone: left as it is
    }
  }
}

/** What rolling back an interrupted run did, for the command to say. */
export interface RolledBack {
  /** The journal's path as people see it (from the working folder). */
  shown: string;
  /** `this folder`, or the folder as people see it. */
  folder: string;
  /** How many files were put back. */
  files: number;
}

/**
 * Rolls back a run that was killed part-way in `dir`, if its journal is there: every file back
 * to its bytes and mode before the run, new files and folders removed; undefined when there was
 * nothing to do. Cheap when there is no journal. A journal this kiln would not have written
 * there is refused with a KilnError and nothing is changed. Only commands that write call this,
 * before they plan anything (a plan made over a half-written tree would be wrong).
 */
export function rollBackInterruptedRun(dir: string): RolledBack | undefined {
  const path = join(dir, JOURNAL_FILE);
  const shown = relative(process.cwd(), path) || JOURNAL_FILE;
  const inCwd = shown === JOURNAL_FILE;
  const shownFolder = inCwd ? "this folder" : `\`${dirname(shown)}\``;
  // cheap when there is nothing: one lstat (a folder that is not there, or no folder, has none)
  try {
    if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
  } catch {
    return undefined;
  }
  const text = readRegularFile(path, shown, MAX_JOURNAL_BYTES, {
    followLinks: false,
    refuse: (problem) => refusal(shown, shownFolder, readReason(problem)),
  });
  if (text === undefined) return undefined;
  const dirReal = realpathSync(dir);
  const checked = checkJournal(dirReal, text);
  if (typeof checked === "string") throw refusal(shown, shownFolder, checked);
  replay(dirReal, shownFolder, checked);
  unlinkSync(path);
  return { shown, folder: shownFolder, files: checked.journal.entries.length };
}
