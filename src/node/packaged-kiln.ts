// Which `@kiln` items are kiln's own, shipped bytes: trusted like the built-ins, so they render
// on the compiled path in the calling thread (the CLI) or in the workers' shared environment (the
// service), not in the sandbox for strangers' items. Trust is decided by where the bytes came
// from and their digest, never by a name: the `@kiln` namespace is always read from the
// package's own folder (no configuration can name another place for it), and the bytes' digest
// must be the one recorded for that exact version when the templates were compiled
// (packaged-kiln-digests.json, written by scripts/compile-templates.ts). An item changed on the
// disk, or from a URL or a file, or from any other registry, renders in the sandbox.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RegistryLockSource } from "../core/project/lock-format.ts";
import { KILN_NAMESPACE, registryReferenceText } from "../core/registry-config.ts";
import { BUILTIN_REGISTRY_DIR } from "./builtin-registry.ts";

/** The file of the packaged `@kiln` items' digests, beside the compiled templates. */
export const PACKAGED_KILN_DIGESTS_FILE = "packaged-kiln-digests.json";

/** Pinned reference (`@kiln/aws-server@1.0.0`) -> `sha256:<hex>` of its file; read once. */
let packagedDigests: ReadonlyMap<string, string> | undefined;

/** The recorded digests of the packaged `@kiln` items (none when the file cannot be read). */
export function packagedKilnDigests(): ReadonlyMap<string, string> {
  if (packagedDigests === undefined) {
    try {
      const text = readFileSync(join(BUILTIN_REGISTRY_DIR, PACKAGED_KILN_DIGESTS_FILE), "utf8");
      packagedDigests = new Map(Object.entries(JSON.parse(text) as Record<string, string>));
    } catch {
      // a build without the file trusts no `@kiln` item: every one renders in the sandbox
      packagedDigests = new Map();
    }
  }
  return packagedDigests;
}

/**
 * Is the item a resolution gave (its namespace, version and the digest of the bytes read) one of
 * the `@kiln` items shipped in this package, byte for byte?
 */
export function isPackagedKilnSource(source: RegistryLockSource): boolean {
  if (source.registry !== KILN_NAMESPACE) return false;
  const pinned = registryReferenceText({
    namespace: source.registry,
    item: source.item,
    version: source.version,
  });
  return packagedKilnDigests().get(pinned) === source.digest;
}
