// What else a rename must change so that nothing pointing at the component breaks: a service's
// selector follows a renamed deployment, an ingress's `service` field a renamed service, a
// playbook's roles a renamed role, a site's import a renamed playbook; and a renamed service or
// ingress keeps pointing where it did (its selector or backend would otherwise follow the new
// name). Which component points at which is read from the project's facts (../facts.ts), the
// same facts the checks read, so a rename keeps exactly the links the checks look at. Pure.
import {
  type CheckComponent,
  type CheckProject,
  normalizePath,
  type ProjectFacts,
  projectFacts,
} from "./facts.ts";

/** One change to one component's values that keeps a link across the rename. */
export interface FollowEdit {
  /** Index of the component in the project's list (the renamed one itself, when it keeps a link). */
  index: number;
  kind: "field" | "label";
  key: string;
  from: string | undefined;
  to: string;
  /** The component the link leads to, by index. */
  target: number;
}

/** The project with the component at `index` replaced by `changed`. */
function changedProject(
  project: CheckProject,
  index: number,
  changed: CheckComponent,
): CheckProject {
  return {
    ...project,
    components: project.components.map((component, at) => (at === index ? changed : component)),
  };
}

/** Services that selected a deployment before and do not after: the selector's `app` follows. */
function selectorEdits(before: ProjectFacts, after: ProjectFacts, renamed: number): FollowEdit[] {
  const edits: FollowEdit[] = [];
  for (const service of before.services) {
    const now = after.services.find((fact) => fact.component === service.component);
    const lost = service.selects.filter((deployment) => !now?.selects.includes(deployment));
    for (const deployment of lost) {
      const selected = after.deployments.find((fact) => fact.component === deployment);
      // the renamed service keeps its old selector; another follows the deployment's new labels
      const app = service.component === renamed ? service.selector.app : selected?.podLabels.app;
      if (app === undefined || now?.selector.app === app) continue;
      edits.push({
        index: service.component,
        kind: "label",
        key: "app",
        from: now?.selector.app,
        to: app,
        target: deployment,
      });
    }
  }
  return edits;
}

/** Ingresses whose backend was a project service and is no longer: `service` names it again. */
function backendEdits(before: ProjectFacts, after: ProjectFacts): FollowEdit[] {
  const edits: FollowEdit[] = [];
  for (const ingress of before.ingresses) {
    if (ingress.backend === undefined) continue;
    const now = after.ingresses.find((fact) => fact.component === ingress.component);
    if (now?.backend === ingress.backend) continue;
    const field = before.components[ingress.component]?.meta?.facts.service;
    const service = after.services.find((fact) => fact.component === ingress.backend);
    if (field === undefined || service === undefined) continue;
    edits.push({
      index: ingress.component,
      kind: "field",
      key: field,
      from: ingress.service,
      to: service.name,
      target: ingress.backend,
    });
  }
  return edits;
}

/** A JSON field value with every role entry named `oldName` renamed; undefined when none is. */
function renamedRolesText(value: string, oldName: string, newName: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  let changed = false;
  const renameEntry = (entry: unknown): unknown => {
    if (entry === oldName) {
      changed = true;
      return newName;
    }
    if (typeof entry === "object" && entry !== null && !Array.isArray(entry)) {
      const record = entry as Record<string, unknown>;
      // `name` is the automation tool's alias of `role` in a role entry
      const key = typeof record.role === "string" ? "role" : "name";
      if (record[key] === oldName) {
        changed = true;
        return { ...record, [key]: newName };
      }
    }
    return entry;
  };
  const renameRoles = (roles: unknown): unknown =>
    Array.isArray(roles) ? roles.map(renameEntry) : roles;
  const result = Array.isArray(parsed)
    ? parsed.map((item) =>
        typeof item === "object" && item !== null && !Array.isArray(item) && "roles" in item
          ? { ...item, roles: renameRoles((item as Record<string, unknown>).roles) }
          : renameEntry(item),
      )
    : parsed;
  return changed ? JSON.stringify(result) : undefined;
}

/** Playbooks whose plays use the renamed role: the role entries follow. */
function roleEdits(
  project: CheckProject,
  before: ProjectFacts,
  renamed: number,
  oldName: string,
  newName: string,
): FollowEdit[] {
  if (!before.vendoredRoles.get(oldName)?.includes(renamed)) return [];
  const users = [
    ...new Set(before.roleUses.filter((use) => use.role === oldName).map((use) => use.component)),
  ];
  const edits: FollowEdit[] = [];
  for (const user of users) {
    const meta = before.components[user]?.meta;
    const fields = project.components[user]?.fields ?? {};
    // `plays` holds plays with their roles; the legacy `roles` field a list of role names
    for (const field of [meta?.facts.plays, meta?.facts.roles]) {
      const value = field === undefined ? undefined : fields[field];
      if (field === undefined || value === undefined) continue;
      const text = renamedRolesText(value, oldName, newName);
      if (text === undefined) continue;
      edits.push({
        index: user,
        kind: "field",
        key: field,
        from: value,
        to: text,
        target: renamed,
      });
    }
  }
  return edits;
}

/** Sites importing the renamed playbook's file: the import's path follows it. */
function importEdits(
  project: CheckProject,
  before: ProjectFacts,
  after: ProjectFacts,
  renamed: number,
): FollowEdit[] {
  const oldPath = before.components[renamed]?.path;
  const newPath = after.components[renamed]?.path;
  if (oldPath === undefined || newPath === undefined || oldPath === newPath) return [];
  const oldFile = oldPath.slice(oldPath.lastIndexOf("/") + 1);
  const newFile = newPath.slice(newPath.lastIndexOf("/") + 1);
  const edits: FollowEdit[] = [];
  for (const site of before.sites) {
    if (!site.imports.some((entry) => entry.resolved === normalizePath(oldPath))) continue;
    const field = before.components[site.component]?.meta?.facts.playbooks;
    const value =
      field === undefined ? undefined : project.components[site.component]?.fields[field];
    if (field === undefined || value === undefined) continue;
    let entries: unknown;
    try {
      entries = JSON.parse(value);
    } catch {
      continue;
    }
    if (!Array.isArray(entries)) continue;
    const moved = entries.map((entry) => {
      if (typeof entry !== "object" || entry === null || typeof entry.path !== "string") {
        return entry;
      }
      const path: string = entry.path;
      const file = path.slice(path.lastIndexOf("/") + 1);
      return file === oldFile
        ? { ...entry, path: `${path.slice(0, path.length - file.length)}${newFile}` }
        : entry;
    });
    edits.push({
      index: site.component,
      kind: "field",
      key: field,
      from: value,
      to: JSON.stringify(moved),
      target: renamed,
    });
  }
  return edits;
}

/**
 * The edits that keep every link to and from the component at `renamed` when it becomes
 * `changed` (a new name, and any values the same command changes), in project order, one per
 * component and key: none when nothing points at it.
 */
export function renameFollowers(
  project: CheckProject,
  renamed: number,
  changed: CheckComponent,
): FollowEdit[] {
  const oldName = project.components[renamed]?.name;
  const newName = changed.name;
  if (oldName === undefined || oldName === newName) return [];
  const before = projectFacts(project);
  const after = projectFacts(changedProject(project, renamed, changed));
  const edits = [
    ...selectorEdits(before, after, renamed),
    ...backendEdits(before, after),
    ...roleEdits(project, before, renamed, oldName, newName),
    ...importEdits(project, before, after, renamed),
  ];
  const seen = new Set<string>();
  return edits
    .filter((edit) => {
      const key = `${edit.index}\u0000${edit.kind}\u0000${edit.key}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.index - b.index);
}
