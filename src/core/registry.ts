// The built-in catalogue, read from data: `registry/index.json` gives the registry order, and
// each component is a folder `registry/<category>/<name>/` holding `component.json` (title,
// description, fields, files) and the template files it names. Adding a component is adding a
// folder and a line in index.json; no code changes.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseRegistryItem, type RegistryItem, referenceOf } from "./item.ts";

export const BUILTIN_REGISTRY_DIR = join(dirname(fileURLToPath(import.meta.url)), "registry");

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

interface ComponentFileEntry {
  path: string;
  /** Template file name inside the component's folder. */
  templateFile: string;
}

export class Registry {
  /** Component references in registry order. */
  private readonly order: readonly string[];
  /** Reads one component; absent when the registry was built from items. */
  private readonly load: ((reference: string) => RegistryItem) | undefined;
  /** Components read so far, by position in `order`. */
  private readonly loaded: (RegistryItem | undefined)[];
  private all: readonly RegistryItem[] | undefined;

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
   * The built-in component with this name (the category is not compared, per the spec). Should
   * two components share a name, the later one in registry order is found.
   */
  byComponentName(name: string): RegistryItem | undefined {
    for (let index = this.order.length - 1; index >= 0; index--) {
      const reference = this.order[index] as string;
      if (reference.slice(reference.lastIndexOf("/") + 1) === name) return this.at(index);
    }
    return undefined;
  }

  references(): string[] {
    return [...this.order];
  }
}

/** Reads one component folder into a registry item, its template files inlined. */
export function loadComponentFolder(folder: string, reference: string): RegistryItem {
  const meta = JSON.parse(readFileSync(join(folder, "component.json"), "utf8")) as Record<
    string,
    unknown
  >;
  const files = (meta.files as ComponentFileEntry[]).map((file) => ({
    path: file.path,
    template: readFileSync(join(folder, file.templateFile), "utf8"),
  }));
  const item = parseRegistryItem({ ...meta, files }, reference);
  if (referenceOf(item) !== reference) {
    throw new Error(
      `${folder}/component.json declares ${referenceOf(item)}, expected ${reference}`,
    );
  }
  return item;
}

/** The registry in `dir`: index.json is read now, each component folder when first needed. */
export function loadRegistry(dir: string): Registry {
  const order = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as string[];
  return Registry.lazy(order, (reference) => loadComponentFolder(join(dir, reference), reference));
}

let builtin: Registry | undefined;

/** The built-in registry, read once per process. */
export function builtinRegistry(): Registry {
  builtin ??= loadRegistry(BUILTIN_REGISTRY_DIR);
  return builtin;
}
