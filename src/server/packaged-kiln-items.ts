// The items of `@kiln` shipped in this package, read once when the service starts, for its render
// workers to hold preloaded and trusted like the built-ins: a render of one of them runs on the
// compiled path in the workers' shared environment instead of in an isolated worker of its own.
// Only the files whose bytes have the digest recorded when the templates were compiled are read
// (src/node/packaged-kiln.ts); a request for `@kiln/<item>` is answered with the preloaded item
// only when the bytes the registry client read for it have that same digest.
import { join } from "node:path";
import { errorMessage } from "../core/errors.ts";
import { parseRegistryItemText, type RegistryItem } from "../core/item.ts";
import type { RegistryLockSource } from "../core/project/lock-format.ts";
import {
  KILN_NAMESPACE,
  parseRegistryReference,
  registryReferenceText,
} from "../core/registry-config.ts";
import type { RegistryIndex } from "../core/registry-index.ts";
import { itemFileNames } from "../core/registry-source.ts";
import { isPackagedKilnSource, packagedKilnDigests } from "../node/packaged-kiln.ts";
import { readRegularFileBytes } from "../node/read-regular-file.ts";
import { sha256Digest } from "../node/registry-cache.ts";
import { KILN_REGISTRY_DIR } from "../node/registry-client.ts";
import { MAX_LOCAL_FILE_BYTES } from "../node/resolve-reference.ts";

/** Pinned reference (`@kiln/aws-server@1.0.0`) -> the packaged item, parsed. */
export type PackagedKilnItems = ReadonlyMap<string, RegistryItem>;

/**
 * Reads every packaged `@kiln` item whose file has its recorded digest; one that is changed is
 * left out (it then renders as a stranger's would), with a warning through `log`; one that is
 * missing is left out silently (the registry is not built beside this code).
 */
export function readPackagedKilnItems(log: (message: string) => void): PackagedKilnItems {
  const items = new Map<string, RegistryItem>();
  for (const [pinned, digest] of packagedKilnDigests()) {
    const reference = parseRegistryReference(pinned);
    if (reference?.version === undefined) continue;
    const file = itemFileNames(reference.item, reference.version).pinned;
    try {
      const bytes = readRegularFileBytes(
        join(KILN_REGISTRY_DIR, file),
        `${pinned}'s file`,
        MAX_LOCAL_FILE_BYTES,
      );
      // not built here (kiln run from its sources, before `npm run build`): nothing to preload,
      // and a request for the item gets the registry client's own error, as on the CLI
      if (bytes === undefined) continue;
      if (sha256Digest(bytes) !== digest) {
        log(`kiln: warning: ${pinned} is not in this installation as it was built`);
        continue;
      }
      // decoded as the registry client decodes what it read, so both give the same item
      items.set(pinned, parseRegistryItemText(new TextDecoder().decode(bytes), pinned));
    } catch (error) {
      log(`kiln: warning: ${pinned} could not be read: ${errorMessage(error)}`);
    }
  }
  return items;
}

/**
 * The packaged `@kiln` item `reference` names, found without reading a file (the items were read
 * and their digests checked when the service started): a pinned reference as it is; an unpinned
 * one at the newest version `@kiln`'s index lists, when the index gives that version the digest
 * recorded for the packaged item. Undefined for any other reference, or when the index cannot
 * be read: the registry client then resolves it as it resolves any item, with its own errors.
 */
export async function packagedItemNamed(
  reference: string,
  items: PackagedKilnItems,
  kilnIndex: () => Promise<RegistryIndex>,
): Promise<RegistryItem | undefined> {
  const parsed = parseRegistryReference(reference);
  if (parsed?.namespace !== KILN_NAMESPACE) return undefined;
  if (parsed.version !== undefined) return items.get(registryReferenceText(parsed));
  const index = await kilnIndex().catch(() => undefined);
  const entry = index?.items.find((candidate) => candidate.name === parsed.item);
  if (entry === undefined) return undefined;
  const pinned = registryReferenceText({ ...parsed, version: entry.version });
  return packagedKilnDigests().get(pinned) === entry.digest ? items.get(pinned) : undefined;
}

/** The preloaded item of a registry resolution, when it is a packaged `@kiln` item's bytes. */
export function packagedItemFor(
  source: RegistryLockSource,
  items: PackagedKilnItems,
): RegistryItem | undefined {
  if (!isPackagedKilnSource(source)) return undefined;
  return items.get(
    registryReferenceText({
      namespace: source.registry,
      item: source.item,
      version: source.version,
    }),
  );
}
