// What setup and apply share: find the preset, render every component, print the plan.
import { TemplateEngine } from "../core/engine.ts";
import type { PlannedFile } from "../core/plan.ts";
import { loadPreset, type Preset, renderPreset } from "../core/preset.ts";
import { preferFastStart } from "./fast-start.ts";

export interface RenderedPreset {
  preset: Preset;
  files: PlannedFile[];
}

/**
 * Loads the preset and renders all of its components before anything is written: a failing
 * component or two files with one path stop the run here.
 */
export async function renderWholePreset(reference: string, cwd: string): Promise<RenderedPreset> {
  const preset = await loadPreset(reference, { cwd });
  preferFastStart();
  const rendered = await renderPreset(preset, { engine: new TemplateEngine(), cwd });
  return {
    preset,
    files: rendered.map((file) => ({ path: file.path, content: file.content })),
  };
}

/** How a preset is named in the closing line: its own name, else what the user typed. */
export function presetLabel(preset: Preset, reference: string): string {
  return preset.name || reference;
}
