// The form for one component, generated from its field metadata: required marks, defaults,
// examples as placeholders, options as suggestions, and what the item's catalogue metadata
// declares per field: a structured editor (`"editor"`) or a multi-line box (`"format": "yaml"`).
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import type { ItemMeta } from "../../../src/core/item.ts";
import type { ProjectFacts } from "../../../src/core/project/facts.ts";
import type { ApiFailure, FieldView, RegistryItemView } from "../api.ts";
import { useT } from "../i18n/i18n.ts";
import { type FieldProblem, fieldErrorMessage } from "../model/field-errors.ts";
import { withKey } from "../model/json-style.ts";
import { legacyPlayFields } from "../model/legacy-fields.ts";
import type { ProjectComponent } from "../model/project.ts";
import { ErrorDetail, IconButton, InlineCode, KvEditor, TextArea, TextInput } from "./common.tsx";
import { JsonField } from "./editors/json-field.tsx";
import { structuredKind } from "./editors/kind.ts";

/** What the structured editors suggest: the project's groups, roles and playbook paths. */
export interface FormContext {
  groups: string[];
  roles: string[];
  playbookPaths: string[];
}

/**
 * The suggestions, from the project's facts: inventory groups, vendored roles, and the paths of
 * the playbooks the project writes, relative to the folder of `sitePath` (the file of the
 * component being edited, for a site's imports).
 */
export function formContext(facts: ProjectFacts, sitePath: string): FormContext {
  const depth = Math.max(0, sitePath.split("/").length - 1);
  const groups = facts.inventories.flatMap((inventory) => inventory.groups.map((g) => g.name));
  return {
    groups: [...new Set(groups.filter(Boolean))],
    roles: [...facts.vendoredRoles.keys()],
    playbookPaths: facts.playbooks.flatMap((playbook) =>
      playbook.path === undefined ? [] : [`${"../".repeat(depth)}${playbook.path}`],
    ),
  };
}

export function ComponentForm(props: {
  component: ProjectComponent;
  item: RegistryItemView | undefined;
  /** The item's catalogue metadata (editors, formats); undefined while it loads. */
  meta: ItemMeta | undefined;
  itemError: ApiFailure | undefined;
  /** The field the component's render refused, shown under that field. */
  problem: FieldProblem | undefined;
  context: FormContext;
  onChange: (component: ProjectComponent) => void;
  onRemove: () => void;
  /** Import an INI inventory into this field (the one with the inventory editor). */
  onImportIni: (field: string) => void;
}): JSX.Element {
  const t = useT();
  const { component, item } = props;
  const setField = (name: string, value: string | undefined) =>
    props.onChange({ ...component, fields: withKey(component.fields, name, value) });
  const declared = new Set(item?.fields.map((field) => field.name) ?? []);
  const extra = Object.keys(component.fields).filter(
    (name) => !declared.has(name) && name !== "namespace",
  );
  const [newField, setNewField] = useState("");
  // a playbook's single-play fields come after its plays editor, folded (open when they hold a value)
  const legacy = legacyPlayFields(props.meta);
  const fieldEditor = (field: FieldView) => (
    <Field
      key={field.name}
      field={field}
      meta={props.meta}
      value={component.fields[field.name]}
      problem={problemOf(props.problem, field.name)}
      onChange={(value) => setField(field.name, value)}
      context={props.context}
      onImportIni={props.onImportIni}
    />
  );
  // a namespace the item declares has its own field above, which shows its error
  const namespaceProblem = declared.has("namespace")
    ? undefined
    : problemOf(props.problem, "namespace");
  return (
    <section class="form" data-testid="component-form" aria-label={t("form.label")}>
      <header class="form-head">
        <div>
          <div class="eyebrow mono">{component.reference}</div>
          <h2>{item?.title || item?.name || component.reference}</h2>
          {item?.description && <p class="muted">{item.description}</p>}
        </div>
        <button
          type="button"
          class="button danger small"
          data-testid="remove-component"
          onClick={props.onRemove}
        >
          {t("common.remove")}
        </button>
      </header>
      {props.itemError && (
        <div class="render-error" role="alert">
          {t("form.itemFailed", { reason: props.itemError.error })}
          <ErrorDetail detail={props.itemError.detail} />
        </div>
      )}
      <label class="field">
        <span class="field-label">
          {t("form.name")} <span class="req">*</span>
        </span>
        <TextInput
          value={component.name}
          mono
          testId="field-name"
          invalid={problemOf(props.problem, "name") !== undefined}
          describedBy={problemOf(props.problem, "name") && errorId("name")}
          onChange={(name) => props.onChange({ ...component, name })}
        />
        <FieldError name="name" problem={problemOf(props.problem, "name")} />
        <span class="help">
          <InlineCode text={t("form.nameHelp")} />
        </span>
      </label>
      {item?.fields.filter((field) => !legacy.has(field.name)).map(fieldEditor)}
      {legacy.size > 0 && (
        <details
          class="advanced legacy"
          data-testid="legacy-fields"
          open={[...legacy].some((name) => (component.fields[name] ?? "") !== "")}
        >
          <summary>{t("form.legacy")}</summary>
          <p class="help">{t("form.legacyHelp")}</p>
          {item?.fields.filter((field) => legacy.has(field.name)).map(fieldEditor)}
        </details>
      )}
      {extra.map((name) => (
        <label class="field" key={name}>
          <span class="field-label">
            {name} <span class="chip">{t("form.undeclared")}</span>
            <IconButton
              icon="×"
              title={t("form.removeField", { name })}
              onClick={() => setField(name, undefined)}
            />
          </span>
          <TextInput
            value={component.fields[name] ?? ""}
            mono
            onChange={(value) => setField(name, value)}
          />
        </label>
      ))}
      <details
        class="advanced"
        open={Object.keys(component.labels).length > 0 || "namespace" in component.fields}
      >
        <summary>{t("form.advanced")}</summary>
        <label class="field">
          <span class="field-label">{t("settings.namespace")}</span>
          <TextInput
            value={component.fields.namespace ?? ""}
            mono
            placeholder={t("form.namespacePlaceholder")}
            invalid={namespaceProblem !== undefined}
            describedBy={namespaceProblem && errorId("namespace")}
            onChange={(value) => setField("namespace", value === "" ? undefined : value)}
          />
          <FieldError name="namespace" problem={namespaceProblem} />
          <span class="help">{t("form.namespaceHelp")}</span>
        </label>
        <div class="field">
          <span class="field-label">{t("form.labels")}</span>
          <KvEditor
            value={component.labels}
            addLabel={t("form.addLabel")}
            onChange={(labels) =>
              props.onChange({
                ...component,
                labels: Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, String(v)])),
              })
            }
          />
          <span class="help">
            <InlineCode text={t("form.labelsHelp")} />
          </span>
        </div>
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (newField.trim() === "") return;
            setField(newField.trim(), component.fields[newField.trim()] ?? "");
            setNewField("");
          }}
        >
          <TextInput
            value={newField}
            mono
            placeholder={t("form.newFieldPlaceholder")}
            onChange={setNewField}
          />
          <button type="submit" class="button small" disabled={newField.trim() === ""}>
            {t("form.addField")}
          </button>
        </form>
      </details>
    </section>
  );
}

function Field(props: {
  field: FieldView;
  meta: ItemMeta | undefined;
  value: string | undefined;
  problem: FieldProblem | undefined;
  onChange: (value: string | undefined) => void;
  context: FormContext;
  onImportIni: (field: string) => void;
}): JSX.Element {
  const t = useT();
  const { field } = props;
  const invalid = props.problem !== undefined;
  const describedBy = invalid ? errorId(field.name) : undefined;
  const structured = structuredKind(props.meta, field.name);
  const multiline = props.meta?.formats[field.name] === "yaml";
  const listId = field.options.length > 0 ? `options-${field.name}` : undefined;
  const placeholder = field.example
    ? t("form.example", { example: field.example })
    : field.default !== null && field.default !== ""
      ? t("form.defaultPlaceholder", { value: field.default })
      : "";
  const looksJson = /^\s*[[{]/.test(props.value ?? "") || /^\s*[[{]/.test(field.example ?? "");
  const set = (value: string) => props.onChange(value === "" ? undefined : value);
  return (
    <div class="field" data-testid={`field-${field.name}`}>
      <span class="field-label">
        <label for={`f-${field.name}`}>{field.name}</label>
        {field.required && (
          <span class="req" title={t("form.required")}>
            *
          </span>
        )}
        {field.default !== null && field.default !== "" && (
          <span class="chip" title={t("form.defaultTitle")}>
            {t("form.defaultChip", {
              value: field.default.length > 24 ? `${field.default.slice(0, 24)}…` : field.default,
            })}
          </span>
        )}
        {props.value !== undefined && field.default !== null && (
          <button type="button" class="link-button small" onClick={() => props.onChange(undefined)}>
            {t("form.reset")}
          </button>
        )}
      </span>
      {structured ? (
        <JsonField
          kind={structured}
          field={field.name}
          value={props.value}
          onChange={props.onChange}
          groups={props.context.groups}
          roles={props.context.roles}
          playbookPaths={props.context.playbookPaths}
          onImportIni={structured === "inventory" ? () => props.onImportIni(field.name) : undefined}
        />
      ) : multiline || looksJson || (props.value ?? "").includes("\n") ? (
        <TextArea
          value={props.value ?? ""}
          rows={5}
          placeholder={placeholder}
          invalid={invalid}
          describedBy={describedBy}
          onChange={set}
        />
      ) : (
        <>
          <TextInput
            id={`f-${field.name}`}
            value={props.value ?? ""}
            mono
            list={listId}
            placeholder={placeholder}
            testId={`input-${field.name}`}
            invalid={invalid}
            describedBy={describedBy}
            onChange={set}
          />
          {listId && (
            <datalist id={listId}>
              {field.options.map((option) => (
                <option key={option.value} value={option.value} label={option.label} />
              ))}
            </datalist>
          )}
        </>
      )}
      <FieldError name={field.name} problem={props.problem} />
      {field.description && <span class="help">{field.description}</span>}
      {field.options.length > 0 && (
        <span class="suggestions">
          {field.options.slice(0, 8).map((option) => (
            <button
              type="button"
              key={option.value}
              class={`suggestion${props.value === option.value ? " active" : ""}`}
              data-testid="suggestion"
              title={t("form.use", { value: option.value })}
              onClick={() => props.onChange(option.value)}
            >
              {option.label}
              {option.label !== option.value && (
                <span class="suggestion-value mono">{option.value}</span>
              )}
            </button>
          ))}
        </span>
      )}
    </div>
  );
}

/** The problem when it is about `field`, else undefined. */
function problemOf(problem: FieldProblem | undefined, field: string): FieldProblem | undefined {
  return problem?.field === field ? problem : undefined;
}

/** The id of a field's error message, which its input names as its description. */
function errorId(field: string): string {
  return `error-${field}`;
}

/** The refused value's message under its field, in the form's words. */
function FieldError(props: {
  name: string;
  problem: FieldProblem | undefined;
}): JSX.Element | null {
  if (!props.problem) return null;
  return (
    <span class="field-error" id={errorId(props.name)} data-testid={`field-error-${props.name}`}>
      <InlineCode text={fieldErrorMessage(props.problem)} />
    </span>
  );
}
