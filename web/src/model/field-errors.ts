// Every word the dashboard says about a refused field value: the field's label as the form
// shows it, the message under the field and the preview's short summary, in the interface's
// language (the catalogues' `fieldError.*` and `fieldRule.<code>` messages). They are built from
// the core's structured problem - field, path inside its value, the rule's code and params,
// what it got: KilnError's `field`, the JSON error body's `field` - never from a message or
// from `expected`, which are the core's English for the CLI and the API.
import type { FieldProblem } from "../../../src/core/errors.ts";
import { FORMAT_RULES } from "../../../src/core/formats.ts";
import {
  listWords,
  type MessageKey,
  type MessageValues,
  translate,
  translateBuilt,
  translateCoreWords,
} from "../i18n/i18n.ts";
import { fieldRuleKey, formatKey } from "../i18n/keys.ts";

export type { FieldProblem };

/** Names as code, in a phrase of the language (`a`, `b` or `c`). */
function codeList(names: readonly string[], kind: "conjunction" | "disjunction"): string {
  return listWords(
    names.map((name) => `\`${name}\``),
    kind,
  );
}

/** A JSON type of JSON Schema's (`string`, `integer`...) in the interface's words. */
const JSON_TYPE_WORDS: Record<string, MessageKey> = {
  string: "jsonType.string",
  number: "jsonType.number",
  integer: "jsonType.integer",
  boolean: "jsonType.boolean",
  object: "jsonType.object",
  array: "jsonType.array",
  null: "jsonType.null",
};

/** The types a value may be, each in the interface's words, as one `or` phrase. */
function typeWords(types: readonly string[]): string {
  const words = types.map((type) => {
    const key = JSON_TYPE_WORDS[type];
    return key === undefined ? `\`${type}\`` : translate(key);
  });
  return listWords([...new Set(words)], "disjunction");
}

/**
 * How JSON is recognised, after a rule asking for an array or an object of a value typed as
 * plain text (the core adds the same note).
 */
function plainTextNote(problem: FieldProblem, types: readonly string[]): string {
  const wantsJson = types.some((type) => type === "array" || type === "object");
  return problem.path === "" && wantsJson ? translate("fieldError.jsonTextNote") : "";
}

/** A comparison of JSON Schema's bounds as the form its sentence takes (`>=` is the plain one). */
const BOUND_FORMS: Record<string, string | undefined> = {
  ">=": undefined,
  "<=": "atMost",
  ">": "above",
  "<": "below",
};

/** The whole-number rule: its bounds pick the form; a `-` is allowed when the lowest is below 0. */
function wholeNumberWords(min: number | undefined, max: number | undefined): string {
  const form =
    min !== undefined && max !== undefined
      ? "range"
      : min !== undefined
        ? "min"
        : max !== undefined
          ? "max"
          : undefined;
  const rule = translateBuilt(fieldRuleKey("whole_number"), { min: min ?? 0, max: max ?? 0 }, form);
  return min === undefined || min < 0 ? `${rule}${translate("fieldError.wholeNegative")}` : rule;
}

/**
 * What the field takes, in the interface's language, from the rule's code and params. A format
 * with one fixed rule is worded by the format's name (`format.<format>` in the catalogues other
 * than English, which shows the core's own sentence from the core's table); every other rule by
 * `fieldRule.<code>`, a form of it picked by the params.
 */
function expectedWords(problem: FieldProblem): string {
  const key = fieldRuleKey(problem.code);
  switch (problem.code) {
    case "required":
      return translateBuilt(key, { label: fieldLabel(problem.field) });
    case "format": {
      const { format } = problem.params;
      const english = FORMAT_RULES[format as keyof typeof FORMAT_RULES] ?? problem.expected;
      return translateCoreWords(formatKey(format), english);
    }
    case "whole_number":
      return wholeNumberWords(problem.params.min, problem.params.max);
    case "ingress_path": {
      const { problem: what, text } = problem.params;
      return translateBuilt(key, { text }, what === "not_absolute" ? undefined : what);
    }
    case "yaml_parse": {
      const { line, column, reason } = problem.params;
      const form = line === undefined ? "nowhere" : undefined;
      return translateBuilt(key, { line: line ?? 0, column: column ?? 0, reason }, form);
    }
    case "json_type": {
      const { types } = problem.params;
      return `${translateBuilt(key, { types: typeWords(types) })}${plainTextNote(problem, types)}`;
    }
    case "json_described":
      // the item's own words for what the value must be, as the catalogue's texts stay
      return translateBuilt(key, { description: problem.params.description });
    case "json_missing_key":
      return translateBuilt(key, { keys: codeList(problem.params.keys, "disjunction") });
    case "json_unknown_key": {
      const { key: unknown, suggestion, keys } = problem.params;
      const form = suggestion !== undefined ? "suggestion" : keys.length > 0 ? "known" : undefined;
      const values = {
        key: unknown,
        suggestion: suggestion ?? "",
        keys: codeList(keys, "conjunction"),
      };
      return translateBuilt(key, values, form);
    }
    case "json_enum":
      return translateBuilt(key, { values: codeList(problem.params.values, "disjunction") });
    case "json_bound": {
      const { comparison, limit } = problem.params;
      return translateBuilt(key, { limit }, BOUND_FORMS[comparison]);
    }
    case "json_size": {
      const { of, bound, limit } = problem.params;
      return translateBuilt(key, { count: limit }, `${of}_${bound}`);
    }
    default:
      return translateBuilt(key, problem.params as MessageValues);
  }
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
  const expected = expectedWords(problem);
  if (problem.rule === "missing") return expected;
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
