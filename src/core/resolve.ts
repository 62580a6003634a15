// Component reference → registry item, in the spec's order: built-in name (the part after the
// last `/`), URL, existing local file, error.
import { readFileSync, statSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { KilnError } from "./errors.ts";
import { DEFAULT_FETCH_LIMITS, FetchFailure, type FetchLimits, fetchText, isUrl } from "./fetch.ts";
import { parseRegistryItemText, type RegistryItem } from "./item.ts";
import { builtinRegistry, type Registry } from "./registry.ts";

export interface ResolveOptions {
  /** Directory that relative file references resolve against (the process's working dir). */
  cwd?: string;
  registry?: Registry;
  fetchLimits?: FetchLimits;
}

/** Files larger than this are not read as registry items or presets. */
export const MAX_LOCAL_FILE_BYTES = DEFAULT_FETCH_LIMITS.maxBytes;

export function builtinFor(reference: string, registry: Registry): RegistryItem | undefined {
  const lastSegment = reference.slice(reference.lastIndexOf("/") + 1);
  return registry.byComponentName(lastSegment);
}

export function unknownReferenceError(reference: string): KilnError {
  return new KilnError(
    "invalid_request",
    `\`${reference}\` is not a built-in component and not a URL or existing local file - run \`kiln list\` to see the built-ins, or pass a URL or path to a registry-item JSON file`,
  );
}

/** Reads a local file if `reference` names one (not a directory); undefined otherwise. */
export function readLocalFile(reference: string, cwd: string): string | undefined {
  const path = resolvePath(cwd, reference);
  let size: number;
  try {
    const stats = statSync(path);
    if (!stats.isFile()) return undefined;
    size = stats.size;
  } catch {
    return undefined;
  }
  if (size > MAX_LOCAL_FILE_BYTES) {
    throw new KilnError(
      "invalid_request",
      `${reference} is larger than ${MAX_LOCAL_FILE_BYTES} bytes - kiln reads files up to that size`,
    );
  }
  return readFileSync(path, "utf8");
}

export async function resolveReference(
  reference: string,
  options: ResolveOptions = {},
): Promise<RegistryItem> {
  const registry = options.registry ?? builtinRegistry();
  const builtin = builtinFor(reference, registry);
  if (builtin) return builtin;
  if (isUrl(reference)) {
    let text: string;
    try {
      text = await fetchText(reference, options.fetchLimits);
    } catch (error) {
      if (!(error instanceof FetchFailure)) throw error;
      throw new KilnError(
        "invalid_request",
        `failed to fetch registry item from ${reference}`,
        error.message,
      );
    }
    return parseRegistryItemText(text, reference);
  }
  const text = readLocalFile(reference, options.cwd ?? process.cwd());
  if (text !== undefined) return parseRegistryItemText(text, reference);
  throw unknownReferenceError(reference);
}
