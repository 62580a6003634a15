// kiln completion: prints a completion script for bash, zsh or fish, generated from the
// commands' declarations (command-list.ts), the built-in registry's index and the preset list.
import { builtinPresets } from "../../node/builtin-presets.ts";
import { builtinRegistry } from "../../node/builtin-registry.ts";
import { readVersion } from "../../node/version.ts";
import { UsageError } from "../args.ts";
import { COMMAND_LIST, COMPLETION, SHELLS } from "../command-list.ts";
import { bashScript, type CompletionModel, fishScript, zshScript } from "../completion-scripts.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";

export function help(): string {
  return commandHelp(COMPLETION, {
    title: "print a shell completion script",
    about: `<shell> is ${SHELLS.slice(0, -1).join(", ")} or ${SHELLS.at(-1)}. The script completes the commands and their options, the
built-in components and preset templates this kiln knows, and JSON files for references and
presets. Generate it again after updating kiln.

Install:
  bash  kiln completion bash > ~/.local/share/bash-completion/completions/kiln
        (or for this shell only: source <(kiln completion bash))
  zsh   kiln completion zsh > "\${fpath[1]}/_kiln", then start a new shell
        (or, after compinit: source <(kiln completion zsh))
  fish  kiln completion fish > ~/.config/fish/completions/kiln.fish`,
    examples: [
      "kiln completion bash > ~/.local/share/bash-completion/completions/kiln",
      "kiln completion zsh > ~/.zfunc/_kiln",
      "kiln completion fish | source",
    ],
  });
}

/** A generator for each shell the declaration names (the type makes sure none is missing). */
const SCRIPTS: Record<(typeof SHELLS)[number], (model: CompletionModel) => string> = {
  bash: bashScript,
  zsh: zshScript,
  fish: fishScript,
};

export async function run(argv: string[], output: Output): Promise<number> {
  const { args } = parseCommand(argv, COMPLETION);
  const [shell] = args as [string];
  const known = SHELLS.find((name) => name === shell);
  if (!known) {
    throw new UsageError(
      `unknown shell \`${shell}\` - kiln completes ${SHELLS.slice(0, -1).join(", ")} and ${SHELLS.at(-1)}`,
    );
  }
  const model: CompletionModel = {
    version: readVersion(),
    commands: COMMAND_LIST,
    components: builtinRegistry().references(),
    presets: builtinPresets().map((preset) => preset.name),
  };
  output.verbatim(SCRIPTS[known](model));
  return 0;
}
