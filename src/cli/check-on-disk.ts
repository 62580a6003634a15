// The project's tracked files as `kiln check` reads them: each file kiln.lock records is looked
// up and read by the rules every lifecycle command reads by (ProjectFiles: inside the project,
// no link out, not in `.git`, a regular file, at most 64 MiB), hashed against the lock to count
// the files edited by hand, searched for conflict markers, and - for the one file a component's
// facts come from, when it was edited by hand - read into facts by the core's readers
// (src/core/project/disk-facts.ts). A file as kiln wrote it (its hash is kiln.lock's) says what
// the values it was written from say, which are the component's facts already. A file that is
// refused or does not read is listed with the reason, and its component is checked with the
// values kiln.lock records.
import { errorMessage } from "../core/errors.ts";
import type { ItemMetaView } from "../core/item.ts";
import {
  type ComponentOnDisk,
  conflictMarkerLines,
  type DiskFile,
  factFileOf,
  type ReadOutcome,
  readFactFile,
} from "../core/project/disk-facts.ts";
import { type CheckComponent, catalogueEntry, normalizePath } from "../core/project/facts.ts";
import type { LockedComponent, LockedFile } from "../core/project/lock-format.ts";
import { sha256Hex } from "../node/lock-compression.ts";
// the yaml library the readers load on first use
import "../node/node-libraries.ts";
import { baseContent } from "../node/lock-on-disk.ts";
import { ProjectFiles } from "../node/project-files.ts";
import type { LockedProject } from "./lifecycle.ts";

/** A tracked file the check could not use, and why; its component's recorded values were. */
export interface UnreadFile {
  /** From the project root. */
  path: string;
  reason: string;
}

export interface ProjectOnDisk {
  /** The components to check, each with what its files say. */
  components: CheckComponent[];
  /** How many files kiln.lock tracks. */
  files: number;
  /** Tracked files whose content differs from what kiln wrote (paths from the project root). */
  edited: string[];
  /** Tracked files not used for facts (refused, or not readable as their format). */
  unread: UnreadFile[];
}

/** `path` (from the project root) relative to the output folder, as rendered paths are. */
function inOutputFolder(outputDir: string, path: string): string {
  const folder = normalizePath(outputDir);
  if (folder === "" || folder === ".") return path;
  return path.startsWith(`${folder}/`) ? path.slice(folder.length + 1) : path;
}

/**
 * The lines of the conflicts a file holds beyond those kiln itself wrote into it: marker-like
 * lines of the item's own (the base kiln.lock keeps) or of yours when kiln wrote the markers
 * (`ownMarkerPairs`) are not a conflict. The base is inflated only for a file that holds any.
 */
function unresolvedConflicts(
  entry: LockedComponent,
  file: LockedFile,
  content: string,
  edited: boolean,
): number[] {
  if (!edited) return [];
  const lines = conflictMarkerLines(content);
  if (lines.length === 0) return lines;
  let written = 0;
  try {
    written = conflictMarkerLines(baseContent(file, entry)).length;
  } catch {
    // a base that cannot be read counts none: the markers on disk are reported
  }
  const own = Math.max(written, file.conflicted === true ? (file.ownMarkerPairs ?? 0) : 0);
  return lines.length > own ? lines : [];
}

/**
 * A reader's outcome; what a reader throws (a bound it missed) is a problem of that file, not
 * the end of the check.
 */
function readWithin(read: () => ReadOutcome | undefined): ReadOutcome | undefined {
  try {
    return read();
  } catch (error) {
    return { problem: `it could not be read (${errorMessage(error).slice(0, 200)})` };
  }
}

/**
 * The project as it is on disk: `checked` are its lock's components with their paths and
 * render errors (the check's render of the recorded values), in the lock's order; `show` names
 * a path from the project root as findings print it (from the folder the user stands in).
 */
export function readProjectOnDisk(
  project: LockedProject,
  checked: readonly CheckComponent[],
  catalogue: readonly ItemMetaView[],
  show: (path: string) => string,
): ProjectOnDisk {
  const disk = new ProjectFiles(project.cwd);
  const edited: string[] = [];
  const unread: UnreadFile[] = [];
  let files = 0;
  const components = project.lock.components.map((entry, index): CheckComponent => {
    const component = checked[index] as CheckComponent;
    const onDisk: ComponentOnDisk = { missing: [], conflicts: [] };
    const paths = entry.files.map((file) => inOutputFolder(project.config.outputDir, file.path));
    const meta = component.meta ?? catalogueEntry(component.reference, catalogue);
    const kind = meta?.kind ?? null;
    const factFile = factFileOf(kind, paths);
    entry.files.forEach((file, at) => {
      files += 1;
      const named: DiskFile = { path: paths[at] as string, shown: show(file.path) };
      const refusal = disk.refusal(file.path);
      if (refusal !== undefined) {
        unread.push({ path: file.path, reason: refusal });
        return;
      }
      const content = disk.read(file.path);
      if (content === undefined) {
        onDisk.missing.push(named);
        return;
      }
      const isEdited = sha256Hex(content) !== file.sha256;
      if (isEdited) edited.push(file.path);
      const lines = unresolvedConflicts(entry, file, content, isEdited);
      if (lines.length > 0) {
        onDisk.conflicts.push({ ...named, lines });
        unread.push({ path: file.path, reason: "it holds unresolved conflict markers" });
        return;
      }
      // a file as kiln wrote it says what the values it was written from say: only a file
      // edited by hand is parsed (an untouched project never loads the YAML reader)
      if (!isEdited || named.path !== factFile) return;
      const outcome = readWithin(() => readFactFile(kind, meta, entry, named.path, content));
      if (outcome === undefined) return;
      if ("problem" in outcome) unread.push({ path: file.path, reason: outcome.problem });
      else onDisk.read = outcome.read;
    });
    // the tracked paths are what is on disk; the render of the recorded values may name others
    return { ...component, files: paths, onDisk };
  });
  return { components, files, edited, unread };
}
