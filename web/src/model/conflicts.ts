// Path conflicts between a component about to be added (or edited) and the project's others.
import { normalizePath } from "../../../src/core/project/facts.ts";
import type { RenderedFile } from "./files.ts";

export interface Conflict {
  path: string;
  /** Index of the component that already writes the path. */
  existing: number;
  existingContent: string;
  incomingContent: string;
}

export function findConflicts(
  incoming: readonly RenderedFile[],
  others: readonly (readonly RenderedFile[] | undefined)[],
  skip?: number,
): Conflict[] {
  const conflicts: Conflict[] = [];
  for (const file of incoming) {
    const key = normalizePath(file.path);
    others.forEach((files, index) => {
      if (index === skip || !files) return;
      const match = files.find((other) => normalizePath(other.path) === key);
      if (match) {
        conflicts.push({
          path: file.path,
          existing: index,
          existingContent: match.content,
          incomingContent: file.content,
        });
      }
    });
  }
  return conflicts;
}
