// The work of POST /api/lock/bases, done in a render worker (src/server/lock-bases.ts answers
// the route): the body parsed and checked, and each text's base - raw DEFLATE by this kiln's Node
// zlib, base64, as kiln.lock holds it - in order, one text after another (one zlib stream at a
// time in this worker).
import { KilnError } from "../core/errors.ts";
import { array, required, ShapeError, string, struct } from "../core/shape.ts";
import { FrameworkError, MESSAGES } from "../core/wire-errors.ts";
import { encodeBase } from "../node/lock-compression.ts";
import { parseJsonBody } from "./json-body.ts";

const decodeRequest = struct("LockBasesRequest", { contents: required(array(string)) });

/** Texts in one request: far more files than any project's zip holds. */
export const MAX_TEXTS = 10_000;

function parseLockBasesRequest(body: unknown): string[] {
  try {
    return decodeRequest(body, "").contents;
  } catch (error) {
    if (error instanceof ShapeError) {
      throw new FrameworkError(422, MESSAGES.wrongShape(error.message));
    }
    throw error;
  }
}

/**
 * In a render worker: the body parsed and checked (the same 400 and 422 texts as any body, the
 * 400 past MAX_TEXTS), each text's base, in order, and the answer `{"bases": [...]}` as UTF-8
 * in a buffer of its own (moved to the HTTP thread without a copy).
 */
export function lockBasesAnswer(body: Uint8Array): Uint8Array {
  const contents = parseLockBasesRequest(
    parseJsonBody(Buffer.from(body.buffer, body.byteOffset, body.byteLength)),
  );
  if (contents.length > MAX_TEXTS) {
    throw new KilnError(
      "invalid_request",
      `too many texts: ${contents.length} in one request, at most ${MAX_TEXTS}`,
      "send them in several requests",
    );
  }
  return new TextEncoder().encode(JSON.stringify({ bases: contents.map(encodeBase) }));
}
