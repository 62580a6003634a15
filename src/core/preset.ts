// Presets: a JSON recipe of components and their field values that rebuilds a whole project.
// The manifest model, the lookup order (template name, URL, local file) and rendering a whole
// preset through the same path as one component, checked as one run.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_NAMESPACE, DEFAULT_OUTPUT_DIR } from "./config.ts";
import type { RenderInput } from "./context.ts";
import type { TemplateEngine } from "./engine.ts";
import { KilnError } from "./errors.ts";
import { DEFAULT_FETCH_LIMITS, FetchFailure, type FetchLimits, fetchText, isUrl } from "./fetch.ts";
import { parseJsonText } from "./json-text.ts";
import { checkNoDuplicatePaths } from "./plan.ts";
import { builtinRegistry, type Registry } from "./registry.ts";
import { type RenderedFile, type RenderResult, renderItem } from "./render.ts";
import { builtinFor, readLocalFile, resolveReference } from "./resolve.ts";
import {
  array,
  type Decoder,
  optional,
  record,
  required,
  ShapeError,
  string,
  struct,
  withDefault,
} from "./shape.ts";

export const BUILTIN_PRESETS_DIR = join(dirname(fileURLToPath(import.meta.url)), "presets");

export interface PresetProject {
  name?: string | undefined;
  namespace?: string | undefined;
  outputDir?: string | undefined;
}

export interface PresetComponent {
  reference: string;
  name: string;
  fields: Record<string, string>;
  labels: Record<string, string>;
}

export interface Preset {
  name: string;
  title: string;
  description: string;
  project?: PresetProject | undefined;
  components: PresetComponent[];
}

/** PresetSummary of GET /api/presets. */
export interface PresetSummary {
  name: string;
  title: string;
  description: string;
  componentCount: number;
}

/** GET /api/presets/{name}: every key present, `project.name` null when unset. */
export interface PresetView {
  name: string;
  title: string;
  description: string;
  project: { name: string | null; namespace: string; outputDir: string };
  components: PresetComponent[];
}

const decodeProject = struct("Project", {
  name: optional(string),
  namespace: optional(string),
  outputDir: optional(string),
});

const decodeComponent = struct("PresetComponent", {
  reference: required(string),
  name: required(string),
  fields: withDefault(record(string), () => ({})),
  labels: withDefault(record(string), () => ({})),
});

const decodePreset: Decoder<Preset> = struct("Preset", {
  name: withDefault(string, () => ""),
  title: withDefault(string, () => ""),
  description: withDefault(string, () => ""),
  project: optional(decodeProject),
  components: required(array(decodeComponent)),
});

function invalidPreset(reference: string, detail: string): KilnError {
  return new KilnError("invalid_request", `${reference} is not a valid preset manifest`, detail);
}

/**
 * Parses preset JSON text; `reference` names it in errors. Unknown keys are ignored. Errors
 * give the line and column, or the key path and type, never a string of the text: a reference
 * may name any file.
 */
export function parsePreset(text: string, reference: string): Preset {
  let json: unknown;
  try {
    json = parseJsonText(text);
  } catch (error) {
    throw invalidPreset(reference, `not JSON: ${(error as Error).message}`);
  }
  try {
    return decodePreset(json, "");
  } catch (error) {
    if (error instanceof ShapeError) throw invalidPreset(reference, error.messageWithoutStrings);
    throw error;
  }
}

let builtinCache: Preset[] | undefined;

/**
 * The built-in preset templates, in the order `kiln presets` prints them: `index.json` in the
 * presets folder lists them; each is `<name>.preset.json`.
 */
export function builtinPresets(dir = BUILTIN_PRESETS_DIR): Preset[] {
  if (dir === BUILTIN_PRESETS_DIR && builtinCache) return builtinCache;
  const order = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as string[];
  const presets = order.map((name) => {
    const file = `${name}.preset.json`;
    return parsePreset(readFileSync(join(dir, file), "utf8"), file);
  });
  if (dir === BUILTIN_PRESETS_DIR) builtinCache = presets;
  return presets;
}

/** Preset files in `dir` that index.json does not list (a test keeps this empty). */
export function unlistedPresetFiles(dir = BUILTIN_PRESETS_DIR): string[] {
  const listed = new Set(
    (JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as string[]).map(
      (name) => `${name}.preset.json`,
    ),
  );
  return readdirSync(dir).filter((file) => file.endsWith(".preset.json") && !listed.has(file));
}

export function builtinPreset(name: string): Preset | undefined {
  return builtinPresets().find((preset) => preset.name === name);
}

export function presetSummary(preset: Preset): PresetSummary {
  return {
    name: preset.name,
    title: preset.title,
    description: preset.description,
    componentCount: preset.components.length,
  };
}

export function presetView(preset: Preset): PresetView {
  return {
    name: preset.name,
    title: preset.title,
    description: preset.description,
    project: {
      name: preset.project?.name ?? null,
      namespace: preset.project?.namespace ?? DEFAULT_NAMESPACE,
      outputDir: preset.project?.outputDir ?? DEFAULT_OUTPUT_DIR,
    },
    components: preset.components.map((component) => ({
      reference: component.reference,
      name: component.name,
      fields: component.fields,
      labels: component.labels,
    })),
  };
}

export interface LoadPresetOptions {
  cwd?: string;
  fetchLimits?: FetchLimits;
}

/**
 * Finds a preset: a built-in template name first (so `./name` loads a file of that name), then
 * an http(s) URL, then an existing local file relative to `cwd`.
 */
export async function loadPreset(
  reference: string,
  options: LoadPresetOptions = {},
): Promise<Preset> {
  const builtin = builtinPreset(reference);
  if (builtin) return builtin;
  if (isUrl(reference)) {
    let text: string;
    try {
      text = await fetchText(reference, options.fetchLimits ?? DEFAULT_FETCH_LIMITS);
    } catch (error) {
      if (!(error instanceof FetchFailure)) throw error;
      throw new KilnError(
        "invalid_request",
        `failed to fetch preset from ${reference}`,
        error.message,
      );
    }
    return parsePreset(text, reference);
  }
  const text = await readLocalFile(reference, options.cwd ?? process.cwd());
  if (text !== undefined) return parsePreset(text, reference);
  throw new KilnError(
    "not_found",
    `\`${reference}\` is not a preset template, a URL or an existing file - run \`kiln presets\` to see the templates, or pass a URL or path to a .preset.json file`,
  );
}

export interface RenderPresetOptions {
  engine: TemplateEngine;
  registry?: Registry;
  cwd?: string;
  fetchLimits?: FetchLimits;
  /**
   * Resolves and renders a component that is not built-in (its reference is a URL or a file)
   * instead of rendering it here with `engine`: the CLI passes one that renders in a worker
   * thread with a deadline and a heap limit, which keeps the core free of worker threads.
   * Built-in components always render with `engine`.
   */
  renderOther?: (component: PresetComponent, input: RenderInput) => Promise<RenderResult>;
}

export interface RenderedPresetFile extends RenderedFile {
  /** `<reference>` and name of the component that wrote it, for messages and dry runs. */
  component: string;
}

/**
 * Renders every component of a preset in order, namespace defaulting to the project's, and
 * checks that no two files of the run share a path. Nothing is written.
 */
export async function renderPreset(
  preset: Preset,
  options: RenderPresetOptions,
): Promise<RenderedPresetFile[]> {
  const defaultNamespace = preset.project?.namespace ?? DEFAULT_NAMESPACE;
  const files: RenderedPresetFile[] = [];
  const registry = options.registry ?? builtinRegistry();
  for (const component of preset.components) {
    const input: RenderInput = {
      name: component.name,
      fields: component.fields,
      labels: component.labels,
      defaultNamespace,
    };
    const builtin = builtinFor(component.reference, registry);
    let result: RenderResult;
    if (builtin) {
      result = renderItem(options.engine, builtin, input);
    } else if (options.renderOther) {
      result = await options.renderOther(component, input);
    } else {
      const item = await resolveReference(component.reference, {
        registry,
        ...(options.cwd ? { cwd: options.cwd } : {}),
        ...(options.fetchLimits ? { fetchLimits: options.fetchLimits } : {}),
      });
      result = renderItem(options.engine, item, input);
    }
    for (const file of result.files) {
      files.push({ ...file, component: `${component.reference} ${component.name}` });
    }
  }
  checkNoDuplicatePaths(files);
  return files;
}
