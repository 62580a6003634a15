// What setup and apply share: find the preset, render every component, print the plan.
import { TemplateEngine } from "../core/engine.ts";
import type { PlannedFile } from "../core/plan.ts";
import { loadPreset, type Preset, renderPreset } from "../core/preset.ts";
import { preferFastStart } from "./fast-start.ts";
import { ComponentRenderer } from "./render-component.ts";

export interface RenderedPreset {
  preset: Preset;
  files: PlannedFile[];
}

/**
 * Loads the preset and renders all of its components before anything is written: a failing
 * component or two files with one path stop the run here. Built-in components render in this
 * thread; components from files and URLs in a worker with a deadline (render-component.ts).
 */
export async function renderWholePreset(reference: string, cwd: string): Promise<RenderedPreset> {
  const preset = await loadPreset(reference, { cwd });
  preferFastStart();
  const renderer = new ComponentRenderer(cwd);
  try {
    const rendered = await renderPreset(preset, {
      engine: new TemplateEngine(),
      cwd,
      renderOther: (component, input) =>
        renderer.render(component.reference, input, componentLabel(component)),
    });
    return {
      preset,
      files: rendered.map((file) => ({ path: file.path, content: file.content })),
    };
  } finally {
    await renderer.close();
  }
}

/** How a preset's component is named in errors: its reference and name. */
export function componentLabel(component: { reference: string; name: string }): string {
  return `${component.reference} \`${component.name}\``;
}

/** How a preset is named in the closing line: its own name, else what the user typed. */
export function presetLabel(preset: Preset, reference: string): string {
  return preset.name || reference;
}
