// The merge by structure that `kiln update` tries before the line merge (merge.ts): a YAML file
// by its mappings and sequences (yaml-merge.ts), an INI file - an inventory, the automation
// tool's config - by sections and keys (ini-merge.ts). So an edit next to an upstream change
// (an `env:` block right under the `image:` an update bumps) is not a conflict, and a conflict
// is named by its key path. Any other file, or a side that does not merge by structure, gets
// the line merge (the caller's).
//
// With --conflicts=markers (and for the text `kiln diff` shows), the markers go around the
// smallest block of lines that differs: the merge is run taking each side at every conflict,
// and once taking the base, and the three texts are merged line by line - they differ only
// where the conflicts are. Pure: runs in the browser too.

import { mergeIni } from "./ini-merge.ts";
import {
  type Conflict,
  type ConflictResolution,
  type MergeResult,
  mergeWithinBound,
} from "./merge.ts";
import type { ConflictPick, KeyConflict } from "./tree-merge.ts";
import { mergeYaml, type StructuralMerge } from "./yaml-merge.ts";

type StructuralMerger = (
  base: string,
  ours: string,
  theirs: string,
  pick: ConflictPick,
) => StructuralMerge | undefined;

/**
 * The largest YAML side merged by structure, in characters; a larger file gets the line merge
 * (bounded by its own edit count). Parsing and writing a YAML Document costs far more than
 * reading lines - about a second for 200 KiB on the machine the tests run on - and all three
 * sides can come from strangers (a cloned project's files and kiln.lock, an item's render).
 * Manifests, group vars and playbooks are a few KiB; an INI file is read line by line at the
 * speed of the line merge and needs no bound.
 */
export const MAX_STRUCTURAL_YAML_CHARS = 256 * 1024;

/** The YAML merge, for sides within the bound. */
function mergeYamlWithinBound(
  base: string,
  ours: string,
  theirs: string,
  pick: ConflictPick,
): StructuralMerge | undefined {
  if ([base, ours, theirs].some((side) => side.length > MAX_STRUCTURAL_YAML_CHARS)) {
    return undefined;
  }
  return mergeYaml(base, ours, theirs, pick);
}

/** The structural merge of a path, by its extension (an inventory's `hosts` has none). */
function mergerOf(path: string): StructuralMerger | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  if (/\.ya?ml$/.test(name)) return mergeYamlWithinBound;
  if (/\.(ini|cfg)$/.test(name) || name === "hosts" || name === "inventory") return mergeIni;
  return undefined;
}

/** A side's text at a conflict as lines, each with its line end. */
function linesOf(text: string | undefined): string[] {
  return text === undefined ? [] : text.split("\n").map((line) => `${line}\n`);
}

/** A structural conflict as the update reports it: its key path and each side's value. */
function asConflict(conflict: KeyConflict): Conflict {
  const side = (text: string | undefined, line: number) => {
    const lines = linesOf(text);
    return { start: line, end: line + lines.length - 1, lines };
  };
  return {
    keyPath: conflict.keyPath,
    ours: side(conflict.ours, conflict.oursLine),
    theirs: side(conflict.theirs, conflict.theirsLine),
  };
}

/**
 * Merges a file by its structure, conflicts settled as `resolution` says (with markers for
 * `stop` and `markers`). Undefined when the path has no structural merge or a side does not
 * merge so: the caller merges the file line by line.
 */
export function mergeByStructure(
  path: string,
  base: string,
  ours: string,
  theirs: string,
  resolution: ConflictResolution,
): MergeResult | undefined {
  const merge = mergerOf(path);
  if (merge === undefined) return undefined;
  const takingOurs = merge(base, ours, theirs, "ours");
  if (takingOurs === undefined) return undefined;
  const conflicts = takingOurs.conflicts.map(asConflict);
  if (conflicts.length === 0 || resolution === "ours") return { text: takingOurs.text, conflicts };
  const takingTheirs = merge(base, ours, theirs, "theirs");
  if (takingTheirs === undefined) return undefined;
  if (resolution === "theirs") return { text: takingTheirs.text, conflicts };
  const takingBase = merge(base, ours, theirs, "base");
  if (takingBase === undefined) return undefined;
  const marked = mergeWithinBound(takingBase.text, takingOurs.text, takingTheirs.text, "markers");
  // no block of lines to mark (the sides' texts came out the same): the line merge decides
  if (marked === undefined || marked.conflicts.length === 0) return undefined;
  return { text: marked.text, conflicts, markers: marked.conflicts.length };
}
