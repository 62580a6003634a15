// The registry indexes the HTTP service keeps in memory, shared by all its requests: a search
// or an `@ns/item` render asks a registry for its index at most once per freshness period
// (10 minutes by default, `--index-freshness`), not once per request, and requests that come
// while it is being fetched wait for that one fetch. Bounded by count: the
// service's registries are fixed at its start and each has one index URL, so 64 entries are
// far more than a configuration names; each index is itself bounded by the fetch limits (10 MiB)
// and the index rules (10,000 items). Keys are the namespace and the index URL as requested
// (src/node/registry-client.ts); they are never logged or answered, and header values (tokens)
// are not part of them.
import { LRUCache } from "lru-cache";
import type { RegistryIndex } from "../core/registry-index.ts";
import type { SharedIndexes } from "../node/registry-client.ts";

/** The most registry indexes the service keeps at once. */
export const MAX_KEPT_INDEXES = 64;

/**
 * The service's kept indexes, each used for `freshnessMs` after it was fetched; none with 0
 * (every request fetches the index again, as before the service kept any).
 */
export function serviceIndexCache(freshnessMs: number): SharedIndexes | undefined {
  if (freshnessMs <= 0) return undefined;
  return new LRUCache<string, Promise<RegistryIndex>>({ max: MAX_KEPT_INDEXES, ttl: freshnessMs });
}
