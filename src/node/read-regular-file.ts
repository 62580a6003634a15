// Bounded reads of files a stranger may have put in the user's way: kiln.toml comes with every
// cloned repository, and it may be a symbolic link to /dev/zero (endless), a FIFO (an open
// that never returns), or a file that claims one size and holds another (/proc files claim 0
// bytes; a file may grow while it is read).
//
// So a file is read only when it is a regular file (links followed): first checked by path, so
// devices are never even opened; then opened without blocking (a FIFO swapped in meanwhile
// cannot hold the open) and checked again through the descriptor, whose fstat is what is read.
// At most the cap plus one block (16 KiB) is read, whatever size the file claims: anything
// over the cap is enough to refuse it.
//
// kiln's own journal is read without following links at all (lstat, then O_NOFOLLOW): kiln
// writes it as a regular file, so a link in its place was put there by someone else.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  type Stats,
  statSync,
} from "node:fs";
import { KilnError } from "../core/errors.ts";

/** kiln.toml is three settings; a larger one is not a kiln.toml. */
export const MAX_PROJECT_FILE_BYTES = 1024 * 1024;

const BLOCK = 16 * 1024;

function roundUp(bytes: number): number {
  return Math.ceil(bytes / BLOCK) * BLOCK;
}

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
/** Also refuses a symbolic link as the last name (ELOOP), for files read without following. */
const NO_FOLLOW_FLAGS = READ_FLAGS | (constants.O_NOFOLLOW ?? 0);

/** The file's text, or undefined when there is nothing of that name. */
export type ReadFileResult = string | undefined;

/** Why a file was not read: the caller words it (`ReadOptions.refuse`). */
export type ReadProblem =
  | { kind: "link" }
  | { kind: "not_regular" }
  | { kind: "too_large"; maxBytes: number }
  | { kind: "unreadable"; code: string };

export interface ReadOptions {
  /** false: a symbolic link is refused, never followed (kiln's own files). Default true. */
  followLinks?: boolean;
  /** The error for a file that is not read; by default the messages below, naming `label`. */
  refuse?: (problem: ReadProblem) => KilnError;
}

/** The messages for kiln.toml, kiln.lock, items and presets. */
function refusalFor(label: string): (problem: ReadProblem) => KilnError {
  return (problem) => {
    switch (problem.kind) {
      case "link":
      case "not_regular":
        return new KilnError(
          "invalid_request",
          `${label} is not a regular file - kiln reads it only from a regular file (not a folder, device, pipe or socket)`,
        );
      case "too_large":
        return new KilnError(
          "invalid_request",
          `${label} is larger than ${problem.maxBytes} bytes - kiln reads it only up to that size`,
        );
      case "unreadable":
        return new KilnError("invalid_request", `could not read ${label} (${problem.code})`);
    }
  };
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? "unknown error";
}

/**
 * Reads `path` as UTF-8 when it is a regular file of at most `maxBytes` bytes. `label` names
 * the file in errors (never its content). A missing file is undefined, for the caller to word;
 * anything that is not a regular file, or is too large, or cannot be read, is a KilnError.
 */
export function readRegularFile(
  path: string,
  label: string,
  maxBytes: number,
  options: ReadOptions = {},
): ReadFileResult {
  return readRegularFileBytes(path, label, maxBytes, options)?.toString("utf8");
}

/** `readRegularFile`'s bytes, as they are on the disk (a file kiln may have to put back). */
export function readRegularFileBytes(
  path: string,
  label: string,
  maxBytes: number,
  options: ReadOptions = {},
): Buffer | undefined {
  const follow = options.followLinks !== false;
  const refuse = options.refuse ?? refusalFor(label);
  let stats: Stats | undefined;
  try {
    stats = follow
      ? statSync(path, { throwIfNoEntry: false })
      : lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR" || code === "ENAMETOOLONG") return undefined;
    throw refuse({ kind: "unreadable", code: codeOf(error) });
  }
  if (stats === undefined) return undefined;
  if (stats.isSymbolicLink()) throw refuse({ kind: "link" });
  if (!stats.isFile()) throw refuse({ kind: "not_regular" });
  let fd: number;
  try {
    fd = openSync(path, follow ? READ_FLAGS : NO_FOLLOW_FLAGS);
  } catch (error) {
    const code = codeOf(error);
    if (code === "ENOENT") return undefined;
    // O_NOFOLLOW met a link swapped in since the lstat
    if (code === "ELOOP" && !follow) throw refuse({ kind: "link" });
    throw refuse({ kind: "unreadable", code });
  }
  try {
    // the descriptor is what is read: check it, not the path (it may have been swapped)
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw refuse({ kind: "not_regular" });
    if (opened.size > maxBytes) throw refuse({ kind: "too_large", maxBytes });
    // Buffer sizes are whole blocks (some /proc files refuse reads of odd lengths); the last
    // one reaches just past the cap.
    const limit = roundUp(maxBytes + 1);
    let buffer = Buffer.allocUnsafe(Math.min(limit, roundUp(opened.size + 1)));
    let total = 0;
    for (;;) {
      if (total === buffer.length) {
        if (total > maxBytes) throw refuse({ kind: "too_large", maxBytes });
        const larger = Buffer.allocUnsafe(Math.min(limit, buffer.length * 2));
        buffer.copy(larger, 0, 0, total);
        buffer = larger;
      }
      const read = readSync(fd, buffer, total, buffer.length - total, null);
      if (read === 0) break;
      total += read;
    }
    if (total > maxBytes) throw refuse({ kind: "too_large", maxBytes });
    return buffer.subarray(0, total);
  } catch (error) {
    if (error instanceof KilnError) throw error;
    throw refuse({ kind: "unreadable", code: codeOf(error) });
  } finally {
    closeSync(fd);
  }
}
