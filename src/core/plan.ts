// Write planning: the spec's path rules as pure functions. The CLI asks the plan before it
// writes anything; the plan never touches the disk itself (the caller passes what exists).
// No node:path here: the dashboard's browser build applies the same rules to its zip.
import { KilnError } from "./errors.ts";

/** A rendered file and the component it came from. */
export interface PlannedFile {
  /** Path relative to the target directory, as rendered. */
  path: string;
  content: string;
}

export type WriteStatus = "new" | "overwrite" | "unchanged";

export interface WriteStep extends PlannedFile {
  status: WriteStatus;
}

/**
 * Collapses `./`, `//`, backslashes and inner `..` so two spellings of one path compare equal
 * (`a//b/./c`, `a/x/../b/c` and `a\b\c` are `a/b/c`); a leading `/` is kept.
 */
export function normalizeRelativePath(path: string): string {
  const unified = path.replaceAll("\\", "/");
  const segments: string[] = [];
  for (const segment of unified.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === ".." && segments.length > 0 && segments[segments.length - 1] !== "..") {
      segments.pop();
    } else {
      segments.push(segment);
    }
  }
  const joined = segments.join("/");
  return unified.startsWith("/") ? `/${joined}` : joined;
}

/** `/x`, `\x`, `C:\x`, `C:/x`: absolute on POSIX or on Windows. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(path);
}

/** Read left to right: does the path climb above its start at any `..`? */
export function escapesTarget(path: string): boolean {
  let depth = 0;
  for (const segment of path.split(/[/\\]/)) {
    if (segment === "..") {
      depth -= 1;
      if (depth < 0) return true;
    } else if (segment !== "." && segment !== "") {
      depth += 1;
    }
  }
  return false;
}

/** The absolute-path and escape rules for one rendered path. */
export function checkPathStaysInside(path: string): void {
  if (isAbsolutePath(path)) {
    throw new KilnError(
      "invalid_request",
      `refusing to write \`${path}\` - absolute paths are not allowed`,
    );
  }
  if (escapesTarget(path)) {
    throw new KilnError(
      "invalid_request",
      `refusing to write \`${path}\` - it escapes the target directory`,
    );
  }
}

/** Two files of one run (setup, apply) must not render to the same path. */
export function checkNoDuplicatePaths(files: readonly PlannedFile[]): void {
  const seen = new Set<string>();
  for (const file of files) {
    const key = normalizeRelativePath(file.path);
    if (seen.has(key)) {
      throw new KilnError(
        "invalid_request",
        `two files rendered to the same path: \`${file.path}\``,
      );
    }
    seen.add(key);
  }
}

export interface PlanOptions {
  force: boolean;
  /** The current content of a target file, or undefined when it does not exist. */
  readExisting: (path: string) => string | undefined;
  /** How a path is shown to people in messages (e.g. with the output folder in front). */
  display?: (path: string) => string;
}

/**
 * Checks every rule for a whole run before anything is written: duplicates, absolute paths,
 * escapes, then existing files without `force`. Returns each file with what writing it does.
 */
export function planWrites(files: readonly PlannedFile[], options: PlanOptions): WriteStep[] {
  const display = options.display ?? ((path: string) => path);
  checkNoDuplicatePaths(files);
  for (const file of files) checkPathStaysInside(file.path);
  return files.map((file) => {
    const existing = options.readExisting(file.path);
    if (existing === undefined) return { ...file, status: "new" };
    if (!options.force) {
      throw new KilnError(
        "already_exists",
        `${display(file.path)} already exists - pass --force to overwrite`,
      );
    }
    return { ...file, status: existing === file.content ? "unchanged" : "overwrite" };
  });
}
