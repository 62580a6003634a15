// POST /api/lock/bases: kiln.lock's compressed form of each text - raw DEFLATE by this kiln's
// Node zlib, base64 - for the dashboard, which builds the lock of a project's zip with the core
// (src/core/project/lock-entry.ts) and needs the bases byte for byte as `kiln setup` writes
// them (a browser cannot make zlib's bytes; see src/core/lock-codec.ts). Stateless; writes
// nothing. Bounded by the request body limit (2 MiB) and MAX_TEXTS; compressed on libuv's thread
// pool, so the HTTP thread does not wait on it, COMPRESSING texts at a time: each compression
// holds a zlib stream of about 256 KiB, so a body of 200,000 empty strings compressed all at
// once would ask for tens of GiB.
import { array, KilnError, required, ShapeError, string, struct } from "../core/index.ts";
import { encodeBaseAsync } from "../core/lock-codec.ts";
import { isJsonContentType, parseJsonBody, readBody } from "./body.ts";
import { FrameworkError, MESSAGES } from "./errors.ts";
import type { Handler } from "./handlers.ts";
import { json } from "./reply.ts";

const decodeRequest = struct("LockBasesRequest", { contents: required(array(string)) });

/** Texts in one request: far more files than any project's zip holds. */
export const MAX_TEXTS = 10_000;

/** Compressions under way at once per request (libuv's thread pool has 4 threads). */
const COMPRESSING = 4;

/** Each text's base, in order, COMPRESSING at a time; stops when the client has gone. */
async function encodeAll(contents: readonly string[], signal: AbortSignal): Promise<string[]> {
  const bases: string[] = new Array(contents.length);
  let next = 0;
  const lane = async () => {
    while (next < contents.length) {
      if (signal.aborted) throw new KilnError("internal", "the client went away");
      const index = next++;
      bases[index] = await encodeBaseAsync(contents[index] as string);
    }
  };
  await Promise.all(Array.from({ length: Math.min(COMPRESSING, contents.length) }, lane));
  return bases;
}

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

export const lockBases: Handler = async (ctx, services) => {
  if (!isJsonContentType(ctx.req.headers["content-type"])) {
    throw new FrameworkError(415, MESSAGES.unsupportedMediaType);
  }
  const contents = parseLockBasesRequest(
    parseJsonBody(await readBody(ctx.req, services.maxBodyBytes)),
  );
  if (contents.length > MAX_TEXTS) {
    throw new KilnError(
      "invalid_request",
      `too many texts: ${contents.length} in one request, at most ${MAX_TEXTS}`,
      "send them in several requests",
    );
  }
  return json(200, { bases: await encodeAll(contents, ctx.signal) });
};
