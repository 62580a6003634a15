// kiln completion: prints a completion script for bash, zsh or fish, generated from the
// commands' declarations (command-list.ts), the built-in registry's index and the preset list.
import { builtinPresets } from "../../core/preset.ts";
import { builtinRegistry } from "../../core/registry.ts";
import { readVersion } from "../../core/version.ts";
import { UsageError } from "../args.ts";
import { COMMAND_LIST, COMPLETION, SERVE, SHELLS } from "../command-list.ts";
import { bashScript, type CompletionModel, fishScript, zshScript } from "../completion.ts";
import { type CommandDecl, commandHelp, type OptionDecl, parseCommand } from "../options.ts";
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

interface ServeModule {
  SERVE_USAGE: string;
}

/**
 * `kiln serve`'s options, read from the server's own usage text (its one source for them).
 * Without the server in this build, serve completes `--help` alone.
 */
async function serveOptions(): Promise<OptionDecl[]> {
  let usage: string;
  try {
    usage = ((await import("../../server/serve-command.ts")) as ServeModule).SERVE_USAGE;
  } catch {
    return [];
  }
  // `  --name <value>   description`, continued on more deeply indented lines
  const options: OptionDecl[] = [];
  const entries = usage.matchAll(
    /^ {2}(?:-\w, )?--([\w-]+)(?: (<[^>]+>))? {2,}(.+(?:\n {5,}.+)*)/gm,
  );
  for (const [, name = "", value, text = ""] of entries) {
    if (name === "help") continue;
    const description = text.replace(/\s+/g, " ").trim();
    options.push({
      name,
      type: value ? "string" : "boolean",
      ...(value ? { value } : {}),
      ...(description.includes("repeatable") ? { multiple: true } : {}),
      description,
    });
  }
  return options;
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { args } = parseCommand(argv, COMPLETION);
  const [shell] = args as [string];
  const known = SHELLS.find((name) => name === shell);
  if (!known) {
    throw new UsageError(
      `unknown shell \`${shell}\` - kiln completes ${SHELLS.slice(0, -1).join(", ")} and ${SHELLS.at(-1)}`,
    );
  }
  const serve = await serveOptions();
  const commands = COMMAND_LIST.map(
    (command): CommandDecl => (command === SERVE ? { ...command, options: serve } : command),
  );
  const model: CompletionModel = {
    version: readVersion(),
    commands,
    components: builtinRegistry().references(),
    presets: builtinPresets().map((preset) => preset.name),
  };
  output.verbatim(SCRIPTS[known](model));
  return 0;
}
