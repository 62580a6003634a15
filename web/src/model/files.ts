// What the project's zip holds: the core's project layout (src/core/project/layout.ts) - every
// component's rendered files under the output folder, then `kiln.toml` - exactly as
// `kiln setup <preset>` writes them, checked with setup's path rules. Rendering goes through
// the core's pipeline with the renderer the caller passes (the app: the HTTP API).
import type { ProjectConfig } from "../../../src/core/project/kiln-toml.ts";
import { layoutEntries, layoutProject } from "../../../src/core/project/layout.ts";
import {
  type ComponentFiles,
  firstFailure,
  isRendered,
  type RenderOne,
  renderCollectingErrors,
  runFiles,
} from "../../../src/core/project/render-components.ts";
import {
  DEFAULT_PROJECT_NAME,
  downloadName,
  type Project,
  type ProjectComponent,
} from "./project.ts";

/** A rendered file, path relative to the output folder (conflicts.ts compares them). */
export type { PlannedFile as RenderedFile } from "../../../src/core/plan.ts";

export interface ProjectFile {
  /** Path inside the zip: `kiln.toml`, or `<outputDir>/<rendered path>`. */
  path: string;
  content: string;
}

/**
 * The project's kiln.toml settings. An unnamed project is `kiln-project` in the zip (setup
 * names it after the folder it runs in, which a download cannot know).
 */
export function projectConfig(project: Project): ProjectConfig {
  return {
    name: project.project.name ?? DEFAULT_PROJECT_NAME,
    defaultNamespace: project.project.namespace,
    outputDir: project.project.outputDir,
    automationProfile: project.project.automationProfile,
  };
}

/**
 * All files of the project from each component's rendered files, `kiln.toml` last, after
 * setup's checks: a rendered path that is absolute, escapes the output folder, or is written
 * twice is an error (the message setup gives).
 */
export function projectFiles(project: Project, rendered: readonly ComponentFiles[]): ProjectFile[] {
  return layoutEntries(layoutProject(projectConfig(project), runFiles(rendered)));
}

/**
 * Renders every component with `render` and lays the project out. The first component that
 * does not render stops the zip, named by reference and name with the renderer's message.
 */
export async function renderProjectFiles(
  project: Project,
  render: RenderOne<ProjectComponent>,
): Promise<ProjectFile[]> {
  const results = await renderCollectingErrors(project.components, {
    defaultNamespace: project.project.namespace,
    automationProfile: project.project.automationProfile,
    render,
    concurrent: true,
  });
  const failed = firstFailure(results);
  if (failed) {
    const { reference, name } = failed.component;
    throw new Error(`${reference} “${name}” does not render: ${failed.error}`);
  }
  return projectFiles(project, results.filter(isRendered));
}

/** `<project name>.zip`. */
export function zipFileName(project: Project): string {
  return downloadName(project, ".zip");
}
