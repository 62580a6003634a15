// What the project writes: every component's rendered files under the output folder plus
// `kiln.toml`, exactly as `kiln setup <preset>` writes them, checked with setup's path rules.
import { normalizePath } from "../../../src/core/checks.ts";
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

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(path);
}

function escapes(path: string): boolean {
  let depth = 0;
  for (const segment of path.split(/[/\\]/)) {
    if (segment === "..") {
      depth -= 1;
      if (depth < 0) return true;
    } else if (segment !== "." && segment !== "") depth += 1;
  }
  return false;
}

/**
 * All files of the project, `kiln.toml` last, after setup's checks: a rendered path that is
 * absolute, escapes the output folder, or is written twice is an error (the message setup gives).
 */
export function projectFiles(
  project: Project,
  rendered: readonly (readonly RenderedFile[])[],
): ProjectFile[] {
  const seen = new Set<string>();
  const out: ProjectFile[] = [];
  for (const files of rendered) {
    for (const file of files) {
      const key = normalizePath(file.path);
      if (seen.has(key)) throw new Error(`two files rendered to the same path: \`${file.path}\``);
      seen.add(key);
    }
  }
  for (const files of rendered) {
    for (const file of files) {
      if (isAbsolute(file.path)) {
        throw new Error(`refusing to write \`${file.path}\` - absolute paths are not allowed`);
      }
      if (escapes(file.path)) {
        throw new Error(`refusing to write \`${file.path}\` - it escapes the target directory`);
      }
      out.push({
        path: normalizePath(`${project.project.outputDir}/${file.path}`),
        content: file.content,
      });
    }
  }
  out.push({ path: "kiln.toml", content: kilnToml(project) });
  return out;
}

/** `<project name>.zip`. */
export function zipFileName(project: Project): string {
  const name = (project.project.name ?? "").trim().replace(/[\\/:*?"<>|]+/g, "-");
  return `${name || DEFAULT_PROJECT_NAME}.zip`;
}
