// kiln update: brings upstream changes (a newer built-in, a changed URL or file item) and new
// values into the vendored files without losing the user's edits. Each component is rendered
// again with the newest item and its recorded values (changed only where the command says),
// and each file merged three ways (src/core/project/file-outcomes.ts): base = what kiln wrote last
// time (kept in kiln.lock), ours = the file on disk, theirs = the new render. Files and lock are
// written in one all-or-nothing run; a conflict stops the run before anything is written,
// unless --conflicts=markers or --ours/--theirs says how to settle it. --profile renders every
// component under another automation tool profile and records it in kiln.toml too, in the
// same write.

import { join } from "node:path";
import { LOCK_FILE, PROJECT_FILE } from "../../core/config.ts";
import { isAutomationProfile } from "../../core/context.ts";
import { KilnError } from "../../core/errors.ts";
import { MAX_EDIT_LINES } from "../../core/line-diff.ts";
import { checkPlannedPaths } from "../../core/plan.ts";
import { plural } from "../../core/plural.ts";
import { exactAddresses } from "../../core/project/component-address.ts";
import type { FileOutcome } from "../../core/project/file-outcomes.ts";
import type { ProjectConfig } from "../../core/project/kiln-toml.ts";
import { type Lock, type LockedComponent, serializeLock } from "../../core/project/lock-format.ts";
import type { ConflictResolution } from "../../core/project/merge.ts";
import { withAutomationProfile } from "../../core/project/profile-switch.ts";
import { mergeByStructure } from "../../core/project/structure-merge.ts";
import type { AutomationProfile } from "../../core/vocabulary.ts";
import { refuseNewerLock } from "../../node/lock-on-disk.ts";
import { refusedPathsError } from "../../node/project-files.ts";
import { MAX_PROJECT_FILE_BYTES, readRegularFile } from "../../node/read-regular-file.ts";
import { commit } from "../../node/write-commit.ts";
import {
  type FolderRemoval,
  outermost,
  planEmptiedFolders,
  planRemovals,
  planRun,
  type WriteGroup,
} from "../../node/write-plan.ts";
import { flag, type Parsed, stringOption, UsageError } from "../args.ts";
import { UPDATE } from "../command-list.ts";
import { fieldValues, labelValues } from "../fields.ts";
import { recoverInterruptedRun } from "../journal-notice.ts";
import {
  type Changes,
  type ComponentUpdate,
  findingsAfter,
  followedLines,
  outputFolderOf,
  planUpdates,
  readLockedProject,
  selectComponents,
  updatedEntry,
} from "../lifecycle.ts";
import {
  conflictError,
  discardedLines,
  discardedOf,
  unmergedError,
  updateJson,
} from "../merge-report.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { pinChangeOf } from "../registry-pins.ts";

export function help(): string {
  return commandHelp(UPDATE, {
    title: "bring upstream changes and new values into the vendored files, keeping your edits",
    about: `<component>... are components of ${LOCK_FILE} (all of them when none is given): a bare name
(\`api\`) every component of that name, \`deployment/api\` or \`k8s/deployment/api\` exactly one.
A field given goes only to the components whose item declares it; one none declares is an
error. --name renames one component and follows the links to it (a service's selector, an
ingress's service, a playbook's roles, a site's imports), listed after the summary;
--no-follow refuses such a rename instead.

Each component is rendered again with the newest item (this kiln's built-ins, the URL fetched
again, the file read again) and the values recorded in ${LOCK_FILE}, changed only by --set,
--label and the shortcut options (which need a name). Each file is merged three ways: what kiln wrote last time, the file on
disk, the new render: a YAML file by its mappings and lists, an INI file (an inventory, the
tool's config) by sections and keys, any other file line by line. An untouched file is replaced,
your edits elsewhere are kept, a file that moves (a new name) takes your edits along, a missing
file is written again.

Conflicts (you and the new render changed the same lines) are never silent: by default nothing
is written and each conflict is listed; --conflicts=markers writes git-style markers and
records the files as conflicted until you resolve them (and exits 1); --ours or --theirs takes
that side in each conflicting region and prints every hunk of the other side it dropped. A file too different to merge line by line (more than ${MAX_EDIT_LINES} lines
inserted and deleted on a side), or whose base in ${LOCK_FILE} cannot be used, stops the run;
--ours or --theirs then takes that side for the whole file. Files and ${LOCK_FILE} are written
all or nothing. Then the checks of \`kiln check\` run on the result; the findings that
involve a component the update changed, or that are new, are printed as warnings.

--profile ansible (or cm) switches the project's automation tool profile: every component is
rendered again under it, files whose names change move (cm.cfg -> ansible.cfg) with your edits,
and ${LOCK_FILE} and the automation_profile key of ${PROJECT_FILE} record it, in the same write.`,
    examples: [
      "kiln update",
      "kiln update --profile ansible",
      "kiln update api --image ghcr.io/acme/api:1.5",
      "kiln update deployment/api --name backend",
      "kiln update api --conflicts=markers",
      "kiln update --theirs",
    ],
  });
}

function resolutionOf(parsed: Parsed): ConflictResolution {
  const conflicts = stringOption(parsed, "conflicts");
  if (conflicts !== undefined && conflicts !== "markers" && conflicts !== "stop") {
    throw new UsageError(`--conflicts must be \`markers\` or \`stop\`, got \`${conflicts}\``);
  }
  const chosen = [
    ...(conflicts === "markers" ? ["markers" as const] : []),
    ...(flag(parsed, "ours") ? ["ours" as const] : []),
    ...(flag(parsed, "theirs") ? ["theirs" as const] : []),
  ];
  if (chosen.length > 1) {
    throw new UsageError("choose one of --conflicts=markers, --ours and --theirs");
  }
  return chosen[0] ?? "stop";
}

/**
 * The values the command changes; they need a component named (one, for a new name). `name` is
 * the component's name, not a field: `--set name=...` would be recorded and never rendered.
 */
function changesOf(parsed: Parsed, names: readonly string[]): Changes | undefined {
  const name = stringOption(parsed, "name");
  const changes = { name, fields: fieldValues(parsed), labels: labelValues(parsed) };
  if ("name" in changes.fields) {
    throw new UsageError(
      `name is the component's name, not a field: rename it with --name, e.g. kiln update ${names[0] ?? "api"} --name ${changes.fields.name}`,
    );
  }
  if (name === "") throw new UsageError("--name needs the component's new name");
  const given =
    name !== undefined ||
    Object.keys(changes.fields).length + Object.keys(changes.labels).length > 0;
  if (!given) return undefined;
  if (names.length === 0) {
    throw new UsageError(
      "--name, --set, --label and the shortcut options change one component: name it, e.g. kiln update api --image nginx:1.27",
    );
  }
  if (name !== undefined && names.length > 1) {
    throw new UsageError("--name renames one component: name just that one");
  }
  return changes;
}

/**
 * The profile --profile switches to. The profile is the project's: every component is rendered
 * under it, so the option takes no component names.
 */
function profileOf(parsed: Parsed, names: readonly string[]): AutomationProfile | undefined {
  const profile = stringOption(parsed, "profile");
  if (profile === undefined) return undefined;
  if (!isAutomationProfile(profile)) {
    throw new UsageError(`--profile must be \`cm\` or \`ansible\`, got \`${profile}\``);
  }
  if (names.length > 0) {
    throw new UsageError(
      `--profile switches every component of the project: run it without component names, e.g. kiln update --profile ${profile}`,
    );
  }
  return profile;
}

/**
 * kiln.toml after a switch to `profile`, only its automation_profile key rewritten; undefined
 * when it names that profile already.
 */
function projectFileFor(cwd: string, profile: AutomationProfile): string | undefined {
  const text = readRegularFile(join(cwd, PROJECT_FILE), PROJECT_FILE, MAX_PROJECT_FILE_BYTES);
  if (text === undefined) return undefined;
  const rewritten = withAutomationProfile(text, profile);
  return rewritten === text ? undefined : rewritten;
}

/**
 * A rename selects exactly one component (a bare name shared by several is refused with the
 * spelling of each), and the new name must not be another component's of the same item (their
 * files would collide).
 */
function checkRename(lock: Lock, names: readonly string[], changes: Changes | undefined): void {
  const newName = changes?.name;
  if (newName === undefined) return;
  const selected = selectComponents(lock, names);
  if (selected.length > 1) {
    const spellings = exactAddresses(selected, lock.components);
    throw new KilnError(
      "invalid_request",
      `\`${names[0]}\` names ${selected.length} components - --name renames one: name it as ${spellings.join(", ")}`,
      `e.g. kiln update ${spellings[0]} --name ${newName}`,
    );
  }
  for (const entry of selected.filter((old) => old.name !== newName)) {
    const taken = lock.components.find(
      (other) => other.name === newName && other.component === entry.component,
    );
    if (taken) {
      throw new KilnError(
        "invalid_request",
        `${LOCK_FILE} already has a ${entry.component} named \`${newName}\``,
        "choose another name, or `kiln remove` that component first",
      );
    }
  }
}

/** What to do about the conflicts that stopped an update. */
const UPDATE_CONFLICT_HINT =
  "run again with --conflicts=markers to write conflict markers, or --ours / --theirs to take one side; `kiln diff` shows the whole change";

const WORDS: Record<FileOutcome["action"], string> = {
  unchanged: "unchanged",
  replaced: "updated",
  kept: "kept",
  merged: "merged",
  conflict: "conflict",
  restored: "restored",
  added: "created",
  removed: "removed",
  released: "released",
  unmerged: "unmerged",
  refused: "refused",
};

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args: names } = parseCommand(argv, UPDATE);
  const resolution = resolutionOf(parsed);
  const profile = profileOf(parsed, names);
  const valueChanges = changesOf(parsed, names);
  const changes =
    profile === undefined
      ? valueChanges
      : { fields: {}, labels: {}, ...valueChanges, automationProfile: profile };
  const cwd = process.cwd();
  // a run killed part-way here is rolled back before anything is planned (journal.ts)
  recoverInterruptedRun(cwd, output);
  const project = readLockedProject(cwd);
  refuseNewerLock(project.lock, flag(parsed, "allow-older-kiln"));
  checkRename(project.lock, names, changes);
  const projectFile = profile === undefined ? undefined : projectFileFor(cwd, profile);
  const { updates, followed } = await planUpdates(project, names, {
    resolution,
    changes,
    mergeByStructure,
    follow: !flag(parsed, "no-follow"),
    pinChange: pinChangeOf(parsed, project.lock, names),
  });
  const outcomes = updates.flatMap((update) => update.outcomes);
  // a path that breaks the rules of a write was not read, and is not touched: nothing is
  const refused = outcomes.flatMap((outcome) =>
    outcome.action === "refused" ? [{ path: outcome.path, reason: outcome.reason ?? "" }] : [],
  );
  if (refused.length > 0) throw refusedPathsError(refused, "nothing was written");
  // every path the new renders give, also one that is only recorded and not written (a path
  // that moved onto a file already there): the rules of a write, kiln's own files among them
  for (const update of updates) checkPlannedPaths(update.files);
  const unmerged = outcomes.filter((outcome) => outcome.action === "unmerged");
  if (unmerged.length > 0) throw unmergedError(unmerged);
  const conflicted = outcomes.filter((outcome) => outcome.action === "conflict");
  if (conflicted.length > 0 && resolution === "stop")
    throw conflictError(conflicted, UPDATE_CONFLICT_HINT);

  // files kiln.lock records may be replaced; anything else in the way needs --force
  const recorded = new Set(
    project.lock.components.flatMap((entry) => entry.files.map((f) => f.path)),
  );
  // a file that moves is written at its new path even when its content stays the same (an
  // untouched or kept cm.cfg becomes ansible.cfg, a renamed role's tasks): its old path is
  // removed below
  const written = outcomes.filter(
    (outcome) =>
      outcome.content !== undefined &&
      (outcome.content !== outcome.before || outcome.from !== undefined),
  );
  const moved = new Set(outcomes.flatMap((outcome) => (outcome.from ? [outcome.from] : [])));
  const isKnown = (path: string) => recorded.has(path) && !moved.has(path);
  let lock: Lock = project.lock;
  const updatedEntries: LockedComponent[] = [];
  for (const update of updates) {
    const entry = updatedEntry(update);
    updatedEntries.push(entry);
    lock = {
      ...lock,
      components: lock.components.map((old) => (old === update.entry ? entry : old)),
    };
  }
  const files = (known: boolean) =>
    written
      .filter((outcome) => isKnown(outcome.path) === known)
      .map((outcome) => ({ path: outcome.path, content: outcome.content as string }));
  const groups: WriteGroup[] = [
    { root: cwd, files: files(true), project: cwd, force: true },
    { root: cwd, files: files(false), project: cwd },
    {
      root: cwd,
      files: [{ path: LOCK_FILE, content: serializeLock(lock) }],
      project: cwd,
      force: true,
      quiet: true,
      kilnOwn: true,
    },
    ...(projectFile === undefined
      ? []
      : [
          {
            root: cwd,
            files: [{ path: PROJECT_FILE, content: projectFile }],
            project: cwd,
            force: true,
            quiet: true,
            kilnOwn: true,
          },
        ]),
  ];
  const steps = planRun(groups, {
    force: flag(parsed, "force"),
    cwd,
    allowExecPaths: flag(parsed, "allow-exec-paths"),
    unchangedWithoutForce: true,
  });
  const writtenPaths = new Set(written.map((outcome) => outcome.path));
  const removals = planRemovals(
    cwd,
    outcomes.flatMap((outcome) => {
      if (outcome.action === "removed" && outcome.before !== undefined) return [outcome.path];
      if (outcome.from && outcome.before !== undefined && !writtenPaths.has(outcome.from)) {
        return [outcome.from];
      }
      return [];
    }),
    cwd,
  );
  // a renamed role's old folders, once its files moved out: removed as `kiln remove` does
  const emptied = planEmptiedFolders(
    cwd,
    removals,
    steps.map((step) => step.destination),
    outputFolderOf(cwd, project.config),
    cwd,
  );
  commit(steps, removals, cwd, emptied);
  if (flag(parsed, "json")) output.json(updateJson(updates, resolution));
  else {
    report(output, updates, resolution, outermost(emptied), flag(parsed, "verbose"));
    if (profile !== undefined) {
      output.line(
        `automation profile: \`${profile}\` - ${LOCK_FILE} and ${PROJECT_FILE} record it${projectFile === undefined ? ` (${PROJECT_FILE} said so already)` : ""}`,
      );
    }
    const [renamed] = selectComponents(project.lock, names);
    if (followed.length > 0 && renamed !== undefined && changes?.name !== undefined) {
      output.line(`followed the rename in ${plural(followed.length, "link")}:`);
      for (const line of followedLines(followed, renamed, changes.name)) output.line(`  ${line}`);
    }
    reportFindings(output, project.config, project.lock, lock, updatedEntries);
  }
  // like git merge: markers left in the files are work to finish, not a success
  const marked = resolution === "markers" ? conflicted : [];
  if (marked.length > 0) throw markersWrittenError(marked);
  return 0;
}

/** The error after an update that wrote conflict markers: the files to resolve. */
function markersWrittenError(marked: FileOutcome[]): KilnError {
  const count = marked.reduce((sum, outcome) => sum + outcome.conflicts.length, 0);
  return new KilnError(
    "invalid_request",
    `${plural(count, "conflict")} in ${plural(marked.length, "file")} written with markers - resolve them`,
    [
      ...marked.map((outcome) => outcome.path),
      "keep what you want between `<<<<<<< yours` and `>>>>>>> kiln update` and delete the marker lines; `kiln status` lists the files as conflicted until then",
    ].join("\n"),
  );
}

/**
 * The checks of `kiln check` on the project as the update left it: each finding that involves
 * a component it updated, or that the project before the update did not have (a service that
 * selected the relabelled deployment), is printed as a warning - what an update breaks is said
 * at once, and the files are written.
 */
function reportFindings(
  output: Output,
  config: ProjectConfig,
  before: Lock,
  after: Lock,
  updated: readonly LockedComponent[],
): void {
  const findings = findingsAfter(config, before, after, (finding) =>
    finding.components.some(({ index }) =>
      updated.includes(after.components[index] as LockedComponent),
    ),
  );
  for (const finding of findings) {
    output.line(output.out.yellow(`warning[${finding.rule}] ${finding.message}`));
  }
}

/** What the report says after a file's path: how its conflicts were settled, why it was left. */
function noteOf(
  outcome: FileOutcome,
  resolution: ConflictResolution,
  style: Output["out"],
): string {
  const side = resolution === "ours" ? "your" : "the new";
  if (outcome.action === "conflict" && outcome.unmerged) {
    const why =
      outcome.unmerged.reason === "too-different"
        ? "too different to merge"
        : `its base in ${LOCK_FILE} refused`;
    return `  (${why}: ${resolution === "ours" ? "your file kept" : "the new render taken"} whole)`;
  }
  if (outcome.action === "conflict" && resolution === "markers") {
    return `  ${style.red(`(${plural(outcome.conflicts.length, "conflict")}: markers written - resolve them)`)}`;
  }
  if (outcome.action === "conflict") {
    return `  (${plural(outcome.conflicts.length, "conflict")} settled with ${side} lines)`;
  }
  if (outcome.action === "released") {
    return `  ${style.yellow("(edited, no longer written by the item: left in place, no longer recorded)")}`;
  }
  return "";
}

/**
 * A file the update leaves as it is on disk: unchanged, or edited and kept (the new render
 * changes nothing in it), at the same path. The report counts it and lists it only with -v.
 */
function leftAsItIs(outcome: FileOutcome): boolean {
  return (
    (outcome.action === "unchanged" || outcome.action === "kept") && outcome.from === undefined
  );
}

/**
 * One line per file the update changed (with `verbose`, per file), the folders it emptied, and
 * a summary counting every file - so a run that changed nothing is that one line.
 */
function report(
  output: Output,
  updates: ComponentUpdate[],
  resolution: ConflictResolution,
  emptied: readonly FolderRemoval[],
  verbose: boolean,
): void {
  const style = output.out;
  const counts = new Map<string, number>();
  for (const update of updates) {
    for (const outcome of update.outcomes) {
      // a file that only changes its name (cm.cfg -> ansible.cfg) is moved, not unchanged
      const word =
        outcome.action === "unchanged" && outcome.from !== undefined
          ? "moved"
          : WORDS[outcome.action];
      counts.set(word, (counts.get(word) ?? 0) + 1);
      if (!verbose && leftAsItIs(outcome)) continue;
      const colour =
        outcome.action === "conflict"
          ? style.red
          : outcome.action === "unchanged" || outcome.action === "kept"
            ? style.dim
            : outcome.action === "released"
              ? style.yellow
              : style.green;
      const where = outcome.from
        ? `${output.path(outcome.from)} -> ${output.path(outcome.path)}`
        : output.path(outcome.path);
      const note = noteOf(outcome, resolution, style);
      output.line(`${colour(word.padEnd(9))} ${where}${note}`);
      // a side taken drops the other's hunks: each is named, never lost without a word
      for (const line of discardedLines(discardedOf(outcome, resolution))) output.line(line);
    }
  }
  for (const folder of emptied)
    output.line(`${style.yellow("removed".padEnd(9))} ${output.path(folder.display)}`);
  const summary = [...counts].map(([word, count]) => `${count} ${word}`).join(", ");
  output.line(
    `updated ${plural(updates.length, "component")}: ${summary || "no files"} - ${LOCK_FILE} records the new state`,
  );
}
