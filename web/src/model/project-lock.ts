// The kiln.lock of the project's zip, so that a downloaded project is one `kiln status`, `diff`
// and `update` can work with, byte for byte the lock `kiln setup` of the same preset writes: the
// core builds it (setupLock in src/core/project/lock-entry.ts), sha256 comes from @noble/hashes
// (crypto.subtle is async and missing when the dashboard is served over plain http elsewhere
// than localhost), the files' compressed bases from the service (POST /api/lock/bases: zlib's
// bytes, which no browser library makes), and what the lock records of each registry item - its
// fingerprint and where it came from - from GET /api/registry/meta (the kiln version and every
// built-in) and /api/registry/meta?ref= (an item from a URL or file). And the way back: a
// project opened from its kiln.lock.
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { DEFAULT_NAMESPACE, LOCK_FILE } from "../../../src/core/config.ts";
import type { ItemMetaView } from "../../../src/core/item.ts";
import { catalogueEntry } from "../../../src/core/project/facts.ts";
import { parseProjectConfig } from "../../../src/core/project/kiln-toml.ts";
import type { ItemRecord, LockCodec, Sha256Hex } from "../../../src/core/project/lock-entry.ts";
import { type Lock, lockSource, parseLock } from "../../../src/core/project/lock-format.ts";
import {
  lockNamespace,
  outputDirOf,
  presetFromLock,
  sharedTopFolder,
} from "../../../src/core/project/preset-from-lock.ts";
import type { Preset, PresetComponent } from "../../../src/core/project/preset-manifest.ts";
import type { RenderOne } from "../../../src/core/project/render-components.ts";

/** Hex sha256 of a text's UTF-8 bytes, as Node's crypto gives it. */
export const sha256Hex: Sha256Hex = (text) => bytesToHex(sha256(utf8ToBytes(text)));

/**
 * The codec of the zip's lock: sha256 here, and the bases of `contents` as `bases` gives them
 * (the service compresses them with the CLI's own code: a browser cannot make zlib's bytes).
 */
export async function browserLockCodec(
  contents: readonly string[],
  bases: (contents: readonly string[]) => Promise<string[]>,
): Promise<LockCodec> {
  const unique = [...new Set(contents)];
  const encoded = unique.length === 0 ? [] : await bases(unique);
  if (encoded.length !== unique.length) throw new Error("the service sent a wrong number of bases");
  const byContent = new Map(unique.map((content, index) => [content, encoded[index] as string]));
  return {
    sha256: sha256Hex,
    encodeBase: (content) => {
      const base = byContent.get(content);
      if (base === undefined) throw new Error("no compressed base for a file of the zip");
      return base;
    },
  };
}

/** What GET /api/registry/meta answers, as far as the lock needs it. */
export interface CatalogueMeta {
  items: (ItemMetaView & { fingerprint: string })[];
  /** The kiln version whose built-ins these are. */
  kiln: string;
}

/** Each reference's record: a built-in's from the catalogue, any other's from `metaOf`. */
export async function itemRecords(
  references: readonly string[],
  catalogue: CatalogueMeta,
  metaOf: (reference: string) => Promise<{ reference: string; fingerprint: string }>,
): Promise<Map<string, ItemRecord>> {
  const records = new Map<string, ItemRecord>();
  for (const reference of new Set(references)) {
    const builtin = catalogueEntry(reference, catalogue.items) as
      | CatalogueMeta["items"][number]
      | undefined;
    const meta = builtin ?? (await metaOf(reference));
    records.set(reference, {
      component: meta.reference,
      source: lockSource(reference, builtin !== undefined, catalogue.kiln),
      fingerprint: meta.fingerprint,
    });
  }
  return records;
}

/** A kiln.lock (and, if the user gave it too, the kiln.toml beside it) as the user opened them. */
export interface LockFiles {
  lock: string;
  projectFile?: string | undefined;
}

/**
 * The preset of the project a kiln.lock records (`kiln preset export`'s, from the core). With
 * kiln.toml the settings are its own; from the lock alone the namespace is the one most
 * components were rendered in and the output folder is learnt by rendering a recorded component
 * again (see src/core/project/preset-from-lock.ts); the project stays unnamed.
 */
export async function presetFromLockFiles(
  files: LockFiles,
  render: RenderOne<PresetComponent>,
  itemPaths: ReadonlyMap<string, string> = new Map(),
): Promise<Preset> {
  const lock = withItemPaths(parseLock(files.lock), itemPaths);
  if (files.projectFile !== undefined) {
    return presetFromLock(lock, parseProjectConfig(files.projectFile));
  }
  const defaultNamespace = lockNamespace(lock, DEFAULT_NAMESPACE);
  const preset = presetFromLock(lock, {
    name: "",
    defaultNamespace,
    outputDir: await lockOutputDir(lock, render),
    automationProfile: lock.components[0]?.automationProfile,
  });
  return { ...preset, project: { ...preset.project, name: undefined } };
}

/**
 * The lock with each component from a local item file pointed at where the user said the file
 * is: the lock records the path relative to the project's folder, which the service (reading
 * files from its own folder) cannot follow.
 */
function withItemPaths(lock: Lock, itemPaths: ReadonlyMap<string, string>): Lock {
  if (itemPaths.size === 0) return lock;
  return {
    ...lock,
    components: lock.components.map((entry) => {
      const path = itemPaths.get(entry.reference);
      return path === undefined ? entry : { ...entry, reference: path };
    }),
  };
}

/**
 * The item files a lock's components were rendered from, by the path the lock records
 * (relative to the project's folder), each once, in the lock's order. An absolute path is
 * left out: it names the file wherever the service runs.
 */
export function lockItemFiles(lockText: string): string[] {
  const references = parseLock(lockText)
    .components.filter((entry) => entry.source.type === "file")
    .map((entry) => entry.reference)
    .filter((reference) => !reference.startsWith("/"));
  return [...new Set(references)];
}

/**
 * The lock's item files the service cannot read where the lock says they are, in the lock's
 * order, by `inspect` (GET /api/registry/inspect). All are asked for at once: one after another,
 * a lock of many files waited for each answer in turn.
 */
export async function unreadableItemFiles(
  lockText: string,
  inspect: (reference: string) => Promise<unknown>,
): Promise<string[]> {
  const references = lockItemFiles(lockText);
  const readable = await Promise.all(
    references.map((reference) =>
      inspect(reference).then(
        () => true,
        () => false,
      ),
    ),
  );
  return references.filter((_, at) => !readable[at]);
}

/**
 * Where an item file is, from the user's answer: the item file itself (a path ending in
 * `.json`), or the project's folder, which the lock's relative path is then joined to.
 */
export function itemFilePath(reference: string, answer: string): string {
  const given = answer.trim();
  if (given.endsWith(".json")) return given;
  const folder = given.replace(/\/+$/, "");
  return `${folder}/${reference.replace(/^(\.\/)+/, "")}`;
}

/** The output folder of the lock's files: from the first component that renders as recorded. */
async function lockOutputDir(lock: Lock, render: RenderOne<PresetComponent>): Promise<string> {
  for (const entry of lock.components) {
    const [file] = entry.files;
    if (file === undefined) continue;
    try {
      const rendered = await render(entry, {
        name: entry.name,
        fields: entry.fields,
        labels: entry.labels,
        defaultNamespace: entry.namespace,
        ...(entry.automationProfile ? { automationProfile: entry.automationProfile } : {}),
      });
      const path = rendered.files[file.template]?.path;
      const folder = path === undefined ? undefined : outputDirOf(file.path, path);
      if (folder !== undefined) return folder;
    } catch {
      // an item that no longer renders as recorded: ask the next component
    }
  }
  return sharedTopFolder(lock);
}

/** Is a chosen file a kiln.lock (by its name: `kiln.lock`, or any `.lock` the user renamed it to)? */
export function isLockFile(name: string): boolean {
  return name === LOCK_FILE || name.endsWith(".lock");
}
