// The preset manifest: its decoding, the views the API gives of it, the project
// settings it implies and its text as a file. Pure (no file system, no network, no process),
// so the dashboard decodes and writes presets with the same code as the CLI and the service;
// finding a preset by name, URL or file is `src/node/builtin-presets.ts`, on the Node side.
import { DEFAULT_NAMESPACE, DEFAULT_OUTPUT_DIR } from "../config.ts";
import { DEFAULT_AUTOMATION_PROFILE } from "../context.ts";
import { errorMessage, KilnError } from "../errors.ts";
import { parseJsonText } from "../json-text.ts";
import { ShapeError } from "../shape.ts";
import type { AutomationProfile } from "../vocabulary.ts";
import type { Decoded, Static } from "../wire.ts";
import { decodePreset } from "../wire-decoders.ts";
import type { PRESET, PRESET_COMPONENT, PRESET_SUMMARY, PRESET_VIEW } from "../wire-shapes.ts";
import type { ProjectConfig } from "./kiln-toml.ts";

// The shapes of a preset file and of its API views are declared in src/core/wire-shapes.ts
// (PRESET, PRESET_SUMMARY, PRESET_VIEW), with the published schema and the decoder made from
// them.

export type PresetComponent = Decoded<typeof PRESET_COMPONENT>;
export type Preset = Decoded<typeof PRESET>;

/** PresetSummary of GET /api/presets. */
export type PresetSummary = Static<typeof PRESET_SUMMARY>;

/** GET /api/presets/{name}: every key present, `project.name` null when unset. */
export type PresetView = Static<typeof PRESET_VIEW>;

/**
 * Parsed JSON → a preset; a ShapeError worded like serde's (`components[0].fields.port:
 * invalid type: integer `80`, expected a string`) when it is not one. Unknown keys are ignored;
 * `$schema` (an editor's pointer to preset.schema.json) too, when it is a string.
 */
export { decodePreset };

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
    throw invalidPreset(reference, `not JSON: ${errorMessage(error)}`);
  }
  try {
    return decodePreset(json, "");
  } catch (error) {
    if (error instanceof ShapeError) throw invalidPreset(reference, error.messageWithoutStrings);
    throw error;
  }
}

/** The namespace a component renders in when it sets none: the preset's, else `default`. */
export function presetNamespace(preset: Pick<Preset, "project">): string {
  return preset.project?.namespace ?? DEFAULT_NAMESPACE;
}

/** The automation tool profile of a preset's components: its own, else `cm`. */
export function presetAutomationProfile(preset: Pick<Preset, "project">): AutomationProfile {
  return preset.project?.automationProfile ?? DEFAULT_AUTOMATION_PROFILE;
}

/** What every component of a preset renders with: the project's namespace and profile. */
export function presetRenderSettings(preset: Pick<Preset, "project">): {
  defaultNamespace: string;
  automationProfile: AutomationProfile;
} {
  return {
    defaultNamespace: presetNamespace(preset),
    automationProfile: presetAutomationProfile(preset),
  };
}

/** The folder the preset's files go to in a project: its `outputDir`, else `k8s`. */
function presetOutputDir(preset: Pick<Preset, "project">): string {
  return preset.project?.outputDir ?? DEFAULT_OUTPUT_DIR;
}

/**
 * The `kiln.toml` settings of a project made from `preset`. `fallbackName` is the name when
 * the preset gives none; it depends on the front (setup: the folder's name; the dashboard's
 * zip: `kiln-project`), so the caller passes it.
 */
export function presetConfig(preset: Pick<Preset, "project">, fallbackName: string): ProjectConfig {
  return {
    name: preset.project?.name ?? fallbackName,
    defaultNamespace: presetNamespace(preset),
    outputDir: presetOutputDir(preset),
    automationProfile: presetAutomationProfile(preset),
  };
}

export function presetSummary(preset: Preset): PresetSummary {
  return {
    name: preset.name,
    title: preset.title,
    description: preset.description,
    componentCount: preset.components.length,
  };
}

/** A component with exactly the manifest's keys, in the manifest's order (ids and such dropped). */
export function manifestComponent(component: PresetComponent): PresetComponent {
  return {
    reference: component.reference,
    name: component.name,
    fields: component.fields,
    labels: component.labels,
  };
}

export function presetView(preset: Preset): PresetView {
  return {
    name: preset.name,
    title: preset.title,
    description: preset.description,
    project: {
      name: preset.project?.name ?? null,
      namespace: presetNamespace(preset),
      outputDir: presetOutputDir(preset),
    },
    components: preset.components.map(manifestComponent),
  };
}

/**
 * The preset as a `.preset.json` file: two-space JSON and a final newline, keys in the
 * manifest's order, unset project settings left out. `parsePreset` reads it back unchanged.
 */
export function serializePreset(preset: Preset): string {
  const manifest = {
    name: preset.name,
    title: preset.title,
    description: preset.description,
    project: preset.project && {
      name: preset.project.name,
      namespace: preset.project.namespace,
      outputDir: preset.project.outputDir,
      automationProfile: preset.project.automationProfile,
    },
    components: preset.components.map(manifestComponent),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
