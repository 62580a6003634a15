// A JSON-valued field with its structured editor (which one is catalogue data: see kind.ts).
// Each editor reads the field's JSON, changes only what is edited, and writes it back in the
// text's own style; the raw JSON stays one click away, and is the only view while the text is
// not valid JSON.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { useT } from "../../i18n/i18n.ts";
import {
  type Parsed,
  parseJsonArray,
  parseJsonObject,
  stringifyLike,
} from "../../model/json-style.ts";
import { KvEditor, TextArea } from "../common.tsx";
import { InventoryEditor } from "./inventory-editor.tsx";
import type { StructuredKind } from "./kind.ts";
import { PlaysEditor } from "./plays-editor.tsx";
import { SiteEditor } from "./site-editor.tsx";

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
  const t = useT();
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
            aria-selected={!showRaw}
            class={showRaw ? "" : "active"}
            disabled={!parsed.ok}
            title={parsed.ok ? "" : t("json.fixFirst")}
            onClick={() => setRaw(false)}
          >
            {t("json.editor")}
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={showRaw}
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
            {t("json.importIni")}
          </button>
        )}
      </div>
      {!parsed.ok && <p class="field-error">{t("json.invalid", { reason: parsed.error })}</p>}
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
