// Argument parsing shared by the commands: node:util parseArgs with kiln's own usage messages
// (Node's wording changes between versions, and the tests compare messages byte for byte).

import { type ParseArgsConfig, parseArgs } from "node:util";
import { didYouMean } from "../core/did-you-mean.ts";
import { errorMessage } from "../core/errors.ts";

/** A mistake in how the command was called: exit status 2, with a pointer to `--help`. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/**
 * Recognises a UsageError by name, not by class: the bundle gives each command its own copy of
 * the shared modules, so a command's UsageError is not main.js's class.
 */
export function isUsageError(error: unknown): error is UsageError {
  return error instanceof Error && error.name === "UsageError";
}

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/**
 * The option that a parseArgs error message names, e.g. `--name` in "Option '--name' ...", or
 * in "Option '-n, --name <value>' ..." for one with a short flag (its long form, as help has it).
 */
function optionIn(message: string): string {
  const quoted = /'(-[^']*)'/.exec(message)?.[1] ?? "?";
  return /--[^\s,]+/.exec(quoted)?.[0] ?? quoted.split(/[\s,]/)[0] ?? "?";
}

/** `; did you mean \`--image\`?` for a long option one typo away from a known one (`--imag`). */
function nearestOption(option: string, options: OptionSpec): string {
  if (!option.startsWith("--")) return "";
  const known = [...Object.keys(options), "help"].map((name) => `--${name}`);
  return didYouMean(option, known);
}

export function parse(argv: string[], options: OptionSpec): Parsed {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Parsed["values"], positionals };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = errorMessage(error);
    const option = optionIn(message);
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      throw new UsageError(`unknown option \`${option}\`${nearestOption(option, options)}`);
    }
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
      if (message.includes("does not take an argument")) {
        throw new UsageError(`${option} takes no value`);
      }
      throw new UsageError(`${option} needs a value`);
    }
    throw new UsageError(message);
  }
}

/** Exactly `count` positional arguments, named in the message when one is missing. */
/**
 * The positionals given, checked against how many the command takes: `required` names the ones
 * it needs (in order, for the `missing <name>` message), `most` is how many it takes at all.
 */
export function positionals(parsed: Parsed, required: string[], most: number): string[] {
  const given = parsed.positionals;
  if (given.length < required.length) {
    throw new UsageError(
      `missing ${required
        .slice(given.length)
        .map((n) => `<${n}>`)
        .join(" ")}`,
    );
  }
  if (given.length > most) {
    throw new UsageError(`unexpected argument \`${given[most]}\``);
  }
  return given;
}

export function stringOption(parsed: Parsed, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === "string" ? value : undefined;
}

export function flag(parsed: Parsed, name: string): boolean {
  return parsed.values[name] === true;
}

export function listOption(parsed: Parsed, name: string): string[] {
  const value = parsed.values[name];
  return Array.isArray(value) ? value : [];
}

/**
 * `KEY=VALUE` pairs of a repeatable option, split on the first `=` (so values may contain `=`);
 * a later pair with the same key wins.
 */
export function keyValues(pairs: string[], option: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) {
      throw new UsageError(`${option} expects KEY=VALUE, got \`${pair}\``);
    }
    // defineProperty: a key named `__proto__` stays an ordinary key
    Object.defineProperty(result, pair.slice(0, at), {
      value: pair.slice(at + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}
