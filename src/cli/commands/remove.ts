// kiln remove: deletes a component's files and its kiln.lock entry, in one all-or-nothing run.
// A file edited since kiln wrote it is refused unless --force: it holds work kiln cannot give
// back. A file already gone is fine.

import { KilnError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/lock-codec.ts";
import { LOCK_FILE, serializeLock, withoutComponents } from "../../core/project/lock.ts";
import { flag } from "../args.ts";
import { REMOVE } from "../command-list.ts";
import { rollBackInterruptedRun } from "../journal.ts";
import { diskReader, readLockedProject, selectComponents } from "../lifecycle.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { plural } from "../report.ts";
import { commit } from "../write-commit.ts";
import { planRemovals, planRun } from "../write-plan.ts";

export function help(): string {
  return commandHelp(REMOVE, {
    title: "delete a component's files and its kiln.lock entry",
    about: `Removes every component of ${LOCK_FILE} named <name> (a deployment and a service may share one):
their files and their entries, in one all-or-nothing run. A file you edited since kiln wrote
it is refused unless --force; a file already gone is fine.`,
    examples: ["kiln remove api", "kiln remove api --force"],
  });
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, REMOVE);
  const [name] = args as [string];
  const cwd = process.cwd();
  // a run killed part-way here is rolled back before anything is planned (journal.ts)
  rollBackInterruptedRun(cwd, output);
  const project = readLockedProject(cwd);
  const selected = selectComponents(project.lock, [name]);
  const disk = diskReader(cwd);
  const files = selected.flatMap((entry) => entry.files);
  const edited = files.filter((file) => {
    const content = disk(file.path);
    return content !== undefined && sha256Hex(content) !== file.sha256;
  });
  if (edited.length > 0 && !flag(parsed, "force")) {
    throw new KilnError(
      "invalid_request",
      `${edited.map((file) => file.path).join(", ")} ${edited.length === 1 ? "was" : "were"} edited since kiln wrote ${edited.length === 1 ? "it" : "them"} - pass --force to remove ${edited.length === 1 ? "it" : "them"} anyway`,
      "`kiln diff` and `git diff` show the edits; nothing was removed",
    );
  }
  const removals = planRemovals(
    cwd,
    files.filter((file) => disk(file.path) !== undefined).map((file) => file.path),
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
  commit(steps, removals);
  const style = output.out;
  for (const removal of removals)
    output.line(`${style.yellow("removed".padEnd(9))} ${removal.display}`);
  output.line(
    `removed ${name}: ${plural(removals.length, "file")} - ${LOCK_FILE} no longer records ${selected.length === 1 ? "it" : `its ${selected.length} components`}`,
  );
  return 0;
}
