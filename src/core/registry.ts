// The built-in catalogue, read from data: `registry/index.json` gives the registry order, and
// each component is a folder `registry/<category>/<name>/` holding `component.json` (title,
// description, fields, files) and the template files it names. Adding a component is adding a
// folder and a line in index.json; no code changes.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseRegistryItem, type RegistryItem, referenceOf } from "./item.ts";

export const BUILTIN_REGISTRY_DIR = join(dirname(fileURLToPath(import.meta.url)), "registry");

interface ComponentFileEntry {
  path: string;
  /** Template file name inside the component's folder. */
  templateFile: string;
}

export class Registry {
  /** All components, in registry order. */
  readonly items: readonly RegistryItem[];
  private readonly byName: Map<string, RegistryItem>;

  constructor(items: RegistryItem[]) {
    this.items = items;
    this.byName = new Map(items.map((item) => [item.name, item]));
  }

  /** The built-in component with this name (the category is not compared, per the spec). */
  byComponentName(name: string): RegistryItem | undefined {
    return this.byName.get(name);
  }

  references(): string[] {
    return this.items.map(referenceOf);
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

export function loadRegistry(dir: string): Registry {
  const order = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as string[];
  return new Registry(
    order.map((reference) => loadComponentFolder(join(dir, reference), reference)),
  );
}

let builtin: Registry | undefined;

/** The built-in registry, read once per process. */
export function builtinRegistry(): Registry {
  builtin ??= loadRegistry(BUILTIN_REGISTRY_DIR);
  return builtin;
}
