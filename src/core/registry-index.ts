// A built registry's index, `registry.json`: its name, homepage and, per item, the newest
// version and the sha256 digest of that version's file. kiln reads it to find the newest
// version of an item (an `add` without a version, `update --latest`, `status`) and to verify
// the bytes it fetches; the digest of a version once recorded in kiln.lock is the one every
// later fetch of that version must match. Pure: hashing is the caller's.
import { KilnError } from "./errors.ts";
import { parseJsonText } from "./json-text.ts";
import { isItemName, isVersionText } from "./registry-config.ts";
import { array, required, ShapeError, string, struct, withDefault } from "./shape.ts";

export interface RegistryIndexItem {
  name: string;
  category: string;
  title: string;
  description: string;
  version: string;
  digest: string;
}

export interface RegistryIndex {
  name: string;
  homepage: string;
  items: RegistryIndexItem[];
}

/** An index may list this many items; a larger one is refused (docs/security.md). */
export const MAX_INDEX_ITEMS = 10_000;

const DIGEST = /^sha256:[0-9a-f]{64}$/;

const decodeIndex = struct("RegistryIndex", {
  name: required(string),
  homepage: withDefault(string, () => ""),
  items: required(
    array(
      struct("RegistryIndexItem", {
        name: required(string),
        category: withDefault(string, () => ""),
        title: withDefault(string, () => ""),
        description: withDefault(string, () => ""),
        version: required(string),
        digest: required(string),
      }),
    ),
  ),
});

/** Parses the index text; `registry` (`@acme`) names it in errors, never its content. */
export function parseRegistryIndex(text: string, registry: string): RegistryIndex {
  const invalid = (detail: string) =>
    new KilnError(
      "invalid_request",
      `the index of ${registry} is not a valid registry index`,
      `${detail} - its publisher builds it with \`kiln registry build\``,
    );
  let json: unknown;
  try {
    json = parseJsonText(text);
  } catch (error) {
    throw invalid(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  let index: RegistryIndex;
  try {
    index = decodeIndex(json, "");
  } catch (error) {
    if (error instanceof ShapeError) throw invalid(error.messageWithoutStrings);
    throw error;
  }
  if (index.items.length > MAX_INDEX_ITEMS) {
    throw invalid(`it lists more than ${MAX_INDEX_ITEMS} items`);
  }
  for (const [at, item] of index.items.entries()) {
    if (!DIGEST.test(item.digest))
      throw invalid(`items[${at}].digest is not sha256:<64 hex digits>`);
    const unfit = unfitEntryText(item);
    if (unfit !== undefined) throw invalid(`items[${at}].${unfit}`);
  }
  const overlong = overlongText({ name: index.name, homepage: index.homepage });
  if (overlong !== undefined) throw invalid(overlong);
  return index;
}

/**
 * The most characters of an index's texts: a stranger's registry answers with them, and kiln
 * prints them in columns padded to the longest (`kiln search`, `kiln list @ns`), so one long
 * text would make every line that long.
 */
export const INDEX_TEXT_LIMITS = {
  name: 128,
  homepage: 2048,
  category: 64,
  title: 200,
  description: 2000,
} as const;

/** What is wrong with a text of `texts` longer than INDEX_TEXT_LIMITS allows, if one is. */
function overlongText(texts: Partial<Record<keyof typeof INDEX_TEXT_LIMITS, string>>) {
  for (const [key, text] of Object.entries(texts)) {
    const limit = INDEX_TEXT_LIMITS[key as keyof typeof INDEX_TEXT_LIMITS];
    if (text !== undefined && text.length > limit) {
      return `${key} is longer than ${limit} characters`;
    }
  }
  return undefined;
}

/**
 * What is wrong with an entry's texts, if anything: a name or version no reference could hold
 * (such an item could never be added), or a text over its limit.
 */
function unfitEntryText(item: RegistryIndexItem): string | undefined {
  if (!isItemName(item.name)) return "name is not an item name (a-z, 0-9, `-`, `_`; 128 at most)";
  if (!isVersionText(item.version)) {
    return "version is not a version (0-9, A-Z, a-z, `.`, `+`, `-`; 64 at most)";
  }
  return overlongText({
    category: item.category,
    title: item.title,
    description: item.description,
  });
}

/** The index's entry for `item`, or an error naming the registry and the nearest names. */
export function indexEntry(
  index: RegistryIndex,
  registry: string,
  item: string,
): RegistryIndexItem {
  const entry = index.items.find((candidate) => candidate.name === item);
  if (entry !== undefined) return entry;
  const names = index.items.map((candidate) => candidate.name);
  const shown = names.slice(0, 20).join(", ");
  throw new KilnError(
    "invalid_request",
    `the registry ${registry} has no item \`${item}\``,
    names.length === 0
      ? "its index lists no items"
      : `its items: ${shown}${names.length > 20 ? `, ... (${names.length} in all)` : ""}`,
  );
}

/**
 * The bytes served for a version differ from the digest recorded for it: a registry must
 * publish a new version for new bytes, so these are refused, never used.
 */
export function changedWithoutNewVersionError(
  reference: string,
  recorded: string,
  served: string,
  where: string,
): KilnError {
  return new KilnError(
    "invalid_request",
    `the item ${reference} changed on the registry without a new version - digest ${recorded} recorded, ${served} served`,
    [
      `kiln refuses bytes that differ from the ones ${where} records for that version: ask the registry's publisher to publish the change as a new version`,
      "if you trust the new bytes, pin another version (`kiln update <component> --to <version>` or `--latest`)",
    ].join("\n"),
  );
}
