// The project the dashboard edits: preset settings plus components with stable ids. Reads and
// writes the preset manifest format, so a downloaded `.preset.json` works with `kiln setup`.
import { componentKind } from "../../../src/core/checks.ts";

export interface ProjectComponent {
  id: string;
  reference: string;
  name: string;
  fields: Record<string, string>;
  labels: Record<string, string>;
}

export interface ProjectSettings {
  /** null: unset (setup then uses the directory name; the zip uses the default name). */
  name: string | null;
  namespace: string;
  outputDir: string;
}

export interface Project {
  /** Preset name (a built-in template's name when opened from one). */
  presetName: string;
  title: string;
  description: string;
  project: ProjectSettings;
  components: ProjectComponent[];
}

export const DEFAULT_PROJECT_NAME = "kiln-project";

let counter = 0;
export function newId(): string {
  counter += 1;
  return `c${Date.now().toString(36)}${counter.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

function stringRecord(value: unknown, what: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw new Error(`${what} must be an object`);
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (typeof entry !== "string") {
      throw new Error(`${what}.${key}: invalid type: ${JSON.stringify(entry)}, expected a string`);
    }
    out[key] = entry;
  }
  return out;
}

/** A preset manifest (JSON text or parsed) → a project. Throws with a reason when it is not one. */
export function projectFromPreset(input: unknown, defaults?: Partial<ProjectSettings>): Project {
  const json = typeof input === "string" ? (JSON.parse(input) as unknown) : input;
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new Error("a preset manifest is a JSON object");
  }
  const preset = json as Record<string, unknown>;
  if (!Array.isArray(preset.components)) throw new Error("missing field `components`");
  const settings = (preset.project ?? {}) as Record<string, unknown>;
  const text = (value: unknown, fallback: string) => (typeof value === "string" ? value : fallback);
  return {
    presetName: text(preset.name, ""),
    title: text(preset.title, ""),
    description: text(preset.description, ""),
    project: {
      name: typeof settings.name === "string" ? settings.name : (defaults?.name ?? null),
      namespace: text(settings.namespace, defaults?.namespace ?? "default"),
      outputDir: text(settings.outputDir, defaults?.outputDir ?? "k8s"),
    },
    components: preset.components.map((raw, index) => {
      const component = (raw ?? {}) as Record<string, unknown>;
      if (typeof component.reference !== "string") {
        throw new Error(`components[${index}]: missing field \`reference\``);
      }
      if (typeof component.name !== "string") {
        throw new Error(`components[${index}]: missing field \`name\``);
      }
      return {
        id: newId(),
        reference: component.reference,
        name: component.name,
        fields: stringRecord(component.fields, `components[${index}].fields`),
        labels: stringRecord(component.labels, `components[${index}].labels`),
      };
    }),
  };
}

/** The project as a preset manifest (what `<name>.preset.json` holds). */
export function presetFromProject(project: Project): Record<string, unknown> {
  const settings: Record<string, string> = {};
  if (project.project.name !== null) settings.name = project.project.name;
  settings.namespace = project.project.namespace;
  settings.outputDir = project.project.outputDir;
  return {
    name: project.presetName || project.project.name || DEFAULT_PROJECT_NAME,
    title: project.title,
    description: project.description,
    project: settings,
    components: project.components.map((component) => ({
      reference: component.reference,
      name: component.name,
      fields: component.fields,
      labels: component.labels,
    })),
  };
}

export function presetText(project: Project): string {
  return `${JSON.stringify(presetFromProject(project), null, 2)}\n`;
}

/** `<project name>.preset.json`, `kiln-project.preset.json` when unnamed. */
export function presetFileName(project: Project): string {
  const name = (project.project.name ?? "").trim().replace(/[\\/:*?"<>|]+/g, "-");
  return `${name || DEFAULT_PROJECT_NAME}.preset.json`;
}

export function blankProject(settings: ProjectSettings): Project {
  return { presetName: "", title: "", description: "", project: settings, components: [] };
}

export type StageId = "provision" | "inventory" | "configure" | "deploy" | "other";

export const STAGES: readonly { id: StageId; title: string; hint: string }[] = [
  { id: "provision", title: "Provision", hint: "Cloud servers (Terraform)" },
  { id: "inventory", title: "Inventory", hint: "Hosts, groups and group vars" },
  { id: "configure", title: "Configure", hint: "Playbooks, site, roles, config, bootstrap" },
  { id: "deploy", title: "Deploy", hint: "Kubernetes manifests" },
  { id: "other", title: "From a URL or file", hint: "Any registry item" },
];

/** The stage a component belongs to: by built-in kind, else by category. */
export function stageOf(reference: string): StageId {
  const kind = componentKind(reference);
  switch (kind) {
    case "cloud-a":
    case "cloud-b":
      return "provision";
    case "inventory":
    case "group-vars":
      return "inventory";
    case "playbook":
    case "site":
    case "role":
    case "common-role":
    case "config":
    case "k8s-bootstrap":
      return "configure";
    case "deployment":
    case "service":
    case "ingress":
      return "deploy";
    default:
      return "other";
  }
}

/** A name not used by another component of the same reference: `web`, `web-2`, … */
export function uniqueName(project: Project, reference: string, base: string): string {
  const taken = new Set(
    project.components.filter((c) => c.reference === reference).map((c) => c.name),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
