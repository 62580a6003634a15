// What the project's zip holds: the core's project layout (src/core/project/layout.ts) - every
// component's rendered files under the output folder, then `kiln.toml`, then `kiln.lock` (the
// core's setupLock) - exactly as `kiln setup <preset>` writes them, checked with setup's path
// rules. Rendering goes through the core's pipeline with the renderer the caller passes (the
// app: the HTTP API), and what the lock records of each item and the files' compressed bases
// come from `lockSources` (the app: the HTTP API too).
import type { ProjectConfig } from "../../../src/core/project/kiln-toml.ts";
import { layoutEntries, layoutProject } from "../../../src/core/project/layout.ts";
import { LOCK_FILE, serializeLock } from "../../../src/core/project/lock.ts";
import { type ItemRecord, setupLock } from "../../../src/core/project/lock-entry.ts";
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
import { browserLockCodec } from "./project-lock.ts";

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

/** What the lock records of each reference's registry item (see project-lock.ts). */
export type ItemRecords = (
  references: readonly string[],
) => Promise<ReadonlyMap<string, ItemRecord>>;

/** kiln.lock's compressed form of each text, in order (the service's: see project-lock.ts). */
export type LockBases = (contents: readonly string[]) => Promise<string[]>;

/** Where the zip's kiln.lock gets what the browser cannot make itself. */
export interface LockSources {
  records: ItemRecords;
  bases: LockBases;
}

/**
 * Renders every component with `render` and lays the project out, kiln.lock last. The first
 * component that does not render stops the zip, named by reference and name with the
 * renderer's message.
 */
export async function renderProjectFiles(
  project: Project,
  render: RenderOne<ProjectComponent>,
  lockSources: LockSources,
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
  const rendered = results.filter(isRendered);
  const files = projectFiles(project, rendered);
  const items = await lockSources.records(rendered.map((result) => result.component.reference));
  const codec = await browserLockCodec(
    rendered.flatMap((result) => result.files.map((file) => file.content)),
    lockSources.bases,
  );
  const lock = setupLock(
    rendered.map((result) => ({
      component: result.component,
      item: itemRecordOf(items, result.component.reference),
      files: result.files,
    })),
    {
      outputDir: project.project.outputDir,
      defaultNamespace: project.project.namespace,
      ...(project.project.automationProfile === undefined
        ? {}
        : { automationProfile: project.project.automationProfile }),
    },
    codec,
  );
  return [...files, { path: LOCK_FILE, content: serializeLock(lock) }];
}

function itemRecordOf(items: ReadonlyMap<string, ItemRecord>, reference: string): ItemRecord {
  const record = items.get(reference);
  if (!record) throw new Error(`no registry record for ${reference}: cannot write kiln.lock`);
  return record;
}

/** `<project name>.zip`. */
export function zipFileName(project: Project): string {
  return downloadName(project, ".zip");
}
