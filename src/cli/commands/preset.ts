// kiln preset export: the project's components (kiln.lock) and settings (kiln.toml) written
// back as a preset manifest, so `kiln setup` of it rebuilds the project elsewhere. To stdout, or
// with --output to a file, written as every file kiln writes (all or nothing, path rules).
import { isAbsolute, relative, resolve, sep } from "node:path";
import { KilnError } from "../../core/errors.ts";
import { escapeRefusal } from "../../core/plan.ts";
import { presetFromLock } from "../../core/project/preset-from-lock.ts";
import { serializePreset } from "../../core/project/preset-manifest.ts";
import { commit } from "../../node/write-commit.ts";
import { planRun } from "../../node/write-plan.ts";
import { flag, stringOption, UsageError } from "../args.ts";
import { PRESET } from "../command-list.ts";
import { noteInterruptedRun, recoverInterruptedRun } from "../journal-notice.ts";
import { readLockedProject } from "../lifecycle.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { reportSteps } from "../report.ts";

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

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, PRESET);
  const [action] = args as [string];
  if (action !== "export") {
    throw new UsageError(`unknown action \`${action}\` - kiln preset export is the only one`);
  }
  const cwd = process.cwd();
  const typedTarget = stringOption(parsed, "output");
  const target =
    typedTarget === undefined || typedTarget === "-" ? typedTarget : output.typed(typedTarget);
  if (target === "") throw new UsageError("--output needs a file");
  const writes = target !== undefined && target !== "-";
  // writing a file rolls back a run killed part-way here first; printing only says it is there
  if (writes) recoverInterruptedRun(cwd, output);
  else noteInterruptedRun(cwd, output);
  const { config, lock } = readLockedProject(cwd);
  const text = serializePreset(presetFromLock(lock, config));
  if (!writes) {
    output.content(text);
    return 0;
  }
  refuseOutsideProject(cwd, target, typedTarget as string);
  const steps = planRun([{ root: cwd, files: [{ path: target, content: text }], project: cwd }], {
    force: flag(parsed, "force"),
    cwd,
    unchangedWithoutForce: true,
  });
  commit(steps);
  reportSteps(output, steps, false, [], new Map(), true);
  return 0;
}

/**
 * `--output` is written with the rules of every write, inside the project only: a path that
 * leads out of it is refused before anything is planned, saying that stdout goes anywhere.
 */
function refuseOutsideProject(cwd: string, target: string, typed: string): void {
  const inside = relative(cwd, resolve(cwd, target));
  if (inside !== ".." && !inside.startsWith(`..${sep}`) && !isAbsolute(inside)) return;
  throw new KilnError(
    "invalid_request",
    escapeRefusal(typed).message,
    `--output writes only inside the project; the manifest goes to stdout without it: \`kiln preset export > ${typed}\``,
  );
}
