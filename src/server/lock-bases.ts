// POST /api/lock/bases: kiln.lock's compressed form of each text - raw DEFLATE by this kiln's
// Node zlib, base64 - for the dashboard, which builds the lock of a project's zip with the core
// (src/core/project/lock-entry.ts) and needs the bases byte for byte as `kiln setup` writes
// them (a browser cannot make zlib's bytes; see src/core/lock-codec.ts). Stateless; writes
// nothing. Bounded by the request body limit (2 MiB); compressed on libuv's thread pool, so the
// HTTP thread does not wait on it.
import { array, required, ShapeError, string, struct } from "../core/index.ts";
import { encodeBaseAsync } from "../core/lock-codec.ts";
import { isJsonContentType, parseJsonBody, readBody } from "./body.ts";
import { FrameworkError, MESSAGES } from "./errors.ts";
import type { Handler } from "./handlers.ts";
import { json } from "./reply.ts";

const decodeRequest = struct("LockBasesRequest", { contents: required(array(string)) });

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
  return json(200, { bases: await Promise.all(contents.map(encodeBaseAsync)) });
};
