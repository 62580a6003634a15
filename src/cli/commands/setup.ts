// kiln setup: starts a project from a preset - its files under the preset's output folder,
// then kiln.toml (written last, so a failed run leaves no project file behind).
import { resolve } from "node:path";
import { DEFAULT_OUTPUT_DIR, LOCK_FILE, PROJECT_FILE } from "../../core/config.ts";
import type { KilnError } from "../../core/errors.ts";
import { alreadyExists } from "../../core/plan.ts";
import { plural } from "../../core/plural.ts";
import { serializeProjectConfig, withRegistriesKept } from "../../core/project/kiln-toml.ts";
import { layoutProject, pathInside } from "../../core/project/layout.ts";
import { setupLock } from "../../core/project/lock-entry.ts";
import { emptyLock, recordComponent, serializeLock } from "../../core/project/lock-format.ts";
import {
  presetAutomationProfile,
  presetConfig,
  presetRenderSettings,
} from "../../core/project/preset-manifest.ts";
import { defaultProfileHint } from "../../core/project/profile-switch.ts";
import { loadPreset } from "../../node/builtin-presets.ts";
import { NODE_LOCK_CODEC } from "../../node/lock-compression.ts";
import { itemRecord, readLock, refuseNewerLock } from "../../node/lock-on-disk.ts";
import { MAX_PROJECT_FILE_BYTES, readRegularFile } from "../../node/read-regular-file.ts";
import { commit } from "../../node/write-commit.ts";
import { displayPath, planRun, type Step, type WriteGroup } from "../../node/write-plan.ts";
import { reportDependencies } from "../add-dependencies.ts";
import { flag } from "../args.ts";
import { SETUP } from "../command-list.ts";
import { recoverInterruptedRun } from "../journal-notice.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { presetLabel, renderPresetWithDependencies } from "../preset-run.ts";
import { reportDryRun, reportSteps } from "../report.ts";
import {
  editedMerged,
  mergeLines,
  mergeTrackedFiles,
  sideTaken,
  withMergedContent,
  withMergeHint,
} from "../tracked-merge.ts";
import { defaultProjectName } from "./init.ts";

export function help(): string {
  return commandHelp(SETUP, {
    title: "start a project from a preset",
    about: `<preset> is a built-in template (\`kiln presets\`), a URL or a path to a .preset.json file
(a template name wins over a file of the same name: write ./name to load the file).
Renders every component and checks every path before writing anything, writes the files
under the preset's output folder (default ${DEFAULT_OUTPUT_DIR}), then writes ${PROJECT_FILE}.

In a project, --force merges the new render into each file ${LOCK_FILE} tracks, three ways as
\`kiln update\` does (YAML and INI by structure), so your edits stay; a conflict stops the run
with nothing written, --ours or --theirs takes one side in each and prints what it dropped.
Files ${LOCK_FILE} does not track are overwritten. Without --force an existing file that
differs is refused.

Never writes in .git, outside the current folder (also not through a symbolic link), or over
anything but a regular file. Files other tools run or load as code (.envrc, .vscode/,
.github/workflows/, shell start-up files, ... - see docs/cli.md) are refused unless you pass
--allow-exec-paths.`,
    examples: [
      "kiln setup k8s-web-app",
      "kiln setup ./shop.preset.json --dry-run",
      "kiln setup https://example.com/platform.preset.json --force",
      "kiln setup ./bumped.preset.json --force --theirs",
    ],
  });
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, SETUP);
  const reference = output.typed(args[0] as string);
  const force = flag(parsed, "force");
  const dryRun = flag(parsed, "dry-run");
  const resolution = sideTaken(parsed);
  const cwd = process.cwd();
  // a run killed part-way here is rolled back before anything is planned (journal.ts)
  recoverInterruptedRun(cwd, output);
  // a lock from a newer kiln stops the run before anything else happens
  const oldLock = readLock(cwd);
  refuseNewerLock(oldLock, flag(parsed, "allow-older-kiln"));
  // the cheapest refusal first, before rendering: an existing project is not set up again by
  // accident - unless its kiln.toml is exactly what this preset gives (setup again is idempotent).
  // A dry run shows the whole plan first and refuses after it (projectRefusal)
  if (!force && !dryRun) {
    const existing = readRegularFile(
      resolve(cwd, PROJECT_FILE),
      PROJECT_FILE,
      MAX_PROJECT_FILE_BYTES,
    );
    if (
      existing !== undefined &&
      existing !==
        serializeProjectConfig(
          presetConfig(await loadPreset(reference, { cwd }), defaultProjectName(cwd)),
        )
    ) {
      throw projectRefusal();
    }
  }
  // the components' dependencies that neither the preset nor the project holds come with them
  const { preset, files, components, dependencies } = await renderPresetWithDependencies(
    reference,
    cwd,
    oldLock,
    (message) => output.warning(message),
  );
  // the project's layout (the dashboard's zip is the same): the files under the output folder,
  // kiln.toml at the root. The output folder is part of every written path, so the layout
  // refuses one that leaves the project or is .git; links on its way are checked by the plan
  const layout = layoutProject(presetConfig(preset, defaultProjectName(cwd)), files);
  const { outputDir } = layout;
  // kiln.lock: every component with what it rendered, written with the files and kiln.toml
  // (the dashboard's zip builds the same lock with the same core function); in a project, the
  // components the preset does not hold keep their entries (added after setup, they are still
  // on disk)
  const presetLock = setupLock(
    [
      ...components.map(({ component, output }, index) => ({
        component,
        item: itemRecord(component.reference, output.item, output.builtin, output.registry),
        files: output.files,
        dependencies: dependencies.needs[index],
      })),
      ...dependencies.added.map(({ request, value: { render }, needs }) => ({
        component: { ...request, labels: {} },
        item: itemRecord(request.reference, render.item, render.builtin, render.registry),
        files: render.files,
        dependencies: needs,
      })),
    ],
    { outputDir, ...presetRenderSettings(preset) },
    NODE_LOCK_CODEC,
  );
  const lock = presetLock.components.reduce(recordComponent, oldLock ?? emptyLock());
  // a dry run plans as --force would, so it can show every file; it refuses afterwards where
  // the real run would
  const outputRoot = resolve(cwd, outputDir);
  // kiln.toml anew from the preset, keeping the [registries] of the one it replaces
  const previousToml = readRegularFile(
    resolve(cwd, PROJECT_FILE),
    PROJECT_FILE,
    MAX_PROJECT_FILE_BYTES,
  );
  const rootFiles = layout.rootFiles.map((file) =>
    file.path === PROJECT_FILE
      ? { ...file, content: withRegistriesKept(file.content, previousToml) }
      : file,
  );
  const groupsOf = (outputFiles: typeof layout.files): WriteGroup[] => [
    { root: outputRoot, files: outputFiles, project: cwd },
    { root: cwd, files: rootFiles, project: cwd, kilnOwn: true },
    {
      root: cwd,
      files: [{ path: LOCK_FILE, content: serializeLock(lock) }],
      project: cwd,
      quiet: true,
      kilnOwn: true,
    },
  ];
  const options = {
    force: force || dryRun,
    cwd,
    allowExecPaths: flag(parsed, "allow-exec-paths"),
    unchangedWithoutForce: true,
  };
  // each file as a refusal names it, for the hint that --force merges: built only for a
  // refusal (resolving 77 paths cost about 1.5 ms of every setup)
  const tracked = () =>
    layout.files.map((file) => ({
      display: displayPath(cwd, outputRoot, file.path),
      projectPath: pathInside(outputDir, file.path),
    }));
  let planned: Step[];
  try {
    planned = planRun(groupsOf(layout.files), options);
  } catch (error) {
    throw withMergeHint(error, oldLock, tracked());
  }
  // a file kiln.lock tracks is merged into, not overwritten: its hand edits stay (the output
  // folder's steps come first, in the order of its files)
  const merges = await mergeTrackedFiles(
    planned.slice(0, layout.files.length),
    oldLock,
    (step) => pathInside(outputDir, step.path),
    resolution,
  );
  const steps =
    merges.length === 0
      ? planned
      : planRun(groupsOf(withMergedContent(layout.files, merges)), options);
  if (!dryRun) commit(steps);
  reportSteps(
    output,
    steps,
    dryRun,
    [],
    mergeLines(merges, dryRun, resolution),
    flag(parsed, "verbose"),
  );
  reportDependencies(output, dependencies.added, dependencies.kept, dryRun);
  if (dryRun) {
    // the run without --force refuses where it did before the merge: at any file that differs
    const needsForce = force ? undefined : firstNeedingForce(planned);
    reportDryRun(output, steps, needsForce !== undefined, editedMerged(merges));
    if (needsForce === undefined) return 0;
    throw needsForce.display === PROJECT_FILE
      ? projectRefusal()
      : withMergeHint(alreadyExists(needsForce.display), oldLock, tracked());
  }
  output.line(
    `set up ${presetLabel(preset, reference)}: ${plural(files.length, "file")} in ${outputDir}/ and ${PROJECT_FILE} - next: review the files, then \`kiln add <reference> --name <name>\` to add more`,
  );
  const hint = defaultProfileHint(
    presetAutomationProfile(preset),
    components.map(({ output }) => output.item),
  );
  if (hint !== undefined) output.line(hint);
  return 0;
}

/** The refusal of setup in a kiln project, before anything is rendered. */
function projectRefusal(): KilnError {
  return alreadyExists(
    PROJECT_FILE,
    "this folder is already a kiln project: `kiln apply <preset>` adds a preset's files without touching it",
  );
}

/**
 * The file the real run without --force would stop at: kiln.toml, checked first, else the
 * first file it would overwrite (kiln.lock is kiln's record and always rewritten).
 */
function firstNeedingForce(steps: readonly Step[]): Step | undefined {
  const overwrites = steps.filter((step) => step.status === "overwrite" && step.quiet !== true);
  return overwrites.find((step) => step.display === PROJECT_FILE) ?? overwrites[0];
}
