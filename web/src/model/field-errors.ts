// Every word the dashboard says about a refused field value: the field's label as the form
// shows it, the message under the field and the preview's short summary, in the interface's
// language (the catalogues' `fieldError.*` messages). They are built from the core's structured problem
// (field, path inside its value, rule, what it takes, what it got: KilnError's `field`, the JSON
// error body's `field`), never from the message, which names CLI flags and preset JSON.
import type { FieldProblem } from "../../../src/core/errors.ts";
import { FORMAT_RULES } from "../../../src/core/formats.ts";
import { translate, translateCoreWords } from "../i18n/i18n.ts";
import { formatKey } from "../i18n/keys.ts";

export type { FieldProblem };

/** The whole-number rule as the core words it, its bounds captured. */
const WHOLE_NUMBER_RULE =
  /^must be a whole number(?: from (-?\d+) to (-?\d+)| of at least (-?\d+)| of at most (-?\d+))?, written in digits( \(`-` in front when negative\))?$/;

/** The format whose one fixed rule `expected` is, looked up in the core's own table of rules. */
function fixedFormatRule(expected: string): string | undefined {
  return Object.entries(FORMAT_RULES).find(([, rule]) => rule === expected)?.[0];
}

/**
 * What the field takes, in the interface's language. The core words its rules in English for
 * the CLI as well. A format with one fixed rule (ports, `true` or `false`, DNS names,
 * addresses, CIDR ranges, durations) is worded by the format's name (`format.<format>` in the
 * catalogues other than English; English shows the core's own sentence); whole numbers and
 * their bounds from the catalogue with the numbers formatted for the language. The rest (JSON
 * shapes, YAML, Ingress paths, CIDR host bits) keep the core's words, which quote code.
 */
function expectedWords(expected: string): string {
  const format = fixedFormatRule(expected);
  if (format !== undefined) return translateCoreWords(formatKey(format), expected);
  const whole = WHOLE_NUMBER_RULE.exec(expected);
  if (!whole) return expected;
  const [, from, to, atLeast, atMost, negative] = whole;
  const rule =
    from !== undefined && to !== undefined
      ? translate("fieldError.wholeFromTo", { from: Number(from), to: Number(to) })
      : atLeast !== undefined
        ? translate("fieldError.wholeAtLeast", { min: Number(atLeast) })
        : atMost !== undefined
          ? translate("fieldError.wholeAtMost", { max: Number(atMost) })
          : translate("fieldError.whole");
  return negative === undefined ? rule : `${rule}${translate("fieldError.wholeNegative")}`;
}

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
  return got === "" ? translate("fieldError.emptyValue") : got;
}

/**
 * The message under the field: `Image is required`, or what the field takes and what it got
 * (`must be a whole number from 0 to 2147483647, written in digits - got three`), led by the
 * place inside a JSON value when the problem is there.
 */
export function fieldErrorMessage(problem: FieldProblem): string {
  if (problem.rule === "missing") {
    return translate("fieldError.required", { label: fieldLabel(problem.field) });
  }
  const expected = expectedWords(problem.expected);
  const message =
    problem.got === undefined
      ? expected
      : translate("fieldError.invalid", { expected, got: gotShown(problem.got) });
  return problem.path === ""
    ? message
    : translate("fieldError.inside", { path: problem.path, message });
}

/** The preview's one line: the field's label and the message (the required one says both). */
export function fieldErrorSummary(problem: FieldProblem): string {
  const message = fieldErrorMessage(problem);
  return problem.rule === "missing"
    ? message
    : translate("fieldError.summary", { label: fieldLabel(problem.field), message });
}
