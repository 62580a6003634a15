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
 * Which field of a component a refused value belongs to, in parts a form can word itself (the
 * dashboard shows it under the field): the message stays the one text for the CLI and the API.
 */
export interface FieldProblem {
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
}

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
