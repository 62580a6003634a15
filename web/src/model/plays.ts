// The structured model of automation/playbook's `plays` field: plays with `name`, `hosts`,
// `become`, `tags`, `pre_tasks`, `roles` and `post_tasks`; role entries are a string, or an
// object with `role` and optionally `when`, `tags` and `vars`. Operations keep untouched keys.
import { isRecord, withKey } from "./json-style.ts";

export type Json = Record<string, unknown>;

export interface RoleEntryView {
  role: string;
  when: string;
  tags: string[];
  vars: Json;
  /** The entry was written as a plain string. */
  plain: boolean;
}

export function roleEntryView(entry: unknown): RoleEntryView {
  if (typeof entry === "string") return { role: entry, when: "", tags: [], vars: {}, plain: true };
  const object = isRecord(entry) ? entry : {};
  return {
    role: typeof object.role === "string" ? object.role : "",
    when: typeof object.when === "string" ? object.when : "",
    tags: Array.isArray(object.tags) ? object.tags.map(String) : [],
    vars: isRecord(object.vars) ? object.vars : {},
    plain: false,
  };
}

/**
 * Changes a role entry. A string entry stays a string while it has only a role, and becomes an
 * object (`role` first) when it gets `when`, tags or vars; an object entry stays an object.
 */
export function updateRoleEntry(
  entry: unknown,
  change: Partial<Omit<RoleEntryView, "plain">>,
): unknown {
  const view = roleEntryView(entry);
  const next = { ...view, ...change };
  const simple = next.when === "" && next.tags.length === 0 && Object.keys(next.vars).length === 0;
  if (simple && view.plain) return next.role;
  let object: Json = isRecord(entry) ? entry : { role: next.role };
  object = withKey(object, "role", next.role);
  object = withKey(object, "when", next.when === "" ? undefined : next.when);
  object = withKey(object, "tags", next.tags.length > 0 ? next.tags : undefined);
  object = withKey(object, "vars", Object.keys(next.vars).length > 0 ? next.vars : undefined);
  return object;
}

export interface PlayView {
  name: string;
  hosts: string;
  /** Written only when true; the default is true. */
  become: boolean;
  tags: string[];
  preTasks: string;
  roles: unknown[];
  postTasks: string;
}

export function playView(play: unknown): PlayView {
  const object = isRecord(play) ? play : {};
  return {
    name: typeof object.name === "string" ? object.name : "",
    hosts: typeof object.hosts === "string" ? object.hosts : "",
    become: object.become !== false,
    tags: Array.isArray(object.tags) ? object.tags.map(String) : [],
    preTasks: typeof object.pre_tasks === "string" ? object.pre_tasks : "",
    roles: Array.isArray(object.roles) ? object.roles : [],
    postTasks: typeof object.post_tasks === "string" ? object.post_tasks : "",
  };
}

const TEXT_KEYS = { name: "name", hosts: "hosts", preTasks: "pre_tasks", postTasks: "post_tasks" };

/** Changes one play; empty text and empty lists remove their key, `become` true removes it. */
export function updatePlay(play: unknown, change: Partial<PlayView>): Json {
  let object: Json = isRecord(play) ? play : {};
  for (const [field, key] of Object.entries(TEXT_KEYS)) {
    const value = change[field as keyof typeof TEXT_KEYS];
    if (value !== undefined) object = withKey(object, key, value === "" ? undefined : value);
  }
  if (change.become !== undefined) {
    // true is the default: written only when the play already spelled it out
    const explicit = object.become === true;
    object = withKey(object, "become", change.become ? (explicit ? true : undefined) : false);
  }
  if (change.tags !== undefined) {
    object = withKey(object, "tags", change.tags.length > 0 ? change.tags : undefined);
  }
  if (change.roles !== undefined) {
    object = withKey(
      object,
      "roles",
      change.roles.length > 0 || Object.hasOwn(object, "roles") ? change.roles : undefined,
    );
  }
  return object;
}

export function newPlay(hosts: string): Json {
  return { name: "", hosts, roles: [] };
}

/** `a, b ,c` → [a, b, c]. */
export function splitList(text: string): string[] {
  return text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}
