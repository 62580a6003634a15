// `kiln setup` and `kiln apply` over files kiln.lock tracks. Where the run may change existing
// files (--force, and a dry run, which plans as --force would), a file the lock records is not
// overwritten: the new render is merged into it three ways, exactly as `kiln update` merges -
// base = what kiln wrote there last (kept in kiln.lock), ours = the file on disk, theirs = the
// new render; YAML and INI by their structure, any other file line by line (the core's
// updateFiles). So a preset set up again, or applied over a project's output folder, keeps the
// hand edits of its files. A file the lock does not record is overwritten, as --force says.
// Without --force nothing changes: an existing file that differs is refused, with a line saying
// that --force merges into it when kiln.lock tracks it.
import { KilnError, reworded } from "../core/errors.ts";
import { alreadyExists } from "../core/plan.ts";
import { plural } from "../core/plural.ts";
import {
  type FileOutcome,
  type StructureMerge,
  updateFiles,
} from "../core/project/file-outcomes.ts";
import type { Lock } from "../core/project/lock-format.ts";
import type { ConflictResolution } from "../core/project/merge.ts";
import { recordedBase } from "../node/lock-on-disk.ts";
import type { Step } from "../node/write-plan.ts";
import { flag, type Parsed, UsageError } from "./args.ts";
import { conflictError, type Discarded, discardedOf, unmergedError } from "./merge-report.ts";
import { componentAddress, type TrackedFile, trackedFile } from "./tracked-edits.ts";

/** A file of the run that kiln.lock tracks, merged: the step as first planned, and the merge. */
export interface TrackedMerge {
  /** The step's path, relative to its target folder (as the run's files give it). */
  path: string;
  /** The path as people see it (the step's display), which the report lines start with. */
  display: string;
  outcome: FileOutcome;
}

/** What to do about the conflicts that stopped a setup or an apply. */
const CONFLICT_HINT =
  "run again with --ours or --theirs to take one side in each conflict (the side dropped is printed), or change that value in your file first";

/** --ours or --theirs (one at most), else `stop`: a conflict stops the run. */
export function sideTaken(parsed: Parsed): ConflictResolution {
  const ours = flag(parsed, "ours");
  const theirs = flag(parsed, "theirs");
  if (ours && theirs) throw new UsageError("choose one of --ours and --theirs");
  return ours ? "ours" : theirs ? "theirs" : "stop";
}

/**
 * The structural merge, loaded only when a file needs a merge: it carries the yaml library,
 * which setup and apply otherwise never load (their start-up time is a goal).
 */
async function loadStructureMerge(): Promise<StructureMerge> {
  return (await import("../core/project/structure-merge.ts")).mergeByStructure;
}

/** A tracked file edited on disk and changed by the render: only then is a merge computed. */
function needsMerge(tracked: TrackedFile, ours: string, theirs: string): boolean {
  const base = recordedBase(tracked.owner, tracked.file);
  return !base.isContent(ours) && !base.isContent(theirs);
}

/**
 * The merge of each step that would overwrite a file kiln.lock records (`projectPath`: the
 * step's path from the project root, undefined when it is outside the project): base = the
 * lock's content, ours = the bytes the plan read, theirs = the step's content. Conflicts
 * settled as `resolution` says; a conflict left (`stop`), or a file that cannot be merged,
 * stops the run with update's error, before anything is written.
 */
export async function mergeTrackedFiles(
  steps: readonly Step[],
  lock: Lock | undefined,
  projectPath: (step: Step) => string | undefined,
  resolution: ConflictResolution,
): Promise<TrackedMerge[]> {
  const candidates = steps.flatMap((step) => {
    if (lock === undefined || step.status !== "overwrite" || step.original === undefined) {
      return [];
    }
    const path = projectPath(step);
    const tracked = path === undefined ? undefined : trackedFile(lock, path);
    return tracked === undefined
      ? []
      : [{ step, tracked, ours: step.original.bytes.toString("utf8") }];
  });
  if (candidates.length === 0) return [];
  const mergeByStructure = candidates.some(({ step, tracked, ours }) =>
    needsMerge(tracked, ours, step.content),
  )
    ? await loadStructureMerge()
    : undefined;
  const merges = candidates.flatMap(({ step, tracked, ours }) =>
    updateFiles({
      recorded: [
        {
          path: tracked.path,
          template: tracked.file.template,
          base: recordedBase(tracked.owner, tracked.file),
          conflicted: tracked.file.conflicted === true,
          ownMarkerPairs: tracked.file.ownMarkerPairs,
        },
      ],
      rendered: [{ path: tracked.path, template: tracked.file.template, content: step.content }],
      disk: () => ours,
      resolution,
      mergeByStructure,
    }).map((outcome) => ({ path: step.path, display: step.display, outcome })),
  );
  const outcomes = merges.map(({ outcome }) => outcome);
  const unmerged = outcomes.filter((outcome) => outcome.action === "unmerged");
  if (unmerged.length > 0) throw unmergedError(unmerged);
  const conflicted = outcomes.filter((outcome) => outcome.action === "conflict");
  if (conflicted.length > 0 && resolution === "stop") {
    throw conflictError(conflicted, CONFLICT_HINT);
  }
  return merges;
}

/** The run's files with each merged file's content in place of its render. */
export function withMergedContent<F extends { path: string; content: string }>(
  files: readonly F[],
  merges: readonly TrackedMerge[],
): F[] {
  const merged = new Map(merges.map(({ path, outcome }) => [path, outcome.content]));
  return files.map((file) => {
    const content = merged.get(file.path);
    return content === undefined ? file : { ...file, content };
  });
}

/** How a merged file's line in the run's report reads: its word and what follows the path. */
export interface MergeLine {
  word: string;
  /** Its word's colour: dim for a file left as it is, red for conflicts settled. */
  tone: "dim" | "green" | "red";
  note: string;
  /** The hunks a side taken dropped: printed under the line, never lost without a word. */
  discarded: Discarded[];
}

/** The line of a tracked file the run merged into; undefined: untouched, a plain overwrite. */
function mergeLine(
  { outcome }: TrackedMerge,
  dryRun: boolean,
  resolution: ConflictResolution,
): MergeLine | undefined {
  const yours = resolution === "ours";
  switch (outcome.action) {
    case "kept":
      return {
        word: dryRun ? "keep" : "kept",
        tone: "dim",
        note: "(edited since kiln wrote it: your edits kept, the new render changes nothing in it)",
        discarded: [],
      };
    case "merged":
      return {
        word: dryRun ? "merge" : "merged",
        tone: "green",
        note: "(edited since kiln wrote it: the new render merged in, your edits kept)",
        discarded: [],
      };
    case "conflict":
      return {
        word: "conflict",
        tone: "red",
        note: outcome.unmerged
          ? `(${outcome.unmerged.reason === "too-different" ? "too different to merge" : "its base in kiln.lock refused"}: ${yours ? "your file kept" : "the new render taken"} whole)`
          : `(${plural(outcome.conflicts.length, "conflict")} settled with ${yours ? "your" : "the new"} lines)`,
        discarded: discardedOf(outcome, resolution),
      };
    default:
      return undefined;
  }
}

/** How many edited files the run merges into (a `replaced` file had no edits to keep). */
export function editedMerged(merges: readonly TrackedMerge[]): number {
  return merges.filter(({ outcome }) => outcome.action !== "replaced").length;
}

/** The report's line of each merged file, by its display. */
export function mergeLines(
  merges: readonly TrackedMerge[],
  dryRun: boolean,
  resolution: ConflictResolution,
): Map<string, MergeLine> {
  return new Map(
    merges.flatMap((merge) => {
      const line = mergeLine(merge, dryRun, resolution);
      return line === undefined ? [] : [[merge.display, line] as const];
    }),
  );
}

/**
 * The refusal of a run without --force at a file in the way, unchanged; when kiln.lock tracks
 * that file, one more line says that --force merges into it rather than overwriting it.
 */
export function withMergeHint(
  error: unknown,
  lock: Lock | undefined | (() => Lock | undefined),
  files: readonly { display: string; projectPath: string | undefined }[],
): unknown {
  if (!(error instanceof KilnError) || error.kind !== "already_exists") return error;
  const file = files.find(({ display }) => error.message === alreadyExists(display).message);
  if (file?.projectPath === undefined) return error;
  let tracked: TrackedFile | undefined;
  try {
    tracked = trackedFile(typeof lock === "function" ? lock() : lock, file.projectPath);
  } catch {
    // a kiln.lock that cannot be read adds nothing to the refusal, which stands as it is
    return error;
  }
  if (tracked === undefined) return error;
  const hint = `kiln.lock tracks it as a file of ${componentAddress(tracked.owner)}: with --force the new render is merged into it and your edits are kept`;
  return reworded(error, error.message, error.detail ? `${error.detail}\n${hint}` : hint);
}
