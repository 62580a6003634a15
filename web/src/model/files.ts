// What the project's zip holds: the core's project layout (src/core/project/layout.ts) - every
// component's rendered files under the output folder, then `kiln.toml`, then `kiln.lock` (the
// core's setupLock) - exactly as `kiln setup <preset>` writes them, checked with setup's path
// rules, and refused whole, as setup without --allow-exec-paths refuses, when any file is one
// other tools run or load as code (the core's EXEC_PATH_RULES). Rendering goes through the
// core's pipeline with the renderer the caller passes (the app: the HTTP API), and what the
// lock records of each item and the files' compressed bases come from `lockSources` (the app:
// the HTTP API too).

import { LOCK_FILE } from "../../../src/core/config.ts";
import type { ProjectConfig } from "../../../src/core/project/kiln-toml.ts";
import { layoutEntries, layoutProject } from "../../../src/core/project/layout.ts";
import { type ItemRecord, setupLock } from "../../../src/core/project/lock-entry.ts";
import { serializeLock } from "../../../src/core/project/lock-format.ts";
import {
  type ComponentFiles,
  firstFailure,
  isRendered,
  type RenderOne,
  renderCollectingErrors,
  runFiles,
} from "../../../src/core/project/render-components.ts";
import { execPathHitsIn } from "../../../src/core/sensitive-paths.ts";
import { fieldErrorSummary } from "./field-errors.ts";
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

/** A file the zip would hold that other tools run or load as code, and what runs it. */
export interface RefusedFile {
  /** The path in the zip (from the project root, as setup would write it). */
  path: string;
  /** The pattern of the rule the file falls under: the rule's name, to word `runBy` by. */
  pattern: string;
  /** Who runs or loads it, in the core's English. */
  runBy: string;
}

/**
 * The zip is not built: it would hold files other tools run or load as code. `kiln setup`
 * refuses the same preset unless the user types --allow-exec-paths, and a download has no such
 * choice, so the dashboard refuses the whole zip and names every file (a zip without them
 * would be a project that differs from what setup writes, without a word in it).
 */
export class ZipRefused extends Error {
  readonly files: readonly RefusedFile[];

  constructor(files: readonly RefusedFile[]) {
    super(
      `the zip would hold ${files.length === 1 ? "a file" : `${files.length} files`} other tools run or load as code: ${files.map((file) => file.path).join(", ")}`,
    );
    this.name = "ZipRefused";
    this.files = files;
  }
}

/**
 * All files of the project from each component's rendered files, `kiln.toml` last, after
 * setup's checks: a rendered path that is absolute, escapes the output folder, or is written
 * twice is an error (the message setup gives); files other tools run or load as code refuse
 * the zip (ZipRefused, naming each).
 */
export function projectFiles(project: Project, rendered: readonly ComponentFiles[]): ProjectFile[] {
  const entries = layoutEntries(layoutProject(projectConfig(project), runFiles(rendered)));
  const hits = execPathHitsIn(entries.map((entry) => entry.path));
  if (hits.length > 0) {
    throw new ZipRefused(
      hits.map((hit) => ({ path: hit.shown, pattern: hit.rule.pattern, runBy: hit.rule.runBy })),
    );
  }
  return entries;
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
    // a refused field in the form's words (the message names the CLI's flags)
    const reason = failed.field ? fieldErrorSummary(failed.field) : failed.error;
    throw new Error(`${reference} “${name}” does not render: ${reason}`);
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
