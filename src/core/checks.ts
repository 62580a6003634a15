// Checks across the components of one project: the mistakes no single template can see, such as
// a play aimed at a group no inventory defines or a role that is used but not vendored. Shared by
// the dashboard (live, as you edit) and the CLI (`kiln check <preset>`), so both report the same
// findings. Pure: the caller renders (to learn the paths each component writes) and passes them.
import { normalizeRelativePath } from "./plan.ts";

/** One component of the project, as in a preset, plus what rendering it gave. */
export interface CheckComponent {
  reference: string;
  name: string;
  fields: Record<string, string>;
  labels: Record<string, string>;
  /** Rendered paths, relative to the output folder; absent when it was not (or could not be) rendered. */
  files?: readonly string[] | undefined;
  /** Why rendering failed, when it did. */
  renderError?: string | undefined;
}

export interface CheckProject {
  /** The project namespace (`project.namespace` of the preset); default `default`. */
  namespace?: string | undefined;
  components: readonly CheckComponent[];
}

export type Severity = "error" | "warning";

export type RuleId =
  | "render-error"
  | "invalid-json"
  | "duplicate-path"
  | "host-two-addresses"
  | "play-unknown-group"
  | "bootstrap-unknown-group"
  | "children-cycle"
  | "group-vars-unknown-group"
  | "group-vars-key-twice"
  | "site-missing-playbook"
  | "role-not-vendored"
  | "service-selects-nothing"
  | "ingress-missing-service";

export interface FindingComponent {
  /** Index in the project's component list. */
  index: number;
  reference: string;
  name: string;
}

/** A component a fix adds, in preset form. */
export interface ComponentToAdd {
  reference: string;
  name: string;
  fields: Record<string, string>;
  labels: Record<string, string>;
}

export interface Finding {
  rule: RuleId;
  severity: Severity;
  /** What is wrong and what to do about it, for people. */
  message: string;
  /** The components involved; the first is the one to edit. */
  components: FindingComponent[];
  /** A fix that adds components (e.g. vendor a missing role). */
  fix?: { label: string; add: ComponentToAdd[] } | undefined;
}

export interface RuleInfo {
  id: RuleId;
  severity: Severity;
  summary: string;
}

/** Every rule, in the order findings are reported; for docs, `kiln check --help` and the UI. */
export const CHECK_RULES: readonly RuleInfo[] = [
  { id: "render-error", severity: "error", summary: "a component does not render" },
  {
    id: "invalid-json",
    severity: "error",
    summary: "a field starts with `[` or `{` but is not valid JSON",
  },
  { id: "duplicate-path", severity: "error", summary: "two components write one path" },
  {
    id: "host-two-addresses",
    severity: "error",
    summary: "an inventory gives one host two different addresses",
  },
  {
    id: "play-unknown-group",
    severity: "error",
    summary: "a play is aimed at a group or host no inventory defines",
  },
  {
    id: "bootstrap-unknown-group",
    severity: "error",
    summary: "a k8s-bootstrap is aimed at a group no inventory defines",
  },
  { id: "children-cycle", severity: "error", summary: "inventory `:children` form a cycle" },
  {
    id: "group-vars-unknown-group",
    severity: "warning",
    summary: "group vars for a group no inventory defines",
  },
  {
    id: "group-vars-key-twice",
    severity: "error",
    summary: "group vars set one key in both `vars` and `yaml`",
  },
  {
    id: "site-missing-playbook",
    severity: "error",
    summary: "the site imports a playbook no component writes",
  },
  {
    id: "role-not-vendored",
    severity: "error",
    summary: "a play uses a role no component writes",
  },
  {
    id: "service-selects-nothing",
    severity: "warning",
    summary: "a service's selector matches no deployment",
  },
  {
    id: "ingress-missing-service",
    severity: "error",
    summary: "an ingress routes to a service the project does not define",
  },
];

const SEVERITY = new Map(CHECK_RULES.map((rule) => [rule.id, rule.severity]));

/** Built-in component names, matched on the part after the last `/` (as reference resolution does). */
export type ComponentKind =
  | "deployment"
  | "service"
  | "ingress"
  | "cloud-a"
  | "cloud-b"
  | "k8s-bootstrap"
  | "inventory"
  | "group-vars"
  | "common-role"
  | "role"
  | "playbook"
  | "site"
  | "config";

const KINDS = new Set<string>([
  "deployment",
  "service",
  "ingress",
  "cloud-a",
  "cloud-b",
  "k8s-bootstrap",
  "inventory",
  "group-vars",
  "common-role",
  "role",
  "playbook",
  "site",
  "config",
]);

/** The built-in component a reference resolves to (by the name after the last `/`), if any. */
export function componentKind(reference: string): ComponentKind | undefined {
  const name = reference.slice(reference.lastIndexOf("/") + 1);
  return KINDS.has(name) ? (name as ComponentKind) : undefined;
}

/** Collapses `.`, `..` and repeated slashes: the same rule the write plan compares paths by. */
export const normalizePath = normalizeRelativePath;

function dirnameOf(path: string): string {
  const normalized = normalizePath(path);
  const slash = normalized.lastIndexOf("/");
  return slash < 0 ? "" : normalized.slice(0, slash);
}

/** JSON-valued field semantics: `[`/`{` first → parsed JSON when valid, else undefined. */
export function parseJsonField(value: string | undefined): unknown {
  if (value === undefined) return undefined;
  const first = value.trimStart()[0];
  if (first !== "[" && first !== "{") return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** Group and host names a host pattern (`web:&prod:!db`, `a,b`) names, wildcards left out. */
export function hostPatternTargets(pattern: string): string[] {
  if (pattern.includes("{{")) return [];
  return pattern
    .split(/[:,]/)
    .map((part) =>
      part
        .trim()
        .replace(/^[&!]/, "")
        .replace(/\[[^\]]*\]$/, ""),
    )
    .filter((part) => part !== "" && !part.startsWith("~") && !/[*?]/.test(part));
}

/** Role names of one play's `roles` list (strings, or objects with `role`). */
export function roleNames(roles: unknown): string[] {
  if (!Array.isArray(roles)) return [];
  const names: string[] = [];
  for (const entry of roles) {
    if (typeof entry === "string") names.push(entry);
    else if (isRecord(entry) && typeof entry.role === "string") names.push(entry.role);
  }
  return names.filter((name) => name.trim() !== "");
}

export interface PlayInfo {
  name: string;
  hosts: string | undefined;
  roles: string[];
}

/** The plays a playbook component writes: `plays`, or the legacy `hosts` + `roles`. */
export function playbookPlays(component: Pick<CheckComponent, "name" | "fields">): PlayInfo[] {
  const plays = parseJsonField(component.fields.plays);
  if (Array.isArray(plays) && plays.length > 0) {
    return plays.filter(isRecord).map((play) => ({
      name: text(play.name) ?? component.name,
      hosts: text(play.hosts),
      roles: roleNames(play.roles),
    }));
  }
  const legacyHosts = component.fields.hosts;
  const legacyRoles = roleNames(parseJsonField(component.fields.roles));
  if (legacyHosts === undefined && legacyRoles.length === 0) return [];
  return [{ name: component.name, hosts: legacyHosts, roles: legacyRoles }];
}

export interface InventoryInfo {
  groups: { name: string; children: string[]; hosts: { name: string; address?: string }[] }[];
}

/** The groups of an inventory component's `hosts` field ([] when it is not a JSON array). */
export function inventoryGroups(
  component: Pick<CheckComponent, "fields">,
): InventoryInfo["groups"] {
  const value = parseJsonField(component.fields.hosts);
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((group) => ({
    name: text(group.group) ?? "",
    children: Array.isArray(group.children)
      ? group.children.map(text).filter((child): child is string => child !== undefined)
      : [],
    hosts: Array.isArray(group.members)
      ? group.members.filter(isRecord).map((host) => {
          const address = text(host.cm_host);
          return address === undefined
            ? { name: text(host.name) ?? "" }
            : { name: text(host.name) ?? "", address };
        })
      : [],
  }));
}

/**
 * The path a playbook (`<folder>/<name>.yml`) or k8s-bootstrap (`<name>-k8s-bootstrap.yml`)
 * component writes, for when it has not been rendered.
 */
function expectedPlaybookPath(component: CheckComponent): string {
  if (componentKind(component.reference) === "k8s-bootstrap") {
    return normalizePath(`${component.name}-k8s-bootstrap.yml`);
  }
  const folder = component.fields.folder ?? "";
  return normalizePath(folder ? `${folder}/${component.name}.yml` : `${component.name}.yml`);
}

/** Top-level keys of a YAML mapping body (lines `key:` at column 0). */
export function yamlTopLevelKeys(yaml: string): string[] {
  const keys: string[] = [];
  for (const line of yaml.split(/\r?\n/)) {
    const match = /^(?:"([^"]+)"|'([^']+)'|([A-Za-z_][\w.-]*))\s*:(?:\s|$)/.exec(line);
    if (match) keys.push((match[1] ?? match[2] ?? match[3]) as string);
  }
  return keys;
}

function quote(value: string): string {
  return `\`${value}\``;
}

/** Runs every rule over the project; findings come in rule order, then component order. */
export function checkProject(project: CheckProject): Finding[] {
  const findings: Finding[] = [];
  const components = project.components;
  const projectNamespace = project.namespace ?? "default";
  const ref = (index: number): FindingComponent => {
    const component = components[index] as CheckComponent;
    return { index, reference: component.reference, name: component.name };
  };
  const who = (index: number): string => {
    const component = components[index] as CheckComponent;
    return `${component.reference} ${quote(component.name)}`;
  };
  const add = (rule: RuleId, message: string, involved: number[], fix?: Finding["fix"]) => {
    const finding: Finding = {
      rule,
      severity: SEVERITY.get(rule) ?? "error",
      message,
      components: involved.map(ref),
    };
    if (fix) finding.fix = fix;
    findings.push(finding);
  };
  const indexed = components.map((component, index) => ({
    component,
    index,
    kind: componentKind(component.reference),
  }));
  const ofKind = (kind: ComponentKind) => indexed.filter((entry) => entry.kind === kind);

  // render-error
  for (const { component, index } of indexed) {
    if (component.renderError !== undefined) {
      add(
        "render-error",
        `${who(index)} does not render: ${component.renderError} - fix its fields`,
        [index],
      );
    }
  }

  // invalid-json
  for (const { component, index } of indexed) {
    for (const [field, value] of Object.entries(component.fields)) {
      const first = value.trimStart()[0];
      if (first !== "[" && first !== "{") continue;
      try {
        JSON.parse(value);
      } catch (error) {
        add(
          "invalid-json",
          `${who(index)}: field ${quote(field)} starts with ${quote(first)} but is not valid JSON (${(error as Error).message}), so the template gets it as plain text - fix the JSON`,
          [index],
        );
      }
    }
  }

  // duplicate-path
  const writers = new Map<string, { path: string; indexes: number[] }>();
  for (const { component, index } of indexed) {
    for (const path of component.files ?? []) {
      const key = normalizePath(path);
      const entry = writers.get(key) ?? { path, indexes: [] };
      if (!entry.indexes.includes(index)) entry.indexes.push(index);
      writers.set(key, entry);
    }
  }
  for (const { path, indexes } of writers.values()) {
    if (indexes.length < 2) continue;
    add(
      "duplicate-path",
      `${indexes.map(who).join(" and ")} all write ${quote(path)} - rename one of them or change the field that sets its path`,
      indexes,
    );
  }

  // Inventory facts shared by several rules.
  const inventories = ofKind("inventory").map((entry) => ({
    ...entry,
    groups: inventoryGroups(entry.component),
  }));
  const knownGroups = new Set<string>(["all", "ungrouped"]);
  const knownHosts = new Set<string>(["localhost"]);
  for (const inventory of inventories) {
    for (const group of inventory.groups) {
      knownGroups.add(group.name);
      for (const child of group.children) knownGroups.add(child);
      for (const host of group.hosts) knownHosts.add(host.name);
    }
  }
  const noInventory = inventories.length === 0;
  const groupHint = noInventory
    ? "the project has no automation/inventory - add one that defines it"
    : `add the group to the inventory (groups: ${[...knownGroups].filter((g) => g !== "ungrouped").join(", ")})`;

  // host-two-addresses
  for (const inventory of inventories) {
    const addresses = new Map<string, Map<string, string[]>>();
    for (const group of inventory.groups) {
      for (const host of group.hosts) {
        if (host.address === undefined) continue;
        const byAddress = addresses.get(host.name) ?? new Map<string, string[]>();
        byAddress.set(host.address, [...(byAddress.get(host.address) ?? []), group.name]);
        addresses.set(host.name, byAddress);
      }
    }
    for (const [host, byAddress] of addresses) {
      if (byAddress.size < 2) continue;
      const listing = [...byAddress]
        .map(([address, groups]) => `${quote(address)} in ${groups.join(", ")}`)
        .join(" and ");
      add(
        "host-two-addresses",
        `${who(inventory.index)}: host ${quote(host)} has two addresses (${listing}) - give it one cm_host in every group`,
        [inventory.index],
      );
    }
  }

  // play-unknown-group
  const playbooks = ofKind("playbook").map((entry) => ({
    ...entry,
    plays: playbookPlays(entry.component),
  }));
  const inventoryIndexes = inventories.map((inventory) => inventory.index);
  for (const playbook of playbooks) {
    for (const play of playbook.plays) {
      if (play.hosts === undefined) continue;
      for (const target of hostPatternTargets(play.hosts)) {
        if (knownGroups.has(target) || knownHosts.has(target)) continue;
        add(
          "play-unknown-group",
          `${who(playbook.index)}: play ${quote(play.name)} is aimed at ${quote(target)}, which no inventory defines - ${groupHint}, or change the play's hosts`,
          [playbook.index, ...inventoryIndexes],
        );
      }
    }
  }

  // bootstrap-unknown-group
  for (const { component, index } of ofKind("k8s-bootstrap")) {
    const hosts = component.fields.hosts;
    if (hosts === undefined) continue;
    for (const target of hostPatternTargets(hosts)) {
      if (knownGroups.has(target) || knownHosts.has(target)) continue;
      add(
        "bootstrap-unknown-group",
        `${who(index)} is aimed at ${quote(target)}, which no inventory defines - ${groupHint}, or set hosts to an existing group or \`all\``,
        [index, ...inventoryIndexes],
      );
    }
  }

  // children-cycle
  for (const inventory of inventories) {
    const children = new Map<string, string[]>();
    for (const group of inventory.groups) {
      children.set(group.name, [...(children.get(group.name) ?? []), ...group.children]);
    }
    const reported = new Set<string>();
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (group: string) => {
      state.set(group, "open");
      stack.push(group);
      for (const child of children.get(group) ?? []) {
        const seen = state.get(child);
        if (seen === "open") {
          const cycle = [...stack.slice(stack.indexOf(child)), child];
          const key = [...cycle.slice(0, -1)].sort().join(",");
          if (!reported.has(key)) {
            reported.add(key);
            add(
              "children-cycle",
              `${who(inventory.index)}: groups form a cycle through children (${cycle.join(" → ")}) - remove one of these children`,
              [inventory.index],
            );
          }
        } else if (seen === undefined) {
          visit(child);
        }
      }
      stack.pop();
      state.set(group, "done");
    };
    for (const group of children.keys()) if (!state.has(group)) visit(group);
  }

  // group-vars-unknown-group, group-vars-key-twice
  for (const { component, index } of ofKind("group-vars")) {
    const group = component.fields.group;
    if (group !== undefined && group !== "" && !knownGroups.has(group)) {
      add(
        "group-vars-unknown-group",
        `${who(index)} sets vars for group ${quote(group)}, which no inventory defines - ${groupHint}, or change the group`,
        [index, ...inventoryIndexes],
      );
    }
    const vars = parseJsonField(component.fields.vars);
    const yaml = component.fields.yaml;
    if (isRecord(vars) && yaml !== undefined) {
      const inYaml = new Set(yamlTopLevelKeys(yaml));
      const both = Object.keys(vars).filter((key) => inYaml.has(key));
      if (both.length > 0) {
        add(
          "group-vars-key-twice",
          `${who(index)} sets ${both.map(quote).join(", ")} in both vars and yaml, so the file has the key twice - keep it in one of them`,
          [index],
        );
      }
    }
  }

  // site-missing-playbook
  const written = new Set<string>();
  for (const { component, kind } of indexed) {
    if (component.files) for (const path of component.files) written.add(normalizePath(path));
    else if (kind === "playbook" || kind === "k8s-bootstrap") {
      written.add(expectedPlaybookPath(component));
    }
  }
  for (const { component, index } of ofKind("site")) {
    const entries = parseJsonField(component.fields.playbooks);
    if (!Array.isArray(entries)) continue;
    const sitePath = component.files?.[0] ?? `${component.name}.yml`;
    const base = dirnameOf(sitePath);
    for (const entry of entries) {
      if (!isRecord(entry)) continue;
      const path = text(entry.path);
      if (path === undefined || path.includes("{{")) continue;
      const resolved = normalizePath(base ? `${base}/${path}` : path);
      if (written.has(resolved)) continue;
      add(
        "site-missing-playbook",
        `${who(index)} imports ${quote(path)}, which no component writes - add an automation/playbook that writes ${quote(resolved)} or fix the path`,
        [index],
      );
    }
  }

  // role-not-vendored
  const rolesDirs = new Set<string>(["roles"]);
  for (const { component } of ofKind("config")) {
    for (const dir of (component.fields.roles_path ?? "roles").split(":")) {
      if (dir.trim() !== "") rolesDirs.add(normalizePath(dir.trim()));
    }
  }
  const vendored = new Set<string>();
  for (const { component, kind } of indexed) {
    if (kind === "role" || kind === "common-role") vendored.add(component.name);
    for (const path of component.files ?? []) {
      const segments = normalizePath(path).split("/");
      segments.forEach((segment, position) => {
        if (segment === "roles" && position + 2 < segments.length) {
          vendored.add(segments[position + 1] as string);
        }
      });
      for (const dir of rolesDirs) {
        const normalized = normalizePath(path);
        if (normalized.startsWith(`${dir}/`)) {
          const role = normalized.slice(dir.length + 1).split("/")[0];
          if (role && normalized.slice(dir.length + 1).includes("/")) vendored.add(role);
        }
      }
    }
  }
  const missing = new Map<string, number[]>();
  for (const playbook of playbooks) {
    for (const play of playbook.plays) {
      for (const role of play.roles) {
        if (vendored.has(role) || role.includes(".") || role.includes("{{")) continue;
        const users = missing.get(role) ?? [];
        if (!users.includes(playbook.index)) users.push(playbook.index);
        missing.set(role, users);
      }
    }
  }
  for (const [role, users] of missing) {
    add(
      "role-not-vendored",
      `role ${quote(role)} is used by ${users.map(who).join(", ")} but no component writes roles/${role}/ - add an automation/role named ${quote(role)}`,
      users,
      {
        label: `Add role ${role}`,
        add: [{ reference: "automation/role", name: role, fields: {}, labels: {} }],
      },
    );
  }

  // service-selects-nothing, ingress-missing-service
  const namespaceOf = (component: CheckComponent) => component.fields.namespace ?? projectNamespace;
  const podLabels = (component: CheckComponent) => ({ app: component.name, ...component.labels });
  const deployments = ofKind("deployment");
  const services = ofKind("service");
  for (const { component, index } of services) {
    const selector = podLabels(component);
    const namespace = namespaceOf(component);
    const selects = deployments.some((deployment) => {
      if (namespaceOf(deployment.component) !== namespace) return false;
      const labels: Record<string, string> = podLabels(deployment.component);
      return Object.entries(selector).every(([key, value]) => labels[key] === value);
    });
    if (selects) continue;
    const selectorText = Object.entries(selector)
      .map(([key, value]) => `${key}=${value}`)
      .join(", ");
    add(
      "service-selects-nothing",
      `${who(index)} selects pods labelled ${selectorText} in namespace ${quote(namespace)}, and no deployment of the project has those labels - add a k8s/deployment named ${quote(component.name)} (same labels) or rename the service`,
      [index],
    );
  }
  for (const { component, index } of ofKind("ingress")) {
    const target = component.fields.service || component.name;
    const namespace = namespaceOf(component);
    const found = services.some(
      (service) =>
        service.component.name === target && namespaceOf(service.component) === namespace,
    );
    if (found) continue;
    add(
      "ingress-missing-service",
      `${who(index)} routes to service ${quote(target)} in namespace ${quote(namespace)}, which the project does not define - add a k8s/service named ${quote(target)} or change the ingress's service`,
      [index],
    );
  }

  return findings;
}

/** `error: 2, warning: 1` style counts, for summaries. */
export function countFindings(findings: readonly Finding[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const finding of findings) {
    if (finding.severity === "error") errors += 1;
    else warnings += 1;
  }
  return { errors, warnings };
}

/** A preset as the checks need it (a `Preset` of preset.ts fits). */
export interface CheckablePreset {
  project?: { namespace?: string | undefined } | undefined;
  components: readonly {
    reference: string;
    name: string;
    fields: Record<string, string>;
    labels: Record<string, string>;
  }[];
}

/**
 * Renders each component with `renderPaths` (which returns the rendered paths, or throws with
 * the reason) and runs every check. The CLI's `kiln check <preset>` is this plus printing.
 */
export async function checkPreset(
  preset: CheckablePreset,
  renderPaths: (
    component: CheckablePreset["components"][number],
    defaultNamespace: string,
  ) => Promise<readonly string[]> | readonly string[],
): Promise<Finding[]> {
  const namespace = preset.project?.namespace ?? "default";
  const components: CheckComponent[] = [];
  for (const component of preset.components) {
    try {
      components.push({ ...component, files: await renderPaths(component, namespace) });
    } catch (error) {
      components.push({ ...component, renderError: (error as Error).message });
    }
  }
  return checkProject({ namespace, components });
}

/** One line per finding: `error[rule] message (components: a, b)`. */
export function formatFinding(finding: Finding): string {
  return `${finding.severity}[${finding.rule}] ${finding.message}`;
}
