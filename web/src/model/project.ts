// The project the dashboard edits: preset settings plus components with stable ids. Reads and
// writes the preset manifest with the core's schema (src/core/project/preset-manifest.ts), so a
// downloaded `.preset.json` works with `kiln setup` and a file setup reads opens here.
import {
  DEFAULT_NAMESPACE,
  DEFAULT_OUTPUT_DIR,
  DEFAULT_PROJECT_NAME,
} from "../../../src/core/config.ts";
import { DEFAULT_AUTOMATION_PROFILE } from "../../../src/core/context.ts";
import type { ItemMeta } from "../../../src/core/item.ts";
import { parseJsonText } from "../../../src/core/json-text.ts";
import {
  decodePreset,
  manifestComponent,
  type Preset,
  type PresetComponent,
  serializePreset,
} from "../../../src/core/project/preset-manifest.ts";
import type { AutomationProfile } from "../../../src/core/vocabulary.ts";
import type { MessageKey } from "../i18n/i18n.ts";

/** A component of the preset manifest, with an id that stays while it is edited or moved. */
export interface ProjectComponent extends PresetComponent {
  id: string;
}

export interface ProjectSettings {
  /** null: unset (setup then uses the directory name; the zip uses the default name). */
  name: string | null;
  namespace: string;
  outputDir: string;
  /** The automation tool profile; absent (projects saved before it existed) is `cm`. */
  automationProfile?: AutomationProfile | undefined;
}

export interface Project {
  /** Preset name (a built-in template's name when opened from one). */
  presetName: string;
  title: string;
  description: string;
  project: ProjectSettings;
  components: ProjectComponent[];
}

export { DEFAULT_PROJECT_NAME };

let counter = 0;
export function newId(): string {
  counter += 1;
  return `c${Date.now().toString(36)}${counter.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/**
 * A preset manifest (JSON text, or JSON already parsed) → a project, decoded by the core's
 * preset schema. Throws with the reason - where the text stops being JSON, or the key path and
 * what was wrong there - when it is not one. `defaults` fill the settings the preset leaves out.
 */
export function projectFromPreset(input: unknown, defaults?: Partial<ProjectSettings>): Project {
  const preset = decodePreset(typeof input === "string" ? parseJsonText(input) : input, "");
  const settings = preset.project;
  return {
    presetName: preset.name,
    title: preset.title,
    description: preset.description,
    project: {
      name: settings?.name ?? defaults?.name ?? null,
      namespace: settings?.namespace ?? defaults?.namespace ?? DEFAULT_NAMESPACE,
      outputDir: settings?.outputDir ?? defaults?.outputDir ?? DEFAULT_OUTPUT_DIR,
      automationProfile:
        settings?.automationProfile ?? defaults?.automationProfile ?? DEFAULT_AUTOMATION_PROFILE,
    },
    components: preset.components.map((component) => ({ id: newId(), ...component })),
  };
}

/** The project as a preset manifest (what `<name>.preset.json` holds). */
export function presetFromProject(project: Project): Preset {
  return {
    name: project.presetName || project.project.name || DEFAULT_PROJECT_NAME,
    title: project.title,
    description: project.description,
    project: {
      ...(project.project.name === null ? {} : { name: project.project.name }),
      namespace: project.project.namespace,
      outputDir: project.project.outputDir,
      // set only when not the default (undefined is left out of the file), so a preset
      // exported from a default project is unchanged
      automationProfile: project.project.automationProfile === "ansible" ? "ansible" : undefined,
    },
    components: project.components.map(manifestComponent),
  };
}

/** The `.preset.json` text, as the core writes a preset. */
export function presetText(project: Project): string {
  return serializePreset(presetFromProject(project));
}

/** A download's file name: the project's name made safe for file systems, else kiln-project. */
export function downloadName(project: Project, suffix: string): string {
  const name = (project.project.name ?? "").trim().replace(/[\\/:*?"<>|]+/g, "-");
  return `${name || DEFAULT_PROJECT_NAME}${suffix}`;
}

/** `<project name>.preset.json`, `kiln-project.preset.json` when unnamed. */
export function presetFileName(project: Project): string {
  return downloadName(project, ".preset.json");
}

export function blankProject(settings: ProjectSettings): Project {
  return { presetName: "", title: "", description: "", project: settings, components: [] };
}

/** The dashboard stages; which component goes where is catalogue data (`kiln.stage`). */
export type StageId = ItemMeta["stage"];

/** The stages in order, each with the catalogue keys of its title and hint. */
export const STAGES: readonly { id: StageId; title: MessageKey; hint: MessageKey }[] = [
  { id: "provision", title: "stage.provision", hint: "stage.provisionHint" },
  { id: "inventory", title: "stage.inventory", hint: "stage.inventoryHint" },
  { id: "configure", title: "stage.configure", hint: "stage.configureHint" },
  { id: "deploy", title: "stage.deploy", hint: "stage.deployHint" },
  { id: "other", title: "stage.other", hint: "stage.otherHint" },
];

/**
 * The stage a component belongs to: what its item's catalogue metadata says (`kiln.stage` in
 * component.json or a registry-item file), `other` when it says nothing.
 */
export function stageOf(meta: Pick<ItemMeta, "stage"> | undefined): StageId {
  return meta?.stage ?? "other";
}

/**
 * The name a new component is offered: the item's own name, unless that is just its kind
 * (`deployment` for k8s/deployment), which the templates already put in the file name
 * (`{{ name }}-deployment.yaml`): a deployment named `deployment` would write
 * `deployment-deployment.yaml`. Then a name for what it runs: `web` for a Kubernetes object (the
 * Deploy stage), else the project's name, else `app`; and unique among the components of the
 * same reference (`web-2`).
 */
export function defaultComponentName(
  project: Project,
  reference: string,
  itemName: string,
  stage: StageId,
): string {
  const kind = (reference.split("/").pop() ?? "").replace(/\.json$/, "");
  const projectName = project.project.name ?? "";
  const base =
    itemName !== kind
      ? itemName
      : stage === "deploy"
        ? "web"
        : projectName !== "" && projectName !== kind
          ? projectName
          : "app";
  return uniqueName(project, reference, base);
}

/** A name not used by another component of the same reference: `web`, `web-2`, … */
export function uniqueName(project: Project, reference: string, base: string): string {
  const taken = new Set(
    project.components.filter((c) => c.reference === reference).map((c) => c.name),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
