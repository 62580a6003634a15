// kiln add: renders one component into the project's output folder (from kiln.toml).
import { resolve } from "node:path";
import { LOCK_FILE } from "../../core/config.ts";
import type { DependencyPlan } from "../../core/dependencies.ts";
import { KilnError } from "../../core/errors.ts";
import { referenceOf } from "../../core/item.ts";
import { alreadyExists, type PlannedFile } from "../../core/plan.ts";
import { plural } from "../../core/plural.ts";
import { projectFileError } from "../../core/project/kiln-toml.ts";
import { pathInside } from "../../core/project/layout.ts";
import {
  emptyLock,
  type Lock,
  recordComponent,
  sameComponent,
  serializeLock,
} from "../../core/project/lock-format.ts";
import { lockEntry, readLock, refuseNewerLock } from "../../node/lock-on-disk.ts";
import { isFolderInsideProject, readProject } from "../../node/project-config.ts";
import { ProjectFiles } from "../../node/project-files.ts";
import { commit } from "../../node/write-commit.ts";
import { displayPath, planRun, type Step } from "../../node/write-plan.ts";
import {
  type RenderedComponent,
  renderWithDependencies,
  reportDependencies,
} from "../add-dependencies.ts";
import { flag, type Parsed, stringOption, UsageError } from "../args.ts";
import { ADD } from "../command-list.ts";
import { fieldValues, labelValues } from "../fields.ts";
import { recoverInterruptedRun } from "../journal-notice.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { ComponentRenderer, type EarlyWorker, startWorkerEarly } from "../render-component.ts";
import { doneCounts, reportDryRun, reportSteps } from "../report.ts";
import {
  componentAddress,
  editedFilesOverwritten,
  isEditedByHand,
  trackedFile,
} from "../tracked-edits.ts";

export function help(): string {
  return commandHelp(ADD, {
    title: "render one component into the project's output folder",
    about: `<reference> is a built-in component (\`kiln list\`), a URL or a path to a registry-item JSON
file, or a namespaced registry's item: @acme/redis (the newest version) or @acme/redis@1.2.0
(registries are configured in kiln.toml, docs/registries.md). Files go to the output folder
named in kiln.toml (run \`kiln init\` first).`,
    notes: `--set wins over a shortcut that sets the same field.

An item may declare dependencies (other components it needs): the ones the project lacks are
added in the same write, recursively; the ones it has are kept (docs/registries.md).

Never writes in .git, outside the project (also not through a symbolic link), or over anything
but a regular file. Files other tools run or load as code (.envrc, .vscode/,
.github/workflows/, shell start-up files, ... - see docs/cli.md) are refused unless you pass
--allow-exec-paths.`,
    examples: [
      "kiln add k8s/deployment --name web --image nginx:1.27 --replicas 3",
      "kiln add k8s/service --name web --port 80 --target-port 8080",
      `kiln add automation/inventory --name prod --set 'hosts=[{"group":"web","members":[{"name":"web1","cm_host":"10.0.0.5"}]}]'`,
      "kiln add ./my-component.json --name thing --dry-run",
      "kiln add @acme/redis@1.2.0 --name cache",
    ],
  });
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, ADD);
  const reference = output.typed(args[0] as string);
  const name = stringOption(parsed, "name");
  if (name === undefined || name === "") {
    throw new UsageError(`missing --name <name> - e.g. kiln add ${reference} --name web`);
  }
  const fields = fieldValues(parsed);
  const labels = labelValues(parsed);

  // a registry's item renders in the worker: it starts while the project and the item are read
  const early = startWorkerEarly(reference);
  try {
    return await addComponent({ parsed, reference, name, fields, labels }, early, output);
  } finally {
    // a run that stopped before its renderer took the worker stops it here
    await early.stop();
  }
}

/** What `kiln add` was asked to add, as its command line says it. */
interface AddRequest {
  parsed: Parsed;
  reference: string;
  name: string;
  fields: Record<string, string>;
  labels: Record<string, string>;
}

/** Renders the component (and its dependencies) and writes it with kiln.lock, all or nothing. */
async function addComponent(
  { parsed, reference, name, fields, labels }: AddRequest,
  early: EarlyWorker,
  output: Output,
): Promise<number> {
  const cwd = process.cwd();
  // a run killed part-way here is rolled back before anything is planned (journal.ts)
  recoverInterruptedRun(cwd, output);
  const project = readProject(cwd);
  if (!isFolderInsideProject(project.outputDir)) {
    throw projectFileError(
      `: output_dir \`${project.outputDir}\` must be a folder inside the project`,
    );
  }
  // kiln.lock is read before anything else happens: a lock from a newer kiln stops the run
  const lock = readLock(cwd) ?? emptyLock();
  refuseNewerLock(lock, flag(parsed, "allow-older-kiln"));
  const input = {
    name,
    fields,
    labels,
    defaultNamespace: project.defaultNamespace,
    automationProfile: project.automationProfile,
  };
  // built-ins render here; items from files and URLs in a worker, within time and memory limits
  // a registry's item is checked against the digest the lock records for its version; the
  // item's dependencies the project lacks render with it, for the same write
  const renderer = new ComponentRenderer(cwd, {
    lock,
    earlyWorker: early,
    // an unpinned add whose registry does not answer takes the index kiln's cache holds
    warn: (message) => output.warning(message),
  });
  let plan: DependencyPlan<RenderedComponent>;
  try {
    plan = await renderWithDependencies(
      renderer,
      reference,
      input,
      lock,
      {
        defaultNamespace: project.defaultNamespace,
        automationProfile: project.automationProfile,
      },
      (message) => output.warning(message),
    );
  } finally {
    await renderer.close();
  }
  // the lock records every component with the files, in the same all-or-nothing write
  let recorded = lock;
  for (const [index, planned] of plan.added.entries()) {
    const { render, input: componentInput } = planned.value;
    const component = { name: componentInput.name, component: referenceOf(render.item) };
    const entry = lockEntry(
      {
        reference: planned.request.reference,
        item: render.item,
        builtin: render.builtin,
        registry: render.registry,
        input: componentInput,
        files: render.files.map((file) => ({
          path: pathInside(project.outputDir, file.path),
          content: file.content,
        })),
        dependencies: planned.needs,
      },
      // only the component named replaces its entry: a dependency the project has is kept
      index === 0 ? lock.components.find((old) => sameComponent(old, component)) : undefined,
    );
    recorded = recordComponent(recorded, entry);
  }
  const files = plan.added.flatMap((planned) => planned.value.render.files);
  const root = resolve(cwd, project.outputDir);
  const force = flag(parsed, "force");
  const steps = withTrackedFileHint(lock, project.outputDir, cwd, root, files, () =>
    planRun(
      [
        { root, files, project: cwd },
        {
          root: cwd,
          files: [{ path: LOCK_FILE, content: serializeLock(recorded) }],
          project: cwd,
          force: true,
          quiet: true,
          kilnOwn: true,
        },
      ],
      { force, cwd, allowExecPaths: flag(parsed, "allow-exec-paths") },
    ),
  );
  const dryRun = flag(parsed, "dry-run");
  // the output folder's steps come first, in the order of the rendered files
  const edited = editedFilesOverwritten(steps.slice(0, files.length), project.outputDir, lock);
  if (!dryRun) commit(steps);
  reportSteps(output, steps, dryRun, edited, new Map(), flag(parsed, "verbose"));
  reportDependencies(output, plan.added.slice(1), plan.kept, dryRun);
  if (dryRun) reportDryRun(output, steps);
  else output.line(addedSummary(plan, name, files.length, project.outputDir, steps, output));
  return 0;
}

/**
 * `added deployment/web: 1 file in k8s/ (1 created)`: the component named, the dependencies
 * that came with it, and every file the run wrote for them, counted by what happened to it.
 */
function addedSummary(
  plan: DependencyPlan<RenderedComponent>,
  name: string,
  files: number,
  outputDir: string,
  steps: readonly Step[],
  output: Output,
): string {
  const [named] = plan.added;
  const reference = named === undefined ? "" : referenceOf(named.value.render.item);
  const dependencies = plan.added.length - 1;
  const withDependencies =
    dependencies === 0
      ? ""
      : ` and ${dependencies} ${dependencies === 1 ? "dependency" : "dependencies"}`;
  return `added ${componentAddress({ reference, name })}${withDependencies}: ${plural(files, "file")} in ${output.path(outputDir)}/ (${doneCounts(steps)})`;
}

/**
 * Plans the run; when a file in the way stops it and kiln.lock tracks that file, the refusal
 * (unchanged) gets a line naming the command that changes a tracked file and keeps its hand
 * edits - `kiln update <component>/<name>` - since --force, the only way the refusal names,
 * discards them.
 */
function withTrackedFileHint(
  lock: Lock,
  outputDir: string,
  cwd: string,
  root: string,
  files: readonly PlannedFile[],
  plan: () => Step[],
): Step[] {
  try {
    return plan();
  } catch (error) {
    if (!(error instanceof KilnError) || error.kind !== "already_exists") throw error;
    for (const file of files) {
      if (error.message !== alreadyExists(displayPath(cwd, root, file.path)).message) continue;
      const tracked = trackedFile(lock, pathInside(outputDir, file.path));
      if (tracked === undefined) break;
      const address = componentAddress(tracked.owner);
      const disk = new ProjectFiles(cwd);
      const onDisk = disk.refusal(tracked.path) === undefined ? disk.read(tracked.path) : undefined;
      const hint =
        onDisk !== undefined && isEditedByHand(tracked, onDisk)
          ? `kiln.lock tracks it as a file of ${address}, edited since kiln wrote it: \`kiln update ${address}\` (the new values as its options) merges into it and keeps your edits; --force overwrites them`
          : `kiln.lock tracks it as a file of ${address}: \`kiln update ${address}\` (the new values as its options) renders it again`;
      throw new KilnError(
        error.kind,
        error.message,
        error.detail ? `${error.detail}\n${hint}` : hint,
      );
    }
    throw error;
  }
}
