// `path.relative` for the common case of a run's paths, without its cost: the plan and the
// journal take the path of every file of a run relative to the project (or journal) folder, and
// Node's `relative` resolves and normalises both paths character by character in JavaScript -
// about 20 us a call while it is still interpreted, 4 to 6 ms of CPU over the ~240 calls of
// `kiln setup multi-tier-platform` (measured with a hook around `path.relative`). Hand-written
// because no library restates Node's own function: the shortcut is taken only where its answer
// is Node's by construction, and every other case goes to `relative` itself.
import { relative, sep } from "node:path";

/**
 * Whether `rest` is a normalised relative path - no empty, `.` or `..` segment, no leading or
 * trailing `/` - so that resolving `folder/rest` appends exactly its segments to `folder`.
 */
const NOT_NORMALISED = /^\/|\/\/|\/$|(?:^|\/)\.\.?(?:\/|$)/;

/**
 * `relative(folder, path)`, exactly: when `path` is `folder`, a `/` and a normalised relative
 * path (the paths a run builds by joining onto its folders), that remainder - resolving both
 * then removes the same `folder` from each, whatever `folder` holds - else Node's answer.
 */
export function relativePath(folder: string, path: string): string {
  if (
    sep === "/" &&
    folder.startsWith("/") &&
    path.length > folder.length + 1 &&
    path.startsWith(folder) &&
    path.charCodeAt(folder.length) === 47 // "/"
  ) {
    const rest = path.slice(folder.length + 1);
    if (!NOT_NORMALISED.test(rest)) return rest;
  }
  return relative(folder, path);
}
