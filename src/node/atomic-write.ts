// Writing one file atomically: the bytes go to a temporary file in the same folder, which is then
// renamed over the target, so a reader (another kiln, an editor, a tool) sees the old file or the
// new one, never half of either. Used for the files a run writes into a project and for kiln's
// cache of registries.

import { chmodSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

let temporaryCounter = 0;

/**
 * A name in the same folder (so the rename is atomic), hidden, unlikely to meet a real file, and
 * naming the process that writes it. A name near the 255-byte limit is not repeated in it, so
 * the temporary name fits too.
 */
function temporaryPath(destination: string): string {
  temporaryCounter += 1;
  const name = basename(destination);
  const stem = Buffer.byteLength(name) <= 200 ? name : "long-name";
  return join(dirname(destination), `.${stem}.kiln-${process.pid}-${temporaryCounter}.tmp`);
}

/**
 * Writes `bytes` to `destination` atomically, with `mode` when given (set exactly, whatever the
 * umask; the temporary file is created with it too, so it is never more open than that). On a
 * failure the temporary file is removed and the error thrown.
 */
export function writeAtomically(
  destination: string,
  bytes: string | Uint8Array,
  mode?: number,
): void {
  const temporary = temporaryPath(destination);
  try {
    writeFileSync(temporary, bytes, mode === undefined ? { flag: "wx" } : { flag: "wx", mode });
    if (mode !== undefined) chmodSync(temporary, mode);
    renameSync(temporary, destination);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // the temporary file was never created
    }
    throw error;
  }
}
