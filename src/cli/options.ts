// Each command's arguments declared once: every option (name, type, repeatable, short flag,
// value name, description, default) and every positional argument, from which come the
// node:util parseArgs config (parseCommand), the usage line and option lines of `--help`
// (commandHelp) and the shell completions (src/cli/completion-scripts.ts). The declarations of all
// commands are in src/cli/command-list.ts.
import { parseArgs } from "node:util";
import { wrap } from "../core/wrap.ts";
import { setNetworkMode } from "../node/network-mode.ts";
import { type OptionSpec, type Parsed, parse, positionals } from "./args.ts";

/**
 * What a shell offers for a value: built-in names (read from the core's registry and preset
 * list when the script is generated), fixed words, and paths.
 */
export interface Completion {
  readonly builtins?: readonly ("components" | "presets")[];
  readonly words?: readonly string[];
  /** `json`: JSON files and the folders on the way to them; `folders`: folders only. */
  readonly paths?: "json" | "folders";
  /**
   * The components of the kiln.lock in the current folder, read when completing: each name
   * and its exact spelling (`api`, `deployment/api`).
   */
  readonly locked?: boolean;
}

export interface OptionDecl {
  /** The long name, without `--`. */
  readonly name: string;
  readonly type: "string" | "boolean";
  /** May be given more than once (the values are collected in order). */
  readonly multiple?: boolean;
  /** A one-letter alias, without `-`. */
  readonly short?: string;
  /** How the value is shown: `<name>`, `<field>=<value>` (string options). */
  readonly value?: string;
  readonly description: string;
  /** The value when the option is not given, as the help shows it: `(default: ...)`. */
  readonly default?: string;
  /** The environment variable read when the option is not given (`kiln serve`'s settings). */
  readonly env?: string;
  /** Shown outside brackets in the usage line; the command checks it (with its own message). */
  readonly required?: boolean;
  /** What a shell completes for the value; nothing when absent. */
  readonly complete?: Completion;
}

export interface PositionalDecl {
  /** The name in usage lines and messages: `<reference>`, `missing <reference>`. */
  readonly name: string;
  /**
   * How many times it may be given: exactly once (the default), `optional` (zero or once:
   * `[<preset>]`) or `any` (zero or more: `[<name>...]`). Only the last positional may be either.
   */
  readonly count?: "optional" | "any";
  readonly complete?: Completion;
}

export interface CommandDecl {
  readonly name: string;
  /** One line in `kiln --help`'s command list. */
  readonly summary: string;
  readonly positionals: readonly PositionalDecl[];
  readonly options: readonly OptionDecl[];
}

/** `-h`/`--help`, which every command takes (args.ts parses it for each). */
export const HELP_OPTION: OptionDecl = {
  name: "help",
  type: "boolean",
  short: "h",
  description: "show this help",
};

/**
 * `-q`/`--quiet`, which every command takes: only errors are printed (the exit status says the
 * rest). Output.quiet carries it; main.ts reads it before the command runs (quietRequested), so
 * even what is printed before the command parses its arguments (a note on an interrupted run)
 * is held back.
 */
export const QUIET_OPTION: OptionDecl = {
  name: "quiet",
  type: "boolean",
  short: "q",
  description: "print errors only (no report, no warnings, no notes)",
};

/** The options every command takes besides its own: `-q` and `-h` (listed after its own). */
export const COMMON_OPTIONS: readonly OptionDecl[] = [QUIET_OPTION, HELP_OPTION];

/** The parseArgs options of a command (`--help` is added by `parse`). */
export function parseConfig(command: CommandDecl): OptionSpec {
  const options: OptionSpec = {};
  for (const option of [...command.options, QUIET_OPTION]) {
    options[option.name] = {
      type: option.type,
      ...(option.multiple ? { multiple: true } : {}),
      ...(option.short ? { short: option.short } : {}),
    };
  }
  return options;
}

/**
 * `--offline` and `--refresh`, for the commands that take them: the run's network mode, set from
 * every command line (without them, off), so a command never runs in another's mode. Given
 * both, `--offline` wins (nothing is fetched, so nothing is fetched again): a script that adds
 * `--offline` to its usual command line must not reach the network.
 */
function applyNetworkMode(parsed: Parsed): void {
  setNetworkMode({
    offline: parsed.values.offline === true,
    refresh: parsed.values.refresh === true,
  });
}

/** Parses a command's arguments by its declaration and checks the number of positionals. */
export function parseCommand(
  argv: string[],
  command: CommandDecl,
): { parsed: Parsed; args: string[] } {
  const parsed = parse(argv, parseConfig(command));
  applyNetworkMode(parsed);
  const required = command.positionals.filter((positional) => positional.count === undefined);
  const last = command.positionals.at(-1);
  const args = positionals(
    parsed,
    required.map((positional) => positional.name),
    last?.count === "any" ? Number.POSITIVE_INFINITY : command.positionals.length,
  );
  return { parsed, args };
}

/**
 * Whether the arguments after a command's name ask for `-q`/`--quiet`, read by the command's
 * own declaration, so `-fq` asks for it and `-nq` (the name `q`) does not. Lenient: a usage
 * error is the command's to report, when it parses the same arguments strictly.
 */
export function quietRequested(argv: readonly string[], command: CommandDecl): boolean {
  if (!argv.some(mayAskForQuiet)) return false;
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: parseConfig(command),
      allowPositionals: true,
      strict: false,
    });
    return values.quiet === true;
  } catch {
    return false;
  }
}

/**
 * Whether a word could set `quiet` as parseArgs reads it: `--quiet` (or `--quiet=`), or a
 * cluster of short options with a `q` (`-q`, `-fq`). A command line without one cannot ask for
 * it, and needs no parse here (every command parses it again anyway; this is the second parse
 * of every run, about 0.3 ms of CPU).
 */
function mayAskForQuiet(word: string): boolean {
  return /^--quiet(?:=|$)|^-[^-]*q/.test(word);
}

/** Lines of help text are kept within this many columns. */
const WIDTH = 96;

/** `--name <name>`, `-h, --help`. */
function label(option: OptionDecl): string {
  const long = `--${option.name}${option.value ? ` ${option.value}` : ""}`;
  return option.short ? `-${option.short}, ${long}` : long;
}

/** How an option is written in a usage line: `--into <folder>`, `[--force]`, `[--set ...]...`. */
function inUsage(option: OptionDecl): string {
  const text = `--${option.name}${option.value ? ` ${option.value}` : ""}`;
  if (option.required) return text;
  return `[${text}]${option.multiple ? "..." : ""}`;
}

/** How a positional is written in a usage line: `<reference>`, `[<preset>]`, `[<name>...]`. */
function positionalInUsage(positional: PositionalDecl): string {
  if (positional.count === "optional") return `[<${positional.name}>]`;
  if (positional.count === "any") return `[<${positional.name}>...]`;
  return `<${positional.name}>`;
}

/**
 * `kiln init [--name <name>] [--dir <folder>] ...`: every option when the line fits, else the
 * required ones and `[options]`.
 */
export function usageLine(command: CommandDecl): string {
  const head = [`kiln ${command.name}`, ...command.positionals.map(positionalInUsage)];
  const full = [...head, ...command.options.map(inUsage)].join(" ");
  if (`Usage: ${full}`.length <= WIDTH) return full;
  const required = command.options.filter((option) => option.required).map(inUsage);
  return [...head, ...required, "[options]"].join(" ");
}

/** The `Options:` lines: labels in a column, descriptions (and defaults) beside them. */
export function optionLines(command: CommandDecl): string[] {
  const options = [...command.options, ...COMMON_OPTIONS];
  const column = Math.max(...options.map((option) => label(option).length)) + 2;
  const indent = " ".repeat(2 + column);
  const lines: string[] = [];
  for (const option of options) {
    const notes = [
      ...(option.env === undefined ? [] : [`env ${option.env}`]),
      ...(option.default === undefined ? [] : [`default: ${option.default}`]),
    ];
    const def = notes.length === 0 ? "" : ` (${notes.join(", ")})`;
    const room = WIDTH - indent.length;
    // the default goes on a line of its own rather than being split
    const text =
      `${option.description}${def}`.length <= room
        ? wrap(`${option.description}${def}`, room)
        : [...wrap(option.description, room), ...(def ? [def.trim()] : [])];
    text.forEach((part, index) => {
      lines.push(index === 0 ? `  ${label(option).padEnd(column)}${part}` : `${indent}${part}`);
    });
  }
  return lines;
}

export interface HelpText {
  /** After `kiln <name> - `. */
  title: string;
  /** Paragraphs between the usage line and the options. */
  about?: string;
  /** Paragraphs (or sections with their own heading) after the options. */
  notes?: string;
  examples: readonly string[];
}

/** A command's `--help`: title, usage, about, options, notes, examples. */
export function commandHelp(command: CommandDecl, text: HelpText): string {
  const parts = [`kiln ${command.name} - ${text.title}`, `Usage: ${usageLine(command)}`];
  if (text.about) parts.push(text.about.trimEnd());
  parts.push(`Options:\n${optionLines(command).join("\n")}`);
  if (text.notes) parts.push(text.notes.trimEnd());
  parts.push(`Examples:\n${text.examples.map((example) => `  ${example}`).join("\n")}`);
  return `${parts.join("\n\n")}\n`;
}
