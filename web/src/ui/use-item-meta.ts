// The catalogue metadata the dashboard reads (stages, structured editors, and what each
// component is for the checks and the graph): the built-ins' from GET /api/registry/meta, once;
// each reference that is not a built-in (a URL or file item) from GET /api/registry/meta?ref=,
// once per reference. A reference whose metadata cannot be had reads as declaring nothing.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { ItemMeta, ItemMetaView } from "../../../src/core/item.ts";
import { catalogueEntry } from "../../../src/core/project/facts.ts";

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
  return (await response.json()) as T;
}

export interface ItemMetaIndex {
  /** The built-in components' metadata, in registry order ([] until it has loaded). */
  catalogue: ItemMetaView[];
  /** A reference's metadata: the built-in it resolves to, else its own item's. */
  metaOf: (reference: string) => ItemMeta | undefined;
}

export function useItemMeta(references: readonly string[]): ItemMetaIndex {
  const [catalogue, setCatalogue] = useState<ItemMetaView[] | undefined>();
  const [custom, setCustom] = useState<ReadonlyMap<string, ItemMetaView>>(new Map());
  const requested = useRef(new Set<string>());

  useEffect(() => {
    getJson<{ items: ItemMetaView[] }>("api/registry/meta").then(
      (answer) => setCatalogue(answer.items),
      () => setCatalogue([]),
    );
  }, []);

  const wanted = references.join("\n");
  useEffect(() => {
    if (!catalogue) return;
    for (const reference of references) {
      if (catalogueEntry(reference, catalogue) || requested.current.has(reference)) continue;
      requested.current.add(reference);
      getJson<ItemMetaView>(`api/registry/meta?ref=${encodeURIComponent(reference)}`).then(
        (meta) => setCustom((all) => new Map(all).set(reference, meta)),
        () => undefined,
      );
    }
  }, [catalogue, wanted]);

  return useMemo(
    () => ({
      catalogue: catalogue ?? [],
      metaOf: (reference: string) => catalogueEntry(reference, catalogue) ?? custom.get(reference),
    }),
    [catalogue, custom],
  );
}
