// Structured editors for the JSON-valued fields: inventory groups and hosts, plays and role
// entries, site playbooks, group vars. Each reads the field's JSON, changes only what is edited,
// and writes it back in the text's own style; the raw JSON stays one click away.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import * as inv from "../model/inventory.ts";
import {
  isRecord,
  move,
  type Parsed,
  parseJsonArray,
  parseJsonObject,
  removeAt,
  replaceAt,
  stringifyLike,
} from "../model/json-style.ts";
import * as plays from "../model/plays.ts";
import { siteEntryView, updateSiteEntry } from "../model/site.ts";
import { IconButton, KvEditor, TextArea, TextInput } from "./common.tsx";

export type StructuredKind = "inventory" | "plays" | "site" | "vars";

/** Which fields get a structured editor: by component kind and field name. */
export function structuredKind(
  kind: string | undefined,
  field: string,
): StructuredKind | undefined {
  if (kind === "inventory" && field === "hosts") return "inventory";
  if (kind === "playbook" && field === "plays") return "plays";
  if (kind === "site" && field === "playbooks") return "site";
  if (kind === "group-vars" && field === "vars") return "vars";
  return undefined;
}

interface JsonFieldProps {
  kind: StructuredKind;
  field: string;
  value: string | undefined;
  onChange: (value: string | undefined) => void;
  groups: string[];
  roles: string[];
  playbookPaths: string[];
  onImportIni?: (() => void) | undefined;
}

export function JsonField(props: JsonFieldProps): JSX.Element {
  const [raw, setRaw] = useState(false);
  const parsed: Parsed<unknown> =
    props.kind === "vars" ? parseJsonObject(props.value) : parseJsonArray(props.value);
  const showRaw = raw || !parsed.ok;
  const write = (next: unknown) => props.onChange(stringifyLike(next, props.value));
  return (
    <div class="json-field" data-testid={`json-field-${props.field}`}>
      <div class="json-field-bar">
        <div class="segmented" role="tablist">
          <button
            type="button"
            role="tab"
            class={showRaw ? "" : "active"}
            disabled={!parsed.ok}
            title={parsed.ok ? "" : "Fix the JSON to use the editor"}
            onClick={() => setRaw(false)}
          >
            Editor
          </button>
          <button
            type="button"
            role="tab"
            class={showRaw ? "active" : ""}
            data-testid={`raw-${props.field}`}
            onClick={() => setRaw(true)}
          >
            JSON
          </button>
        </div>
        {props.onImportIni && (
          <button
            type="button"
            class="button small"
            data-testid="import-ini"
            onClick={props.onImportIni}
          >
            Import INI…
          </button>
        )}
      </div>
      {!parsed.ok && <p class="field-error">Not valid JSON: {parsed.error}</p>}
      {showRaw ? (
        <TextArea
          value={props.value ?? ""}
          rows={8}
          invalid={!parsed.ok}
          ariaLabel={`${props.field} JSON`}
          testId={`raw-input-${props.field}`}
          onChange={(text) => props.onChange(text === "" ? undefined : text)}
        />
      ) : props.kind === "inventory" ? (
        <InventoryEditor groups={parsed.value as unknown[]} onChange={write} />
      ) : props.kind === "plays" ? (
        <PlaysEditor
          plays={parsed.value as unknown[]}
          onChange={write}
          groups={props.groups}
          roles={props.roles}
        />
      ) : props.kind === "site" ? (
        <SiteEditor
          entries={parsed.value as unknown[]}
          onChange={write}
          paths={props.playbookPaths}
        />
      ) : (
        <KvEditor
          value={parsed.value as Record<string, unknown>}
          onChange={(next) =>
            props.onChange(Object.keys(next).length ? stringifyLike(next, props.value) : undefined)
          }
        />
      )}
    </div>
  );
}

function Datalist(props: { id: string; values: string[] }): JSX.Element {
  return (
    <datalist id={props.id}>
      {props.values.map((value) => (
        <option key={value} value={value} />
      ))}
    </datalist>
  );
}

function InheritedInput(props: {
  host: inv.Json;
  field: "cm_user" | "cm_port";
  onChange: (host: inv.Json) => void;
}): JSX.Element {
  const current = inv.readInherited(props.host, props.field);
  const label = props.field === "cm_user" ? "user" : "port";
  return (
    <div class="inherited">
      <select
        class="input"
        aria-label={`${label} mode`}
        value={current.mode}
        onChange={(event) => {
          const mode = (event.currentTarget as HTMLSelectElement).value as inv.Inherited["mode"];
          props.onChange(
            inv.writeInherited(
              props.host,
              props.field,
              mode === "value"
                ? { mode, value: current.mode === "value" ? current.value : "" }
                : { mode },
            ),
          );
        }}
      >
        <option value="default">default {label}</option>
        <option value="none">no {label}</option>
        <option value="value">{label}:</option>
      </select>
      {current.mode === "value" && (
        <TextInput
          value={current.value}
          mono
          ariaLabel={label}
          onChange={(value) =>
            props.onChange(inv.writeInherited(props.host, props.field, { mode: "value", value }))
          }
        />
      )}
    </div>
  );
}

export function InventoryEditor(props: {
  groups: unknown[];
  onChange: (groups: unknown[]) => void;
}): JSX.Element {
  const [newGroup, setNewGroup] = useState("");
  const names = inv.groupNames(props.groups);
  const [open, setOpen] = useState<Record<number, boolean>>({});
  return (
    <div class="inventory-editor" data-testid="inventory-editor">
      <Datalist id="inventory-groups" values={names} />
      {props.groups.map((raw, index) => {
        const group = inv.groupView(raw);
        const expanded = open[index] ?? props.groups.length <= 4;
        return (
          <section class="card group-card" key={index} data-testid="inventory-group">
            <header class="group-head">
              <button
                type="button"
                class="disclosure"
                aria-expanded={expanded}
                onClick={() => setOpen({ ...open, [index]: !expanded })}
              >
                {expanded ? "▾" : "▸"}
              </button>
              <TextInput
                value={group.group}
                mono
                ariaLabel="group name"
                onChange={(name) => props.onChange(inv.renameGroup(props.groups, index, name))}
              />
              <span class="muted small">
                {group.members.length} host{group.members.length === 1 ? "" : "s"}
                {group.children.length > 0 && ` · children: ${group.children.join(", ")}`}
              </span>
              <IconButton
                icon="↑"
                title="Move up"
                disabled={index === 0}
                onClick={() => props.onChange(move(props.groups, index, index - 1))}
              />
              <IconButton
                icon="×"
                title={`Remove group ${group.group}`}
                onClick={() => props.onChange(inv.removeGroup(props.groups, index))}
              />
            </header>
            {expanded && (
              <div class="group-body">
                <div class="subhead">Hosts</div>
                {group.members.length === 0 && <p class="muted small">No hosts in this group.</p>}
                {group.members.map((host, hostIndex) => {
                  const update = (next: inv.Json) =>
                    props.onChange(inv.updateHost(props.groups, index, hostIndex, () => next));
                  const also = inv
                    .groupsOfHost(props.groups, String(host.name ?? ""))
                    .filter((name) => name !== group.group);
                  return (
                    <div class="host-row" key={hostIndex} data-testid="inventory-host">
                      <TextInput
                        value={String(host.name ?? "")}
                        mono
                        placeholder="name"
                        ariaLabel="host name"
                        onChange={(value) => update(inv.setHostText(host, "name", value))}
                      />
                      <TextInput
                        value={String(host.cm_host ?? "")}
                        mono
                        placeholder="address (cm_host)"
                        ariaLabel="host address"
                        onChange={(value) => update(inv.setHostText(host, "cm_host", value))}
                      />
                      <IconButton
                        icon="×"
                        title="Remove host"
                        onClick={() =>
                          props.onChange(inv.removeHost(props.groups, index, hostIndex))
                        }
                      />
                      <div class="host-extra">
                        <InheritedInput host={host} field="cm_user" onChange={update} />
                        <InheritedInput host={host} field="cm_port" onChange={update} />
                        <TextInput
                          value={String(host.ssh_key_file ?? "")}
                          mono
                          placeholder="ssh key file"
                          ariaLabel="ssh key file"
                          onChange={(value) => update(inv.setHostText(host, "ssh_key_file", value))}
                        />
                      </div>
                      {also.length > 0 && (
                        <span class="muted small host-also">also in {also.join(", ")}</span>
                      )}
                      <details class="host-vars">
                        <summary>
                          host vars ({Object.keys(isRecord(host.vars) ? host.vars : {}).length})
                        </summary>
                        <KvEditor
                          value={isRecord(host.vars) ? host.vars : {}}
                          onChange={(vars) => update(inv.setHostVars(host, vars))}
                        />
                      </details>
                    </div>
                  );
                })}
                <button
                  type="button"
                  class="link-button"
                  data-testid="add-host"
                  onClick={() =>
                    props.onChange(
                      inv.addHost(props.groups, index, {
                        name: `${group.group || "host"}-${group.members.length + 1}`,
                        cm_host: "",
                      }),
                    )
                  }
                >
                  + Add host
                </button>
                <div class="subhead">Children</div>
                <TextInput
                  value={group.children.join(", ")}
                  mono
                  list="inventory-groups"
                  placeholder="child groups, comma separated"
                  ariaLabel="children"
                  onChange={(text) =>
                    props.onChange(inv.setChildren(props.groups, index, plays.splitList(text)))
                  }
                />
                <div class="subhead">Group vars</div>
                <KvEditor
                  value={group.vars}
                  onChange={(vars) => props.onChange(inv.setGroupVars(props.groups, index, vars))}
                />
              </div>
            )}
          </section>
        );
      })}
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (newGroup.trim() === "") return;
          props.onChange(inv.addGroup(props.groups, newGroup.trim()));
          setNewGroup("");
        }}
      >
        <TextInput value={newGroup} mono placeholder="new group name" onChange={setNewGroup} />
        <button type="submit" class="button small" disabled={newGroup.trim() === ""}>
          Add group
        </button>
      </form>
    </div>
  );
}

function RoleEntries(props: {
  roles: unknown[];
  onChange: (roles: unknown[]) => void;
}): JSX.Element {
  const [role, setRole] = useState("");
  return (
    <div class="roles">
      {props.roles.map((entry, index) => {
        const view = plays.roleEntryView(entry);
        const update = (change: Parameters<typeof plays.updateRoleEntry>[1]) =>
          props.onChange(replaceAt(props.roles, index, plays.updateRoleEntry(entry, change)));
        return (
          <div class="role-row" key={index} data-testid="role-entry">
            <TextInput
              value={view.role}
              mono
              list="known-roles"
              ariaLabel="role"
              placeholder="role"
              onChange={(value) => update({ role: value })}
            />
            <TextInput
              value={view.when}
              mono
              ariaLabel="when"
              placeholder="when (optional)"
              onChange={(value) => update({ when: value })}
            />
            <TextInput
              value={view.tags.join(", ")}
              mono
              ariaLabel="role tags"
              placeholder="tags"
              onChange={(value) => update({ tags: plays.splitList(value) })}
            />
            <IconButton
              icon="↑"
              title="Move up"
              disabled={index === 0}
              onClick={() => props.onChange(move(props.roles, index, index - 1))}
            />
            <IconButton
              icon="×"
              title="Remove role"
              onClick={() => props.onChange(removeAt(props.roles, index))}
            />
          </div>
        );
      })}
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (role.trim() === "") return;
          props.onChange([...props.roles, role.trim()]);
          setRole("");
        }}
      >
        <TextInput
          value={role}
          mono
          list="known-roles"
          placeholder="role name"
          onChange={setRole}
        />
        <button type="submit" class="button small" disabled={role.trim() === ""}>
          Add role
        </button>
      </form>
    </div>
  );
}

export function PlaysEditor(props: {
  plays: unknown[];
  onChange: (plays: unknown[]) => void;
  groups: string[];
  roles: string[];
}): JSX.Element {
  return (
    <div class="plays-editor" data-testid="plays-editor">
      <Datalist id="play-groups" values={["all", ...props.groups]} />
      <Datalist id="known-roles" values={props.roles} />
      {props.plays.map((raw, index) => {
        const play = plays.playView(raw);
        const update = (change: Partial<plays.PlayView>) =>
          props.onChange(replaceAt(props.plays, index, plays.updatePlay(raw, change)));
        return (
          <section class="card play-card" key={index} data-testid="play">
            <header class="group-head">
              <span class="chip">play {index + 1}</span>
              <TextInput
                value={play.name}
                placeholder="name (defaults to the component name)"
                ariaLabel="play name"
                onChange={(value) => update({ name: value })}
              />
              <IconButton
                icon="↑"
                title="Move up"
                disabled={index === 0}
                onClick={() => props.onChange(move(props.plays, index, index - 1))}
              />
              <IconButton
                icon="×"
                title="Remove play"
                onClick={() => props.onChange(removeAt(props.plays, index))}
              />
            </header>
            <div class="grid-2">
              <label class="mini-field">
                <span>hosts</span>
                <TextInput
                  value={play.hosts}
                  mono
                  list="play-groups"
                  placeholder="inventory group"
                  ariaLabel="play hosts"
                  onChange={(value) => update({ hosts: value })}
                />
              </label>
              <label class="mini-field">
                <span>tags</span>
                <TextInput
                  value={play.tags.join(", ")}
                  mono
                  placeholder="comma separated"
                  ariaLabel="play tags"
                  onChange={(value) => update({ tags: plays.splitList(value) })}
                />
              </label>
            </div>
            <label class="checkbox">
              <input
                type="checkbox"
                checked={play.become}
                onChange={(event) =>
                  update({ become: (event.currentTarget as HTMLInputElement).checked })
                }
              />
              become (run as root)
            </label>
            <div class="subhead">Roles</div>
            <RoleEntries roles={play.roles} onChange={(roles) => update({ roles })} />
            <details class="tasks" open={play.preTasks !== "" || play.postTasks !== ""}>
              <summary>pre_tasks / post_tasks</summary>
              <label class="mini-field">
                <span>pre_tasks (YAML task list)</span>
                <TextArea
                  value={play.preTasks}
                  rows={3}
                  onChange={(value) => update({ preTasks: value })}
                />
              </label>
              <label class="mini-field">
                <span>post_tasks (YAML task list)</span>
                <TextArea
                  value={play.postTasks}
                  rows={3}
                  onChange={(value) => update({ postTasks: value })}
                />
              </label>
            </details>
          </section>
        );
      })}
      <button
        type="button"
        class="button small"
        data-testid="add-play"
        onClick={() => props.onChange([...props.plays, plays.newPlay(props.groups[0] ?? "all")])}
      >
        + Add play
      </button>
    </div>
  );
}

export function SiteEditor(props: {
  entries: unknown[];
  onChange: (entries: unknown[]) => void;
  paths: string[];
}): JSX.Element {
  return (
    <div class="site-editor" data-testid="site-editor">
      <Datalist id="playbook-paths" values={props.paths} />
      {props.entries.map((entry, index) => {
        const view = siteEntryView(entry);
        return (
          <div class="role-row" key={index} data-testid="site-entry">
            <span class="chip">{index + 1}</span>
            <TextInput
              value={view.name}
              placeholder="name"
              ariaLabel="playbook name"
              onChange={(name) =>
                props.onChange(replaceAt(props.entries, index, updateSiteEntry(entry, { name })))
              }
            />
            <TextInput
              value={view.path}
              mono
              list="playbook-paths"
              placeholder="path, relative to the site file"
              ariaLabel="playbook path"
              onChange={(path) =>
                props.onChange(replaceAt(props.entries, index, updateSiteEntry(entry, { path })))
              }
            />
            <IconButton
              icon="↑"
              title="Move up"
              disabled={index === 0}
              onClick={() => props.onChange(move(props.entries, index, index - 1))}
            />
            <IconButton
              icon="×"
              title="Remove"
              onClick={() => props.onChange(removeAt(props.entries, index))}
            />
          </div>
        );
      })}
      <button
        type="button"
        class="button small"
        onClick={() => {
          const used = new Set(props.entries.map((entry) => siteEntryView(entry).path));
          const path = props.paths.find((candidate) => !used.has(candidate)) ?? "";
          const name =
            path
              .split("/")
              .pop()
              ?.replace(/\.ya?ml$/, "") ?? "";
          props.onChange([...props.entries, { name, path }]);
        }}
      >
        + Import a playbook
      </button>
    </div>
  );
}
