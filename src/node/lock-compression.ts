// kiln.lock's codec in Node, for the CLI and the service alike: sha256 of the files and the
// items, and each file's `base` - raw DEFLATE (Node's zlib, level 9), base64. The service
// encodes the bases of the dashboard's zip with this same code (POST /api/lock/bases), so the
// zip's kiln.lock is byte for byte the one `kiln setup` writes with the same kiln: zlib's
// output is Node's own (it differs from any JavaScript deflate, and may between builds), and a
// JavaScript deflate in the CLI costs a cold start far more (fflate: ~75 ms of CPU for the 77
// small files of multi-tier-platform, against ~5 ms for zlib).
//
// zlib is required on first use: the render workers load this module for their lock bases jobs
// and their hashes, and a worker that never compresses (every CLI render of a registry item)
// would pay for loading zlib at its start, about 5 ms of CPU.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { MAX_VENDORED_FILE_BYTES } from "../core/project/file-outcomes.ts";
import type { LockCodec } from "../core/project/lock-entry.ts";

/** Hex sha256 of a text's UTF-8 bytes (or of bytes). */
export function sha256Hex(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

const LEVEL = { level: 9 };

const requireHere = createRequire(import.meta.url);

/** node:zlib, loaded when first needed. */
function zlib(): typeof import("node:zlib") {
  return requireHere("node:zlib") as typeof import("node:zlib");
}

/** A file's content as kiln.lock keeps it: raw DEFLATE (level 9), base64. */
export function encodeBase(content: string): string {
  return zlib().deflateRawSync(Buffer.from(content, "utf8"), LEVEL).toString("base64");
}

/** The same bytes as encodeBase, compressed on libuv's thread pool (the service's thread stays free). */
export function encodeBaseAsync(content: string): Promise<string> {
  return new Promise((resolve, reject) => {
    zlib().deflateRaw(Buffer.from(content, "utf8"), LEVEL, (error, bytes) =>
      error ? reject(error) : resolve(bytes.toString("base64")),
    );
  });
}

/**
 * A base's content (any raw DEFLATE stream: every kiln's bases read); undefined when it inflates
 * to more than MAX_VENDORED_FILE_BYTES - zlib stops there, so a small stream that would inflate to
 * gigabytes (a DEFLATE bomb in a lock from elsewhere) costs that much memory at most. Throws when
 * it is not raw DEFLATE.
 */
export function decodeBaseText(base: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = zlib().inflateRawSync(Buffer.from(base, "base64"), {
      maxOutputLength: MAX_VENDORED_FILE_BYTES,
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") return undefined;
    throw error;
  }
  return bytes.toString("utf8");
}

export const NODE_LOCK_CODEC: LockCodec = { sha256: sha256Hex, encodeBase };
