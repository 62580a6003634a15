// The sources a search reads - the built-in components and each registry's index (`@kiln` from
// the package, the configured ones over the network) - gathered for the matching rule of
// src/core/registry-search.ts. Shared by `kiln search`, `kiln list @acme` and GET /api/search.
// A registry that cannot be read is a failure named in the answer, never the end of the
// search: the other sources are still searched (its message is the client's, secrets redacted).
import { errorMessage, KilnError } from "../core/errors.ts";
import { referenceOf } from "../core/item.ts";
import type { Registry } from "../core/registry.ts";
import { isNamespace, unknownNamespaceError } from "../core/registry-config.ts";
import { BUILTIN_SOURCE, type SearchResult, searchItems } from "../core/registry-search.ts";
import { builtinRegistry } from "./builtin-registry.ts";
import type { RegistryClient } from "./registry-client.ts";

/** A source that could not be searched, and why. */
export interface SearchFailure {
  registry: string;
  message: string;
}

export interface SearchAnswer {
  results: SearchResult[];
  failures: SearchFailure[];
  /** How many sources were asked (built-ins included). */
  sources: number;
}

/** An error as one line: its message and the first line of its detail (the why). */
function failureText(error: unknown): string {
  const detail = error instanceof KilnError ? error.detail?.split("\n")[0] : undefined;
  return detail ? `${errorMessage(error)} (${detail})` : errorMessage(error);
}

/** The built-in components as search results. */
function builtinResults(builtins: Registry): SearchResult[] {
  return builtins.items.map((item) => ({
    registry: BUILTIN_SOURCE,
    reference: referenceOf(item),
    name: item.name,
    version: null,
    title: item.title,
    description: item.description,
    category: item.category,
  }));
}

/** Every item of the registry `namespace`'s index as search results. */
export async function registryResults(
  client: RegistryClient,
  namespace: string,
): Promise<SearchResult[]> {
  const index = await client.readIndex(namespace);
  return index.items.map((item) => ({
    registry: namespace,
    reference: `${namespace}/${item.name}`,
    name: item.name,
    version: item.version,
    title: item.title,
    description: item.description,
    category: item.category,
  }));
}

/**
 * `registry` is `builtin` or one of the client's namespaces: anything else is the error that
 * lists the configured ones.
 */
function checkSource(client: RegistryClient, registry: string): void {
  if (registry === BUILTIN_SOURCE) return;
  if (isNamespace(registry) && client.namespaces().includes(registry)) return;
  throw unknownNamespaceError(
    registry,
    registry,
    client.namespaces().filter((name) => name !== registry),
  );
}

/**
 * Searches `query` in every source (or only `registry`: `builtin` or a namespace), the
 * registries' indexes read together.
 */
export async function searchSources(
  client: RegistryClient,
  query: string,
  registry?: string,
  builtins: Registry = builtinRegistry(),
): Promise<SearchAnswer> {
  if (registry !== undefined) checkSource(client, registry);
  const namespaces =
    registry === undefined ? client.namespaces() : registry === BUILTIN_SOURCE ? [] : [registry];
  const includeBuiltins = registry === undefined || registry === BUILTIN_SOURCE;
  const failures: SearchFailure[] = [];
  const reading = Promise.all(
    namespaces.map((namespace) =>
      registryResults(client, namespace).catch((error: unknown) => {
        failures.push({ registry: namespace, message: failureText(error) });
        return [];
      }),
    ),
  );
  // the built-ins are read while the indexes are on their way
  const builtinItems = includeBuiltins ? builtinResults(builtins) : [];
  const all = [...builtinItems, ...(await reading).flat()];
  failures.sort((a, b) => namespaces.indexOf(a.registry) - namespaces.indexOf(b.registry));
  return {
    results: searchItems(all, query),
    failures,
    sources: namespaces.length + (includeBuiltins ? 1 : 0),
  };
}
