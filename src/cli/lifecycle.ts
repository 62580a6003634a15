// What status, diff and update share: the project with its lock, the components a command
// names, each rendered again with its recorded values (and what the command changes) - their
// URLs fetched within one bound for the run (url-fetches.ts) - the disk read once, each path
// only when it passes the rules of a write (project-files.ts), and the core's decision per file
// (src/core/project/file-outcomes.ts).
import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { LOCK_FILE } from "../core/config.ts";
import type { RenderInput } from "../core/context.ts";
import { KilnError } from "../core/errors.ts";
import { toItemMetaView } from "../core/item.ts";
import { checkOutputFolder } from "../core/plan.ts";
import { plural } from "../core/plural.ts";
import { checkProject } from "../core/project/checks/check-project.ts";
import type { ComponentToAdd } from "../core/project/checks/rule.ts";
import {
  exactAddresses,
  selectAddressed,
  shortAddress,
} from "../core/project/component-address.ts";
import type { CheckComponent, CheckProject } from "../core/project/facts.ts";
import {
  type FileOutcome,
  type NewFile,
  type RecordedFile,
  type StructureMerge,
  updateFiles,
} from "../core/project/file-outcomes.ts";
import type { ProjectConfig } from "../core/project/kiln-toml.ts";
import { projectFileError } from "../core/project/kiln-toml.ts";
import { pathInside } from "../core/project/layout.ts";
import { type Lock, type LockedComponent, sameComponent } from "../core/project/lock-format.ts";
import type { ConflictResolution } from "../core/project/merge.ts";
import { type FollowEdit, renameFollowers } from "../core/project/rename-references.ts";
import { type ComponentRender, renderCollectingErrors } from "../core/project/render-components.ts";
import { type FieldTarget, scopeFields } from "../core/project/scoped-fields.ts";
import { referenceAtVersion } from "../core/registry-config.ts";
import { versionControlFolderOf, versionControlSegmentIn } from "../core/sensitive-paths.ts";
import { shellWord } from "../core/shell-words.ts";
import type { AutomationProfile } from "../core/vocabulary.ts";
import { builtinRegistry } from "../node/builtin-registry.ts";
import { lockEntry, readLock, recordedBase } from "../node/lock-on-disk.ts";
import { isFolderInsideProject, readProject } from "../node/project-config.ts";
import { ProjectFiles } from "../node/project-files.ts";
import { realPathOf, resolveOutputFolder } from "../node/write-plan.ts";
import type { Output } from "./output.ts";
import { componentLabel } from "./preset-run.ts";
import {
  ComponentRenderer,
  type PinChange,
  RenderStopped,
  type ResolvedRender,
} from "./render-component.ts";
import { missedReason, type UrlReport } from "./url-fetches.ts";

/**
 * The real path of the project's output folder (links resolved): removals never take it or a
 * folder above it, even when they leave it empty - the user made it for the project. An
 * output folder whose link leads out counts as the project itself.
 */
export function outputFolderOf(cwd: string, config: ProjectConfig): string {
  const projectReal = realPathOf(cwd);
  try {
    return resolveOutputFolder(projectReal, config.outputDir);
  } catch {
    return projectReal;
  }
}

/** The `kiln add` command that adds `component` with its fields and labels. */
function addCommand(component: ComponentToAdd): string {
  return [
    "kiln add",
    shellWord(component.reference),
    "--name",
    shellWord(component.name),
    ...Object.entries(component.fields).map(
      ([key, value]) => `--set ${shellWord(`${key}=${value}`)}`,
    ),
    ...Object.entries(component.labels).map(
      ([key, value]) => `--label ${shellWord(`${key}=${value}`)}`,
    ),
  ].join(" ");
}

/** A removed component as `kiln add` takes it back: its values, and its namespace when not the project's. */
function asAdded(entry: LockedComponent, config: ProjectConfig): ComponentToAdd {
  const fields =
    entry.namespace === config.defaultNamespace || entry.fields.namespace !== undefined
      ? entry.fields
      : { ...entry.fields, namespace: entry.namespace };
  return { reference: entry.reference, name: entry.name, fields, labels: entry.labels };
}

/** A finding as it reads: the same rule and message is the same finding. */
function findingKey(finding: { rule: string; message: string }): string {
  return `${finding.rule}\u0000${finding.message}`;
}

/**
 * The checks of `kiln check` on the project as a run left it (its lock's values, no render):
 * the findings the project before the run did not have, and those `alsoKeep` asks for.
 */
export function findingsAfter(
  config: ProjectConfig,
  before: Lock,
  after: Lock,
  alsoKeep: (finding: ReturnType<typeof checkProject>[number]) => boolean = () => false,
): ReturnType<typeof checkProject> {
  const earlier = new Set(
    checkProject(lockCheckProject(config, before.components)).map(findingKey),
  );
  return checkProject(lockCheckProject(config, after.components)).filter(
    (finding) => !earlier.has(findingKey(finding)) || alsoKeep(finding),
  );
}

/**
 * The findings of `kiln check` that the project after a removal has and the project before it
 * did not: what still refers to a removed component (a playbook using a removed role, an
 * ingress routing to a removed service). Each is printed as a warning with the commands that
 * fix it: the check's own fix (adding the role it names), else adding the removed components
 * back as they were; or removing the component that refers to them.
 */
export function reportBrokenReferences(
  output: Output,
  config: ProjectConfig,
  before: Lock,
  after: Lock,
  removed: readonly LockedComponent[],
): void {
  for (const finding of findingsAfter(config, before, after)) {
    output.line(output.out.yellow(`warning[${finding.rule}] ${finding.message}`));
    const [first] = finding.components;
    const referring = first === undefined ? undefined : after.components[first.index];
    const adding = finding.fix?.add ?? removed.map((entry) => asAdded(entry, config));
    const commands = [
      ...(adding.length === 0 ? [] : [`\`${adding.map(addCommand).join(" && ")}\``]),
      ...(referring === undefined ? [] : [`\`kiln remove ${shortAddress(referring)}\``]),
    ];
    if (commands.length > 0) output.line(`  fix: ${commands.join(" or ")}`);
  }
}

/**
 * A warning per component left in the project that kiln.lock records as needing a removed one
 * (its item declared it as a dependency): `warning[dependency] deployment/app needs
 * redis/app-db, which was removed`, with the commands that fix it - adding it back as it was,
 * or removing the component that needs it. The removal itself goes on: the files are the
 * user's, and a component that needs another still renders without it.
 */
export function reportRemovedDependencies(
  output: Output,
  config: ProjectConfig,
  after: Lock,
  removed: readonly LockedComponent[],
): void {
  for (const entry of after.components) {
    for (const needed of entry.dependencies ?? []) {
      const gone = removed.find((candidate) => sameComponent(candidate, needed));
      if (gone === undefined) continue;
      output.line(
        output.out.yellow(
          `warning[dependency] ${shortAddress(entry)} needs ${shortAddress(gone)}, which was removed`,
        ),
      );
      output.line(
        `  fix: \`${addCommand(asAdded(gone, config))}\` or \`kiln remove ${shortAddress(entry)}\``,
      );
    }
  }
}

export interface LockedProject {
  cwd: string;
  config: ProjectConfig;
  lock: Lock;
}

/** kiln.toml and kiln.lock of the project in `cwd`; either missing is an error. */
export function readLockedProject(cwd: string): LockedProject {
  const config = readProject(cwd);
  if (!isFolderInsideProject(config.outputDir)) {
    throw projectFileError(
      `: output_dir \`${config.outputDir}\` must be a folder inside the project`,
    );
  }
  const lock = readLock(cwd);
  if (lock === undefined) {
    throw new KilnError(
      "not_initialized",
      `no ${LOCK_FILE} found in ${cwd} - kiln records what \`kiln add\` and \`kiln setup\` vendor in it`,
      "a project made before kiln had a lock: add its components again with `kiln add ... --force`",
    );
  }
  return { cwd, config, lock };
}

/**
 * The components the command names (all when it names none): a bare name selects every
 * component of that name, `deployment/api` or `k8s/deployment/api` exactly one
 * (src/core/project/component-address.ts); an address that selects none is an error.
 */
export function selectComponents(lock: Lock, names: readonly string[]): LockedComponent[] {
  return selectAddressed(lock.components, names);
}

/** What the command changes in a component's values (update's --name, --set, --label, shortcuts). */
export interface Changes {
  /** A new name for the component. */
  name?: string | undefined;
  fields: Record<string, string>;
  labels: Record<string, string>;
  /** The automation tool profile every component is rendered with (update --profile). */
  automationProfile?: AutomationProfile | undefined;
}

/** The render input of a recorded component, with `changes` on top. */
export function recordedInput(entry: LockedComponent, changes?: Changes): RenderInput {
  return {
    name: changes?.name ?? entry.name,
    fields: { ...entry.fields, ...changes?.fields },
    labels: { ...entry.labels, ...changes?.labels },
    defaultNamespace: entry.namespace,
    automationProfile: changes?.automationProfile ?? entry.automationProfile,
  };
}

export interface Rerendered {
  entry: LockedComponent;
  input: RenderInput;
  render: ResolvedRender;
  /** The new render's files, paths from the project root. */
  files: NewFile[];
}

/** Renders a recorded component again with the newest item its reference gives. */
export async function rerender(
  renderer: ComponentRenderer,
  project: LockedProject,
  entry: LockedComponent,
  changes?: Changes,
): Promise<Rerendered> {
  const input = recordedInput(entry, changes);
  const render = await renderer.render(renderer.referenceFor(entry), input, componentLabel(entry));
  const files = render.files.map((file, template) => ({
    path: pathInside(project.config.outputDir, file.path),
    template,
    content: file.content,
  }));
  return { entry, input, render, files };
}

/**
 * Renders every recorded component with its recorded values, keeping each failure with its
 * component (kiln check of the project); a render stopped by a limit ends the run. With what
 * became of each URL it fetched.
 */
export async function renderLockForChecks(project: LockedProject): Promise<{
  results: ComponentRender<LockedComponent, ResolvedRender>[];
  urls: UrlReport[];
}> {
  const renderer = new ComponentRenderer(project.cwd, { lock: project.lock });
  try {
    const urls = await fetchUrlsOf(renderer, project.lock.components);
    const results = await renderCollectingErrors(project.lock.components, {
      defaultNamespace: project.config.defaultNamespace,
      render: (entry) =>
        renderer.render(renderer.referenceFor(entry), recordedInput(entry), componentLabel(entry)),
      isFatal: (error) => error instanceof RenderStopped,
    });
    return { results, urls };
  } finally {
    await renderer.close();
  }
}

/**
 * Every regular file and link below `dir` (relative to the project root), the version-control
 * folders (`.git`, `.hg`) and node_modules left out; none when `dir` leads out of the project
 * through a link or lies in `.git` or `.hg` (only the names are listed, never a file read, but
 * the names of a folder elsewhere are not the project's either).
 */
export function filesBelow(cwd: string, dir: string, limit = 100_000): string[] {
  if (!isProjectFolder(cwd, dir)) return [];
  const found: string[] = [];
  const walk = (relative: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(cwd, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (found.length >= limit) return;
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (versionControlFolderOf(entry.name) === undefined && entry.name !== "node_modules") {
          walk(path);
        }
      } else found.push(path);
    }
  };
  walk(dir === "." ? "" : dir.replace(/\/+$/, ""));
  return found.sort();
}

/**
 * `dir` (from the project root) passes the rules of an output folder a write follows: inside
 * the project, links resolved, and not in `.git` or `.hg`.
 */
function isProjectFolder(cwd: string, dir: string): boolean {
  try {
    checkOutputFolder(dir);
    const real = resolveOutputFolder(realPathOf(cwd), dir);
    return versionControlSegmentIn(real) === undefined;
  } catch {
    return false;
  }
}

/** The recorded files of a component, each with its base as kiln.lock keeps it (read on use). */
export function recordedFiles(entry: LockedComponent): RecordedFile[] {
  return entry.files.map((file) => ({
    path: file.path,
    template: file.template,
    base: recordedBase(entry, file),
    conflicted: file.conflicted === true,
    ownMarkerPairs: file.ownMarkerPairs,
  }));
}

export interface ComponentUpdate extends Rerendered {
  outcomes: FileOutcome[];
}

/** What updating `entry` would do to each of its files. */
export async function planComponentUpdate(
  renderer: ComponentRenderer,
  project: LockedProject,
  entry: LockedComponent,
  options: {
    resolution: ConflictResolution;
    changes?: Changes | undefined;
    files: ProjectFiles;
    mergeByStructure?: StructureMerge | undefined;
  },
): Promise<ComponentUpdate> {
  const rendered = await rerender(renderer, project, entry, options.changes);
  const outcomes = updateFiles({
    recorded: recordedFiles(entry),
    rendered: rendered.files,
    refused: (path) => options.files.refusal(path),
    disk: (path) => options.files.read(path),
    resolution: options.resolution,
    mergeByStructure: options.mergeByStructure,
  });
  return { ...rendered, outcomes };
}

/** A component a rename changes because it points at the renamed one (or the renamed itself). */
export interface Followed {
  entry: LockedComponent;
  edit: FollowEdit;
  /** The component the link leads to. */
  target: LockedComponent;
}

/**
 * What updating the components named (all when none is) would do, planned with one renderer
 * that is closed afterwards: `kiln diff` shows it, `kiln update` writes it. The components' URLs
 * are fetched first, all at once within the run's bounds (url-fetches.ts); when any gives no
 * item, the error names every one of them. A field the command sets goes only to the components
 * whose item declares it (one no component declares is an error); a rename also changes the
 * components that point at the renamed one (`followed`), unless `follow` is false, which
 * refuses the rename when there are any.
 */
export async function planUpdates(
  project: LockedProject,
  names: readonly string[],
  options: {
    resolution: ConflictResolution;
    changes?: Changes | undefined;
    mergeByStructure?: StructureMerge | undefined;
    follow?: boolean;
    /** The version registry components go to (`update --to`, `--latest`); the pinned one without. */
    pinChange?: PinChange | undefined;
  },
): Promise<{ updates: ComponentUpdate[]; urls: UrlReport[]; followed: Followed[] }> {
  const selected = selectComponents(project.lock, names);
  const files = new ProjectFiles(project.cwd);
  const renderer = new ComponentRenderer(project.cwd, {
    lock: project.lock,
    pinChange: options.pinChange,
  });
  const updates: ComponentUpdate[] = [];
  try {
    const urls = await fetchUrlsOf(renderer, selected);
    const missed = urls.filter((url) => url.state !== "fetched");
    if (missed.length > 0) throw urlsMissedError(missed);
    const targets = await scopedChanges(renderer, selected, options.changes);
    const followed =
      options.changes?.name === undefined
        ? []
        : followRename(project, targets, options.follow ?? true);
    for (const { entry, changes } of targets) {
      updates.push(
        await planComponentUpdate(renderer, project, entry, { ...options, changes, files }),
      );
    }
    return { updates, urls, followed };
  } finally {
    await renderer.close();
  }
}

interface UpdateTarget {
  entry: LockedComponent;
  changes?: Changes | undefined;
}

/**
 * Each selected component with the part of `changes` it takes: the fields its item declares
 * (src/core/project/scoped-fields.ts), every label, the new name.
 */
async function scopedChanges(
  renderer: ComponentRenderer,
  selected: readonly LockedComponent[],
  changes: Changes | undefined,
): Promise<UpdateTarget[]> {
  if (changes === undefined) return selected.map((entry) => ({ entry }));
  const addresses = exactAddresses(selected);
  const targets: FieldTarget[] = [];
  for (const [index, entry] of selected.entries()) {
    const item = await renderer.item(renderer.referenceFor(entry));
    targets.push({
      address: addresses[index] as string,
      declared: item.fields.map((field) => field.name),
    });
  }
  const fields = scopeFields(targets, changes.fields);
  return selected.map((entry, index) => ({
    entry,
    changes: { ...changes, fields: fields[index] ?? {} },
  }));
}

/**
 * The project's components as the checks read them: the lock's values, the namespace each was
 * rendered in, its recorded paths from the output folder, the built-ins' catalogue metadata.
 */
export function lockCheckProject(
  config: ProjectConfig,
  components: readonly LockedComponent[],
): CheckProject {
  const prefix =
    config.outputDir === "." || config.outputDir === ""
      ? ""
      : `${config.outputDir.replace(/\/+$/, "")}/`;
  return {
    namespace: config.defaultNamespace,
    components: components.map((entry) => ({
      reference: entry.reference,
      name: entry.name,
      fields: { namespace: entry.namespace, ...entry.fields },
      labels: entry.labels,
      files: entry.files.map((file) =>
        file.path.startsWith(prefix) ? file.path.slice(prefix.length) : file.path,
      ),
    })),
    catalogue: builtinRegistry().items.map(toItemMetaView),
  };
}

/**
 * The rename among `targets` (one component) followed into the components that point at it:
 * their changes join the targets (the renamed one's own, when it keeps a link, merge into its
 * changes). With `follow` false, any such component refuses the rename, each listed.
 */
function followRename(
  project: LockedProject,
  targets: UpdateTarget[],
  follow: boolean,
): Followed[] {
  const [renamed] = targets;
  const changes = renamed?.changes;
  if (renamed === undefined || changes?.name === undefined) return [];
  const components = project.lock.components;
  const index = components.indexOf(renamed.entry);
  const checked = lockCheckProject(project.config, components);
  const input = recordedInput(renamed.entry, changes);
  const edits = renameFollowers(checked, index, {
    ...(checked.components[index] as CheckComponent),
    name: input.name,
    fields: { namespace: renamed.entry.namespace, ...input.fields },
    labels: input.labels ?? {},
  });
  const followed = edits.map((edit) => ({
    entry: components[edit.index] as LockedComponent,
    edit,
    target: components[edit.target] as LockedComponent,
  }));
  if (followed.length === 0) return [];
  if (!follow) throw unfollowedError(renamed.entry, changes.name, followed);
  for (const { entry, edit } of followed) {
    let target = targets.find((candidate) => candidate.entry === entry);
    if (target === undefined) {
      target = { entry, changes: { fields: {}, labels: {} } };
      targets.push(target);
    }
    const own = target.changes ?? { fields: {}, labels: {} };
    target.changes = {
      ...own,
      fields: edit.kind === "field" ? { ...own.fields, [edit.key]: edit.to } : own.fields,
      labels: edit.kind === "label" ? { ...own.labels, [edit.key]: edit.to } : own.labels,
    };
  }
  // lock order, so the report and the lock read in the order of kiln.lock
  targets.sort((a, b) => components.indexOf(a.entry) - components.indexOf(b.entry));
  return followed;
}

/** One line per followed link: `service/api: label app=backend (selects deployment/backend)`. */
export function followedLines(
  followed: readonly Followed[],
  renamed: LockedComponent,
  newName: string,
): string[] {
  const spelling = (entry: LockedComponent) =>
    shortAddress(entry === renamed ? { ...entry, name: newName } : entry);
  return followed.map(({ entry, edit, target }) => {
    const verb = edit.kind === "label" ? "selects" : edit.key === "service" ? "routes to" : "uses";
    // a JSON list of plays or imports is named, not printed: the target says what changed in it
    const change = /^\s*[[{]/.test(edit.to) ? edit.key : `${edit.key}=${edit.to}`;
    return `${spelling(entry)}: ${edit.kind} ${change} (${verb} ${spelling(target)})`;
  });
}

/** The refusal of a rename with --no-follow while components point at the renamed one. */
function unfollowedError(
  renamed: LockedComponent,
  newName: string,
  followed: Followed[],
): KilnError {
  return new KilnError(
    "invalid_request",
    `${plural(followed.length, "link")} to ${shortAddress(renamed)} would break if it were renamed to \`${newName}\` - nothing was written`,
    [
      ...followedLines(followed, renamed, newName).map((line) => `would change ${line}`),
      "run without --no-follow to change them with the rename, or change them first yourself",
    ].join("\n"),
  );
}

/**
 * Fetches the URL references of `entries` (not the built-ins among them), all started at once
 * within the run's bounds, and waits for them: what became of each URL.
 */
export function fetchUrlsOf(
  renderer: ComponentRenderer,
  entries: readonly LockedComponent[],
): Promise<UrlReport[]> {
  renderer.prefetch(entries.map((entry) => entry.reference));
  return renderer.fetches.settled();
}

/**
 * The URLs that gave no item: for one, the fixed `failed to fetch registry item from <url>`;
 * each with why in the detail.
 */
function urlsMissedError(missed: readonly UrlReport[]): KilnError {
  const [first] = missed as [UrlReport];
  const message =
    missed.length === 1
      ? `failed to fetch registry item from ${first.url}`
      : `failed to fetch registry items from ${missed.length} URLs`;
  return new KilnError(
    "invalid_request",
    message,
    missed
      .map((url) => (missed.length === 1 ? missedReason(url) : `${url.url}: ${missedReason(url)}`))
      .join("\n"),
  );
}

/** The lock entry of a component after its update: the new render's values and records. */
export function updatedEntry(update: ComponentUpdate): LockedComponent {
  const records = update.outcomes.flatMap((outcome) => (outcome.record ? [outcome.record] : []));
  const entry = lockEntry(
    {
      // a reference typed with a version names the version the lock now pins
      reference:
        update.render.registry === undefined
          ? update.entry.reference
          : referenceAtVersion(update.entry.reference, update.render.registry.version),
      item: update.render.item,
      builtin: update.render.builtin,
      registry: update.render.registry,
      input: update.input,
      files: records.map((record) => ({ path: record.path, content: record.content })),
    },
    update.entry,
  );
  return {
    ...entry,
    // the template each file came from, and the conflicts left in it
    files: entry.files.map((file, index) => ({
      ...file,
      template: records[index]?.template ?? file.template,
      conflicted: records[index]?.conflicted ? true : undefined,
      ownMarkerPairs: records[index]?.conflicted ? records[index]?.ownMarkerPairs : undefined,
    })),
  };
}
