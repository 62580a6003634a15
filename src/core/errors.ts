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

export class KilnError extends Error {
  readonly kind: ErrorKind;
  /** Extra lines for people (what was wrong in detail, what to do); never part of `message`. */
  readonly detail: string | undefined;

  constructor(kind: ErrorKind, message: string, detail?: string) {
    super(message);
    this.name = "KilnError";
    this.kind = kind;
    this.detail = detail;
  }
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
