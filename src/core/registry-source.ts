// A registry's source folder and what `kiln registry build` publishes from it, as pure data:
// the `registry.json` manifest (the registry's name, homepage and the component folders it
// publishes), one component folder per item laid out like the built-in catalogue (its
// `component.json` naming template files), the published item (the registry-item JSON a URL
// reference reads, templates inlined) and the index (`registry.json` of the built folder). The
// reading of the folder (path and size rules) and the digests are src/node/registry-build.ts's;
// nothing here touches a file.
import { errorMessage, KilnError } from "./errors.ts";
import { parseRegistryItem, type RegistryItem } from "./item.ts";
import { parseJsonText } from "./json-text.ts";

/** The manifest in a source folder, and the index in a built one: the same name on purpose. */
export const REGISTRY_FILE = "registry.json";
/** A component folder's declaration, as in the built-in catalogue. */
export const COMPONENT_FILE = "component.json";
/** The version of an item whose component.json declares none. */
export const DEFAULT_ITEM_VERSION = "0.1.0";
/** The index's name in a built folder: no item may take it. */
export const RESERVED_ITEM_NAME = "registry";
/** How many items one registry publishes at most: its index stays a small fetch. */
export const MAX_REGISTRY_ITEMS = 10_000;

/**
 * A published name (the registry's, an item's): it becomes a file name (`<name>.json`,
 * `<name>@<version>.json`) and a URL segment, so lower-case letters, digits and `-` only,
 * starting with a letter or digit, at most 63 characters.
 */
const PUBLISHED_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const PUBLISHED_NAME_RULE =
  "1 to 63 lower-case letters, digits and `-`, starting with a letter or digit";

/** The source folder's `registry.json`. */
export interface RegistryManifest {
  name: string;
  homepage: string | undefined;
  /** The component folders to publish, relative to the source folder, in index order. */
  items: string[];
}

/** One line of the built index. */
export interface IndexEntry {
  name: string;
  category: string;
  title: string;
  description: string;
  version: string;
  /** `sha256:<hex>` of the exact bytes of the item's file. */
  digest: string;
}

function manifestError(label: string, problem: string): KilnError {
  return new KilnError(
    "invalid_request",
    `${label} is not a valid registry manifest: ${problem}`,
    `a manifest is {"name": "acme", "homepage": "https://...", "items": ["redis", ...]}: the registry's name, an optional homepage, and the component folders to publish`,
  );
}

/** Why `name` cannot be published, or undefined. */
export function publishedNameProblem(name: string): string | undefined {
  return PUBLISHED_NAME.test(name) ? undefined : `must be ${PUBLISHED_NAME_RULE}`;
}

/**
 * Why `folder` (a manifest's item entry, a component's template file) is not a plain path
 * inside the source folder, or undefined: relative, `/`-separated, no empty, `.` or `..`
 * segment, no backslash or control character. A stranger's manifest must not name files
 * elsewhere on the machine that builds it.
 */
export function sourcePathProblem(path: string): string | undefined {
  if (path === "") return "is empty";
  if (path.startsWith("/")) return "is absolute: name a path inside the registry folder";
  if (path.includes("\\")) return "holds a backslash: separate folders with `/`";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\u0000-\u001f\u007f]/.test(path)) return "holds a control character";
  const segments = path.split("/");
  if (segments.includes("..")) return "holds `..`: name a path inside the registry folder";
  if (segments.some((segment) => segment === "" || segment === ".")) {
    return "holds an empty or `.` segment";
  }
  return undefined;
}

function plainObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Parses a source folder's `registry.json`; `label` names it in errors. */
export function parseRegistryManifest(text: string, label: string): RegistryManifest {
  let json: unknown;
  try {
    json = parseJsonText(text);
  } catch (error) {
    throw manifestError(label, `not JSON: ${errorMessage(error)}`);
  }
  const root = plainObject(json);
  if (root === undefined) throw manifestError(label, "not a JSON object");
  const { name, homepage, items } = root;
  if (typeof name !== "string") throw manifestError(label, "`name` must be a string");
  const nameProblem = publishedNameProblem(name);
  if (nameProblem) throw manifestError(label, `\`name\` ${nameProblem}`);
  if (homepage !== undefined && homepage !== null && typeof homepage !== "string") {
    throw manifestError(label, "`homepage` must be a string");
  }
  if (!Array.isArray(items) || items.length === 0) {
    throw manifestError(label, "`items` must be a list of component folders, at least one");
  }
  if (items.length > MAX_REGISTRY_ITEMS) {
    throw manifestError(label, `\`items\` lists ${items.length}, at most ${MAX_REGISTRY_ITEMS}`);
  }
  const folders: string[] = [];
  items.forEach((item, index) => {
    if (plainObject(item)?.digest !== undefined) {
      throw new KilnError(
        "invalid_request",
        `${label} is a built registry's index, not a source folder's manifest`,
        "run kiln registry build and validate on the folder the registry is built from",
      );
    }
    if (typeof item !== "string") throw manifestError(label, `items[${index}] must be a string`);
    const problem = sourcePathProblem(item);
    if (problem) throw manifestError(label, `items[${index}] ${problem}`);
    if (folders.includes(item))
      throw manifestError(label, `items[${index}] lists \`${item}\` twice`);
    folders.push(item);
  });
  return { name, homepage: typeof homepage === "string" ? homepage : undefined, items: folders };
}

/** A component.json as read, before its templates are inlined. */
export interface ComponentSource {
  json: Record<string, unknown>;
  /** Each file entry's template file, in order, relative to the component folder. */
  templateFiles: string[];
}

/**
 * Reads a component.json's text: a JSON object whose `files` entries each name a
 * `templateFile` inside the component folder (the built-in catalogue's form). `label` names the
 * file in errors.
 */
export function parseComponentSource(text: string, label: string): ComponentSource {
  let json: unknown;
  try {
    json = parseJsonText(text);
  } catch (error) {
    throw new KilnError("invalid_request", `${label} is not JSON: ${errorMessage(error)}`);
  }
  const root = plainObject(json);
  if (root === undefined) throw new KilnError("invalid_request", `${label} is not a JSON object`);
  const files = root.files;
  if (!Array.isArray(files) || files.length === 0) {
    throw new KilnError(
      "invalid_request",
      `${label}: \`files\` must list the files the item writes, at least one`,
      'each as {"path": "{{ name }}-redis.yaml", "templateFile": "redis.yaml.j2"}: the output path template and the template file beside component.json',
    );
  }
  const templateFiles = files.map((file, index) => {
    const entry = plainObject(file);
    const templateFile = entry?.templateFile;
    if (typeof templateFile !== "string") {
      throw new KilnError(
        "invalid_request",
        `${label}: files[${index}].templateFile must name the template file beside component.json`,
      );
    }
    const problem = sourcePathProblem(templateFile);
    if (problem) {
      throw new KilnError("invalid_request", `${label}: files[${index}].templateFile ${problem}`);
    }
    return templateFile;
  });
  return { json: root, templateFiles };
}

/** What one component folder publishes. */
export interface PublishedItem {
  item: RegistryItem;
  version: string;
  /** The item file's text: the same bytes under `<name>.json` and `<name>@<version>.json`. */
  text: string;
}

/**
 * The registry-item JSON of a component: its component.json with each file's template inlined
 * (`{path, template}`, as a URL reference reads it) and its version, checked against the
 * registry-item schema and kiln's reading of it. Keys in a fixed order (the standard keys, then
 * the author's others as written), so the same source gives the same bytes. `version` is
 * component.json's, checked by the caller (semver lives in the Node half).
 */
export function publishedItem(
  source: ComponentSource,
  templates: readonly string[],
  version: string,
  label: string,
): PublishedItem {
  const sourceFiles = source.json.files as Record<string, unknown>[];
  const files = sourceFiles.map((file, index) => {
    const { templateFile: _named, ...rest } = file;
    return { path: rest.path, template: templates[index], ...rest };
  });
  const ordered: Record<string, unknown> = {};
  const first = ["name", "category", "version", "title", "description", "fields", "files"];
  const withValues: Record<string, unknown> = { ...source.json, version, files };
  for (const key of first) if (withValues[key] !== undefined) ordered[key] = withValues[key];
  for (const [key, value] of Object.entries(source.json)) {
    if (!first.includes(key)) ordered[key] = value;
  }
  const item = parseRegistryItem(ordered, label);
  const nameProblem = publishedNameProblem(item.name);
  if (nameProblem) {
    throw new KilnError("invalid_request", `${label}: the name \`${item.name}\` ${nameProblem}`);
  }
  if (item.name === RESERVED_ITEM_NAME) {
    throw new KilnError(
      "invalid_request",
      `${label}: no item may be named \`${RESERVED_ITEM_NAME}\` - a built registry's index is ${REGISTRY_FILE}`,
    );
  }
  return { item, version, text: `${publishedText(ordered, label)}\n` };
}

/**
 * The item's JSON text. JSON.parse reads nesting of any depth, JSON.stringify recurses and runs
 * out of stack on a stranger's `[[[[...]]]]` (tens of thousands deep): that is an item too deep
 * to publish, said as such rather than as the engine's stack error.
 */
function publishedText(item: Record<string, unknown>, label: string): string {
  try {
    return JSON.stringify(item, null, 2);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new KilnError(
      "invalid_request",
      `${label} nests lists or objects too deeply to publish`,
      "an item is fields and files: keep any other key shallow",
    );
  }
}

/** The built index's text: the registry's name and homepage, then one entry per item. */
export function registryIndexText(
  manifest: RegistryManifest,
  entries: readonly IndexEntry[],
): string {
  const index: Record<string, unknown> = { name: manifest.name };
  if (manifest.homepage !== undefined) index.homepage = manifest.homepage;
  index.items = entries.map((entry) => ({
    name: entry.name,
    category: entry.category,
    title: entry.title,
    description: entry.description,
    version: entry.version,
    digest: entry.digest,
  }));
  return `${JSON.stringify(index, null, 2)}\n`;
}

/** The file names an item is published under: the newest, and its version's. */
export function itemFileNames(name: string, version: string): { latest: string; pinned: string } {
  return { latest: `${name}.json`, pinned: `${name}@${version}.json` };
}
