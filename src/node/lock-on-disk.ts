// kiln.lock on the disk: reading it (bounded, as kiln.toml is read), and the Node half of its
// entries - Node's codec (src/node/lock-compression.ts) and the kiln version. How an entry is built (and so its
// bytes, which the dashboard's zip gives too) is the core's (src/core/project/lock-entry.ts);
// the format is src/core/project/lock-format.ts.
import { createRequire } from "node:module";
import { join } from "node:path";
import { LOCK_FILE } from "../core/config.ts";
import type { RenderInput } from "../core/context.ts";
import type { RegistryItem } from "../core/item.ts";
import { referenceOf } from "../core/item.ts";
import type { PlannedFile } from "../core/plan.ts";
import type { RecordedBase } from "../core/project/file-outcomes.ts";
import {
  lockEntry as coreLockEntry,
  decodeBase,
  type ItemRecord,
  itemFingerprint,
} from "../core/project/lock-entry.ts";
import {
  type Lock,
  type LockedComponent,
  type LockedDependency,
  type LockedFile,
  lockSource,
  olderKilnError,
  parseLock,
  type RegistryLockSource,
} from "../core/project/lock-format.ts";
import { decodeBaseText, NODE_LOCK_CODEC, sha256Hex } from "./lock-compression.ts";
import { readRegularFile } from "./read-regular-file.ts";
import { readVersion } from "./version.ts";

/** A lock holds every vendored file compressed; far more than a project of hundreds of files. */
const MAX_LOCK_FILE_BYTES = 64 * 1024 * 1024;

/** The project's kiln.lock as it is on disk, or undefined when it has none. */
export function readLockText(cwd: string): string | undefined {
  return readRegularFile(join(cwd, LOCK_FILE), LOCK_FILE, MAX_LOCK_FILE_BYTES);
}

/** The project's kiln.lock, or undefined when it has none. */
export function readLock(cwd: string): Lock | undefined {
  const text = readLockText(cwd);
  return text === undefined ? undefined : parseLock(text);
}

/** The content kiln wrote last time (the merge base), checked against its recorded hash. */
export function baseContent(file: LockedFile, component?: LockedComponent): string {
  return decodeBase(file, sha256Hex, decodeBaseText, component);
}

/**
 * A recorded file's base as a merge reads it: compared by its recorded hash, and inflated only
 * when a merge needs it - one file at a time, never the whole lock's at once.
 */
export function recordedBase(component: LockedComponent, file: LockedFile): RecordedBase {
  return {
    isContent: (text) => sha256Hex(text) === file.sha256,
    read: () => baseContent(file, component),
  };
}

export interface RenderedForLock {
  /** The reference as typed. */
  reference: string;
  item: RegistryItem;
  /** The item is a built-in: the reference's last segment named one (looked up first). */
  builtin: boolean;
  /** For a namespaced registry's item: its namespace, name, version and digest. */
  registry?: RegistryLockSource | undefined;
  input: RenderInput;
  /** The rendered files with their paths from the project root, in the item's file order. */
  files: readonly PlannedFile[];
  /** What its item's dependencies resolved to; absent keeps what the old entry records. */
  dependencies?: LockedDependency[] | undefined;
}

/**
 * What the lock records of the item `reference` resolved to (`builtin`: it named a built-in;
 * `registry`: a namespaced registry's item, recorded by namespace, never by URL).
 */
export function itemRecord(
  reference: string,
  item: RegistryItem,
  builtin: boolean,
  registry?: RegistryLockSource,
): ItemRecord {
  return {
    component: referenceOf(item),
    source: registry ?? lockSource(reference, builtin, readVersion()),
    fingerprint: itemFingerprint(item, sha256Hex),
  };
}

/** The lock entry of a component kiln has just rendered and is writing. */
export function lockEntry(rendered: RenderedForLock, old?: LockedComponent): LockedComponent {
  return coreLockEntry(
    {
      reference: rendered.reference,
      ...itemRecord(rendered.reference, rendered.item, rendered.builtin, rendered.registry),
      input: rendered.input,
      files: rendered.files,
      dependencies: rendered.dependencies,
    },
    NODE_LOCK_CODEC,
    old,
  );
}

const requireHere = createRequire(import.meta.url);

/** semver's comparison and check, required from node_modules on first use. */
interface SemverOrder {
  greaterThan: (a: string, b: string) => boolean;
  valid: (version: string) => string | null;
}

/**
 * semver is required only when the lock records a version other than this kiln's, which most
 * runs never meet: loading it compiles its regular expressions, ~2 ms of a CLI start of ~40 ms
 * (measured), as the yaml and ajv libraries are loaded on first use (node-libraries.ts).
 */
function semverOrder(): SemverOrder {
  return {
    greaterThan: requireHere("semver/functions/gt.js") as typeof import("semver/functions/gt.js"),
    valid: requireHere("semver/functions/valid.js") as typeof import("semver/functions/valid.js"),
  };
}

/**
 * The newest kiln version the lock records, by semver order: each built-in's `source.kiln` is
 * the kiln that rendered and recorded it, so the lock was written by that kiln or a later one.
 * Undefined when it records none (no built-in, or no version semver can read), and `current`
 * when it records only that one.
 */
function newestKilnOf(lock: Lock, current: string): string | undefined {
  const recorded = new Set<string>();
  for (const entry of lock.components) {
    if (entry.source.type === "builtin") recorded.add(entry.source.kiln);
  }
  if (recorded.size === 0) return undefined;
  if (recorded.size === 1 && recorded.has(current)) return current;
  const semver = semverOrder();
  let newest: string | undefined;
  for (const version of recorded) {
    if (semver.valid(version) === null) continue;
    if (newest === undefined || semver.greaterThan(version, newest)) newest = version;
  }
  return newest;
}

/** The version of the newer kiln that wrote `lock`, or undefined when this kiln is as new. */
export function newerKilnOf(lock: Lock): string | undefined {
  const current = readVersion();
  const newest = newestKilnOf(lock, current);
  if (newest === undefined || newest === current) return undefined;
  return semverOrder().greaterThan(newest, current) ? newest : undefined;
}

/**
 * Refuses to go on with a lock a newer kiln wrote, unless `allowOlderKiln` (the user's
 * --allow-older-kiln): the commands that write kiln.lock call it before anything is planned.
 */
export function refuseNewerLock(lock: Lock | undefined, allowOlderKiln: boolean): void {
  if (lock === undefined || allowOlderKiln) return;
  const newer = newerKilnOf(lock);
  if (newer !== undefined) throw olderKilnError(newer, readVersion());
}
