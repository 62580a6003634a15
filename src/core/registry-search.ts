// Finding an item before adding it: `kiln search`, `GET /api/search` and the dashboard's add
// dialog match one query against the built-ins and every registry's index, with one rule, so
// the three answer alike. Pure: the indexes are read by src/node/registry-search.ts.
//
// The rule: a query matches an item when it occurs, ignoring case, in its name, title,
// description or category. Matches are ranked exact name, then name prefix, then name contains,
// then any other field; within a rank, the order of the sources (built-ins, @kiln, then the
// configured registries by namespace) and of each index is kept. An empty query matches all.

/** The source name of the built-in components in results (they have no namespace). */
export const BUILTIN_SOURCE = "builtin";

/** One item as a search returns it; the keys in this order, in `--json` and the API. */
export interface SearchResult {
  /** `builtin`, or the registry's namespace (`@kiln`, `@acme`). */
  registry: string;
  /** What `kiln add` takes: `k8s/deployment`, `@acme/redis`. */
  reference: string;
  name: string;
  /** The newest version the index lists; null for a built-in (it is kiln's own version). */
  version: string | null;
  title: string;
  description: string;
  category: string;
}

/** How well `result` matches the lower-cased query: 0 best, 3 worst, undefined no match. */
export function matchRank(result: SearchResult, query: string): number | undefined {
  if (query === "") return 3;
  const name = result.name.toLowerCase();
  if (name === query) return 0;
  if (name.startsWith(query)) return 1;
  if (name.includes(query)) return 2;
  const others = [result.title, result.description, result.category];
  return others.some((text) => text.toLowerCase().includes(query)) ? 3 : undefined;
}

/** The results matching `query`, best first, ties in the order given (a stable sort). */
export function searchItems(items: readonly SearchResult[], query: string): SearchResult[] {
  const wanted = query.trim().toLowerCase();
  const ranked: { result: SearchResult; rank: number }[] = [];
  for (const result of items) {
    const rank = matchRank(result, wanted);
    if (rank !== undefined) ranked.push({ result, rank });
  }
  return ranked.sort((a, b) => a.rank - b.rank).map(({ result }) => result);
}

/** A result with its keys in the fixed order, whatever object it was built from. */
export function searchResult(result: SearchResult): SearchResult {
  return {
    registry: result.registry,
    reference: result.reference,
    name: result.name,
    version: result.version,
    title: result.title,
    description: result.description,
    category: result.category,
  };
}
