// Error → HTTP, mapped once: a KilnError's kind gives the status and the `code` of the JSON
// body `{code, error}`, plus `detail` (kiln's own key, after them) when the error has one: what
// exactly was wrong and what to do, such as why an item is invalid or a fetch failed. Errors
// without a detail answer exactly the two keys clients expect; a validation error about one
// field adds `field` last: its name, the path inside its value, the rule, what it takes and what
// it got. Request-parsing failures are "framework" errors and answer text/plain with fixed
// messages that clients match byte for byte (FrameworkError, src/core/wire-errors.ts, carries
// the exact reply).
import { type ErrorKind, type FieldProblem, isKilnError } from "../core/errors.ts";
import { FrameworkError } from "../core/wire-errors.ts";
import { json, type Reply, text } from "./reply.ts";

export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid_request: 400,
  not_found: 404,
  not_initialized: 404,
  already_exists: 409,
  internal: 500,
  // kiln's own, added to the five kinds clients know: heavy requests past their bound on work
  // under way (heavy-bodies.ts), lock bases that waited too long for a worker
  overloaded: 503,
};

/**
 * An `overloaded` answer asks the client to come back in a second and closes the connection:
 * such a request is mostly refused before its body is read, and reading it would be the very
 * work the service has no room for.
 */
function shedLoad(reply: Reply): void {
  reply.headers["retry-after"] = "1";
  reply.close = true;
  reply.rejected = "overloaded";
}

/** The reply for any error a handler threw. Unexpected errors are logged, never shown. */
export function errorReply(error: unknown, log: (message: string) => void): Reply {
  if (error instanceof FrameworkError) {
    const reply = text(error.status, error.message);
    if (error.close) reply.close = true;
    if (error.status === 413) reply.rejected = "body_too_large";
    return reply;
  }
  if (isKilnError(error)) {
    const body: { code: string; error: string; detail?: string; field?: FieldProblem } = {
      code: error.kind,
      error: error.message,
    };
    if (error.detail) body.detail = error.detail;
    // the field a validation error is about, in parts, so that a form shows it at the field
    if (error.field) body.field = error.field;
    const reply = json(STATUS_BY_KIND[error.kind], body);
    if (error.kind === "overloaded") shedLoad(reply);
    return reply;
  }
  log(
    `kiln: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return json(500, { code: "internal", error: "internal server error" });
}
