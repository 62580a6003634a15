// POST /api/lock/bases: kiln.lock's compressed form of each text - raw DEFLATE by this kiln's
// Node zlib, base64 - for the dashboard, which builds the lock of a project's zip with the core
// (src/core/project/lock-entry.ts) and needs the bases byte for byte as `kiln setup` writes
// them (a browser cannot make zlib's bytes; see src/node/lock-compression.ts). Stateless; writes
// nothing.
//
// Bounded as a whole, not only per request: a flood of 1.8 MB bodies once parsed each on the
// HTTP thread and compressed on libuv's thread pool, four zlib streams (about 256 KiB each)
// per request at once, with no bound across requests: 600 of them stalled the event loop for
// 2.5 s and took RSS from 165 MB to 2 GB. So:
// - the HTTP thread only reads the body: it is parsed, checked and compressed in a render
//   worker (src/sandbox/lock-bases-job.ts), as heavy work - within the strangers' share of the
//   workers, one job per worker, so at most that many texts are compressed at once, each with
//   one zlib stream, across all requests;
// - its body and answer count among the heavy bodies under way, bounded across all requests
//   (heavy-bodies.ts), from the declared length before a byte of the body is read; a request
//   that does not fit is answered `503 overloaded` at once (and its connection closed).
import { FrameworkError, MESSAGES } from "../core/wire-errors.ts";
import { isJsonContentType, readBody } from "./body.ts";
import type { Handler } from "./handlers.ts";
import { declaredLength, holdHeavy } from "./heavy-bodies.ts";
import { JSON_TYPE } from "./reply.ts";

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
