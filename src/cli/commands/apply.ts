// kiln apply: renders a preset's files into the current folder (or --into); never reads or
// writes kiln.toml.
import { isAbsolute, relative, resolve } from "node:path";
import { plural } from "../../core/plural.ts";
import { readLock } from "../../node/lock-on-disk.ts";
import { commit } from "../../node/write-commit.ts";
import { displayPath, planRun, realPathOf, type Step } from "../../node/write-plan.ts";
import { flag, stringOption, UsageError } from "../args.ts";
import { APPLY } from "../command-list.ts";
import { recoverInterruptedRun } from "../journal-notice.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { presetLabel, renderWholePreset } from "../preset-run.ts";
import { reportDryRun, reportSteps } from "../report.ts";
import {
  editedMerged,
  mergeLines,
  mergeTrackedFiles,
  sideTaken,
  withMergedContent,
  withMergeHint,
} from "../tracked-merge.ts";

export function help(): string {
  return commandHelp(APPLY, {
    title: "render a preset's files into a folder",
    about: `<preset> is a built-in template (\`kiln presets\`), a URL or a path to a .preset.json file.
Renders every component and checks every path before writing anything. Unlike setup, apply
ignores the preset's output folder and never reads or writes kiln.toml.

With --force, a file ./kiln.lock tracks (apply into a project's output folder) is merged into
three ways as \`kiln update\` does, keeping your edits; --ours or --theirs settles conflicts.
apply writes no kiln.lock.

Never writes in .git, out of the folder through a symbolic link, or over anything but a
regular file. Files other tools run or load as code (.envrc, .vscode/, .github/workflows/,
shell start-up files, ... - see docs/cli.md) are refused unless you pass --allow-exec-paths.`,
    examples: [
      "kiln apply k8s-web-app --into deploy",
      "kiln apply ./platform.preset.json --dry-run",
    ],
  });
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, APPLY);
  const [reference] = args as [string];
  const into = stringOption(parsed, "into");
  if (into === "") throw new UsageError("--into needs a folder");
  const dryRun = flag(parsed, "dry-run");
  const resolution = sideTaken(parsed);
  const cwd = process.cwd();
  const root = resolve(cwd, into ?? ".");
  // the journal of this run goes where every file it writes is below it: the working folder,
  // or the --into folder when that is elsewhere. A run killed part-way in either (or in the
  // --into folder by a kiln run there) is rolled back before anything is planned (journal.ts)
  const journalDir = isBelow(cwd, root) ? cwd : root;
  recoverInterruptedRun(cwd, output);
  if (relative(cwd, root) !== "") recoverInterruptedRun(root, output);
  const { preset, files } = await renderWholePreset(reference, cwd);
  const force = flag(parsed, "force");
  const options = {
    force,
    cwd,
    allowExecPaths: flag(parsed, "allow-exec-paths"),
    // a preset applied again over its own files is no error: only files that change need --force
    unchangedWithoutForce: true,
  };
  let planned: Step[];
  try {
    planned = planRun([{ root, files }], options);
  } catch (error) {
    // the refusal at a file in the way says so when the working folder's kiln.lock tracks it
    throw withMergeHint(
      error,
      () => readLock(cwd),
      files.map((file) => {
        const display = displayPath(cwd, root, file.path);
        return { display, projectPath: projectPathOf(display) };
      }),
    );
  }
  // apply writes no kiln.lock, but never overwrites the edits of a file the working folder's
  // kiln.lock tracks (applied into a project's output folder): it merges into it as update
  // does. The lock is read only when a file would be overwritten
  const overwrites = planned.some((step) => step.status === "overwrite");
  const merges = overwrites
    ? await mergeTrackedFiles(
        planned,
        readLock(cwd),
        (step) => projectPathOf(step.display),
        resolution,
      )
    : [];
  const steps =
    merges.length === 0
      ? planned
      : planRun([{ root, files: withMergedContent(files, merges) }], options);
  if (!dryRun) commit(steps, [], journalDir);
  reportSteps(
    output,
    steps,
    dryRun,
    [],
    mergeLines(merges, dryRun, resolution),
    flag(parsed, "verbose"),
  );
  if (dryRun) {
    reportDryRun(output, steps, false, editedMerged(merges));
    return 0;
  }
  const where = displayPath(cwd, root, ".");
  output.line(
    `applied ${presetLabel(preset, reference)}: ${plural(files.length, "file")} in ${where === "." ? "the current folder" : `${where}/`}`,
  );
  return 0;
}

/**
 * A file's path from the working folder, where kiln.lock's paths start (the project root), as
 * people see it; undefined when it is outside the working folder, which no lock path is.
 */
function projectPathOf(display: string): string | undefined {
  return display === ".." || display.startsWith("../") || isAbsolute(display) ? undefined : display;
}

/** `path` is `folder` or below it, both with their links resolved. */
function isBelow(folder: string, path: string): boolean {
  let inside: string;
  try {
    inside = relative(realPathOf(folder), realPathOf(path));
  } catch {
    return false;
  }
  return inside === "" || (!inside.startsWith("..") && !isAbsolute(inside));
}
