// The lock file `kiln.lock`: what kiln vendored into a project and from where. Beside
// kiln.toml, written by `add`, `setup` and `update` in the same all-or-nothing write as the
// files it describes (never by `apply`), read by `status`, `diff` and `update`.
//
// The format (docs/cli.md, "The lock file"): JSON, every object's keys sorted, two-space
// indent, a final newline; components sorted by name then component, each component's files
// by path - so the same project always gives the same bytes and a change shows as a small diff.
// For each file the lock keeps the sha256 of the content kiln wrote and that content itself,
// compressed (`base`: raw DEFLATE, base64): the exact base of a later three-way merge, even
// after kiln is upgraded, the URL item changed or the machine is offline. Encoding the base and
// hashing are the caller's (Node's zlib and crypto in the CLI), so this module stays pure.
// Never stored: request headers, tokens or anything the user did not type into a reference.

import { LOCK_FILE } from "../config.ts";
import { decodeAutomationProfile, setKey } from "../context.ts";
import { errorMessage, KilnError } from "../errors.ts";
import { parseJsonText } from "../json-text.ts";
import {
  array,
  boolean,
  childPath,
  type Decoder,
  isPlainObject,
  optional,
  record,
  required,
  ShapeError,
  string,
  struct,
  unsigned,
  withDefault,
} from "../shape.ts";
import type { AutomationProfile } from "../vocabulary.ts";

/** The newest format this kiln reads and writes. Raised when the format changes. */
export const LOCK_VERSION = 2;

/**
 * The format a lock without a registry's item is written in: version 1, which every kiln reads,
 * so a project that uses no registry stays readable by the kilns before registries.
 */
const FIRST_LOCK_VERSION = 1;

/** An item of a namespaced registry as the lock records it: where, which version, which bytes. */
export interface RegistryLockSource {
  type: "registry";
  /** The namespace (`@acme`): the URL and any credential come from the current configuration. */
  registry: string;
  item: string;
  version: string;
  /** `sha256:<hex>` of the item file's bytes as served for that version. */
  digest: string;
}

/** Where a component's registry item came from. */
export type LockSource =
  | { type: "builtin"; kiln: string }
  | { type: "url"; url: string }
  | { type: "file"; path: string }
  | RegistryLockSource;

/**
 * The format version a lock of `components` is written in: 2 when one of them comes from a
 * namespaced registry (a kiln before registries cannot resolve it, and refuses the lock with
 * its newer-lock message rather than failing on the unknown source), else 1.
 */
export function lockVersionFor(components: readonly Pick<LockedComponent, "source">[]): number {
  return components.some((component) => component.source.type === "registry")
    ? LOCK_VERSION
    : FIRST_LOCK_VERSION;
}

export interface LockedFile {
  /** The path from the project root (the output folder included), `/`-separated. */
  path: string;
  /** Hex sha256 of the bytes kiln wrote (for a conflicted file: of the new render). */
  sha256: string;
  /** Those bytes, raw DEFLATE and base64: the base of the next three-way merge. */
  base: string;
  /** Which of the item's file templates rendered it (0-based), to follow a path that moves. */
  template: number;
  /** Written with conflict markers by `kiln update --conflicts=markers`, not yet resolved. */
  conflicted?: boolean | undefined;
  /**
   * For a conflicted file whose own lines (the item's or yours) look like kiln's markers: how
   * many pairs of them it held when the markers were written. The file holds kiln's markers
   * while it has more (src/core/project/merge.ts, hasConflictMarkers); absent means none.
   */
  ownMarkerPairs?: number | undefined;
}

export interface LockedComponent {
  /** The component's `name`. */
  name: string;
  /** The registry item's `category/name`, e.g. `k8s/deployment`. */
  component: string;
  /** The reference as typed (`k8s/deployment`, a URL, `./items/redis.json`). */
  reference: string;
  source: LockSource;
  /** `sha256:<hex>` of the registry item's canonical JSON: changes whenever the item does. */
  fingerprint: string;
  /** The field values given (not the item's defaults), labels, and the namespace rendered in. */
  fields: Record<string, string>;
  labels: Record<string, string>;
  namespace: string;
  /** The automation tool profile, only when not the default `cm`. */
  automationProfile?: AutomationProfile | undefined;
  /**
   * The component's place in the order the project's components were added or set up (1 the
   * first), which the lock's own order (by name, for small diffs) loses: `kiln preset export`
   * lists them in it. Absent in a lock written before kiln kept it; those come first.
   */
  order?: number | undefined;
  /**
   * The components its item declared as dependencies when it was added (each one's
   * `category/name` and name), whether added with it or already in the project: what `kiln
   * remove` warns about. Absent when it declares none (older kilns ignore it).
   */
  dependencies?: LockedDependency[] | undefined;
  files: LockedFile[];
}

/** A component another one needs, as the lock names a component: its item and its name. */
export interface LockedDependency {
  component: string;
  name: string;
}

export interface Lock {
  version: number;
  components: LockedComponent[];
}

export function emptyLock(): Lock {
  return { version: LOCK_VERSION, components: [] };
}

/** JSON with every object's keys in sorted order (arrays keep theirs); `indent` as JSON.stringify. */
export function sortedJson(value: unknown, indent?: number): string {
  const sort = (entry: unknown): unknown => {
    if (Array.isArray(entry)) return entry.map(sort);
    if (!isPlainObject(entry)) return entry;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(entry).sort()) {
      const child = entry[key];
      if (child !== undefined) setKey(out, key, sort(child));
    }
    return out;
  };
  return JSON.stringify(sort(value), null, indent);
}

/** The canonical JSON of a value (sorted keys, no spaces): what fingerprints hash. */
export function canonicalJson(value: unknown): string {
  return sortedJson(value);
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Components in the lock's order: by name, then by component. */
function compareComponents(a: LockedComponent, b: LockedComponent): number {
  return compare(a.name, b.name) || compare(a.component, b.component);
}

/** The lock's text: sorted, two-space JSON with a final newline (the same lock, the same bytes). */
export function serializeLock(lock: Lock): string {
  const components = [...lock.components].sort(compareComponents).map((component) => ({
    ...component,
    dependencies: component.dependencies?.length
      ? [...component.dependencies].sort(
          (a, b) => compare(a.component, b.component) || compare(a.name, b.name),
        )
      : undefined,
    files: [...component.files]
      .sort((a, b) => compare(a.path, b.path))
      .map((file) => {
        const conflicted = file.conflicted === true;
        const pairs = conflicted ? (file.ownMarkerPairs ?? 0) : 0;
        return {
          ...file,
          conflicted: conflicted ? true : undefined,
          ownMarkerPairs: pairs > 0 ? pairs : undefined,
        };
      }),
  }));
  return `${sortedJson({ version: lockVersionFor(components), components }, 2)}\n`;
}

const decodeSource: Decoder<LockSource> = (value, path) => {
  const { type } = struct("LockSource", { type: required(string) })(value, path);
  if (type === "builtin") {
    return { type, ...struct("LockSource", { kiln: required(string) })(value, path) };
  }
  if (type === "url")
    return { type, ...struct("LockSource", { url: required(string) })(value, path) };
  if (type === "file") {
    return { type, ...struct("LockSource", { path: required(string) })(value, path) };
  }
  if (type === "registry") {
    const fields = struct("LockSource", {
      registry: required(string),
      item: required(string),
      version: required(string),
      digest: required(string),
    })(value, path);
    return { type, ...fields };
  }
  throw new ShapeError(
    childPath(path, "type"),
    `unknown variant \`${type}\`, expected one of \`builtin\`, \`url\`, \`file\`, \`registry\``,
  );
};

const decodeFile = struct("LockedFile", {
  path: required(string),
  sha256: required(string),
  base: required(string),
  template: required(unsigned(32)),
  conflicted: optional(boolean),
  ownMarkerPairs: optional(unsigned(32)),
});

const decodeComponent = struct("LockedComponent", {
  name: required(string),
  component: required(string),
  reference: required(string),
  source: required(decodeSource),
  fingerprint: required(string),
  fields: withDefault(record(string), () => ({})),
  labels: withDefault(record(string), () => ({})),
  namespace: required(string),
  automationProfile: optional(decodeAutomationProfile),
  order: optional(unsigned(32)),
  dependencies: optional(
    array(struct("LockedDependency", { component: required(string), name: required(string) })),
  ),
  files: withDefault(array(decodeFile), () => []),
});

const decodeLock = struct("Lock", {
  version: required(unsigned(32)),
  components: withDefault(array(decodeComponent), () => []),
});

/** A kiln.lock kiln cannot use: `problem` follows the file's name, the way out follows it. */
export function lockFileError(problem: string, detail?: string): KilnError {
  return new KilnError(
    "invalid_request",
    `${LOCK_FILE}${problem} - fix it (it is in git: \`git checkout ${LOCK_FILE}\`) or remove it`,
    detail,
  );
}

/** The error for a lock written by a newer kiln, whose format this one cannot know. */
export function newerLockError(version: number): KilnError {
  return new KilnError(
    "invalid_request",
    `this ${LOCK_FILE} was written by a newer kiln - upgrade kiln`,
    `it has format version ${version}; this kiln reads versions up to ${LOCK_VERSION}`,
  );
}

/**
 * The error for a lock in a format this kiln reads but written by a newer kiln (`recorded`):
 * writing it back would silently replace what that kiln recorded (a newer built-in's files and
 * fingerprint) with this older kiln's, so the commands that write refuse unless told.
 */
export function olderKilnError(recorded: string, current: string): KilnError {
  return new KilnError(
    "invalid_request",
    `${LOCK_FILE} was written by kiln ${recorded} - upgrade kiln, or pass --allow-older-kiln`,
    `this is kiln ${current}: writing ${LOCK_FILE} would record this kiln's older built-ins over kiln ${recorded}'s; --allow-older-kiln writes it anyway`,
  );
}

/**
 * Parses kiln.lock's text: the version first (a newer one is refused with the upgrade message,
 * before its shape is looked at), then every key. Errors say where, never what the file holds.
 */
export function parseLock(text: string): Lock {
  let json: unknown;
  try {
    json = parseJsonText(text);
  } catch (error) {
    throw lockFileError(" is not valid JSON", errorMessage(error));
  }
  const version = isPlainObject(json) ? json.version : undefined;
  if (typeof version === "number" && Number.isInteger(version) && version > LOCK_VERSION) {
    throw newerLockError(version);
  }
  let lock: Lock;
  try {
    lock = decodeLock(json, "");
  } catch (error) {
    if (error instanceof ShapeError) {
      throw lockFileError(" is not a valid lock file", error.messageWithoutStrings);
    }
    throw error;
  }
  if (lock.version < 1) throw lockFileError(" is not a valid lock file", `version ${lock.version}`);
  return lock;
}

/** Does `entry` stand for the same component as `other` (same name, same registry item)? */
export function sameComponent(
  entry: Pick<LockedComponent, "name" | "component">,
  other: Pick<LockedComponent, "name" | "component">,
): boolean {
  return entry.name === other.name && entry.component === other.component;
}

/**
 * The lock with `entry` recorded: it replaces the entry of the same component (keeping its
 * place in the project's order), or joins the project last, and any other component's claim
 * on one of its files is dropped (the file is now the new entry's).
 */
export function recordComponent(lock: Lock, entry: LockedComponent): Lock {
  const replaced = lock.components.find((component) => sameComponent(component, entry));
  const order =
    replaced?.order ??
    // a reduce, not Math.max(...): a stranger's lock may hold more components than a call's
    // arguments can
    lock.components.reduce((highest, other) => Math.max(highest, other.order ?? 0), 0) + 1;
  return recordAt(lock, { ...entry, order });
}

/** The components in the order they were added or set up (a lock's oldest, unnumbered, first). */
export function inProjectOrder(components: readonly LockedComponent[]): LockedComponent[] {
  return [...components]
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => (a.entry.order ?? 0) - (b.entry.order ?? 0) || a.index - b.index)
    .map(({ entry }) => entry);
}

function recordAt(lock: Lock, entry: LockedComponent): Lock {
  const paths = new Set(entry.files.map((file) => file.path));
  const others = lock.components
    .filter((component) => !sameComponent(component, entry))
    .map((component) => withoutPaths(component, paths));
  return { version: LOCK_VERSION, components: [...others, entry] };
}

/**
 * The component without the files at `paths` (the entry recorded now owns them): the same
 * object when it holds none of them. Entries are never changed once made, so two locks can
 * share one; copying every other component at every record made a preset's lock quadratic
 * (35 components recorded twice by `kiln setup`: about 1,200 copies, 1-3 ms).
 */
function withoutPaths(component: LockedComponent, paths: ReadonlySet<string>): LockedComponent {
  if (!component.files.some((file) => paths.has(file.path))) return component;
  return { ...component, files: component.files.filter((file) => !paths.has(file.path)) };
}

/** The lock without the components `drop` selects. */
export function withoutComponents(lock: Lock, drop: (entry: LockedComponent) => boolean): Lock {
  return { version: LOCK_VERSION, components: lock.components.filter((entry) => !drop(entry)) };
}

/**
 * A URL as the lock keeps it: without user name and password (`https://user:token@host/...`
 * is stored as `https://host/...`), which are secrets, not part of where the item lives.
 */
export function urlForLock(url: string): string {
  return url.replace(/^(https?:\/\/)[^/?#@]*@/i, "$1");
}

/** What `reference` resolved to, as the lock records it (`isBuiltin`: it named a built-in). */
export function lockSource(reference: string, isBuiltin: boolean, kilnVersion: string): LockSource {
  if (isBuiltin) return { type: "builtin", kiln: kilnVersion };
  if (/^https?:\/\//.test(reference)) return { type: "url", url: urlForLock(reference) };
  return { type: "file", path: reference };
}
