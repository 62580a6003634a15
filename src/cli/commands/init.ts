// kiln init: writes kiln.toml and creates the output folder.
import { mkdirSync, realpathSync, statSync } from "node:fs";
import { basename, resolve, sep } from "node:path";
import {
  DEFAULT_NAMESPACE,
  DEFAULT_OUTPUT_DIR,
  DEFAULT_PROJECT_NAME,
  PROJECT_FILE,
} from "../../core/config.ts";
import { KilnError } from "../../core/errors.ts";
import { checkOutputFolder } from "../../core/plan.ts";
import { serializeProjectConfig } from "../../core/project/kiln-toml.ts";
import { isFolderInsideProject } from "../../node/project-config.ts";
import { commit } from "../../node/write-commit.ts";
import { planRun, realPathOf } from "../../node/write-plan.ts";
import { flag, stringOption, UsageError } from "../args.ts";
import { INIT } from "../command-list.ts";
import { recoverInterruptedRun } from "../journal-notice.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { findProjectRoot } from "../project-root.ts";

export function help(): string {
  return commandHelp(INIT, {
    title: "start a kiln project in the current folder",
    about: `Writes ${PROJECT_FILE} (project name, default namespace, output folder) and creates the
output folder. \`kiln add\` reads ${PROJECT_FILE}.

Inside a folder of an existing project (a ${PROJECT_FILE} in a folder above) init refuses and
names that project: every project command run below it already works on it. --nested creates a
separate project here on purpose; commands run in or below this folder then work on the new one.`,
    examples: [
      "kiln init",
      "kiln init --name shop --dir deploy --namespace shop",
      "kiln init --nested  # a project of its own inside another",
    ],
  });
}

export function defaultProjectName(cwd: string): string {
  return basename(cwd) || DEFAULT_PROJECT_NAME;
}

/**
 * A project inside a project is rarely meant: the commands below the inner kiln.toml stop
 * working on the outer project. Made only when asked for (--nested).
 */
function refuseNesting(cwd: string): void {
  const root = findProjectRoot(cwd, "pass");
  if (root === undefined || root === resolve(cwd)) return;
  throw new KilnError(
    "invalid_request",
    `refusing to create a project inside the project in ${root} - kiln commands run here already work on it`,
    `run the command you meant here (kiln add, status, ...), or \`kiln init --nested\` to create a separate project in this folder`,
  );
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed } = parseCommand(argv, INIT);
  const cwd = process.cwd();
  if (!flag(parsed, "nested")) refuseNesting(cwd);
  // a run killed part-way here is rolled back before anything is planned (journal.ts)
  recoverInterruptedRun(cwd, output);
  const outputDir = stringOption(parsed, "dir") ?? DEFAULT_OUTPUT_DIR;
  if (outputDir === "" || !isFolderInsideProject(outputDir)) {
    throw new UsageError(`--dir must be a folder inside the project, got \`${outputDir}\``);
  }
  const config = {
    name: stringOption(parsed, "name") ?? defaultProjectName(cwd),
    defaultNamespace: stringOption(parsed, "namespace") ?? DEFAULT_NAMESPACE,
    outputDir,
  };
  checkOutputFolder(outputDir); // never .git, in any spelling
  const folder = resolve(cwd, outputDir);
  const projectReal = realpathSync(cwd);
  const folderReal = realPathOf(folder);
  if (folderReal !== projectReal && !folderReal.startsWith(projectReal + sep)) {
    throw new KilnError(
      "invalid_request",
      `refusing to create the output folder \`${outputDir}\` - a symbolic link on the way leads outside the project`,
      "pass a folder inside the project with --dir, or replace the link with a folder",
    );
  }
  if (statSync(folder, { throwIfNoEntry: false })?.isDirectory() === false) {
    throw new KilnError(
      "invalid_request",
      `cannot create the output folder \`${outputDir}\` - a file of that name is in the way`,
      "pass another folder with --dir, or move that file",
    );
  }
  const steps = planRun(
    [
      {
        root: cwd,
        files: [{ path: PROJECT_FILE, content: serializeProjectConfig(config) }],
        kilnOwn: true,
      },
    ],
    { force: flag(parsed, "force"), cwd },
  );
  commit(steps);
  mkdirSync(folder, { recursive: true });
  const verb = steps[0]?.status === "new" ? "created" : "updated";
  output.line(
    `${verb} ${PROJECT_FILE}: project ${config.name}, namespace ${config.defaultNamespace}, files go to ${outputDir}/`,
  );
  output.line("next: `kiln list` to see the components, then `kiln add <reference> --name <name>`");
  return 0;
}
