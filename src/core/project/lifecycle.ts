// What `kiln update`, `kiln diff` and `kiln status` decide for one vendored component, from
// three versions of each of its files: base (what kiln wrote last time, kept in kiln.lock),
// ours (the file on disk) and theirs (the new render with the recorded values, and what the
// command changes). Pure: the CLI reads the disk and the lock, renders, and writes the outcome.
//
// Files are paired by path; a new render's file whose path is new takes the recorded file of
// the same template (a field change that moves a path, e.g. a new name), so the user's edits
// move with it. A recorded file the new render no longer writes is removed when untouched and
// left in place (no longer recorded) when edited. A path the CLI will not read or write (the
// rules of a write: outside the project, through a link that leads out, a special file) is
// `refused`, and its file is never asked for.
import { KilnError } from "../errors.ts";
import {
  type Conflict,
  type ConflictResolution,
  hasConflictMarkers,
  mergeThreeWay,
} from "./merge.ts";

/** A recorded file with its base content (decoded from the lock). */
export interface RecordedFile {
  path: string;
  template: number;
  base: string;
  conflicted: boolean;
}

/** A file of the new render: its path from the project root and its template. */
export interface NewFile {
  path: string;
  template: number;
  content: string;
}

export type FileAction =
  /** The file on disk is already what the update writes. */
  | "unchanged"
  /** Untouched on disk: replaced by the new render. */
  | "replaced"
  /** Edited on disk, upstream the same: kept as it is. */
  | "kept"
  /** Edited on disk and changed upstream: both merged, cleanly. */
  | "merged"
  /** Edited on disk and changed upstream on the same lines. */
  | "conflict"
  /** Missing on disk: written again. */
  | "restored"
  /** New in the render. */
  | "added"
  /** No longer in the render and untouched (or missing): removed. */
  | "removed"
  /** No longer in the render but edited: left on disk, no longer recorded. */
  | "released"
  /** Its path (recorded, or given by the new render) breaks the rules of a write: not read. */
  | "refused";

export interface FileOutcome {
  action: FileAction;
  /** Where the file is after the update (for `removed` and `released`: where it was). */
  path: string;
  /** The recorded path it moves from, when the render put it elsewhere. */
  from?: string | undefined;
  /** What the file holds after the update; undefined for `removed` and `released`. */
  content?: string | undefined;
  /** The file's content on disk before (undefined when missing or new). */
  before?: string | undefined;
  /** For `conflict`: each region, whatever the resolution. */
  conflicts: Conflict[];
  /** What kiln.lock records for it; undefined when it is no longer recorded. */
  record?: { path: string; template: number; content: string; conflicted: boolean } | undefined;
  /** For `refused` (`path` is the path refused): why, the rule's message. */
  reason?: string | undefined;
}

export interface UpdateFilesInput {
  recorded: readonly RecordedFile[];
  rendered: readonly NewFile[];
  /** The content on disk of each path asked for (recorded and rendered); undefined: missing. */
  disk: (path: string) => string | undefined;
  /**
   * Why a path may not be read or written, asked before `disk` for every path; undefined when
   * it may. Without it every path may.
   */
  refused?: ((path: string) => string | undefined) | undefined;
  resolution: ConflictResolution;
}

/** The error for a file still holding the markers of the last update. */
export function unresolvedConflictError(path: string): KilnError {
  return new KilnError(
    "invalid_request",
    `\`${path}\` still has the conflict markers of the last update - resolve them, then run the command again`,
    "edit the file: keep what you want between `<<<<<<< yours` and `>>>>>>> kiln update`, then delete the marker lines",
  );
}

/** Pairs each new file with the recorded file it continues, by path, then by template. */
export function pairFiles<F extends { path: string; template: number }>(
  recorded: readonly F[],
  rendered: readonly NewFile[],
): { pairs: [F | undefined, NewFile][]; dropped: F[] } {
  const byPath = new Map(recorded.map((file) => [file.path, file]));
  const used = new Set<F>();
  const pairs: [F | undefined, NewFile][] = [];
  const unpaired: NewFile[] = [];
  for (const file of rendered) {
    const old = byPath.get(file.path);
    if (old) {
      used.add(old);
      pairs.push([old, file]);
    } else unpaired.push(file);
  }
  for (const file of unpaired) {
    const old = recorded.find((entry) => !used.has(entry) && entry.template === file.template);
    if (old) used.add(old);
    pairs.push([old, file]);
  }
  return { pairs, dropped: recorded.filter((file) => !used.has(file)) };
}

/** The outcome of one recorded file and its new render. */
function updateOne(old: RecordedFile, file: NewFile, input: UpdateFilesInput): FileOutcome {
  const ours = input.disk(old.path);
  const theirs = file.content;
  const from = old.path === file.path ? undefined : old.path;
  const record = { path: file.path, template: file.template, content: theirs, conflicted: false };
  const outcome = (action: FileAction, content: string, conflicts: Conflict[] = []) => ({
    action,
    path: file.path,
    from,
    content,
    before: ours,
    conflicts,
    record: { ...record, conflicted: action === "conflict" && input.resolution === "markers" },
  });
  if (ours === undefined) return outcome("restored", theirs);
  if (old.conflicted && hasConflictMarkers(ours)) throw unresolvedConflictError(old.path);
  if (ours === theirs) return outcome("unchanged", theirs);
  if (ours === old.base) return outcome("replaced", theirs);
  if (theirs === old.base) return outcome("kept", ours);
  const merged = mergeThreeWay(old.base, ours, theirs, input.resolution);
  if (merged.conflicts.length === 0) return outcome("merged", merged.text);
  return outcome("conflict", merged.text, merged.conflicts);
}

/** The outcome of a path the caller will not read or write. */
function refusedOutcome(path: string, reason: string): FileOutcome {
  return { action: "refused", path, conflicts: [], reason };
}

/**
 * The refused outcomes of a pair - its recorded path and its new one, each once - when either
 * is refused: then neither file is read.
 */
function refusedOutcomes(
  paths: readonly string[],
  refused: (path: string) => string | undefined,
): FileOutcome[] {
  return [...new Set(paths)].flatMap((path) => {
    const reason = refused(path);
    return reason === undefined ? [] : [refusedOutcome(path, reason)];
  });
}

/**
 * What updating one component does to each of its files. Conflicts are returned (with the
 * text `resolution` gives), never thrown: the caller decides whether to stop. So are refused
 * paths: the file of a pair with a refused path (recorded or new) is never read.
 */
export function updateFiles(input: UpdateFilesInput): FileOutcome[] {
  const { pairs, dropped } = pairFiles(input.recorded, input.rendered);
  const refused = input.refused ?? (() => undefined);
  const outcomes: FileOutcome[] = [];
  for (const [old, file] of pairs) {
    const refusals = refusedOutcomes(old ? [old.path, file.path] : [file.path], refused);
    if (refusals.length > 0) {
      outcomes.push(...refusals);
      continue;
    }
    if (old) {
      outcomes.push(updateOne(old, file, input));
      continue;
    }
    const before = input.disk(file.path);
    outcomes.push({
      action: before === file.content ? "unchanged" : "added",
      path: file.path,
      content: file.content,
      before,
      conflicts: [],
      record: {
        path: file.path,
        template: file.template,
        content: file.content,
        conflicted: false,
      },
    });
  }
  for (const old of dropped) {
    const reason = refused(old.path);
    if (reason !== undefined) {
      outcomes.push(refusedOutcome(old.path, reason));
      continue;
    }
    const ours = input.disk(old.path);
    const edited = ours !== undefined && ours !== old.base;
    outcomes.push({
      action: edited ? "released" : "removed",
      path: old.path,
      before: ours,
      conflicts: [],
    });
  }
  return outcomes;
}

/**
 * What a file on disk is, against what kiln.lock recorded; `refused`: its path breaks the rules
 * of a write, so it was not read (the caller decides that, before it reads).
 */
export type LocalState = "unchanged" | "modified" | "missing" | "conflicted" | "refused";

export function localState(
  recorded: { sha256: string; conflicted?: boolean | undefined },
  disk: string | undefined,
  diskSha256: string | undefined,
): LocalState {
  if (disk === undefined) return "missing";
  if (recorded.conflicted === true && hasConflictMarkers(disk)) return "conflicted";
  return diskSha256 === recorded.sha256 ? "unchanged" : "modified";
}
