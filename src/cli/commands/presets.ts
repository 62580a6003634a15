// kiln presets: the built-in preset templates, for people or (--json) as GET /api/presets.

import { plural } from "../../core/plural.ts";
import { presetSummary } from "../../core/project/preset-manifest.ts";
import { builtinPresets } from "../../node/builtin-presets.ts";
import { flag } from "../args.ts";
import { PRESETS_COMMAND } from "../command-list.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";

export function help(): string {
  return commandHelp(PRESETS_COMMAND, {
    title: "show the built-in preset templates",
    examples: ["kiln presets", "kiln presets --json | jq -r '.presets[].name'"],
  });
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed } = parseCommand(argv, PRESETS_COMMAND);
  const presets = builtinPresets().map(presetSummary);
  if (flag(parsed, "json")) {
    output.json({ presets });
    return 0;
  }
  const style = output.out;
  const width = Math.max(0, ...presets.map((preset) => preset.name.length));
  for (const preset of presets) {
    output.line(
      `${style.bold(preset.name.padEnd(width))}  ${preset.title} (${plural(preset.componentCount, "component")})`,
    );
    if (preset.description) output.line(`${" ".repeat(width)}  ${style.dim(preset.description)}`);
  }
  output.line();
  output.line("start a project: kiln setup <name>   add the files to a folder: kiln apply <name>");
  return 0;
}
