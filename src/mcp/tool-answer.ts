// How a command's run becomes a tool's answer, and a tool's input the command's arguments.
// Every answer carries its data twice, as MCP asks: `structuredContent` for programs and the
// same JSON as text for models that read only text. A failed run is a tool error (`isError`)
// carrying kiln's message, detail and kind, never a protocol error: the agent reads why and
// what to do, as a person reads `error: ...`.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CommandRun, RunFailure } from "../core/command-run.ts";

/** A tool's data answer: the object, and its JSON as text. */
export function dataAnswer(data: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(data, null, 2) }],
    structuredContent: data,
  };
}

/**
 * A tool error with kiln's words: `error: <message>` and each detail line indented, the text
 * the CLI prints on stderr.
 */
export function failureAnswer(
  failure: RunFailure,
  data: Record<string, unknown> = {},
): CallToolResult {
  const detail =
    failure.detail === undefined
      ? ""
      : failure.detail
          .split("\n")
          .map((line) => `\n  ${line}`)
          .join("");
  return {
    isError: true,
    content: [{ type: "text", text: `error: ${failure.message}${detail}` }],
    structuredContent: { error: failure, ...data },
  };
}

/** The lines a run printed for people (its report and summary), without empty ones. */
export function linesOf(text: string): string[] {
  return text.split("\n").filter((line) => line.trim() !== "");
}

/** A run's `--json` document as an object (an array under `key`); empty when it printed none. */
function documentOf(run: CommandRun, key: string): Record<string, unknown> {
  const { document } = run;
  if (document === undefined) return {};
  return Array.isArray(document) ? { [key]: document } : (document as Record<string, unknown>);
}

/**
 * The answer of a command run with `--json`: its document (an array under `key`), with any
 * warnings. When it failed, the failure, with the document when the command printed one
 * before failing (update with conflict markers: the files it wrote, then the error that they
 * hold markers).
 */
export function jsonAnswer(run: CommandRun, key = "results"): CallToolResult {
  const data = documentOf(run, key);
  if (run.failure) return failureAnswer(run.failure, data);
  return dataAnswer(run.warnings.length > 0 ? { ...data, notes: run.warnings } : data);
}

/**
 * `--set=<field>=<value>` for each field (`--label=` for labels): the `=` form, so a value that
 * starts with `-` is the value, never an option.
 */
export function valueOptions(option: "set" | "label", values?: Record<string, string>): string[] {
  return Object.entries(values ?? {}).map(([key, value]) => `--${option}=${key}=${value}`);
}

/** `--<option>=<value>` when a value is given. */
export function stringOption(option: string, value: string | undefined): string[] {
  return value === undefined ? [] : [`--${option}=${value}`];
}

/** `--<flag>` when it is true. */
export function flagOption(option: string, value: boolean | undefined): string[] {
  return value === true ? [`--${option}`] : [];
}

/**
 * The positional arguments, after `--`: whatever an agent sends as a reference or a name
 * (`--force`, `--allow-exec-paths`) is taken as that, never as an option.
 */
export function positionals(...values: (string | undefined)[]): string[] {
  const given = values.filter((value) => value !== undefined);
  return given.length === 0 ? [] : ["--", ...given];
}
