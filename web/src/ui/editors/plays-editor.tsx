// The plays editor: plays in order, each with its hosts, tags, become, role entries and
// pre/post tasks. Plays and role entries are reorderable rows with stable keys.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { useT } from "../../i18n/i18n.ts";
import { move, removeAt, replaceAt } from "../../model/json-style.ts";
import * as plays from "../../model/plays.ts";
import { TextArea, TextInput } from "../common.tsx";
import { Datalist, RowActions, useListKeys } from "./rows.tsx";

function RoleEntries(props: {
  roles: unknown[];
  onChange: (roles: unknown[]) => void;
}): JSX.Element {
  const t = useT();
  const [role, setRole] = useState("");
  const rowKeys = useListKeys(props.roles.length);
  return (
    <div class="roles">
      {props.roles.map((entry, index) => {
        const view = plays.roleEntryView(entry);
        const update = (change: Parameters<typeof plays.updateRoleEntry>[1]) =>
          props.onChange(replaceAt(props.roles, index, plays.updateRoleEntry(entry, change)));
        return (
          <div class="role-row" key={rowKeys.keys[index]} data-testid="role-entry">
            <TextInput
              value={view.role}
              mono
              list="known-roles"
              ariaLabel={t("plays.role")}
              placeholder={t("plays.role")}
              onChange={(value) => update({ role: value })}
            />
            <TextInput
              value={view.when}
              mono
              ariaLabel="when"
              placeholder={t("plays.when")}
              onChange={(value) => update({ when: value })}
            />
            <TextInput
              value={view.tags.join(", ")}
              mono
              ariaLabel={t("plays.roleTags")}
              placeholder="tags"
              onChange={(value) => update({ tags: plays.splitList(value) })}
            />
            <RowActions
              index={index}
              removeTitle={t("plays.removeRole")}
              onMoveUp={() => {
                rowKeys.move(index, index - 1);
                props.onChange(move(props.roles, index, index - 1));
              }}
              onRemove={() => {
                rowKeys.remove(index);
                props.onChange(removeAt(props.roles, index));
              }}
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
          placeholder={t("plays.roleName")}
          onChange={setRole}
        />
        <button type="submit" class="button small" disabled={role.trim() === ""}>
          {t("plays.addRole")}
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
  const t = useT();
  const rowKeys = useListKeys(props.plays.length);
  return (
    <div class="plays-editor" data-testid="plays-editor">
      <Datalist id="play-groups" values={["all", ...props.groups]} />
      <Datalist id="known-roles" values={props.roles} />
      {props.plays.map((raw, index) => {
        const play = plays.playView(raw);
        const update = (change: Partial<plays.PlayView>) =>
          props.onChange(replaceAt(props.plays, index, plays.updatePlay(raw, change)));
        return (
          <section class="card play-card" key={rowKeys.keys[index]} data-testid="play">
            <header class="group-head">
              <span class="chip">{t("plays.play", { number: index + 1 })}</span>
              <TextInput
                value={play.name}
                placeholder={t("plays.namePlaceholder")}
                ariaLabel={t("plays.name")}
                onChange={(value) => update({ name: value })}
              />
              <RowActions
                index={index}
                removeTitle={t("plays.removePlay")}
                onMoveUp={() => {
                  rowKeys.move(index, index - 1);
                  props.onChange(move(props.plays, index, index - 1));
                }}
                onRemove={() => {
                  rowKeys.remove(index);
                  props.onChange(removeAt(props.plays, index));
                }}
              />
            </header>
            <div class="grid-2">
              <label class="mini-field">
                <span>hosts</span>
                <TextInput
                  value={play.hosts}
                  mono
                  list="play-groups"
                  placeholder={t("plays.hostsPlaceholder")}
                  ariaLabel={t("plays.hosts")}
                  onChange={(value) => update({ hosts: value })}
                />
              </label>
              <label class="mini-field">
                <span>tags</span>
                <TextInput
                  value={play.tags.join(", ")}
                  mono
                  placeholder={t("plays.commaSeparated")}
                  ariaLabel={t("plays.tags")}
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
              {t("plays.become")}
            </label>
            <div class="subhead">{t("plays.roles")}</div>
            <RoleEntries roles={play.roles} onChange={(roles) => update({ roles })} />
            <details class="tasks" open={play.preTasks !== "" || play.postTasks !== ""}>
              <summary>pre_tasks / post_tasks</summary>
              <label class="mini-field">
                <span>{t("plays.preTasks")}</span>
                <TextArea
                  value={play.preTasks}
                  rows={3}
                  onChange={(value) => update({ preTasks: value })}
                />
              </label>
              <label class="mini-field">
                <span>{t("plays.postTasks")}</span>
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
        + {t("plays.addPlay")}
      </button>
    </div>
  );
}
