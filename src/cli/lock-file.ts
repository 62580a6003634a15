// kiln.lock on the disk: reading it (bounded, as kiln.toml is read), and the Node half of its
// entries - the sha256 of each file's content, the compressed base kept for the next merge, and
// the fingerprint of the registry item. The format itself is the core's (src/core/project/lock.ts).
import { createHash } from "node:crypto";
import { join } from "node:path";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { DEFAULT_AUTOMATION_PROFILE, type RenderInput } from "../core/context.ts";
import type { RegistryItem } from "../core/item.ts";
import { referenceOf } from "../core/item.ts";
import type { PlannedFile } from "../core/plan.ts";
import {
  canonicalJson,
  LOCK_FILE,
  type Lock,
  type LockedComponent,
  type LockedFile,
  lockFileError,
  lockSource,
  parseLock,
  urlForLock,
} from "../core/project/lock.ts";
import { readRegularFile } from "./read-file.ts";
import { readVersion } from "./version.ts";

/** A lock holds every vendored file compressed; far more than a project of hundreds of files. */
const MAX_LOCK_FILE_BYTES = 64 * 1024 * 1024;

/** The project's kiln.lock, or undefined when it has none. */
export function readLock(cwd: string): Lock | undefined {
  const text = readRegularFile(join(cwd, LOCK_FILE), LOCK_FILE, MAX_LOCK_FILE_BYTES);
  return text === undefined ? undefined : parseLock(text);
}

export function sha256Hex(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}

/** `sha256:<hex>` of the item's canonical JSON. */
export function itemFingerprint(item: RegistryItem): string {
  return `sha256:${sha256Hex(canonicalJson(item))}`;
}

/** One file as the lock records it: its path from the project root, hash and base. */
export function lockedFile(path: string, content: string, template: number): LockedFile {
  return {
    path,
    sha256: sha256Hex(content),
    base: deflateRawSync(Buffer.from(content, "utf8"), { level: 9 }).toString("base64"),
    template,
  };
}

/**
 * The content kiln wrote last time (the merge base), checked against its recorded hash: a lock
 * edited by hand is refused rather than merged against the wrong base.
 */
export function baseContent(file: LockedFile): string {
  let text: string;
  try {
    text = inflateRawSync(Buffer.from(file.base, "base64")).toString("utf8");
  } catch {
    throw lockFileError(`: the recorded content of \`${file.path}\` cannot be read`);
  }
  if (sha256Hex(text) !== file.sha256) {
    throw lockFileError(`: the recorded content of \`${file.path}\` does not match its hash`);
  }
  return text;
}

/**
 * A recorded file whose content is the same keeps its recorded base: compressors may differ
 * between Node versions, and the lock must not change when nothing did.
 */
export function keepBase(fresh: LockedFile, old: LockedFile | undefined): LockedFile {
  if (old === undefined || old.sha256 !== fresh.sha256) return fresh;
  return { ...fresh, base: old.base };
}

export interface RenderedForLock {
  /** The reference as typed. */
  reference: string;
  item: RegistryItem;
  /** The item is a built-in (the spec's first rule matched). */
  builtin: boolean;
  input: RenderInput;
  /** The rendered files with their paths from the project root, in the item's file order. */
  files: readonly PlannedFile[];
}

/** The lock entry of a component kiln has just rendered and is writing. */
export function lockEntry(rendered: RenderedForLock, old?: LockedComponent): LockedComponent {
  const { input } = rendered;
  const fields = input.fields ?? {};
  const namespace = fields.namespace ?? input.defaultNamespace;
  const profile = input.automationProfile ?? DEFAULT_AUTOMATION_PROFILE;
  const oldFiles = new Map(old?.files.map((file) => [file.path, file]));
  return {
    name: input.name,
    component: referenceOf(rendered.item),
    reference: /^https?:\/\//.test(rendered.reference)
      ? urlForLock(rendered.reference)
      : rendered.reference,
    source: lockSource(rendered.reference, rendered.builtin, readVersion()),
    fingerprint: itemFingerprint(rendered.item),
    fields: { ...fields },
    labels: { ...input.labels },
    namespace,
    automationProfile: profile === DEFAULT_AUTOMATION_PROFILE ? undefined : profile,
    files: rendered.files.map((file, index) =>
      keepBase(lockedFile(file.path, file.content, index), oldFiles.get(file.path)),
    ),
  };
}
