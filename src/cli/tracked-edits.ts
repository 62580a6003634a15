// The files kiln.lock tracks among those a run of `add` or `setup` writes over: which component
// owns each (so the refusal can name the command that keeps its edits, `kiln update
// <component>/<name>`), and which were edited since kiln wrote them (so an overwrite with
// --force, or its dry run, names every file whose edits it discards).
import { pathInside } from "../core/project/layout.ts";
import type { Lock, LockedComponent, LockedFile } from "../core/project/lock-format.ts";
import { sha256Hex } from "../node/lock-compression.ts";
import type { Step } from "../node/write-plan.ts";

/** A file of the run that kiln.lock records, with its owner. */
export interface TrackedFile {
  /** The path from the project root, as kiln.lock records it. */
  path: string;
  owner: LockedComponent;
  file: LockedFile;
}

/**
 * How one component is addressed on the command line: the last segment of its reference and
 * its name (`deployment/api`, as `kubectl` writes it), which selects it alone where a bare name
 * would also select a service named `api`.
 */
export function componentAddress(entry: Pick<LockedComponent, "reference" | "name">): string {
  const segments = entry.reference.split("/").filter((segment) => segment !== "");
  return `${segments.at(-1) ?? entry.reference}/${entry.name}`;
}

/** The file kiln.lock records at `path` (from the project root), with its owner. */
export function trackedFile(lock: Lock | undefined, path: string): TrackedFile | undefined {
  for (const owner of lock?.components ?? []) {
    const file = owner.files.find((recorded) => recorded.path === path);
    if (file !== undefined) return { path, owner, file };
  }
  return undefined;
}

/** Does the file on disk differ from what kiln last wrote there (a hand edit)? */
export function isEditedByHand(tracked: TrackedFile, onDisk: Buffer | string): boolean {
  return sha256Hex(onDisk.toString()) !== tracked.file.sha256;
}

/**
 * The steps (of the output folder `outputDir`) that overwrite a tracked file edited since kiln
 * wrote it: the run discards those edits. Keyed by the step, for the report.
 */
export function editedFilesOverwritten(
  steps: readonly Step[],
  outputDir: string,
  lock: Lock | undefined,
): Step[] {
  return steps.filter((step) => {
    if (step.status !== "overwrite" || step.original === undefined) return false;
    const tracked = trackedFile(lock, pathInside(outputDir, step.path));
    return tracked !== undefined && isEditedByHand(tracked, step.original.bytes);
  });
}
