// sha256 in Node: the hashes kiln.lock records and the registry items' fingerprints, for the
// CLI and the service. (The browser hashes with a library: src/core/project/lock-entry.ts takes
// the function, so the same entry comes out of both.)
import { createHash } from "node:crypto";

/** Hex sha256 of a text's UTF-8 bytes (or of bytes). */
export function sha256Hex(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}
