// kiln diff: the unified diff between the files on disk and what `kiln update` would write,
// for the named components or the whole project - or, given a preset, what `kiln setup` of
// that preset would write (preset-diff.ts). Writes nothing. --exit-code exits 1 when anything
// differs (a CI drift check). A conflict is shown as `--conflicts=markers` would write it, and
// said to be one: plain `kiln update` stops there. A file too different to diff line by line
// (src/core/line-diff.ts) or to merge is one line saying so, and still counts as a difference.

import { LOCK_FILE } from "../../core/config.ts";
import { MAX_EDIT_LINES, splitLines, unifiedDiff } from "../../core/line-diff.ts";
import { plural } from "../../core/plural.ts";
import { componentsAt } from "../../core/project/component-address.ts";
import type { FileOutcome } from "../../core/project/file-outcomes.ts";
import { mergeByStructure } from "../../core/project/structure-merge.ts";
import { readLock } from "../../node/lock-on-disk.ts";
import { refusedPathsError } from "../../node/project-files.ts";
import { flag, UsageError } from "../args.ts";
import { DIFF } from "../command-list.ts";
import { EXIT_FAILED, EXIT_OK } from "../exit.ts";
import { planUpdates, readLockedProject } from "../lifecycle.ts";
import { warnOfNewerLock } from "../newer-lock.ts";
import { commandHelp, parseCommand } from "../options.ts";
import { forTerminal, type Output } from "../output.ts";
import { planPresetDiff } from "../preset-diff.ts";
import { namesAPreset } from "../preset-run.ts";
import { type UrlReport, urlLines } from "../url-fetches.ts";

export function help(): string {
  return commandHelp(DIFF, {
    title: "show what `kiln update` would change in the vendored files",
    about: `<component>... are components of ${LOCK_FILE} (all of them when none is given; \`api\` every
component of that name, \`deployment/api\` or \`k8s/deployment/api\` exactly one). Prints a unified
diff between each file on disk and what \`kiln update\` would write: the newest item rendered
with the recorded values, merged with your edits. A conflict is shown with the markers
\`kiln update --conflicts=markers\` would write. A file that changed too much to show line by
line (more than ${MAX_EDIT_LINES} lines inserted and deleted), or too much to merge, is one line
saying so, and counts as a difference.

kiln diff <preset> compares with a preset instead: what \`kiln setup <preset>\` would write (the
files under its output folder, and kiln.toml) against the files on disk; files the preset does
not make are listed, not counted. An argument is a preset when --preset is given, or when no
component of ${LOCK_FILE} has that address and it is a built-in template name (\`kiln presets\`)
or ends in .preset.json.

A path that breaks the rules of a write (outside the project, through a link that leads out,
in .git, not a regular file, too large) is never read: it is shown as refused and the command
exits 1 after the report. The URLs fetched for the newest items are listed on stderr.

Writes nothing. Colour only on a terminal, never with NO_COLOR.`,
    examples: [
      "kiln diff",
      "kiln diff api web",
      "kiln diff --exit-code  # in CI: fails on drift",
      "kiln diff k8s-web-app  # against a preset",
    ],
  });
}

interface FileDiff {
  /** The component and name that write it; absent for a preset's kiln.toml. */
  component?: string | undefined;
  name?: string | undefined;
  path: string;
  from?: string | undefined;
  action: FileOutcome["action"];
  conflicts: number;
  /** The unified diff; "" when `note` says why there is none, and for `refused` (not read). */
  patch: string;
  /** Present when the file differs but is not shown line by line: why. */
  note?: string | undefined;
  /** For `refused`: why the path breaks the rules of a write. */
  reason?: string | undefined;
}

/** A file's size for a note: lines and bytes. */
function size(text: string | undefined): string {
  if (text === undefined) return "no file";
  return `${plural(splitLines(text).length, "line")}, ${plural(Buffer.byteLength(text), "byte")}`;
}

/** The unified diff of one file, or why it is not shown; "" when both sides are the same. */
function patchOf(
  oldPath: string,
  before: string | undefined,
  newPath: string,
  after: string | undefined,
): { patch: string; note?: string } {
  if (before === after) return { patch: "" };
  const patch = unifiedDiff(
    before === undefined ? "/dev/null" : `a/${oldPath}`,
    before ?? "",
    after === undefined ? "/dev/null" : `b/${newPath}`,
    after ?? "",
  );
  if (patch !== undefined) return { patch };
  return {
    patch: "",
    note: `${newPath} changed too much to show line by line (${size(before)} on disk; ${size(after)} after)`,
  };
}

/** The unified diff of one update outcome (`a/` the file on disk, `b/` what the update writes), or why none. */
function outcomePatch(outcome: FileOutcome): { patch: string; note?: string } {
  if (outcome.action === "unmerged" && outcome.unmerged) {
    return { patch: "", note: outcome.unmerged.error.message };
  }
  const after = outcome.action === "released" ? outcome.before : outcome.content;
  return patchOf(outcome.from ?? outcome.path, outcome.before, outcome.path, after);
}

/** A line for the terminal: control characters escaped, kiln's colours applied, tabs kept. */
function shown(line: string): string {
  return line.split("\t").map(forTerminal).join("\t");
}

/**
 * Is the command's one argument a preset rather than a component name? --preset says so;
 * otherwise a name the lock records is a component, and a preset is what names one by itself.
 */
function readsAsPreset(args: readonly string[], forced: boolean): boolean {
  if (forced && args.length !== 1) {
    throw new UsageError("--preset takes exactly one preset: kiln diff <preset> --preset");
  }
  if (forced) return true;
  const [argument] = args;
  if (args.length !== 1 || argument === undefined) return false;
  const lock = readLock(process.cwd());
  if (lock !== undefined && componentsAt(lock.components, argument).length > 0) return false;
  return namesAPreset(argument);
}

/**
 * Each file of the named components (all when none is) that `kiln update` would change, and
 * each path it refuses; with the URLs fetched for the newest items.
 */
async function updateDiffs(
  names: readonly string[],
  output: Output,
): Promise<{ files: FileDiff[]; urls: UrlReport[] }> {
  const project = readLockedProject(process.cwd());
  warnOfNewerLock(output, project.lock);
  // the file shown as `kiln update` would merge it: by structure first
  const { updates, urls } = await planUpdates(project, names, {
    resolution: "markers",
    mergeByStructure,
  });
  const files = updates.flatMap((update) =>
    update.outcomes.flatMap((outcome): FileDiff[] => {
      const owner = { component: update.entry.component, name: update.entry.name };
      if (outcome.action === "refused") {
        const { path, action, reason } = outcome;
        return [{ ...owner, path, action, conflicts: 0, patch: "", reason }];
      }
      const { patch, note } = outcomePatch(outcome);
      if (patch === "" && note === undefined) return [];
      return [
        {
          ...owner,
          path: outcome.path,
          from: outcome.from,
          action: outcome.action,
          conflicts: outcome.conflicts.length,
          patch,
          note,
        },
      ];
    }),
  );
  return { files, urls };
}

/** Each file `kiln setup <preset>` would write that differs from the disk. */
async function presetDiffs(
  reference: string,
): Promise<{ files: FileDiff[]; notInPreset: string[] }> {
  const planned = await planPresetDiff(reference, process.cwd());
  const files = planned.files.flatMap((file): FileDiff[] => {
    const owner = { component: file.component, name: file.name };
    if (file.refused !== undefined) {
      const refused = { path: file.path, action: "refused" as const, conflicts: 0, patch: "" };
      return [{ ...owner, ...refused, reason: file.refused }];
    }
    const { patch, note } = patchOf(file.path, file.before, file.path, file.after);
    if (patch === "" && note === undefined) return [];
    const action = file.before === undefined ? "added" : "replaced";
    const { component, name, path } = file;
    return [{ component, name, path, action, conflicts: 0, patch, note }];
  });
  return { files, notInPreset: planned.notInPreset };
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, DIFF);
  const preset = readsAsPreset(args, flag(parsed, "preset"));
  const { files, notInPreset, urls } = preset
    ? { ...(await presetDiffs(output.typed(args[0] as string))), urls: undefined }
    : { ...(await updateDiffs(args, output)), notInPreset: undefined };
  const refused = files.filter((file) => file.action === "refused");
  const differs = files.length > refused.length;
  const status = flag(parsed, "exit-code") && differs ? EXIT_FAILED : EXIT_OK;
  if (flag(parsed, "json")) {
    // `urls` only when the components named any URL
    const answer =
      notInPreset !== undefined
        ? { differs, files, notInPreset }
        : urls === undefined || urls.length === 0
          ? { differs, files }
          : { differs, files, urls };
    output.json(answer);
    return endWith(status, refused);
  }
  const style = output.out;
  const lines: string[] = [];
  for (const file of files) {
    if (file.action === "refused") {
      lines.push(style.red(`# ${file.path}: refused - ${file.reason}`));
      continue;
    }
    if (file.note !== undefined) {
      lines.push(style.red(`# ${file.note}`));
      continue;
    }
    if (file.conflicts > 0) {
      lines.push(
        style.red(
          `# ${file.path}: ${plural(file.conflicts, "conflict")} - \`kiln update\` stops here; --conflicts=markers writes this`,
        ),
      );
    }
    for (const line of file.patch.replace(/\n$/, "").split("\n")) {
      if (line.startsWith("---") || line.startsWith("+++")) lines.push(style.bold(line));
      else if (line.startsWith("@@")) lines.push(style.yellow(line));
      else if (line.startsWith("+")) lines.push(style.green(line));
      else if (line.startsWith("-")) lines.push(style.red(line));
      else lines.push(line);
    }
  }
  for (const path of notInPreset ?? []) {
    lines.push(style.dim(`# ${path}: not written by the preset (left as it is)`));
  }
  if (lines.length > 0) output.verbatim(`${lines.map(shown).join("\n")}\n`);
  // which addresses were called goes to stderr: stdout stays the patch
  for (const line of urlLines(urls ?? [], output.err)) output.note(line);
  return endWith(status, refused);
}

/** The exit status, or - after the report - the error for the paths kiln refused to read. */
function endWith(status: number, refused: readonly FileDiff[]): number {
  if (refused.length > 0) {
    throw refusedPathsError(
      refused.map((file) => ({ path: file.path, reason: file.reason ?? "" })),
      "they are not compared",
    );
  }
  return status;
}
