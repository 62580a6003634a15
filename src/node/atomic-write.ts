// Writing one file atomically: the bytes go to a temporary file in the same folder, which is then
// renamed over the target, so a reader (another kiln, an editor, a tool) sees the old file or the
// new one, never half of either. Used for the files a run writes into a project and for kiln's
// cache of registries.

import { randomBytes } from "node:crypto";
import { chmodSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

let temporaryCounter = 0;

/**
 * The random part of this process's temporary names, drawn on its first write and again after a
 * clash. Once per process, not once per file: the counter already tells a process's own names
 * apart, and the random part is there for other processes (see temporaryPath), for which 48 bits
 * drawn once are as unlikely to repeat as 48 drawn per file. Drawing it for each of setup's 79
 * files cost about 0.7 ms of CPU.
 */
let randomPart: string | undefined;

/**
 * A name in the same folder (so the rename is atomic), hidden, unlikely to meet a real file, and
 * naming the process that writes it. The pid and counter alone repeat across PID namespaces
 * (containers sharing a cache or a project volume, each with kiln as PID 1), so random bytes
 * make it another writer's name only by chance.
 */
function temporaryPath(destination: string): string {
  temporaryCounter += 1;
  randomPart ??= randomBytes(6).toString("hex");
  const start = temporaryNameStart(basename(destination), process.pid);
  return join(dirname(destination), `${start}${temporaryCounter}-${randomPart}.tmp`);
}

/**
 * How every temporary name of process `pid` for the file `name` begins, `.<name>.kiln-<pid>-`
 * (the journal's replay finds a killed run's leftovers by it, and names its own restores so). A
 * name near the 255-byte limit is not repeated in it, so the temporary name fits too.
 */
export function temporaryNameStart(name: string, pid: number): string {
  const stem = Buffer.byteLength(name) <= 200 ? name : "long-name";
  return `.${stem}.kiln-${pid}-`;
}

/** Is `name` one of writeAtomically's temporary files (`.<name>.kiln-<pid>-<n>[-<random>].tmp`)? */
export function isTemporaryName(name: string): boolean {
  return /^\..+\.kiln-[0-9]+-[0-9]+(-[0-9a-f]{12})?\.tmp$/.test(name);
}

/**
 * Writes `bytes` to `destination` atomically, with `mode` when given (set exactly, whatever the
 * umask; the temporary file is created with it too, so it is never more open than that). On a
 * failure the temporary file this call created is removed and the error thrown; a file already
 * at the temporary name (the `wx` open fails with EEXIST) is another writer's, and is left to it.
 * The name is fresh for each call, so one retry after such a clash writes the file. `nameFor`
 * gives the temporary name (a test sets it to meet a file that is already there).
 */
export function writeAtomically(
  destination: string,
  bytes: string | Uint8Array,
  mode?: number,
  nameFor: (destination: string) => string = temporaryPath,
): void {
  try {
    writeThroughTemporary(destination, bytes, mode, nameFor(destination));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // the file at that name is another's (a writer of the same pid and random part, or its
    // leftover): the retry's name has a fresh random part as well as the next count
    randomPart = undefined;
    writeThroughTemporary(destination, bytes, mode, nameFor(destination));
  }
}

/** One attempt: create `temporary` (never open an existing one), fill it, rename it over. */
function writeThroughTemporary(
  destination: string,
  bytes: string | Uint8Array,
  mode: number | undefined,
  temporary: string,
): void {
  let created = false;
  try {
    // `encoding` named: with it Node writes a string in one call of its own (open, write and
    // close in C++), without it the string goes through a Buffer and three calls from JavaScript
    writeFileSync(temporary, bytes, { flag: "wx", encoding: "utf8", mode: mode ?? 0o666 });
    created = true;
    if (mode !== undefined) chmodSync(temporary, mode);
    renameSync(temporary, destination);
  } catch (error) {
    // a failed `wx` open may still have created the file (the disk filled while writing it);
    // EEXIST alone means the file was there before, someone else's
    if (created || (error as NodeJS.ErrnoException).code !== "EEXIST") removeQuietly(temporary);
    throw error;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // the temporary file was never created
  }
}
