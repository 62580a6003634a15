// The inventory editor: groups in order, each with its hosts (address, user, port, key file,
// host vars), its child groups and its group vars. Groups and hosts are reorderable rows with
// stable keys, so a group's open or closed state stays with it when groups move.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import * as inv from "../../model/inventory.ts";
import { isRecord, move } from "../../model/json-style.ts";
import { splitList } from "../../model/plays.ts";
import { IconButton, KvEditor, TextInput } from "../common.tsx";
import { Datalist, RowActions, useListKeys } from "./rows.tsx";

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

/** One host line: name and address, then user, port, key file and host vars. */
function HostRow(props: {
  host: inv.Json;
  alsoIn: string[];
  onChange: (host: inv.Json) => void;
  onRemove: () => void;
}): JSX.Element {
  const { host } = props;
  return (
    <div class="host-row" data-testid="inventory-host">
      <TextInput
        value={String(host.name ?? "")}
        mono
        placeholder="name"
        ariaLabel="host name"
        onChange={(value) => props.onChange(inv.setHostText(host, "name", value))}
      />
      <TextInput
        value={String(host.cm_host ?? "")}
        mono
        placeholder="address (cm_host)"
        ariaLabel="host address"
        onChange={(value) => props.onChange(inv.setHostText(host, "cm_host", value))}
      />
      <IconButton icon="×" title="Remove host" onClick={props.onRemove} />
      <div class="host-extra">
        <InheritedInput host={host} field="cm_user" onChange={props.onChange} />
        <InheritedInput host={host} field="cm_port" onChange={props.onChange} />
        <TextInput
          value={String(host.ssh_key_file ?? "")}
          mono
          placeholder="ssh key file"
          ariaLabel="ssh key file"
          onChange={(value) => props.onChange(inv.setHostText(host, "ssh_key_file", value))}
        />
      </div>
      {props.alsoIn.length > 0 && (
        <span class="muted small host-also">also in {props.alsoIn.join(", ")}</span>
      )}
      <details class="host-vars">
        <summary>host vars ({Object.keys(isRecord(host.vars) ? host.vars : {}).length})</summary>
        <KvEditor
          value={isRecord(host.vars) ? host.vars : {}}
          onChange={(vars) => props.onChange(inv.setHostVars(host, vars))}
        />
      </details>
    </div>
  );
}

/** A group's body: its hosts, its children and its vars. */
function GroupBody(props: {
  groups: unknown[];
  index: number;
  onChange: (groups: unknown[]) => void;
}): JSX.Element {
  const { groups, index } = props;
  const group = inv.groupView(groups[index]);
  const hostKeys = useListKeys(group.members.length);
  return (
    <div class="group-body">
      <div class="subhead">Hosts</div>
      {group.members.length === 0 && <p class="muted small">No hosts in this group.</p>}
      {group.members.map((host, hostIndex) => (
        <HostRow
          key={hostKeys.keys[hostIndex]}
          host={host}
          alsoIn={inv
            .groupsOfHost(groups, String(host.name ?? ""))
            .filter((name) => name !== group.group)}
          onChange={(next) => props.onChange(inv.updateHost(groups, index, hostIndex, () => next))}
          onRemove={() => {
            hostKeys.remove(hostIndex);
            props.onChange(inv.removeHost(groups, index, hostIndex));
          }}
        />
      ))}
      <button
        type="button"
        class="link-button"
        data-testid="add-host"
        onClick={() =>
          props.onChange(
            inv.addHost(groups, index, {
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
        onChange={(text) => props.onChange(inv.setChildren(groups, index, splitList(text)))}
      />
      <div class="subhead">Group vars</div>
      <KvEditor
        value={group.vars}
        onChange={(vars) => props.onChange(inv.setGroupVars(groups, index, vars))}
      />
    </div>
  );
}

export function InventoryEditor(props: {
  groups: unknown[];
  onChange: (groups: unknown[]) => void;
}): JSX.Element {
  const [newGroup, setNewGroup] = useState("");
  const names = inv.groupNames(props.groups);
  // open or closed, by the group's row key (not its position, which moves)
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const groupKeys = useListKeys(props.groups.length);
  return (
    <div class="inventory-editor" data-testid="inventory-editor">
      <Datalist id="inventory-groups" values={names} />
      {props.groups.map((raw, index) => {
        const group = inv.groupView(raw);
        const key = groupKeys.keys[index] as string;
        const expanded = open[key] ?? props.groups.length <= 4;
        return (
          <section class="card group-card" key={key} data-testid="inventory-group">
            <header class="group-head">
              <button
                type="button"
                class="disclosure"
                aria-expanded={expanded}
                onClick={() => setOpen({ ...open, [key]: !expanded })}
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
              <RowActions
                index={index}
                removeTitle={`Remove group ${group.group}`}
                onMoveUp={() => {
                  groupKeys.move(index, index - 1);
                  props.onChange(move(props.groups, index, index - 1));
                }}
                onRemove={() => {
                  groupKeys.remove(index);
                  props.onChange(inv.removeGroup(props.groups, index));
                }}
              />
            </header>
            {expanded && (
              <GroupBody groups={props.groups} index={index} onChange={props.onChange} />
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
