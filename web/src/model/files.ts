// What the project writes: every component's rendered files under the output folder plus
// `kiln.toml`, exactly as `kiln setup <preset>` writes them, checked with setup's path rules.
import {
  checkNoDuplicatePaths,
  checkPathStaysInside,
  normalizeRelativePath,
} from "../../../src/core/plan.ts";
import { serializeProjectConfig } from "../../../src/core/project.ts";
import { DEFAULT_PROJECT_NAME, type Project } from "./project.ts";

export interface RenderedFile {
  path: string;
  content: string;
}

export interface ProjectFile {
  /** Path inside the zip: `kiln.toml`, or `<outputDir>/<rendered path>`. */
  path: string;
  content: string;
}

/** `kiln.toml` as setup writes it. */
export function kilnToml(project: Project): string {
  return serializeProjectConfig({
    name: project.project.name ?? DEFAULT_PROJECT_NAME,
    defaultNamespace: project.project.namespace,
    outputDir: project.project.outputDir,
  });
}

/**
 * All files of the project, `kiln.toml` last, after setup's checks: a rendered path that is
 * absolute, escapes the output folder, or is written twice is an error (the message setup gives).
 */
export function projectFiles(
  project: Project,
  rendered: readonly (readonly RenderedFile[])[],
): ProjectFile[] {
  const all = rendered.flat();
  checkNoDuplicatePaths(all);
  for (const file of all) checkPathStaysInside(file.path);
  const out: ProjectFile[] = all.map((file) => ({
    path: normalizeRelativePath(`${project.project.outputDir}/${file.path}`),
    content: file.content,
  }));
  out.push({ path: "kiln.toml", content: kilnToml(project) });
  return out;
}

/** `<project name>.zip`. */
export function zipFileName(project: Project): string {
  const name = (project.project.name ?? "").trim().replace(/[\\/:*?"<>|]+/g, "-");
  return `${name || DEFAULT_PROJECT_NAME}.zip`;
}
