// One error type for the whole core. Each front maps the kind once: the HTTP service to a status
// and a `code`, the CLI to an exit status.

export type ErrorKind =
  | "invalid_request"
  | "not_found"
  | "not_initialized"
  | "already_exists"
  | "internal"
  /** The service has as much of this work under way as it takes; try again in a moment. */
  | "overloaded";

/**
 * Each rule a field's value is refused by, and the parts its words are built from: a form words
 * the rule itself from `code` and `params` (in any language), while `expected` stays the core's
 * English sentence for the CLI and the API. Values are data, never words: numbers as numbers,
 * names and texts as the item or the user wrote them.
 */
export interface FieldRuleParams {
  /** A required field without a value. */
  required: Record<string, never>;
  /** A whole number, within the bounds given (a `-` in front allowed when `min` is below 0 or absent). */
  whole_number: { min?: number | undefined; max?: number | undefined };
  /** One of the formats with one fixed rule (FORMAT_RULES' keys: `port`, `dns-label`, `cidr`...). */
  format: { format: string };
  /** An Ingress path Kubernetes refuses: not starting with `/`, or holding or ending with `text`. */
  ingress_path: { problem: "not_absolute" | "contains" | "ends_with"; text: string };
  /** An address range written with host bits set: `range` is in `network`, which is meant. */
  cidr_host_bits: { range: string; network: string };
  /** YAML that does not parse: where (when the parser knows) and the parser's reason, in English. */
  yaml_parse: { line?: number | undefined; column?: number | undefined; reason: string };
  /** Text starting with `[` or `{` that is not JSON: where, and what was expected there, in English. */
  json_parse: { line: number; column: number; reason: string };
  /** A JSON value of another type than the schema's (`string`, `integer`, `array`...). */
  json_type: { types: string[]; plainText: boolean };
  /** An object without a key it must have (any one of `keys`). */
  json_missing_key: { keys: string[] };
  /** An object with a key its schema does not declare; `suggestion` when it looks like a misspelt one. */
  json_unknown_key: { key: string; suggestion?: string | undefined; keys: string[] };
  /** A value that is none of the schema's values (each as JSON). */
  json_enum: { values: string[] };
  /** A value that is not the schema's one value (as JSON). */
  json_const: { value: string };
  /** A number outside a bound: `comparison` is `>=`, `<=`, `>` or `<`. */
  json_bound: { comparison: string; limit: number };
  /** A text, a list or an object with fewer (`min`) or more (`max`) characters, entries or keys. */
  json_size: { of: "characters" | "entries" | "keys"; bound: "min" | "max"; limit: number };
  /** A text that does not match the schema's regular expression. */
  json_pattern: { pattern: string };
  /** A text not in a format of JSON Schema's (`email`, `uri`...) that kiln does not word itself. */
  json_format: { format: string };
  /** A list holding one entry twice (entries `first` and `second`, from 0). */
  json_unique: { first: number; second: number };
  /** What the schema's own `description` says the value must be, as the item words it. */
  json_described: { description: string; plainText: boolean };
  /** A value that matches more than one of the forms a `oneOf` allows. */
  json_several_forms: Record<string, never>;
  /** Any other refusal of a JSON Schema keyword: the validator's own words, in English. */
  json_schema: { keyword: string; message: string };
}

export type FieldRuleCode = keyof FieldRuleParams;

/** Each code once: a record, so that a code added to FieldRuleParams must be listed here too. */
const EVERY_FIELD_RULE: Record<FieldRuleCode, true> = {
  required: true,
  whole_number: true,
  format: true,
  ingress_path: true,
  cidr_host_bits: true,
  yaml_parse: true,
  json_parse: true,
  json_type: true,
  json_missing_key: true,
  json_unknown_key: true,
  json_enum: true,
  json_const: true,
  json_bound: true,
  json_size: true,
  json_pattern: true,
  json_format: true,
  json_unique: true,
  json_described: true,
  json_several_forms: true,
  json_schema: true,
};

/** Every field rule's code, for a front that words each one (the dashboard's catalogue test). */
export const FIELD_RULE_CODES = Object.keys(EVERY_FIELD_RULE) as FieldRuleCode[];

/** A field rule's code and its params, as one value (the code decides the params' keys). */
export type FieldRule = {
  [Code in FieldRuleCode]: { code: Code; params: FieldRuleParams[Code] };
}[FieldRuleCode];

/**
 * Which field of a component a refused value belongs to, in parts a form can word itself (the
 * dashboard shows it under the field): the message stays the one text for the CLI and the API.
 */
export type FieldProblem = {
  /** The field's name (`name`: the component's name). */
  field: string;
  /** Where inside the field's JSON value (`[0].members[1].cm_port`); "" for the whole value. */
  path: string;
  /** `missing`: a required field without a value; `invalid`: a value that does not fit. */
  rule: "missing" | "invalid";
  /** What the field takes, in the core's words without the value (`must be a whole number…`). */
  expected: string;
  /**
   * The refused value as text (JSON for a non-text value), its first 60 characters and `…` when
   * longer; absent when missing, and for JSON that does not parse (`expected` says where).
   */
  got?: string | undefined;
} & FieldRule;

export class KilnError extends Error {
  readonly kind: ErrorKind;
  /** Extra lines for people (what was wrong in detail, what to do); never part of `message`. */
  readonly detail: string | undefined;
  /** The field a validation error is about, when it is about one. */
  readonly field: FieldProblem | undefined;

  constructor(kind: ErrorKind, message: string, detail?: string, field?: FieldProblem) {
    super(message);
    this.name = "KilnError";
    this.kind = kind;
    this.detail = detail;
    this.field = field;
  }
}

/**
 * `error` with other words (a hint added, a name made plainer): the same kind and the same
 * field, so a front that shows the field still finds it.
 */
export function reworded(error: KilnError, message: string, detail: string | undefined): KilnError {
  return new KilnError(error.kind, message, detail, error.field);
}

export function isKilnError(error: unknown): error is KilnError {
  return error instanceof KilnError;
}

/**
 * The message of anything thrown: an Error's own, or the value as text. Every place that words
 * a caught error goes through this one function (a thrown string or object has no `message`).
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
