// The inventory editor: groups in order, each with its hosts (address, user, port, key file,
// host vars), its child groups and its group vars. Groups and hosts are reorderable rows with
// stable keys, so a group's open or closed state stays with it when groups move.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { useT } from "../../i18n/i18n.ts";
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
  const t = useT();
  const current = inv.readInherited(props.host, props.field);
  const label = props.field === "cm_user" ? t("inventory.user") : t("inventory.port");
  return (
    <div class="inherited">
      <select
        class="input"
        aria-label={t("inventory.mode", { label })}
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
        <option value="default">{t("inventory.defaultValue", { label })}</option>
        <option value="none">{t("inventory.noValue", { label })}</option>
        <option value="value">{t("inventory.value", { label })}</option>
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
  const t = useT();
  const { host } = props;
  return (
    <div class="host-row" data-testid="inventory-host">
      <TextInput
        value={String(host.name ?? "")}
        mono
        placeholder={t("site.name")}
        ariaLabel={t("inventory.hostName")}
        onChange={(value) => props.onChange(inv.setHostText(host, "name", value))}
      />
      <TextInput
        value={String(host.cm_host ?? "")}
        mono
        placeholder={t("inventory.addressPlaceholder")}
        ariaLabel={t("inventory.address")}
        onChange={(value) => props.onChange(inv.setHostText(host, "cm_host", value))}
      />
      <IconButton icon="×" title={t("inventory.removeHost")} onClick={props.onRemove} />
      <div class="host-extra">
        <InheritedInput host={host} field="cm_user" onChange={props.onChange} />
        <InheritedInput host={host} field="cm_port" onChange={props.onChange} />
        <TextInput
          value={String(host.ssh_key_file ?? "")}
          mono
          placeholder={t("inventory.keyFile")}
          ariaLabel={t("inventory.keyFile")}
          onChange={(value) => props.onChange(inv.setHostText(host, "ssh_key_file", value))}
        />
      </div>
      {props.alsoIn.length > 0 && (
        <span class="muted small host-also">
          {t("inventory.alsoIn", { groups: props.alsoIn.join(", ") })}
        </span>
      )}
      <details class="host-vars">
        <summary>
          {t("inventory.hostVars", {
            count: Object.keys(isRecord(host.vars) ? host.vars : {}).length,
          })}
        </summary>
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
  const t = useT();
  const { groups, index } = props;
  const group = inv.groupView(groups[index]);
  const hostKeys = useListKeys(group.members.length);
  return (
    <div class="group-body">
      <div class="subhead">{t("inventory.hosts")}</div>
      {group.members.length === 0 && <p class="muted small">{t("inventory.noHosts")}</p>}
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
        + {t("inventory.addHost")}
      </button>
      <div class="subhead">{t("inventory.children")}</div>
      <TextInput
        value={group.children.join(", ")}
        mono
        list="inventory-groups"
        placeholder={t("inventory.childrenPlaceholder")}
        ariaLabel={t("inventory.childrenLabel")}
        onChange={(text) => props.onChange(inv.setChildren(groups, index, splitList(text)))}
      />
      <div class="subhead">{t("graph.kind.groupVars")}</div>
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
  const t = useT();
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
                ariaLabel={t("inventory.groupName")}
                onChange={(name) => props.onChange(inv.renameGroup(props.groups, index, name))}
              />
              <span class="muted small">
                {t("ini.hosts", { count: group.members.length })}
                {group.children.length > 0 &&
                  ` · ${t("inventory.childrenList", { groups: group.children.join(", ") })}`}
              </span>
              <RowActions
                index={index}
                removeTitle={t("inventory.removeGroup", { group: group.group })}
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
        <TextInput
          value={newGroup}
          mono
          placeholder={t("inventory.newGroup")}
          onChange={setNewGroup}
        />
        <button type="submit" class="button small" disabled={newGroup.trim() === ""}>
          {t("inventory.addGroup")}
        </button>
      </form>
    </div>
  );
}
