// The facts of a project: what its components say about each other once read as what they are
// (inventories and their groups and hosts, group vars, plays and their targets, roles used and
// vendored, playbooks written and imported, pods, services, ingresses, servers, address ranges).
// The checks (src/core/project/checks/) and the dashboard's architecture graph read these facts
// and nothing else, so both tell the same story.
//
// Which component is what, and which field holds which fact, comes from the catalogue metadata
// of its registry item (`kiln.kind`, `kiln.facts`, per-field `format`; see item.ts), never from
// its name: a custom item that declares itself an inventory is read as one. Pure (no file
// system, no network), so it runs in the browser as well as in the CLI.
import { parseCidr } from "../formats.ts";
import type { ItemMeta, ItemMetaView } from "../item.ts";
import { normalizeRelativePath } from "../plan.ts";
import type { FactKind } from "../vocabulary.ts";
import type { ComponentOnDisk, DiskFile, DiskRead } from "./disk-facts.ts";
import { roleNames } from "./play-roles.ts";

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
  /**
   * The catalogue metadata of the component's registry item. When absent, the component is
   * looked up in the project's `catalogue` by the name after the last `/` (as reference
   * resolution finds built-ins); a component found in neither is read by its paths alone.
   */
  meta?: ItemMeta | undefined;
  /**
   * What its files say as they are on disk (`kiln check` of a project, disk-facts.ts): the
   * facts its main file gives replace those of its fields, and its missing files vendor
   * nothing. Absent (the dashboard, a preset): the facts come from its fields.
   */
  onDisk?: ComponentOnDisk | undefined;
}

export interface CheckProject {
  /** The project namespace (`project.namespace` of the preset); default `default`. */
  namespace?: string | undefined;
  components: readonly CheckComponent[];
  /**
   * The catalogue the project's references resolve against (the built-in components' metadata,
   * GET /api/registry/meta): what a component without its own `meta` is, and which component a
   * check suggests adding.
   */
  catalogue?: readonly ItemMetaView[] | undefined;
}

/** Collapses `.`, `..` and repeated slashes: the same rule the write plan compares paths by. */
export const normalizePath = normalizeRelativePath;

/** The catalogue entry a reference resolves to: the built-in whose name is the part after the last `/`. */
export function catalogueEntry(
  reference: string,
  catalogue: readonly ItemMetaView[] | undefined,
): ItemMetaView | undefined {
  const name = reference.slice(reference.lastIndexOf("/") + 1);
  // the later one wins, as the registry's byComponentName does
  for (let index = (catalogue?.length ?? 0) - 1; index >= 0; index--) {
    const entry = (catalogue as readonly ItemMetaView[])[index] as ItemMetaView;
    if (entry.reference.slice(entry.reference.lastIndexOf("/") + 1) === name) return entry;
  }
  return undefined;
}

/** A component's metadata: its own, else its catalogue entry's. */
function componentMeta(
  component: Pick<CheckComponent, "reference" | "meta">,
  catalogue: readonly ItemMetaView[] | undefined,
): ItemMeta | undefined {
  return component.meta ?? catalogueEntry(component.reference, catalogue);
}

/** JSON-valued field semantics: `[`/`{` first → parsed JSON when valid, else undefined. */
function parseJsonField(value: string | undefined): unknown {
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

/** Top-level keys of a YAML mapping body (lines `key:` at column 0). */
export function yamlTopLevelKeys(yaml: string): string[] {
  const keys: string[] = [];
  for (const line of yaml.split(/\r?\n/)) {
    const match = /^(?:"([^"]+)"|'([^']+)'|([A-Za-z_][\w.-]*))\s*:(?:\s|$)/.exec(line);
    if (match) keys.push((match[1] ?? match[2] ?? match[3]) as string);
  }
  return keys;
}

function dirnameOf(path: string): string {
  const normalized = normalizePath(path);
  const slash = normalized.lastIndexOf("/");
  return slash < 0 ? "" : normalized.slice(0, slash);
}

// ---------------------------------------------------------------------------------------------
// The facts

/** A component as the facts see it. */
export interface ComponentFact {
  index: number;
  reference: string;
  name: string;
  /** What it is (from its metadata); null when its item declares nothing. */
  kind: FactKind | null;
  meta: ItemMeta | undefined;
  /** Its `namespace` field, else the project's. */
  namespace: string;
  /** Rendered paths, absent when not rendered. */
  files: readonly string[] | undefined;
  /** Its main file: the first rendered path, else the path its `kiln.writes` pattern gives. */
  path: string | undefined;
}

export interface HostFact {
  name: string;
  /** `cm_host`, when given. */
  address?: string | undefined;
  /** `cm_port` as written, when given (absent: the inventory's default port). */
  port?: string | undefined;
  vars: Record<string, unknown>;
}

export interface GroupFact {
  name: string;
  children: string[];
  hosts: HostFact[];
  /** The group's `vars` in the inventory. */
  vars: Record<string, unknown>;
}

export interface InventoryFact {
  component: number;
  groups: GroupFact[];
}

export interface GroupVarsFact {
  component: number;
  group: string | undefined;
  /** Keys of the `vars` map. */
  varKeys: string[];
  /** Top-level keys of the raw `yaml` text. */
  yamlKeys: string[];
  /** Whether `vars` is a JSON object (a key list is then meaningful). */
  varsIsMap: boolean;
  yaml: string | undefined;
}

/** A file under a `group_vars` folder, from any component's rendered paths. */
export interface GroupVarsFile {
  component: number;
  /** The folder holding `group_vars` (`""` at the top). */
  base: string;
  group: string;
  /** `file`: group_vars/<group>.yml; `dir`: group_vars/<group>/<file>. */
  layout: "file" | "dir";
  path: string;
}

export interface PlayFact {
  name: string;
  /** The play's host pattern, when given. */
  hosts: string | undefined;
  roles: string[];
}

export interface PlaybookFact {
  component: number;
  /** Normalized path of the playbook file, when known. */
  path: string | undefined;
  plays: PlayFact[];
  /** A component aimed at one host pattern as a whole (such as a node bootstrap). */
  target: string | undefined;
}

export interface SiteImportFact {
  /** The path as the site writes it (relative to the site's folder). */
  path: string;
  /** Normalized path from the project root. */
  resolved: string;
}

export interface SiteFact {
  component: number;
  imports: SiteImportFact[];
}

export interface RoleUseFact {
  role: string;
  component: number;
  play: string;
}

export interface ConfigFact {
  component: number;
  /** The inventory path it points at, when set. */
  inventory: string | undefined;
}

export interface DeploymentFact {
  component: number;
  name: string;
  namespace: string;
  /** `app` = the name, plus the component's labels. */
  podLabels: Record<string, string>;
  /** The container port (its `port` fact), when the item declares one. */
  port: string | undefined;
  /** Names of the container's ports (its `port_name` fact), when the item declares them. */
  portNames: string[];
}

export interface ServiceFact {
  component: number;
  name: string;
  namespace: string;
  selector: Record<string, string>;
  port: string | undefined;
  targetPort: string | undefined;
  /** Deployments whose pod labels the selector matches, in its namespace. */
  selects: number[];
}

export interface IngressFact {
  component: number;
  namespace: string;
  /** The backend service (the ingress name when the field is empty). */
  service: string;
  port: string | undefined;
  host: string | undefined;
  /** The service component it routes to (that name, its namespace), when the project has it. */
  backend: number | undefined;
}

export interface ServerFact {
  component: number;
  name: string;
  count: string;
}

/** One address range of a field that takes CIDRs (`"format": "cidr"`). */
export interface AddressRangeFact {
  component: number;
  field: string;
  /** As written. */
  text: string;
  family: 4 | 6;
  first: bigint;
  last: bigint;
}

export interface ProjectFacts {
  namespace: string;
  components: ComponentFact[];
  /** Every rendered path (normalized) with the components writing it, in first-seen order. */
  written: Map<string, { path: string; components: number[] }>;
  /** Rendered paths, plus the `writes` path of components not rendered. */
  knownPaths: Set<string>;
  inventories: InventoryFact[];
  /** `all`, `ungrouped`, then every group and child of every inventory, in order. */
  knownGroups: string[];
  /** `localhost` and every inventory host. */
  knownHosts: Set<string>;
  groupVars: GroupVarsFact[];
  groupVarsFiles: GroupVarsFile[];
  playbooks: PlaybookFact[];
  sites: SiteFact[];
  configs: ConfigFact[];
  /** Folders roles are vendored in: `roles` and each config's `roles_path` entries. */
  rolesDirs: string[];
  /** Role name → components vendoring it (role components, and files under a roles folder). */
  vendoredRoles: Map<string, number[]>;
  roleUses: RoleUseFact[];
  deployments: DeploymentFact[];
  services: ServiceFact[];
  ingresses: IngressFact[];
  servers: ServerFact[];
  addressRanges: AddressRangeFact[];
  /** Tracked files that are not on disk, with their component. */
  missingFiles: (DiskFile & { component: number })[];
  /** Tracked files holding unresolved conflict markers, with the line of each `<<<<<<<`. */
  conflictMarkers: (DiskFile & { component: number; lines: number[] })[];
}

/** The value of the field holding `fact`, the field's default when not supplied. */
function factValue(component: CheckComponent, meta: ItemMeta | undefined, fact: string) {
  const field = meta?.facts[fact];
  if (field === undefined) return undefined;
  return Object.hasOwn(component.fields, field)
    ? component.fields[field]
    : Object.hasOwn(meta?.defaults ?? {}, field)
      ? meta?.defaults[field]
      : undefined;
}

/** A `kiln.writes` pattern filled in: `{name}` and `{field}`, empty segments dropped. */
export function writesPath(
  pattern: string,
  component: Pick<CheckComponent, "name" | "fields">,
  meta: ItemMeta | undefined,
): string {
  const filled = pattern.replace(/\{([^{}]*)\}/g, (_match, key: string) => {
    if (key === "name") return component.name;
    if (Object.hasOwn(component.fields, key)) return component.fields[key] as string;
    return meta && Object.hasOwn(meta.defaults, key) ? (meta.defaults[key] as string) : "";
  });
  return normalizePath(
    filled
      .split("/")
      .filter((segment) => segment !== "")
      .join("/"),
  );
}

function stringMap(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function inventoryGroups(value: unknown): GroupFact[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((group) => ({
    name: text(group.group) ?? "",
    children: Array.isArray(group.children)
      ? group.children.map(text).filter((child): child is string => child !== undefined)
      : [],
    hosts: Array.isArray(group.members)
      ? group.members.filter(isRecord).map((host) => ({
          name: text(host.name) ?? "",
          address: text(host.cm_host),
          port: text(host.cm_port),
          vars: stringMap(host.vars),
        }))
      : [],
    vars: stringMap(group.vars),
  }));
}

/** The plays of a playbook: its `plays` fact, else the single play of `hosts` + `roles`. */
function playsOf(component: CheckComponent, meta: ItemMeta | undefined): PlayFact[] {
  const plays = parseJsonField(factValue(component, meta, "plays"));
  if (Array.isArray(plays) && plays.length > 0) {
    return plays.filter(isRecord).map((play) => ({
      name: text(play.name) ?? component.name,
      hosts: text(play.hosts),
      roles: roleNames(play.roles),
    }));
  }
  const legacyHosts = factValue(component, meta, "hosts");
  const legacyRoles = roleNames(parseJsonField(factValue(component, meta, "roles")));
  if (legacyHosts === undefined && legacyRoles.length === 0) return [];
  return [{ name: component.name, hosts: legacyHosts, roles: legacyRoles }];
}

/**
 * The plays of a playbook as its file has them. A component aimed at one host pattern as a
 * whole (its item declares a `target` fact, as the k8s-bootstrap does) is aimed where its
 * first play is, and its other plays are plays.
 */
function playsOnDisk(
  plays: Extract<DiskRead, { kind: "playbook" }>["plays"],
  meta: ItemMeta | undefined,
): { plays: PlayFact[]; target: string | undefined } {
  if (meta?.facts.target === undefined) return { plays, target: undefined };
  const [first, ...others] = plays;
  return { plays: others, target: first?.hosts };
}

/** Files under `group_vars`, read from a rendered path. */
function groupVarsFile(component: number, path: string): GroupVarsFile | undefined {
  const segments = normalizePath(path).split("/");
  const at = segments.lastIndexOf("group_vars");
  if (at < 0 || at + 1 >= segments.length) return undefined;
  const base = segments.slice(0, at).join("/");
  if (at + 2 === segments.length) {
    const group = (segments[at + 1] as string).replace(/\.(ya?ml|json)$/, "");
    return { component, base, group, layout: "file", path };
  }
  return { component, base, group: segments[at + 1] as string, layout: "dir", path };
}

/** Role folders a rendered path vendors: `roles/<role>/…` anywhere, or `<roles dir>/<role>/…`. */
function rolesInPath(path: string, rolesDirs: readonly string[]): string[] {
  const normalized = normalizePath(path);
  const roles: string[] = [];
  const segments = normalized.split("/");
  segments.forEach((segment, position) => {
    if (segment === "roles" && position + 2 < segments.length) {
      roles.push(segments[position + 1] as string);
    }
  });
  for (const dir of rolesDirs) {
    if (!normalized.startsWith(`${dir}/`)) continue;
    const rest = normalized.slice(dir.length + 1);
    const role = rest.split("/")[0];
    if (role && rest.includes("/")) roles.push(role);
  }
  return roles;
}

/** Reads the components as what their metadata says they are. */
export function projectFacts(project: CheckProject): ProjectFacts {
  const namespace = project.namespace ?? "default";
  const facts: ProjectFacts = {
    namespace,
    components: [],
    written: new Map(),
    knownPaths: new Set(),
    inventories: [],
    knownGroups: ["all", "ungrouped"],
    knownHosts: new Set(["localhost"]),
    groupVars: [],
    groupVarsFiles: [],
    playbooks: [],
    sites: [],
    configs: [],
    rolesDirs: ["roles"],
    vendoredRoles: new Map(),
    roleUses: [],
    deployments: [],
    services: [],
    ingresses: [],
    servers: [],
    addressRanges: [],
    missingFiles: [],
    conflictMarkers: [],
  };
  const addRole = (role: string, index: number) => {
    const list = facts.vendoredRoles.get(role) ?? [];
    if (!list.includes(index)) list.push(index);
    facts.vendoredRoles.set(role, list);
  };
  const knownGroups = new Set(facts.knownGroups);
  const addGroup = (group: string) => {
    if (!knownGroups.has(group)) {
      knownGroups.add(group);
      facts.knownGroups.push(group);
    }
  };

  project.components.forEach((component, index) => {
    const meta = componentMeta(component, project.catalogue);
    const files = component.files;
    const path =
      files?.[0] !== undefined
        ? normalizePath(files[0])
        : meta?.writes
          ? writesPath(meta.writes, component, meta)
          : undefined;
    const fact: ComponentFact = {
      index,
      reference: component.reference,
      name: component.name,
      kind: meta?.kind ?? null,
      meta,
      namespace: component.fields.namespace ?? namespace,
      files,
      path,
    };
    facts.components.push(fact);
    const onDisk = component.onDisk;
    for (const missing of onDisk?.missing ?? [])
      facts.missingFiles.push({ component: index, ...missing });
    for (const conflict of onDisk?.conflicts ?? []) {
      facts.conflictMarkers.push({ component: index, ...conflict });
    }
    // what is on disk is known and vendors roles; a path only kiln.lock remembers is neither
    const gone = new Set(onDisk?.missing.map((missing) => normalizePath(missing.path)));

    for (const file of files ?? []) {
      const key = normalizePath(file);
      const entry = facts.written.get(key) ?? { path: file, components: [] };
      if (!entry.components.includes(index)) entry.components.push(index);
      facts.written.set(key, entry);
      if (gone.has(key)) continue;
      facts.knownPaths.add(key);
      const groupVars = groupVarsFile(index, file);
      if (groupVars) facts.groupVarsFiles.push(groupVars);
    }
    if (!files && path !== undefined) facts.knownPaths.add(path);

    for (const [field, format] of Object.entries(meta?.formats ?? {})) {
      if (format !== "cidr") continue;
      for (const range of addressRanges(component.fields[field] ?? meta?.defaults[field])) {
        facts.addressRanges.push({ component: index, field, ...range });
      }
    }

    const value = (name: string) => factValue(component, meta, name);
    // the facts of its main file as it is on disk, when it was read; else its fields'
    const read = onDisk?.read?.kind === fact.kind ? onDisk.read : undefined;
    switch (fact.kind) {
      case "inventory": {
        const groups = inventoryGroups(
          read?.kind === "inventory" ? read.groups : parseJsonField(value("groups")),
        );
        facts.inventories.push({ component: index, groups });
        for (const group of groups) {
          addGroup(group.name);
          for (const child of group.children) addGroup(child);
          for (const host of group.hosts) facts.knownHosts.add(host.name);
        }
        break;
      }
      case "group-vars": {
        if (read?.kind === "group-vars") {
          // the file's keys, once each: `vars` and `yaml` are one mapping on disk
          facts.groupVars.push({
            component: index,
            group: read.group,
            varKeys: read.keys,
            varsIsMap: true,
            yamlKeys: [],
            yaml: undefined,
          });
          break;
        }
        const vars = parseJsonField(value("vars"));
        const yaml = value("yaml");
        facts.groupVars.push({
          component: index,
          group: value("group"),
          varKeys: isRecord(vars) ? Object.keys(vars) : [],
          varsIsMap: isRecord(vars),
          yamlKeys: yaml === undefined ? [] : yamlTopLevelKeys(yaml),
          yaml,
        });
        break;
      }
      case "playbook": {
        const { plays, target } =
          read?.kind === "playbook"
            ? playsOnDisk(read.plays, meta)
            : { plays: playsOf(component, meta), target: value("target") };
        facts.playbooks.push({ component: index, path, plays, target });
        for (const play of plays) {
          for (const role of play.roles)
            facts.roleUses.push({ role, component: index, play: play.name });
        }
        break;
      }
      case "site": {
        const entries =
          read?.kind === "site"
            ? read.imports.map((importPath) => ({ path: importPath }))
            : parseJsonField(value("playbooks"));
        const base = dirnameOf(path ?? "");
        const imports: SiteImportFact[] = [];
        if (Array.isArray(entries)) {
          for (const entry of entries) {
            if (!isRecord(entry)) continue;
            const importPath = text(entry.path);
            if (importPath === undefined || importPath.includes("{{")) continue;
            imports.push({
              path: importPath,
              resolved: normalizePath(base ? `${base}/${importPath}` : importPath),
            });
          }
        }
        facts.sites.push({ component: index, imports });
        break;
      }
      case "role":
        // a role whose every file is gone from disk is not vendored any more
        if (files === undefined || files.some((file) => !gone.has(normalizePath(file)))) {
          addRole(component.name, index);
        }
        break;
      case "config": {
        const inventory = read?.kind === "config" ? read.inventory : value("inventory");
        const rolesPath = read?.kind === "config" ? read.rolesPath : value("roles_path");
        facts.configs.push({ component: index, inventory: inventory || undefined });
        for (const dir of (rolesPath ?? "").split(":")) {
          const normalized = normalizePath(dir.trim());
          if (dir.trim() !== "" && !facts.rolesDirs.includes(normalized)) {
            facts.rolesDirs.push(normalized);
          }
        }
        break;
      }
      case "deployment":
        facts.deployments.push(
          read?.kind === "deployment"
            ? {
                component: index,
                name: read.name ?? component.name,
                namespace: read.namespace ?? fact.namespace,
                podLabels: read.podLabels,
                port: read.port,
                portNames: read.portNames,
              }
            : {
                component: index,
                name: component.name,
                namespace: fact.namespace,
                podLabels: { app: component.name, ...component.labels },
                port: value("port") || undefined,
                portNames: (value("port_name") ?? "").split(/[\s,]+/).filter((name) => name !== ""),
              },
        );
        break;
      case "service":
        facts.services.push(
          read?.kind === "service"
            ? {
                component: index,
                name: read.name ?? component.name,
                namespace: read.namespace ?? fact.namespace,
                selector: read.selector,
                port: read.port,
                targetPort: read.targetPort,
                selects: [],
              }
            : {
                component: index,
                name: component.name,
                namespace: fact.namespace,
                selector: { app: component.name, ...component.labels },
                port: value("port"),
                targetPort: value("target_port") || value("port"),
                selects: [],
              },
        );
        break;
      case "ingress":
        facts.ingresses.push(
          read?.kind === "ingress"
            ? {
                component: index,
                namespace: read.namespace ?? fact.namespace,
                service: read.service ?? component.name,
                port: read.port,
                host: read.host,
                backend: undefined,
              }
            : {
                component: index,
                namespace: fact.namespace,
                service: value("service") || component.name,
                port: value("port"),
                host: value("host") || undefined,
                backend: undefined,
              },
        );
        break;
      case "servers":
        facts.servers.push({
          component: index,
          name: component.name,
          count: (read?.kind === "servers" ? read.count : value("count")) || "1",
        });
        break;
      default:
        break;
    }
  });

  // Vendored roles need every config's roles_path first.
  facts.components.forEach((component) => {
    const gone = new Set(
      project.components[component.index]?.onDisk?.missing.map((file) => normalizePath(file.path)),
    );
    for (const file of component.files ?? []) {
      if (gone.has(normalizePath(file))) continue;
      for (const role of rolesInPath(file, facts.rolesDirs)) addRole(role, component.index);
    }
  });
  connectKubernetes(facts);
  return facts;
}

/** Service → the deployments it selects (same namespace, selector ⊆ pod labels); ingress → service. */
function connectKubernetes(facts: ProjectFacts): void {
  for (const service of facts.services) {
    service.selects = facts.deployments
      .filter(
        (deployment) =>
          deployment.namespace === service.namespace &&
          Object.entries(service.selector).every(
            ([key, value]) => deployment.podLabels[key] === value,
          ),
      )
      .map((deployment) => deployment.component);
  }
  for (const ingress of facts.ingresses) {
    ingress.backend = facts.services.find(
      (service) => service.name === ingress.service && service.namespace === ingress.namespace,
    )?.component;
  }
}

// ---------------------------------------------------------------------------------------------
// Address ranges

/** The CIDRs of a field value: a JSON list of strings, or text separated by commas or spaces. */
function addressRanges(
  value: string | undefined,
): { text: string; family: 4 | 6; first: bigint; last: bigint }[] {
  if (value === undefined) return [];
  const parsed = parseJsonField(value);
  const parts = Array.isArray(parsed)
    ? parsed.filter((entry): entry is string => typeof entry === "string")
    : value.split(/[\s,]+/);
  const ranges: { text: string; family: 4 | 6; first: bigint; last: bigint }[] = [];
  for (const part of parts) {
    const range = parseCidr(part.trim());
    if (range) ranges.push({ text: part.trim(), ...range });
  }
  return ranges;
}
