// kiln add: renders one component into the project's output folder (from kiln.toml).
import { resolve } from "node:path";
import { LOCK_FILE } from "../../core/config.ts";
import { referenceOf } from "../../core/item.ts";
import { projectFileError } from "../../core/project/kiln-toml.ts";
import { pathInside } from "../../core/project/layout.ts";
import {
  emptyLock,
  recordComponent,
  sameComponent,
  serializeLock,
} from "../../core/project/lock-format.ts";
import { lockEntry, readLock } from "../../node/lock-on-disk.ts";
import { isFolderInsideProject, readProject } from "../../node/project-config.ts";
import { commit } from "../../node/write-commit.ts";
import { planRun } from "../../node/write-plan.ts";
import { flag, stringOption, UsageError } from "../args.ts";
import { ADD } from "../command-list.ts";
import { fieldValues, labelValues } from "../fields.ts";
import { recoverInterruptedRun } from "../journal-notice.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { renderComponent } from "../render-component.ts";
import { reportDryRun, reportSteps } from "../report.ts";

export function help(): string {
  return commandHelp(ADD, {
    title: "render one component into the project's output folder",
    about: `<reference> is a built-in component (\`kiln list\`), a URL or a path to a registry-item JSON
file. Files go to the output folder named in kiln.toml (run \`kiln init\` first).`,
    notes: `--set wins over a shortcut that sets the same field.

Never writes in .git, outside the project (also not through a symbolic link), or over anything
but a regular file. Files other tools run or load as code (.envrc, .vscode/,
.github/workflows/, shell start-up files, ... - see docs/cli.md) are refused unless you pass
--allow-exec-paths.`,
    examples: [
      "kiln add k8s/deployment --name web --image nginx:1.27 --replicas 3",
      "kiln add k8s/service --name web --port 80 --target-port 8080",
      `kiln add automation/inventory --name prod --set 'hosts=[{"group":"web","members":[{"name":"web1","cm_host":"10.0.0.5"}]}]'`,
      "kiln add ./my-component.json --name thing --dry-run",
    ],
  });
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, ADD);
  const [reference] = args as [string];
  const name = stringOption(parsed, "name");
  if (name === undefined || name === "") {
    throw new UsageError(`missing --name <name> - e.g. kiln add ${reference} --name web`);
  }
  const fields = fieldValues(parsed);
  const labels = labelValues(parsed);

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
  const input = {
    name,
    fields,
    labels,
    defaultNamespace: project.defaultNamespace,
    automationProfile: project.automationProfile,
  };
  // built-ins render here; items from files and URLs in a worker, within time and memory limits
  const result = await renderComponent(cwd, reference, input);
  // the lock records the component with the files, in the same all-or-nothing write
  const component = { name, component: referenceOf(result.item) };
  const entry = lockEntry(
    {
      reference,
      item: result.item,
      builtin: result.builtin,
      input,
      files: result.files.map((file) => ({
        path: pathInside(project.outputDir, file.path),
        content: file.content,
      })),
    },
    lock.components.find((old) => sameComponent(old, component)),
  );
  const steps = planRun(
    [
      { root: resolve(cwd, project.outputDir), files: result.files, project: cwd },
      {
        root: cwd,
        files: [{ path: LOCK_FILE, content: serializeLock(recordComponent(lock, entry)) }],
        project: cwd,
        force: true,
        quiet: true,
        kilnOwn: true,
      },
    ],
    { force: flag(parsed, "force"), cwd, allowExecPaths: flag(parsed, "allow-exec-paths") },
  );
  const dryRun = flag(parsed, "dry-run");
  if (!dryRun) commit(steps);
  reportSteps(output, steps, dryRun);
  if (dryRun) reportDryRun(output, steps);
  return 0;
}
