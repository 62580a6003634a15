// The words the wire shapes and the core share: the dashboard's stages, what a component is for
// the facts, the structured editors, the value formats a field may declare, and the automation
// tool profiles. Data only - the item's decoder, the render context and the published schemas
// (src/core/wire-shapes.ts) all read these lists, so each is written once.

/** The dashboard's stages, in the order it shows them. */
export const STAGE_IDS = ["provision", "inventory", "configure", "deploy", "other"] as const;
export type StageId = (typeof STAGE_IDS)[number];

/**
 * What a component is, for the facts: checks and the graph read a component's fields as the
 * facts of its kind (see `facts` below and src/core/project/facts.ts).
 */
export const FACT_KINDS = [
  "inventory",
  "group-vars",
  "playbook",
  "site",
  "role",
  "config",
  "servers",
  "deployment",
  "service",
  "ingress",
] as const;
export type FactKind = (typeof FACT_KINDS)[number];

/** The structured editors the dashboard has for JSON-valued fields. */
export const EDITOR_KINDS = ["inventory", "plays", "site", "vars"] as const;
export type EditorKind = (typeof EDITOR_KINDS)[number];

/**
 * Value formats a field (or, with `kiln.nameFormat`, the component name) may declare. Every
 * value is checked against its format before rendering (src/core/validate.ts); `cidr` is also
 * compared by the checks, and `yaml` gets a multi-line box in the dashboard. What each accepts:
 * README, "Field formats and shapes".
 */
export const FIELD_FORMATS = [
  "cidr",
  "yaml",
  "integer",
  "port",
  "port-or-name",
  "boolean",
  "dns-label",
  "dns-1035-label",
  "dns-subdomain",
  "ip",
  "host-address",
  "ingress-host",
  "ingress-path",
  "duration",
] as const;
export type FieldFormat = (typeof FIELD_FORMATS)[number];

/**
 * The automation tool profile: `cm`, the fixed names existing clients expect (`cm_host`, …,
 * `cm.cfg`), by default; `ansible`, the names the real tool reads (`ansible_host`, …,
 * `ansible.cfg`). Templates read it as `automation_profile`; an item maps paths per profile in
 * its metadata (`kiln.profilePaths`).
 */
export const AUTOMATION_PROFILES = ["cm", "ansible"] as const;
export type AutomationProfile = (typeof AUTOMATION_PROFILES)[number];
