// The structured model of automation/inventory's `hosts` field: an array of group objects
// (`group`, `members`, `children`, `vars`) whose hosts have `name`, `cm_host`, `cm_user`,
// `cm_port`, `ssh_key_file` and `vars`. Operations return new arrays and keep every key they do
// not touch (unknown keys included), so the JSON round-trips.
import { isRecord, removeAt, replaceAt, withKey } from "./json-style.ts";

export type Json = Record<string, unknown>;

export interface GroupView {
  group: string;
  members: Json[];
  children: string[];
  vars: Json;
}

export function groupView(group: unknown): GroupView {
  const object = isRecord(group) ? group : {};
  return {
    group: typeof object.group === "string" ? object.group : "",
    members: Array.isArray(object.members) ? object.members.filter(isRecord) : [],
    children: Array.isArray(object.children)
      ? object.children.filter((child): child is string => typeof child === "string")
      : [],
    vars: isRecord(object.vars) ? object.vars : {},
  };
}

/** How a host's user or port is written: the inventory default, nothing, or its own value. */
export type Inherited = { mode: "default" } | { mode: "none" } | { mode: "value"; value: string };

export function readInherited(host: Json, key: "cm_user" | "cm_port"): Inherited {
  if (!Object.hasOwn(host, key)) return { mode: "default" };
  const value = host[key];
  if (value === null || value === "") return { mode: "none" };
  return { mode: "value", value: String(value) };
}

export function writeInherited(host: Json, key: "cm_user" | "cm_port", value: Inherited): Json {
  if (value.mode === "default") return withKey(host, key, undefined);
  if (value.mode === "none") return withKey(host, key, null);
  if (key === "cm_port" && /^\d{1,5}$/.test(value.value)) {
    return withKey(host, key, Number(value.value));
  }
  return withKey(host, key, value.value);
}

const asGroups = (groups: readonly unknown[]): Json[] =>
  groups.map((group) => (isRecord(group) ? group : {}));

export function groupNames(groups: readonly unknown[]): string[] {
  return groups.map((group) => groupView(group).group);
}

export function addGroup(groups: readonly unknown[], name: string): Json[] {
  return [...asGroups(groups), { group: name, members: [] }];
}

/** Renames a group and every `children` entry that names it. */
export function renameGroup(groups: readonly unknown[], index: number, name: string): Json[] {
  const before = groupView(groups[index]).group;
  return asGroups(groups).map((group, position) => {
    let out = position === index ? withKey(group, "group", name) : group;
    const children = groupView(out).children;
    if (before !== "" && children.includes(before) && Array.isArray(out.children)) {
      out = withKey(
        out,
        "children",
        (out.children as unknown[]).map((child) => (child === before ? name : child)),
      );
    }
    return out;
  });
}

/** Removes a group and drops it from other groups' children. */
export function removeGroup(groups: readonly unknown[], index: number): Json[] {
  const name = groupView(groups[index]).group;
  return removeAt(asGroups(groups), index).map((group) =>
    Array.isArray(group.children) && group.children.includes(name)
      ? withKey(
          group,
          "children",
          group.children.filter((child) => child !== name),
        )
      : group,
  );
}

export function updateGroup(
  groups: readonly unknown[],
  index: number,
  update: (group: Json) => Json,
): Json[] {
  const list = asGroups(groups);
  return replaceAt(list, index, update(list[index] ?? {}));
}

/** Sets children; an empty list removes the key. */
export function setChildren(groups: readonly unknown[], index: number, children: string[]): Json[] {
  return updateGroup(groups, index, (group) =>
    withKey(group, "children", children.length > 0 ? children : undefined),
  );
}

/** Sets group vars; an empty object removes the key. */
export function setGroupVars(groups: readonly unknown[], index: number, vars: Json): Json[] {
  return updateGroup(groups, index, (group) =>
    withKey(group, "vars", Object.keys(vars).length > 0 ? vars : undefined),
  );
}

export function addHost(groups: readonly unknown[], index: number, host: Json): Json[] {
  return updateGroup(groups, index, (group) =>
    withKey(group, "members", [...groupView(group).members, host]),
  );
}

export function updateHost(
  groups: readonly unknown[],
  index: number,
  hostIndex: number,
  update: (host: Json) => Json,
): Json[] {
  return updateGroup(groups, index, (group) => {
    const members = groupView(group).members;
    return withKey(
      group,
      "members",
      replaceAt(members, hostIndex, update(members[hostIndex] ?? {})),
    );
  });
}

export function removeHost(groups: readonly unknown[], index: number, hostIndex: number): Json[] {
  return updateGroup(groups, index, (group) =>
    withKey(group, "members", removeAt(groupView(group).members, hostIndex)),
  );
}

/** Sets a string key of a host; an empty string removes it. */
export function setHostText(
  host: Json,
  key: "name" | "cm_host" | "ssh_key_file",
  value: string,
): Json {
  if (key === "name") return withKey(host, key, value);
  return withKey(host, key, value === "" ? undefined : value);
}

export function setHostVars(host: Json, vars: Json): Json {
  return withKey(host, "vars", Object.keys(vars).length > 0 ? vars : undefined);
}

/** Every group name a host is a member of, for the "also in" hint. */
export function groupsOfHost(groups: readonly unknown[], name: string): string[] {
  return groups
    .map(groupView)
    .filter((group) => group.members.some((host) => host.name === name))
    .map((group) => group.group);
}
