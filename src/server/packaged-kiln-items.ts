// The items of `@kiln` shipped in this package, read once when the service starts, for its render
// workers to hold preloaded and trusted like the built-ins: a render of one of them runs on the
// compiled path in the workers' shared environment instead of in an isolated worker of its own.
// Only the files whose bytes have the digest recorded when the templates were compiled are read
// (src/node/packaged-kiln.ts); a request for `@kiln/<item>` is answered with the preloaded item
// only when the bytes the registry client read for it have that same digest.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../core/errors.ts";
import type { RegistryItem } from "../core/item.ts";
import type { RegistryLockSource } from "../core/project/lock-format.ts";
import {
  KILN_NAMESPACE,
  parseRegistryReference,
  registryReferenceText,
} from "../core/registry-config.ts";
import type { RegistryIndex } from "../core/registry-index.ts";
import { itemFileNames } from "../core/registry-source.ts";
import { isPackagedKilnSource, packagedKilnDigests } from "../node/packaged-kiln.ts";
import { KILN_REGISTRY_DIR, RegistryClient } from "../node/registry-client.ts";

/** Pinned reference (`@kiln/aws-server@1.0.0`) -> the packaged item, parsed. */
export type PackagedKilnItems = ReadonlyMap<string, RegistryItem>;

/**
 * Reads every packaged `@kiln` item whose file has its recorded digest; one that is changed is
 * left out (it then renders as a stranger's would), with a warning through `log`; one that is
 * missing is left out silently (the registry is not built beside this code). Each is read, hashed
 * and decoded by the registry client, as a request for it is, so both give the same item.
 */
export async function readPackagedKilnItems(
  log: (message: string) => void,
): Promise<PackagedKilnItems> {
  // only @kiln is read: no kiln.toml, no user configuration, nothing fetched or cached
  const client = new RegistryClient(KILN_REGISTRY_DIR, { cache: false, registries: new Map() });
  const read = [...packagedKilnDigests().keys()].map(async (pinned) => {
    const reference = parseRegistryReference(pinned);
    if (reference?.version === undefined) return undefined;
    const file = itemFileNames(reference.item, reference.version).pinned;
    // not built here (kiln run from its sources, before `npm run build`): nothing to preload,
    // and a request for the item gets the registry client's own error, as on the CLI
    if (!existsSync(join(KILN_REGISTRY_DIR, file))) return undefined;
    try {
      const { item, source } = await client.resolve(pinned);
      if (!isPackagedKilnSource(source)) {
        log(`kiln: warning: ${pinned} is not in this installation as it was built`);
        return undefined;
      }
      return [pinned, item] as const;
    } catch (error) {
      log(`kiln: warning: ${pinned} could not be read: ${errorMessage(error)}`);
      return undefined;
    }
  });
  const items = new Map<string, RegistryItem>();
  for (const entry of await Promise.all(read)) if (entry !== undefined) items.set(...entry);
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
