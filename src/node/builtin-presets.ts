// Finding presets and rendering a whole one in this process: the built-in templates (files in
// src/core/presets/, or dist/core/presets/ once built: `../core/presets` from here, as for the
// registry), the lookup order of a reference (template name, URL, local file) and a renderer
// that renders each component with the engine here. The manifest itself - schema, views,
// settings, text - is src/core/project/preset-manifest.ts, and the pipeline that renders a
// project's components is src/core/project/render-components.ts.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RenderInput } from "../core/context.ts";
import { closest } from "../core/did-you-mean.ts";
import { KilnError } from "../core/errors.ts";
import {
  type Preset,
  type PresetComponent,
  parsePreset,
  presetRenderSettings,
} from "../core/project/preset-manifest.ts";
import { type RenderOne, renderUntilError, runFiles } from "../core/project/render-components.ts";
import type { Registry } from "../core/registry.ts";
import {
  type RenderedFile,
  type RenderResult,
  renderItem,
  type TemplateRenderer,
} from "../core/render-item.ts";
import { builtinRegistry } from "./builtin-registry.ts";
import {
  DEFAULT_FETCH_LIMITS,
  type FetchLimits,
  fetchFailed,
  fetchText,
  isUrl,
} from "./fetch-url.ts";
import { builtinFor, readLocalFile, resolveReference } from "./resolve-reference.ts";

export const BUILTIN_PRESETS_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "core",
  "presets",
);

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

/** The built-in presets read one by one (builtinPreset), by index name. */
const oneByOne = new Map<string, Preset>();

/**
 * The built-in preset template called `name`, if there is one. A name index.json lists is
 * looked for in its own file first, read and checked alone: `kiln setup <preset>` needs one
 * preset, and parsing all of them cost every setup about 1 ms. Any other name, or a file that
 * holds a preset of another name, is looked for in all of them.
 */
export function builtinPreset(name: string): Preset | undefined {
  if (builtinCache) return builtinCache.find((preset) => preset.name === name);
  let preset = oneByOne.get(name);
  if (preset === undefined) {
    const order = JSON.parse(
      readFileSync(join(BUILTIN_PRESETS_DIR, "index.json"), "utf8"),
    ) as string[];
    if (!order.includes(name)) return builtinPresets().find((each) => each.name === name);
    const file = `${name}.preset.json`;
    preset = parsePreset(readFileSync(join(BUILTIN_PRESETS_DIR, file), "utf8"), file);
    if (preset.name !== name) return builtinPresets().find((each) => each.name === name);
    oneByOne.set(name, preset);
  }
  return preset;
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
      throw fetchFailed("preset", reference, error);
    }
    return parsePreset(text, reference);
  }
  const text = await readLocalFile(reference, options.cwd ?? process.cwd());
  if (text !== undefined) return parsePreset(text, reference);
  const guess = closest(
    reference,
    builtinPresets().map((preset) => preset.name),
  );
  throw new KilnError(
    "not_found",
    `\`${reference}\` is not a preset template, a URL or an existing file - run \`kiln presets\` to see the templates, or pass a URL or path to a .preset.json file`,
    guess === undefined ? undefined : `did you mean \`${guess}\`?`,
  );
}

export interface RenderPresetOptions {
  /** The engine, or any renderer with its semantics (the compiled path's). */
  engine: TemplateRenderer;
  registry?: Registry;
  cwd?: string;
  fetchLimits?: FetchLimits;
}

/**
 * Renders a component in this process with `engine`: a built-in item as it is, any other
 * reference resolved first (URL or file). For tests and tools; the CLI renders items from
 * files and URLs in a sandboxed worker instead (src/cli/render-component.ts).
 */
function engineRenderer(options: RenderPresetOptions): RenderOne {
  const registry = options.registry ?? builtinRegistry();
  return async (component: PresetComponent, input: RenderInput): Promise<RenderResult> => {
    const builtin = builtinFor(component.reference, registry);
    if (builtin) return renderItem(options.engine, builtin, input);
    const item = await resolveReference(component.reference, {
      registry,
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.fetchLimits ? { fetchLimits: options.fetchLimits } : {}),
    });
    return renderItem(options.engine, item, input);
  };
}

export interface RenderedPresetFile extends RenderedFile {
  /** `<reference>` and name of the component that wrote it, for messages and dry runs. */
  component: string;
}

/**
 * Renders every component of a preset in order with `engine` (the pipeline, stopping at the
 * first error), namespace defaulting to the project's, and checks that no two files of the run
 * share a path. Nothing is written.
 */
export async function renderPreset(
  preset: Preset,
  options: RenderPresetOptions,
): Promise<RenderedPresetFile[]> {
  const rendered = await renderUntilError(preset.components, {
    ...presetRenderSettings(preset),
    render: engineRenderer(options),
  });
  runFiles(rendered); // the run's rule: no two files on one path
  return rendered.flatMap(({ component, files }) =>
    files.map((file) => ({ ...file, component: `${component.reference} ${component.name}` })),
  );
}
