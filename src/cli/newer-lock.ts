// A kiln.lock written by a newer kiln (src/node/lock-on-disk.ts, newerKilnOf): the commands
// that only read it say so before their report, since an older kiln may not read everything
// the newer one recorded; the commands that write it refuse (refuseNewerLock) unless the user
// passes --allow-older-kiln.
import { LOCK_FILE } from "../core/config.ts";
import type { Lock } from "../core/project/lock-format.ts";
import { newerKilnOf } from "../node/lock-on-disk.ts";
import { readVersion } from "../node/version.ts";
import type { Output } from "./output.ts";

/** `status` and `diff`: one warning first when a newer kiln wrote the lock. */
export function warnOfNewerLock(output: Output, lock: Lock): void {
  const newer = newerKilnOf(lock);
  if (newer === undefined) return;
  output.warning(
    `${LOCK_FILE} was written by kiln ${newer}, newer than this kiln ${readVersion()} - upgrade kiln to see what it recorded; this is kiln ${readVersion()}'s reading of it`,
  );
}
