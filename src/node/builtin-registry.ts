// The built-in catalogue, read from data: `registry/index.json` gives the registry order, and
// each component is a folder `registry/<category>/<name>/` holding `component.json` (title,
// description, fields, files) and the template files it names. Adding a component is adding a
// folder and a line in index.json; no code changes. The data sits in src/core/registry/ (and
// dist/core/registry/ once built), beside the core that describes it: every JavaScript file of
// kiln (source, tsc output, the CLI's bundle) is one folder below src/ or dist/, so it is
// `../core/registry` from here.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseRegistryItem, type RegistryItem, referenceOf } from "../core/item.ts";
import { Registry } from "../core/registry.ts";

export const BUILTIN_REGISTRY_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "core",
  "registry",
);

interface ComponentFileEntry {
  path: string;
  /** Template file name inside the component's folder. */
  templateFile: string;
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
