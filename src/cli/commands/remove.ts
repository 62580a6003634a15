// kiln remove: deletes a component's files and its kiln.lock entry, in one all-or-nothing run.
// A file edited since kiln wrote it is refused unless --force: it holds work kiln cannot give
// back. A file already gone is fine. The folders its removals leave empty go in the same run
// (never the output folder, never one holding any other file), and what still refers to a
// removed component (a playbook using a removed role) is warned about with the fixing command. A path that breaks the rules of a write (kiln.lock is
// edited in pull requests; a file may be a link that leads out) stops the run before any file
// is read: nothing is hashed or removed.

import { LOCK_FILE } from "../../core/config.ts";
import { KilnError } from "../../core/errors.ts";
import { plural } from "../../core/plural.ts";
import { serializeLock, withoutComponents } from "../../core/project/lock-format.ts";
import { sha256Hex } from "../../node/lock-compression.ts";
import { refuseNewerLock } from "../../node/lock-on-disk.ts";
import { ProjectFiles, refusedPathsError } from "../../node/project-files.ts";
import { commit } from "../../node/write-commit.ts";
import { outermost, planEmptiedFolders, planRemovals, planRun } from "../../node/write-plan.ts";
import { flag } from "../args.ts";
import { REMOVE } from "../command-list.ts";
import { recoverInterruptedRun } from "../journal-notice.ts";
import {
  outputFolderOf,
  readLockedProject,
  reportBrokenReferences,
  reportRemovedDependencies,
  selectComponents,
} from "../lifecycle.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";

export function help(): string {
  return commandHelp(REMOVE, {
    title: "delete a component's files and its kiln.lock entry",
    about: `Removes every component of ${LOCK_FILE} named <component> (a deployment and a service may share
a name; \`service/api\` or \`k8s/service/api\` names exactly one): their files and their
entries, in one all-or-nothing run. A file you edited since kiln wrote
it is refused unless --force; a file already gone is fine.`,
    examples: ["kiln remove api", "kiln remove service/api", "kiln remove api --force"],
  });
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, REMOVE);
  const [name] = args as [string];
  const cwd = process.cwd();
  // a run killed part-way here is rolled back before anything is planned (journal.ts)
  recoverInterruptedRun(cwd, output);
  const project = readLockedProject(cwd);
  refuseNewerLock(project.lock, flag(parsed, "allow-older-kiln"));
  const selected = selectComponents(project.lock, [name]);
  const disk = new ProjectFiles(cwd);
  const files = selected.flatMap((entry) => entry.files);
  // a path that breaks the rules of a write is neither hashed nor removed: nothing is
  const refused = files.flatMap((file) => {
    const reason = disk.refusal(file.path);
    return reason === undefined ? [] : [{ path: file.path, reason }];
  });
  if (refused.length > 0) throw refusedPathsError(refused, "nothing was removed");
  const edited = files.filter((file) => {
    const content = disk.read(file.path);
    return content !== undefined && sha256Hex(content) !== file.sha256;
  });
  if (edited.length > 0 && !flag(parsed, "force")) {
    throw new KilnError(
      "invalid_request",
      `${edited.map((file) => file.path).join(", ")} ${edited.length === 1 ? "was" : "were"} edited since kiln wrote ${edited.length === 1 ? "it" : "them"} - pass --force to remove ${edited.length === 1 ? "it" : "them"} anyway`,
      "`git diff` shows the edits (`kiln diff` shows what an update would change); nothing was removed",
    );
  }
  const removals = planRemovals(
    cwd,
    files.filter((file) => disk.read(file.path) !== undefined).map((file) => file.path),
    cwd,
  );
  const lock = withoutComponents(project.lock, (entry) => selected.includes(entry));
  const steps = planRun(
    [
      {
        root: cwd,
        files: [{ path: LOCK_FILE, content: serializeLock(lock) }],
        project: cwd,
        force: true,
        quiet: true,
        kilnOwn: true,
      },
    ],
    { force: true, cwd },
  );
  const emptied = planEmptiedFolders(
    cwd,
    removals,
    steps.map((step) => step.destination),
    outputFolderOf(cwd, project.config),
    cwd,
  );
  commit(steps, removals, cwd, emptied);
  output.recorder?.removed(removals.map((removal) => removal.display));
  const style = output.out;
  for (const removal of removals)
    output.line(`${style.yellow("removed".padEnd(9))} ${output.path(removal.display)}`);
  for (const folder of outermost(emptied))
    output.line(`${style.yellow("removed".padEnd(9))} ${output.path(folder.display)}`);
  const folders = emptied.length === 0 ? "" : ` and ${plural(emptied.length, "empty folder")}`;
  output.line(
    `removed ${name}: ${plural(removals.length, "file")}${folders} - ${LOCK_FILE} no longer records ${selected.length === 1 ? "it" : `its ${selected.length} components`}`,
  );
  reportBrokenReferences(output, project.config, project.lock, lock, selected);
  reportRemovedDependencies(output, project.config, lock, selected);
  return 0;
}
