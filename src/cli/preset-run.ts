// What setup, apply and check share: find the preset and hand its components to the core's
// project pipeline (src/core/project/) with the CLI's renderer of one component.
import { PRESET_SUFFIX } from "../core/config.ts";
import { KilnError } from "../core/errors.ts";
import type { PlannedFile } from "../core/plan.ts";
import type { Lock } from "../core/project/lock-format.ts";
import {
  type Preset,
  type PresetComponent,
  presetRenderSettings,
} from "../core/project/preset-manifest.ts";
import {
  type ComponentRender,
  type RenderComponentsOptions,
  type RenderedComponent,
  type RenderOne,
  renderCollectingErrors,
  renderUntilError,
  runFiles,
} from "../core/project/render-components.ts";
import { builtinPreset, loadPreset } from "../node/builtin-presets.ts";
import { isUrl } from "../node/fetch-url.ts";
import { type PresetDependencies, presetDependencies } from "./add-dependencies.ts";
import { ComponentRenderer, RenderStopped, type ResolvedRender } from "./render-component.ts";

/**
 * Does `reference` name a preset by itself: a built-in template name, or a file or URL whose
 * name ends in `.preset.json`? (Commands that also take other arguments - `render`'s component
 * references, `diff`'s component names - ask their own question first, and take `--preset`.)
 */
export function namesAPreset(reference: string): boolean {
  if (builtinPreset(reference)) return true;
  let name = reference;
  if (isUrl(reference)) {
    try {
      name = new URL(reference).pathname;
    } catch {
      // not a URL after all: the name as typed
    }
  }
  return name.endsWith(PRESET_SUFFIX);
}

export interface RenderedPreset {
  preset: Preset;
  files: PlannedFile[];
  /** Each component with its render (the item it resolved to), for kiln.lock. */
  components: RenderedComponent<PresetComponent, ResolvedRender>[];
}

/**
 * The CLI's renderer of one component: built-ins in this thread, components from files and
 * URLs in a worker with a deadline (render-component.ts), named by reference and name when a
 * limit stops them, and by their place in `components` in any other error's detail.
 */
export function renderWith(
  renderer: ComponentRenderer,
  components: readonly PresetComponent[] = [],
): RenderOne<PresetComponent, ResolvedRender> {
  return async (component, input) => {
    try {
      return await renderer.render(component.reference, input, componentLabel(component));
    } catch (error) {
      throw inPreset(error, component, components);
    }
  };
}

/**
 * A component's error with a line naming it in the preset (its place and name), since the
 * fixed messages name only the reference (`--group is required for automation/group-vars`)
 * and a preset may hold several of it. A render stopped by a limit names it already.
 */
function inPreset(
  error: unknown,
  component: PresetComponent,
  components: readonly PresetComponent[],
): unknown {
  if (!(error instanceof KilnError) || error instanceof RenderStopped) return error;
  const index = components.indexOf(component);
  const place = index < 0 ? "" : `components[${index}], `;
  const where = `in the preset: ${place}${componentLabel(component)}`;
  return new KilnError(
    error.kind,
    error.message,
    error.detail ? `${error.detail}\n${where}` : where,
  );
}

/**
 * Loads the preset, then runs `render` with the pipeline's options for it (the preset's
 * namespace, the CLI's renderer) and stops the worker, if one was started, whatever happens.
 */
async function withPreset<T>(
  reference: string,
  cwd: string,
  render: (
    preset: Preset,
    options: RenderComponentsOptions<PresetComponent, ResolvedRender> & {
      renderer: ComponentRenderer;
    },
  ) => Promise<T>,
): Promise<{ preset: Preset; rendered: T }> {
  const preset = await loadPreset(reference, { cwd });
  const renderer = new ComponentRenderer(cwd);
  try {
    const options = {
      ...presetRenderSettings(preset),
      render: renderWith(renderer, preset.components),
      renderer,
    };
    return { preset, rendered: await render(preset, options) };
  } finally {
    await renderer.close();
  }
}

/**
 * Loads the preset and renders all of its components before anything is written (setup,
 * apply): the first failing component or two files with one path stop the run here, with the
 * error as it was thrown.
 */
export async function renderWholePreset(reference: string, cwd: string): Promise<RenderedPreset> {
  const { preset, rendered } = await withPreset(reference, cwd, (preset, options) =>
    renderUntilError(preset.components, options),
  );
  return { preset, files: runFiles(rendered), components: rendered };
}

/**
 * renderWholePreset for `kiln setup`: with the dependencies its components' items declare that
 * neither the preset nor the project's `lock` holds, rendered with the same renderer; the
 * files of both, with no two on one path.
 */
export async function renderPresetWithDependencies(
  reference: string,
  cwd: string,
  lock: Lock | undefined,
  warn: (message: string) => void,
): Promise<RenderedPreset & { dependencies: PresetDependencies }> {
  const { preset, rendered } = await withPreset(reference, cwd, async (preset, options) => {
    const components = await renderUntilError(preset.components, options);
    const dependencies = await presetDependencies(
      options.renderer,
      components,
      lock,
      presetRenderSettings(preset),
      warn,
    );
    return { components, dependencies };
  });
  const files = runFiles([
    ...rendered.components,
    ...rendered.dependencies.added.map((planned) => planned.value.render),
  ]);
  return { preset, files, components: rendered.components, dependencies: rendered.dependencies };
}

export interface CheckedPreset {
  preset: Preset;
  results: ComponentRender<PresetComponent, ResolvedRender>[];
}

/**
 * Loads the preset and renders every component, keeping each failure with its component
 * (check). A render stopped by a limit ends the run with that error instead: a finding would
 * hide it, and each further render of an untrusted item could take as long again.
 */
export async function renderPresetForChecks(
  reference: string,
  cwd: string,
): Promise<CheckedPreset> {
  const { preset, rendered } = await withPreset(reference, cwd, (preset, options) =>
    renderCollectingErrors(preset.components, {
      ...options,
      isFatal: (error) => error instanceof RenderStopped,
    }),
  );
  return { preset, results: rendered };
}

/** How a preset's component is named in errors: its reference and name. */
export function componentLabel(component: { reference: string; name: string }): string {
  return `${component.reference} \`${component.name}\``;
}

/** How a preset is named in the closing line: its own name, else what the user typed. */
export function presetLabel(preset: Preset, reference: string): string {
  return preset.name || reference;
}
