// The project's file layout: where each file of a project goes. The rendered files under the
// output folder, then the project's own files at its root (`kiln.toml`; the lock file will
// join it there). `kiln setup` writes this layout to disk and the dashboard packs it into a
// zip, so the two agree to the byte; both check it with setup's path rules first.
import { PROJECT_FILE } from "../config.ts";
import {
  checkNoDuplicatePaths,
  checkOutputFolder,
  checkRenderedPath,
  normalizeRelativePath,
  type PlannedFile,
} from "../plan.ts";
import { type ProjectConfig, serializeProjectConfig } from "./kiln-toml.ts";

export interface ProjectLayout {
  /** The output folder, relative to the project root, as kiln.toml names it. */
  outputDir: string;
  /** The rendered files, relative to the output folder, in component order. */
  files: PlannedFile[];
  /** The project's own files, relative to the project root, written after the rendered ones. */
  rootFiles: PlannedFile[];
}

/**
 * Lays out a project: `files` (a run's rendered files) under `config.outputDir`, `kiln.toml`
 * from `config` at the root. Refuses, with setup's messages, an output folder that is absolute,
 * leaves the project or is `.git` or `.hg`, and any rendered path setup's rules refuse.
 */
export function layoutProject(config: ProjectConfig, files: readonly PlannedFile[]): ProjectLayout {
  // the order setup has always checked in: duplicates, the output folder, each path
  checkNoDuplicatePaths(files);
  checkOutputFolder(config.outputDir);
  for (const file of files) checkRenderedPath(file.path);
  return {
    outputDir: config.outputDir,
    files: [...files],
    rootFiles: [{ path: PROJECT_FILE, content: serializeProjectConfig(config) }],
  };
}

/** `path` inside `dir`, as one normalized relative path (`k8s/` + `./a.yaml` is `k8s/a.yaml`). */
export function pathInside(dir: string, path: string): string {
  return normalizeRelativePath(dir === "" ? path : `${dir}/${path}`);
}

/**
 * Every file of the layout with its path from the project root, rendered files first and the
 * root files last (the order setup writes them). A rendered file that lands on a root file
 * (an output folder `.` and a component writing `kiln.toml`) is refused as setup refuses it.
 */
export function layoutEntries(layout: ProjectLayout): PlannedFile[] {
  const entries = [
    ...layout.files.map((file) => ({
      path: pathInside(layout.outputDir, file.path),
      content: file.content,
    })),
    ...layout.rootFiles,
  ];
  checkNoDuplicatePaths(entries);
  return entries;
}
