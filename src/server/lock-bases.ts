// POST /api/lock/bases: kiln.lock's compressed form of each text - raw DEFLATE by this kiln's
// Node zlib, base64 - for the dashboard, which builds the lock of a project's zip with the core
// (src/core/project/lock-entry.ts) and needs the bases byte for byte as `kiln setup` writes
// them (a browser cannot make zlib's bytes; see src/core/lock-codec.ts). Stateless; writes
// nothing.
//
// Bounded as a whole, not only per request: a flood of 1.8 MB bodies once parsed each on the
// HTTP thread and compressed on libuv's thread pool, four zlib streams (about 256 KiB each)
// per request at once, with no bound across requests: 600 of them stalled the event loop for
// 2.5 s and took RSS from 165 MB to 2 GB. So:
// - the HTTP thread only reads the body: it is parsed, checked and compressed in a render
//   worker (lockBasesAnswer, below, runs there), as heavy work - within the strangers' share of
//   the workers, one job per worker, so at most that many texts are compressed at once, each
//   with one zlib stream, across all requests;
// - its body and answer count among the heavy bodies under way, bounded across all requests
//   (heavy-bodies.ts), from the declared length before a byte of the body is read; a request
//   that does not fit is answered `503 overloaded` at once (and its connection closed).
import { array, KilnError, required, ShapeError, string, struct } from "../core/index.ts";
import { encodeBase } from "../core/lock-codec.ts";
import { isJsonContentType, parseJsonBody, readBody } from "./body.ts";
import { FrameworkError, MESSAGES } from "./errors.ts";
import type { Handler } from "./handlers.ts";
import { declaredLength, holdHeavy } from "./heavy-bodies.ts";
import { JSON_TYPE } from "./reply.ts";

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

export const lockBases: Handler = async (ctx, services) => {
  if (!isJsonContentType(ctx.req.headers["content-type"])) {
    throw new FrameworkError(415, MESSAGES.unsupportedMediaType);
  }
  // held from before the body is read: a body without a declared length may take the limit
  const expected = declaredLength(ctx) ?? services.maxBodyBytes;
  const holdMore = holdHeavy(ctx, services.heavyBodies, expected, services.maxBodyBytes);
  const body = await readBody(ctx.req, services.maxBodyBytes);
  holdMore(body.byteLength - expected);
  const answer = await services.pool.lockBases(body, ctx.signal);
  holdMore(answer.byteLength);
  return { status: 200, headers: { "content-type": JSON_TYPE }, body: answer };
};
