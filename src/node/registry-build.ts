// `kiln registry build`'s reading and writing: a registry's source folder (strangers' input: a
// cloned repository, a pull request) read under the path and size rules, turned into the static
// files a web server serves (src/core/registry-source.ts says what they hold), and written into
// the output folder all or nothing with the rules of every kiln write.
//
// Reading: every file named by the manifest or a component.json is a plain relative path (no
// `..`, not absolute), is looked up through its real path, which must stay inside the source
// folder's real path (a symbolic link leading out is refused, one inside is followed), and is
// read only when it is a regular file of at most MAX_SOURCE_FILE_BYTES. Nothing is rendered
// here: building publishes text, and a stranger's template only ever runs in the sandboxed
// engine (`kiln registry validate`, `kiln add`).
//
// Versions: a registry serves every version it ever published, so `<name>@<version>.json`
// files already in the output folder are kept; one that exists with other bytes is refused (the
// item changed without a new version), and so is a version older than one already published.
import { readdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import semver from "semver";
import { KilnError } from "../core/errors.ts";
import {
  COMPONENT_FILE,
  DEFAULT_ITEM_VERSION,
  type IndexEntry,
  itemFileNames,
  type PublishedItem,
  parseComponentSource,
  parseRegistryManifest,
  publishedItem,
  REGISTRY_FILE,
  type RegistryManifest,
  registryIndexText,
} from "../core/registry-source.ts";
import { readRegularFileBytes } from "./read-regular-file.ts";
import { sha256Digest } from "./registry-cache.ts";
import { MAX_LOCAL_FILE_BYTES } from "./resolve-reference.ts";
import { commit } from "./write-commit.ts";
import { planRun, type Step } from "./write-plan.ts";

/**
 * The largest file of a source folder kiln reads, and the largest item it publishes: a client
 * fetches an item (and the index) with this same cap, so a larger one could never be added.
 */
export const MAX_SOURCE_FILE_BYTES = MAX_LOCAL_FILE_BYTES;

/** All the items of one registry together, read into memory and written by one build. */
export const MAX_REGISTRY_BYTES = 256 * 1024 * 1024;

/** The output folder when none is given: `public/r` of the source folder, as shadcn's. */
export const DEFAULT_OUTPUT = join("public", "r");

/** One component folder of the source, read and published. */
export interface SourceItem extends PublishedItem {
  /** The manifest's entry: the folder, relative to the source folder. */
  folder: string;
}

/** A source folder, read. */
export interface RegistrySource {
  manifest: RegistryManifest;
  items: SourceItem[];
}

function isInside(parent: string, path: string): boolean {
  const inside = relative(parent, path);
  return (
    inside === "" || (inside !== ".." && !inside.startsWith(`..${sep}`) && !isAbsolute(inside))
  );
}

/** The real path of the source folder, which must be a folder. */
function sourceRoot(dir: string, shown: string): string {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    throw new KilnError(
      "invalid_request",
      `no registry folder \`${shown}\``,
      `pass the folder that holds ${REGISTRY_FILE}: kiln registry build <dir>`,
    );
  }
  if (!statSync(real).isDirectory()) {
    throw new KilnError("invalid_request", `\`${shown}\` is a file, not a registry folder`);
  }
  return real;
}

function missingFile(shown: string): KilnError {
  return new KilnError("invalid_request", `\`${shown}\` does not exist in the registry folder`);
}

/**
 * The bytes of `path` (a plain relative path, already checked) inside the source folder
 * `rootReal`: followed to its real path, which must stay inside, and read as a regular file of
 * at most MAX_SOURCE_FILE_BYTES. `shown` names it in errors; `missing` is the error when there
 * is no such file.
 */
function readSourceFile(
  rootReal: string,
  path: string,
  shown: string,
  missing: () => KilnError = () => missingFile(shown),
): Buffer {
  let real: string;
  try {
    real = realpathSync(join(rootReal, path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") {
      throw new KilnError("invalid_request", `\`${shown}\` is a loop of symbolic links`);
    }
    throw missing();
  }
  if (!isInside(rootReal, real)) {
    throw new KilnError(
      "invalid_request",
      `\`${shown}\` leads out of the registry folder through a symbolic link - kiln reads a registry's files only inside its folder`,
      "replace the link with the file itself",
    );
  }
  const bytes = readRegularFileBytes(real, `\`${shown}\``, MAX_SOURCE_FILE_BYTES);
  if (bytes === undefined) throw missing();
  return bytes;
}

/** `version` of a component.json: semver in its plain form, `DEFAULT_ITEM_VERSION` when absent. */
function itemVersion(json: Record<string, unknown>, label: string): string {
  const version = json.version;
  if (version === undefined || version === null) return DEFAULT_ITEM_VERSION;
  if (typeof version !== "string" || semver.valid(version) !== version) {
    throw new KilnError(
      "invalid_request",
      `${label}: \`version\` must be a semantic version such as 1.2.0`,
      "raise it whenever the item changes: clients that pinned a version expect its bytes never to change",
    );
  }
  return version;
}

/**
 * Reads the source folder `dir` (`shown` as the user typed it): its manifest and every
 * component folder it lists, each published as registry-item JSON. Throws on the first problem,
 * naming the file; with `onItemProblem`, a component folder's problem goes there instead and
 * the others are still read (validate reports every item).
 */
export function readRegistrySource(
  dir: string,
  shown: string,
  onItemProblem?: (folder: string, error: KilnError) => void,
): RegistrySource {
  const rootReal = sourceRoot(dir, shown);
  const show = (path: string) => (shown === "." ? path : `${shown.replace(/\/+$/, "")}/${path}`);
  const manifestShown = show(REGISTRY_FILE);
  const manifestBytes = readSourceFile(
    rootReal,
    REGISTRY_FILE,
    manifestShown,
    () =>
      new KilnError(
        "invalid_request",
        `no ${REGISTRY_FILE} in \`${shown}\` - a registry folder has a manifest`,
        `create it: {"name": "acme", "homepage": "https://...", "items": ["redis"]} (items: the component folders to publish)`,
      ),
  );
  const manifest = parseRegistryManifest(manifestBytes.toString("utf8"), manifestShown);
  const items: SourceItem[] = [];
  const names = new Map<string, string>();
  let publishedBytesTotal = 0;
  for (const folder of manifest.items) {
    let published: PublishedItem;
    try {
      published = readComponentFolder(rootReal, folder, show);
      const other = names.get(published.item.name);
      if (other !== undefined) {
        throw new KilnError(
          "invalid_request",
          `two items are named \`${published.item.name}\`: ${other} and ${folder} - each published name is one item`,
        );
      }
    } catch (error) {
      if (onItemProblem === undefined || !(error instanceof KilnError)) throw error;
      onItemProblem(folder, error);
      continue;
    }
    names.set(published.item.name, folder);
    items.push({ ...published, folder });
    publishedBytesTotal += Buffer.byteLength(published.text, "utf8");
    if (publishedBytesTotal > MAX_REGISTRY_BYTES) {
      throw new KilnError(
        "invalid_request",
        `the items of ${manifestShown} take more than ${MAX_REGISTRY_BYTES} bytes - kiln builds a registry only up to that size`,
        "split it into registries of their own",
      );
    }
  }
  return { manifest, items };
}

function itemTooLarge(componentShown: string): KilnError {
  return new KilnError(
    "invalid_request",
    `${componentShown}: the item is larger than ${MAX_SOURCE_FILE_BYTES} bytes with its templates - kiln fetches items only up to that size`,
  );
}

/** One component folder, read and published; `show` turns a source path into its shown form. */
function readComponentFolder(
  rootReal: string,
  folder: string,
  show: (path: string) => string,
): PublishedItem {
  const componentShown = show(`${folder}/${COMPONENT_FILE}`);
  const text = readSourceFile(rootReal, `${folder}/${COMPONENT_FILE}`, componentShown);
  const source = parseComponentSource(text.toString("utf8"), componentShown);
  // the item's bytes are counted as its files are read, so a component.json naming one large
  // template a thousand times stops at the cap instead of reading it a thousand times
  let total = text.length;
  const templates = source.templateFiles.map((file) => {
    const bytes = readSourceFile(rootReal, `${folder}/${file}`, show(`${folder}/${file}`));
    total += bytes.length;
    if (total > MAX_SOURCE_FILE_BYTES) throw itemTooLarge(componentShown);
    return bytes.toString("utf8");
  });
  const version = itemVersion(source.json, componentShown);
  const published = publishedItem(source, templates, version, componentShown);
  if (Buffer.byteLength(published.text, "utf8") > MAX_SOURCE_FILE_BYTES) {
    throw itemTooLarge(componentShown);
  }
  return published;
}

/** `sha256:<hex>` of `text`'s UTF-8 bytes: what the index and a client's lock record. */
export function itemDigest(text: string): string {
  return sha256Digest(Buffer.from(text, "utf8"));
}

/**
 * Every item's versions already published in the output folder (`<name>@<version>.json`), by
 * name: the folder is listed once for the whole build, however many items it publishes.
 */
function publishedVersions(outputDir: string): Map<string, string[]> {
  const versions = new Map<string, string[]>();
  let entries: string[];
  try {
    entries = readdirSync(outputDir);
  } catch {
    return versions;
  }
  for (const entry of entries) {
    const at = entry.lastIndexOf("@");
    if (at <= 0 || !entry.endsWith(".json")) continue;
    const version = entry.slice(at + 1, -".json".length);
    if (semver.valid(version) !== version) continue;
    const name = entry.slice(0, at);
    versions.set(name, [...(versions.get(name) ?? []), version]);
  }
  return versions;
}

/**
 * The bytes already published at `outputDir/<file>`, or undefined when there is none. Read with
 * the same rules: a regular file, bounded (the output folder may hold anything).
 */
function publishedBytes(outputDir: string, file: string, shown: string): Buffer | undefined {
  return readRegularFileBytes(join(outputDir, file), `\`${shown}\``, MAX_SOURCE_FILE_BYTES);
}

/** What a build writes, before it is written. */
export interface RegistryBuild {
  manifest: RegistryManifest;
  entries: IndexEntry[];
  files: { path: string; content: string }[];
}

/**
 * The files a build of `source` writes into `outputDir` (`outputShown` as people see it):
 * the index, and each item as `<name>.json` and `<name>@<version>.json`. Refuses an item whose
 * version is already published with other bytes, or is older than a version already there.
 */
export function planRegistryBuild(
  source: RegistrySource,
  outputDir: string,
  outputShown: string,
): RegistryBuild {
  const entries: IndexEntry[] = [];
  const files: { path: string; content: string }[] = [];
  const published = publishedVersions(outputDir);
  for (const { item, version, text, folder } of source.items) {
    const { latest, pinned } = itemFileNames(item.name, version);
    const pinnedShown = `${outputShown.replace(/\/+$/, "")}/${pinned}`;
    const existing = publishedBytes(outputDir, pinned, pinnedShown);
    if (existing !== undefined && !existing.equals(Buffer.from(text, "utf8"))) {
      throw new KilnError(
        "invalid_request",
        `the item ${item.name}@${version} changed without a new version - ${pinnedShown} already holds other bytes`,
        `raise \`version\` in ${folder}/${COMPONENT_FILE}: clients that pinned ${version} expect its bytes never to change`,
      );
    }
    const newer = (published.get(item.name) ?? []).filter((other) => semver.gt(other, version));
    if (newer.length > 0) {
      const newest = semver.rsort(newer)[0] as string;
      throw new KilnError(
        "invalid_request",
        `the item ${item.name} is at version ${version}, older than ${newest} already published in ${outputShown}`,
        `raise \`version\` in ${folder}/${COMPONENT_FILE} above ${newest}`,
      );
    }
    entries.push({
      name: item.name,
      category: item.category,
      title: item.title,
      description: item.description,
      version,
      digest: itemDigest(text),
    });
    files.push({ path: latest, content: text }, { path: pinned, content: text });
  }
  files.push({ path: REGISTRY_FILE, content: registryIndexText(source.manifest, entries) });
  return { manifest: source.manifest, entries, files };
}

/**
 * Writes a planned build into `outputDir`, all or nothing, with the rules of every kiln write
 * (no link leading out, nothing in the way, kiln's own files never written). Files already
 * byte-identical are left as they are.
 */
export function writeRegistryBuild(build: RegistryBuild, outputDir: string, cwd: string): Step[] {
  const root = resolve(cwd, outputDir);
  const steps = planRun([{ root, files: build.files }], {
    force: true,
    cwd,
    unchangedWithoutForce: true,
  });
  commit(steps, [], isInside(cwd, root) ? cwd : root);
  return steps;
}
