// kiln add: renders one component into the project's output folder (from kiln.toml).
import { resolve } from "node:path";
import { projectFileError } from "../../core/project/kiln-toml.ts";
import { FIELD_SHORTCUTS, shortcutMax } from "../../core/project/shortcuts.ts";
import {
  flag,
  keyValues,
  listOption,
  type Parsed,
  parse,
  positionals,
  stringOption,
  UsageError,
  wholeNumber,
} from "../args.ts";
import type { Output } from "../output.ts";
import { isFolderInsideProject, readProject } from "../project.ts";
import { renderComponent } from "../render-component.ts";
import { reportDryRun, reportSteps } from "../report.ts";
import { commit } from "../write-commit.ts";
import { planRun } from "../write-plan.ts";

export const help = `kiln add - render one component into the project's output folder

Usage: kiln add <reference> --name <name> [options]

<reference> is a built-in component (\`kiln list\`), a URL or a path to a registry-item JSON
file. Files go to the output folder named in kiln.toml (run \`kiln init\` first).

Options:
  --name <name>              the component's name (used in file names and manifests)
  --set <field>=<value>      set any field; repeatable; split on the first \`=\`
  --label <key>=<value>      add a label (\`app\` defaults to the name); repeatable
  --image <image>            shortcut for --set image=<image>
  --replicas <n>             shortcut for --set replicas=<n>
  --port <port>              shortcut for --set port=<port>
  --target-port <port>       shortcut for --set target_port=<port>
  --namespace <namespace>    shortcut for --set namespace=<namespace>
                             (default: default_namespace of kiln.toml)
  --host <host>              shortcut for --set host=<host>
  --path <path>              shortcut for --set path=<path>
  --service <service>        shortcut for --set service=<service>
  --force                    overwrite files that already exist
  --dry-run                  show each file as new, overwrite or unchanged; write nothing
  --allow-exec-paths         also write files other tools run or load as code (each is named)
  -h, --help                 show this help

--set wins over a shortcut that sets the same field.

Never writes in .git, outside the project (also not through a symbolic link), or over anything
but a regular file. Files other tools run or load as code (.envrc, .vscode/,
.github/workflows/, shell start-up files, ... - see docs/cli.md) are refused unless you pass
--allow-exec-paths.

Examples:
  kiln add k8s/deployment --name web --image nginx:1.27 --replicas 3
  kiln add k8s/service --name web --port 80 --target-port 8080
  kiln add automation/inventory --name prod --set 'hosts=[{"group":"web","members":[{"name":"web1","cm_host":"10.0.0.5"}]}]'
  kiln add ./my-component.json --name thing --dry-run
`;

/** Shortcut options and the field each sets (the core's table, shared with the HTTP API). */
const SHORTCUTS = FIELD_SHORTCUTS;

/** Shortcut options first, then `--set`, so `--set` wins; numbers are checked like the API's. */
export function fieldValues(parsed: Parsed): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const shortcut of SHORTCUTS) {
    const value = stringOption(parsed, shortcut.option);
    if (value === undefined) continue;
    const max = shortcutMax(shortcut);
    fields[shortcut.field] =
      max === undefined ? value : wholeNumber(value, `--${shortcut.option}`, max);
  }
  return { ...fields, ...keyValues(listOption(parsed, "set"), "--set") };
}

export async function run(argv: string[], output: Output): Promise<number> {
  const parsed = parse(argv, {
    name: { type: "string" },
    set: { type: "string", multiple: true },
    label: { type: "string", multiple: true },
    force: { type: "boolean" },
    "dry-run": { type: "boolean" },
    "allow-exec-paths": { type: "boolean" },
    ...Object.fromEntries(SHORTCUTS.map(({ option }) => [option, { type: "string" as const }])),
  });
  const [reference] = positionals(parsed, ["reference"]) as [string];
  const name = stringOption(parsed, "name");
  if (name === undefined || name === "") {
    throw new UsageError(`missing --name <name> - e.g. kiln add ${reference} --name web`);
  }
  const fields = fieldValues(parsed);
  const labels = keyValues(listOption(parsed, "label"), "--label");

  const cwd = process.cwd();
  const project = readProject(cwd);
  if (!isFolderInsideProject(project.outputDir)) {
    throw projectFileError(
      `: output_dir \`${project.outputDir}\` must be a folder inside the project`,
    );
  }
  // built-ins render here; items from files and URLs in a worker, within time and memory limits
  const result = await renderComponent(cwd, reference, {
    name,
    fields,
    labels,
    defaultNamespace: project.defaultNamespace,
    automationProfile: project.automationProfile,
  });
  const steps = planRun(
    [{ root: resolve(cwd, project.outputDir), files: result.files, project: cwd }],
    { force: flag(parsed, "force"), cwd, allowExecPaths: flag(parsed, "allow-exec-paths") },
  );
  const dryRun = flag(parsed, "dry-run");
  if (!dryRun) commit(steps);
  reportSteps(output, steps, dryRun);
  if (dryRun) reportDryRun(output, steps);
  return 0;
}
