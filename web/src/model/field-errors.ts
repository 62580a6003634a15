// Every word the dashboard says about a refused field value, in one place so that the interface
// can be translated from here: the field's label as the form shows it, the message under the
// field and the preview's short summary. They are built from the core's structured problem
// (field, path inside its value, rule, what it takes, what it got: KilnError's `field`, the JSON
// error body's `field`), never from the message, which names CLI flags and preset JSON.
import type { FieldProblem } from "../../../src/core/errors.ts";

export type { FieldProblem };

/** The words, each once. */
export const FIELD_ERROR_WORDS = {
  required: (label: string) => `${label} is required`,
  invalid: (expected: string, got: string) => `${expected} - got ${got}`,
  inside: (path: string, message: string) => `At ${path}: ${message}`,
  summaryTitle: "This component does not render.",
  summary: (label: string, message: string) => `${label}: ${message}`,
  previewSummary: (summary: string) => `${summary}. The field is marked in the form.`,
  emptyValue: "nothing",
};

/** A field's name as the form's words: `target_port` → `Target port`. */
export function fieldLabel(name: string): string {
  const words = name.replaceAll(/[_-]+/g, " ").trim();
  return words === "" ? name : `${words[0]?.toUpperCase() ?? ""}${words.slice(1)}`;
}

/**
 * The refused value as the message quotes it: as the core gives it (already cut after 60
 * characters), `nothing` when empty.
 */
function gotShown(got: string): string {
  return got === "" ? FIELD_ERROR_WORDS.emptyValue : got;
}

/**
 * The message under the field: `Image is required`, or what the field takes and what it got
 * (`must be a whole number from 0 to 2147483647, written in digits - got three`), led by the
 * place inside a JSON value when the problem is there.
 */
export function fieldErrorMessage(problem: FieldProblem): string {
  if (problem.rule === "missing") return FIELD_ERROR_WORDS.required(fieldLabel(problem.field));
  const message =
    problem.got === undefined
      ? problem.expected
      : FIELD_ERROR_WORDS.invalid(problem.expected, gotShown(problem.got));
  return problem.path === "" ? message : FIELD_ERROR_WORDS.inside(problem.path, message);
}

/** The preview's one line: the field's label and the message (the required one says both). */
export function fieldErrorSummary(problem: FieldProblem): string {
  const message = fieldErrorMessage(problem);
  return problem.rule === "missing"
    ? message
    : FIELD_ERROR_WORDS.summary(fieldLabel(problem.field), message);
}
