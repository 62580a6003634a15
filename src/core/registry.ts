// A registry: items in registry order, looked up by reference, read all at once or each when
// first needed (the loader is the host's: src/node/builtin-registry.ts reads the built-in
// catalogue's folders). Which items are trusted (a configured registry's, rendered in a shared
// template environment) is marked here too.
import { type RegistryItem, referenceOf } from "./item.ts";

/**
 * Items of a registry the process was configured with (the built-in catalogue, or one a test or
 * an operator passed in): their templates are trusted, so they may share one compiled template
 * environment (see RenderScope). Every other item (URL, file) renders isolated.
 */
const catalogueItems = new WeakSet<RegistryItem>();

/** Marks an item as part of a configured registry (a render worker marks its preloaded items). */
export function trustAsCatalogueItem(item: RegistryItem): RegistryItem {
  catalogueItems.add(item);
  return item;
}

/** Is this item one of a configured registry's, not a stranger's? */
export function isCatalogueItem(item: RegistryItem): boolean {
  return catalogueItems.has(item);
}

export class Registry {
  /** Component references in registry order. */
  private readonly order: readonly string[];
  /** Reads one component; absent when the registry was built from items. */
  private readonly load: ((reference: string) => RegistryItem) | undefined;
  /** Components read so far, by position in `order`. */
  private readonly loaded: (RegistryItem | undefined)[];
  private all: readonly RegistryItem[] | undefined;
  /**
   * Each component name's position in `order` (the later one where two share a name), made on
   * the first lookup: the service looks one up for every render request, and walking the
   * references cut a name out of each one.
   */
  private positionsByName: Map<string, number> | undefined;

  /** A registry of these items; `Registry.lazy` makes one that reads them when needed. */
  constructor(
    items: RegistryItem[],
    lazy?: { references: readonly string[]; load: (reference: string) => RegistryItem },
  ) {
    if (lazy) {
      this.order = [...lazy.references];
      this.load = lazy.load;
      this.loaded = this.order.map(() => undefined);
    } else {
      this.order = items.map(referenceOf);
      this.load = undefined;
      this.loaded = items.map(trustAsCatalogueItem);
      this.all = items;
    }
  }

  /**
   * A registry that reads each component when it is first asked for: `byComponentName` reads
   * just that one (a one-shot `kiln add` needs one of 13), `items` reads them all, in order.
   * `load(reference)` must return the item of that reference.
   */
  static lazy(references: readonly string[], load: (reference: string) => RegistryItem): Registry {
    return new Registry([], { references, load });
  }

  private at(index: number): RegistryItem {
    let item = this.loaded[index];
    if (!item) {
      const reference = this.order[index] as string;
      item = trustAsCatalogueItem((this.load as (reference: string) => RegistryItem)(reference));
      this.loaded[index] = item;
    }
    return item;
  }

  /** All components, in registry order. */
  get items(): readonly RegistryItem[] {
    this.all ??= this.order.map((_reference, index) => this.at(index));
    return this.all;
  }

  /**
   * The built-in component with this name, whatever its category (a reference is matched on
   * its last segment only, so `x/deployment` finds `k8s/deployment`). Should two components
   * share a name, the later one in registry order is found.
   */
  byComponentName(name: string): RegistryItem | undefined {
    this.positionsByName ??= new Map(
      this.order.map((reference, index) => [
        reference.slice(reference.lastIndexOf("/") + 1),
        index,
      ]),
    );
    const index = this.positionsByName.get(name);
    return index === undefined ? undefined : this.at(index);
  }

  references(): string[] {
    return [...this.order];
  }
}
