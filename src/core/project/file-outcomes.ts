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
//
// A file edited on both sides is merged by its structure when it has one (structure-merge.ts:
// YAML, INI), else line by line (merge.ts).
// A file's base is read (from kiln.lock: inflated and checked against its hash) only when a merge
// needs it, one file at a time; a file that cannot be merged line by line - too different (the
// merge's bound, src/core/line-diff.ts), or its base unusable - is `unmerged`: --ours/--theirs
// take that side whole, which needs neither the base nor a diff; otherwise the caller stops.
import { isKilnError, KilnError } from "../errors.ts";
import { splitLines } from "../line-diff.ts";
import {
  type Conflict,
  type ConflictResolution,
  hasConflictMarkers,
  type MergeResult,
  markerPairs,
  mergeWithinBound,
  tooDifferentError,
} from "./merge.ts";

/**
 * The most bytes of one vendored file kiln reads back: from the project (the file on disk) and
 * from kiln.lock (its base, inflated at most this far). Far more than any rendered file.
 */
export const MAX_VENDORED_FILE_BYTES = 64 * 1024 * 1024;

/** The content kiln wrote last time, as kiln.lock keeps it: read only when a merge needs it. */
export interface RecordedBase {
  /** Is `text` that content? (kiln.lock's: by its recorded sha256, without reading the base.) */
  isContent(text: string): boolean;
  /** The content; throws a KilnError when kiln.lock's copy of it cannot be used. */
  read(): string;
}

/** A recorded file with its base: the content itself, or how to read it from the lock. */
export interface RecordedFile {
  path: string;
  template: number;
  base: string | RecordedBase;
  conflicted: boolean;
  /** For a conflicted file: the marker-like pairs of lines its own lines held (hasConflictMarkers). */
  ownMarkerPairs?: number | undefined;
}

/** A base given as its content. */
function contentBase(content: string): RecordedBase {
  return { isContent: (text) => text === content, read: () => content };
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
  /**
   * Edited on disk and changed upstream, but not merged line by line (`unmerged` says why):
   * only --ours/--theirs settle it (then the outcome is a `conflict` taking that side whole).
   */
  | "unmerged"
  /** Its path (recorded, or given by the new render) breaks the rules of a write: not read. */
  | "refused";

/** Why a file was not merged line by line. */
export interface Unmerged {
  /** Its diffs pass the merge's bound, or kiln.lock's copy of its base cannot be used. */
  reason: "too-different" | "base-refused";
  /** The error that says so, and what to do. */
  error: KilnError;
}

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
  /** For `conflict`: each region, whatever the resolution (one for the whole file when unmerged). */
  conflicts: Conflict[];
  /** For `unmerged`, and a `conflict` that took a side whole: why it was not merged. */
  unmerged?: Unmerged | undefined;
  /** What kiln.lock records for it; undefined when it is no longer recorded (or `unmerged`). */
  record?: FileRecord | undefined;
  /** For `refused` (`path` is the path refused): why, the rule's message. */
  reason?: string | undefined;
}

/** What kiln.lock records of a file after the update. */
export interface FileRecord {
  path: string;
  template: number;
  /** The new render: the next base. */
  content: string;
  /** Written with markers (`--conflicts=markers`). */
  conflicted: boolean;
  /** For a conflicted file: the marker-like pairs of lines its own lines hold. */
  ownMarkerPairs?: number | undefined;
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
  /**
   * The merge by structure tried before the line merge (structure-merge.ts's mergeByStructure):
   * given by the commands that merge, so the others do not load the YAML library.
   */
  mergeByStructure?: StructureMerge | undefined;
}

/** A merge by structure: undefined when the file is to be merged line by line. */
export type StructureMerge = (
  path: string,
  base: string,
  ours: string,
  theirs: string,
  resolution: ConflictResolution,
) => MergeResult | undefined;

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

/** The conflict of a whole file: every line of each side. */
function wholeFileConflict(ours: string, theirs: string): Conflict {
  const oursLines = splitLines(ours);
  const theirsLines = splitLines(theirs);
  return {
    ours: { start: 1, end: oursLines.length, lines: oursLines },
    theirs: { start: 1, end: theirsLines.length, lines: theirsLines },
  };
}

/** The three-way merge of a file, or why it cannot be merged line by line. */
function mergeOrRefuse(
  base: RecordedBase,
  ours: string,
  theirs: string,
  input: UpdateFilesInput,
  path: string,
): MergeResult | Unmerged {
  const { resolution } = input;
  let baseText: string;
  try {
    baseText = base.read();
  } catch (error) {
    if (!isKilnError(error)) throw error;
    return { reason: "base-refused", error };
  }
  // by structure first (YAML, INI); a file without one, or a side that does not parse, by line
  const merged =
    input.mergeByStructure?.(path, baseText, ours, theirs, resolution) ??
    mergeWithinBound(baseText, ours, theirs, resolution);
  return merged ?? { reason: "too-different", error: tooDifferentError(path) };
}

/** The outcome of one recorded file and its new render. */
function updateOne(old: RecordedFile, file: NewFile, input: UpdateFilesInput): FileOutcome {
  const ours = input.disk(old.path);
  const theirs = file.content;
  const from = old.path === file.path ? undefined : old.path;
  const record = { path: file.path, template: file.template, content: theirs, conflicted: false };
  const outcome = (
    action: FileAction,
    content: string,
    conflicts: Conflict[] = [],
    written = conflicts.length,
  ) => {
    const markers = action === "conflict" && input.resolution === "markers";
    // the marker-like pairs of the file's own lines: those of the text less the ones kiln wrote
    const ownMarkerPairs = markers ? markerPairs(content) - written : 0;
    return {
      action,
      path: file.path,
      from,
      content,
      before: ours,
      conflicts,
      record: {
        ...record,
        conflicted: markers,
        ownMarkerPairs: ownMarkerPairs > 0 ? ownMarkerPairs : undefined,
      },
    };
  };
  if (ours === undefined) return outcome("restored", theirs);
  if (old.conflicted && hasConflictMarkers(ours, old.ownMarkerPairs)) {
    throw unresolvedConflictError(old.path);
  }
  if (ours === theirs) return outcome("unchanged", theirs);
  const base = typeof old.base === "string" ? contentBase(old.base) : old.base;
  if (base.isContent(ours)) return outcome("replaced", theirs);
  if (base.isContent(theirs)) return outcome("kept", ours);
  const merged = mergeOrRefuse(base, ours, theirs, input, old.path);
  if ("reason" in merged) {
    // taking a whole side needs neither the base nor a diff
    const whole = [wholeFileConflict(ours, theirs)];
    if (input.resolution === "ours" || input.resolution === "theirs") {
      const side = input.resolution === "ours" ? ours : theirs;
      return { ...outcome("conflict", side, whole), unmerged: merged };
    }
    return { ...outcome("unmerged", ours, whole), unmerged: merged, record: undefined };
  }
  if (merged.conflicts.length === 0) return outcome("merged", merged.text);
  return outcome("conflict", merged.text, merged.conflicts, merged.markers);
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
    const base = typeof old.base === "string" ? contentBase(old.base) : old.base;
    const edited = ours !== undefined && !base.isContent(ours);
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
  recorded: {
    sha256: string;
    conflicted?: boolean | undefined;
    ownMarkerPairs?: number | undefined;
  },
  disk: string | undefined,
  diskSha256: string | undefined,
): LocalState {
  if (disk === undefined) return "missing";
  if (recorded.conflicted === true && hasConflictMarkers(disk, recorded.ownMarkerPairs)) {
    return "conflicted";
  }
  return diskSha256 === recorded.sha256 ? "unchanged" : "modified";
}
