// kiln preset export: the project's components (kiln.lock) and settings (kiln.toml) written
// back as a preset manifest, so `kiln setup` of it rebuilds the project elsewhere. To stdout, or
// with --output to a file, written as every file kiln writes (all or nothing, path rules).
import { DEFAULT_AUTOMATION_PROFILE } from "../../core/context.ts";
import type { Preset } from "../../core/project/preset.ts";
import { serializePreset } from "../../core/project/preset.ts";
import { flag, stringOption, UsageError } from "../args.ts";
import { PRESET } from "../command-list.ts";
import { type LockedProject, readLockedProject } from "../lifecycle.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { reportSteps } from "../report.ts";
import { commit } from "../write-commit.ts";
import { planRun } from "../write-plan.ts";

export function help(): string {
  return commandHelp(PRESET, {
    title: "write the project back as a preset manifest",
    about: `\`kiln preset export\` turns the components of kiln.lock (references, names, fields, labels) and
the settings of kiln.toml (name, namespace, output folder, automation profile) into a
.preset.json manifest: \`kiln setup\` of it writes the same files. Printed to stdout, or written
to --output (an existing file needs --force).`,
    examples: [
      "kiln preset export",
      "kiln preset export --output shop.preset.json",
      "kiln preset export > shop.preset.json && kiln check ./shop.preset.json",
    ],
  });
}

/** The preset of a project: kiln.toml's settings and kiln.lock's components, in lock order. */
function projectPreset(project: LockedProject): Preset {
  const { config, lock } = project;
  const profile = config.automationProfile ?? DEFAULT_AUTOMATION_PROFILE;
  return {
    name: config.name,
    title: "",
    description: "",
    project: {
      name: config.name,
      namespace: config.defaultNamespace,
      outputDir: config.outputDir,
      automationProfile: profile === DEFAULT_AUTOMATION_PROFILE ? undefined : profile,
    },
    components: lock.components.map((entry) => ({
      reference: entry.reference,
      name: entry.name,
      // a component rendered in another namespace than the project's keeps it as a field
      fields:
        entry.namespace === config.defaultNamespace || entry.fields.namespace !== undefined
          ? entry.fields
          : { ...entry.fields, namespace: entry.namespace },
      labels: entry.labels,
    })),
  };
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, PRESET);
  const [action] = args as [string];
  if (action !== "export") {
    throw new UsageError(`unknown action \`${action}\` - kiln preset export is the only one`);
  }
  const cwd = process.cwd();
  const text = serializePreset(projectPreset(readLockedProject(cwd)));
  const target = stringOption(parsed, "output");
  if (target === undefined || target === "-") {
    output.verbatim(text);
    return 0;
  }
  if (target === "") throw new UsageError("--output needs a file");
  const steps = planRun([{ root: cwd, files: [{ path: target, content: text }], project: cwd }], {
    force: flag(parsed, "force"),
    cwd,
    unchangedWithoutForce: true,
  });
  commit(steps);
  reportSteps(output, steps, false);
  return 0;
}
