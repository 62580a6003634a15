// The site editor: the playbooks the site imports, in order, each a name and a path relative to
// the site file (suggested from the playbooks the project writes). Reorderable rows, stable keys.
import type { JSX } from "preact";
import { useT } from "../../i18n/i18n.ts";
import { move, removeAt, replaceAt } from "../../model/json-style.ts";
import { siteEntryView, updateSiteEntry } from "../../model/site.ts";
import { TextInput } from "../common.tsx";
import { Datalist, RowActions, useListKeys } from "./rows.tsx";

export function SiteEditor(props: {
  entries: unknown[];
  onChange: (entries: unknown[]) => void;
  paths: string[];
}): JSX.Element {
  const t = useT();
  const rowKeys = useListKeys(props.entries.length);
  return (
    <div class="site-editor" data-testid="site-editor">
      <Datalist id="playbook-paths" values={props.paths} />
      {props.entries.map((entry, index) => {
        const view = siteEntryView(entry);
        return (
          <div class="role-row" key={rowKeys.keys[index]} data-testid="site-entry">
            <span class="chip">{index + 1}</span>
            <TextInput
              value={view.name}
              placeholder={t("site.name")}
              ariaLabel={t("site.nameLabel")}
              onChange={(name) =>
                props.onChange(replaceAt(props.entries, index, updateSiteEntry(entry, { name })))
              }
            />
            <TextInput
              value={view.path}
              mono
              list="playbook-paths"
              placeholder={t("site.pathPlaceholder")}
              ariaLabel={t("site.pathLabel")}
              onChange={(path) =>
                props.onChange(replaceAt(props.entries, index, updateSiteEntry(entry, { path })))
              }
            />
            <RowActions
              index={index}
              removeTitle={t("common.remove")}
              onMoveUp={() => {
                rowKeys.move(index, index - 1);
                props.onChange(move(props.entries, index, index - 1));
              }}
              onRemove={() => {
                rowKeys.remove(index);
                props.onChange(removeAt(props.entries, index));
              }}
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
        + {t("site.import")}
      </button>
    </div>
  );
}
