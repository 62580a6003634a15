// The kiln.lock of the project's zip, so that a downloaded project is one `kiln status`, `diff`
// and `update` can work with, byte for byte the lock `kiln setup` of the same preset writes: the
// core builds it (setupLock in src/core/project/lock-entry.ts), sha256 comes from @noble/hashes
// (crypto.subtle is async and missing when the dashboard is served over plain http elsewhere
// than localhost), and what the lock records of each registry item - its `category/name`, its
// fingerprint and where it came from - from GET /api/registry/meta (the kiln version and every
// built-in) and /api/registry/meta?ref= (an item from a URL or file).
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import type { ItemMetaView } from "../../../src/core/item.ts";
import { catalogueEntry } from "../../../src/core/project/facts.ts";
import { lockSource } from "../../../src/core/project/lock.ts";
import type { ItemRecord, Sha256Hex } from "../../../src/core/project/lock-entry.ts";

/** Hex sha256 of a text's UTF-8 bytes, as Node's crypto gives it. */
export const sha256Hex: Sha256Hex = (text) => bytesToHex(sha256(utf8ToBytes(text)));

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
