// Adding a component: pick it from the registry, find it in every registry the service knows
// (the search box: GET /api/search), or give a URL/file; name it, fill its required
// fields; what it would write is rendered first, and a path another component already writes is
// shown side by side and blocks the add until the name (or field) changes. The registry's
// components are sorted into stages by their catalogue metadata (`kiln.stage`). Ctrl/Cmd+Enter
// adds from any field, as the primary button does.
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { ItemMeta } from "../../../src/core/item.ts";
import {
  type ApiFailure,
  api,
  failureOf,
  inspect,
  type RegistryItemView,
  type RenderResult,
  render,
  type SearchAnswer,
} from "../api.ts";
import { useT } from "../i18n/i18n.ts";
import { type Conflict, findConflicts } from "../model/conflicts.ts";
import {
  defaultComponentName,
  type Project,
  type ProjectComponent,
  STAGES,
  type StageId,
  stageOf,
} from "../model/project.ts";
import {
  ErrorDetail,
  InlineCode,
  Modal,
  ServiceMessage,
  submitOnModEnter,
  TextInput,
} from "./common.tsx";

export interface AddDialogProps {
  stage: StageId;
  registry: RegistryItemView[];
  /** The catalogue metadata of a reference, for its stage. */
  metaOf: (reference: string) => ItemMeta | undefined;
  project: Project;
  renders: (RenderResult | undefined)[];
  onAdd: (component: Omit<ProjectComponent, "id">) => void;
  onClose: () => void;
}

export function AddDialog(props: AddDialogProps): JSX.Element {
  const t = useT();
  const [stage, setStage] = useState<StageId>(props.stage);
  const [item, setItem] = useState<RegistryItemView | undefined>();
  const [ref, setRef] = useState("");
  const [refError, setRefError] = useState<ApiFailure | undefined>();
  const [loading, setLoading] = useState(false);
  const [query, setQuery] = useState("");
  /** The reference of the search result chosen, which the component is added by. */
  const [found, setFound] = useState<string | undefined>();
  const items = props.registry.filter((entry) => stageOf(props.metaOf(entry.reference)) === stage);
  const title = item ? t("add.titleItem", { item: item.title || item.reference }) : t("add.title");
  const choose = async (reference: string) => {
    setRefError(undefined);
    try {
      const chosen = await inspect(reference);
      setFound(reference);
      setItem(chosen);
    } catch (error) {
      setRefError(failureOf(error));
    }
  };
  return (
    <Modal title={title} onClose={props.onClose} wide testId="add-dialog">
      {!item && (
        <>
          <TextInput
            value={query}
            placeholder={t("add.searchPlaceholder")}
            testId="registry-search"
            ariaLabel={t("add.searchLabel")}
            onChange={setQuery}
          />
          {query.trim() !== "" && (
            <SearchResults query={query.trim()} onChoose={choose} error={refError} />
          )}
        </>
      )}
      {!item && query.trim() === "" && (
        <>
          <div class="segmented stages" role="tablist">
            {STAGES.map((entry) => (
              <button
                type="button"
                role="tab"
                key={entry.id}
                aria-selected={entry.id === stage}
                class={entry.id === stage ? "active" : ""}
                onClick={() => setStage(entry.id)}
              >
                {t(entry.title)}
              </button>
            ))}
          </div>
          {stage === "other" ? (
            <form
              class="ref-form"
              onKeyDown={submitOnModEnter}
              onSubmit={async (event) => {
                event.preventDefault();
                setLoading(true);
                setRefError(undefined);
                try {
                  setItem(await inspect(ref.trim()));
                } catch (error) {
                  setRefError(failureOf(error));
                } finally {
                  setLoading(false);
                }
              }}
            >
              <p class="muted">
                <InlineCode text={t("add.refHelp")} />
              </p>
              <div class="inline-form">
                <TextInput
                  value={ref}
                  mono
                  autoFocus
                  placeholder={t("add.refPlaceholder")}
                  testId="ref-input"
                  onChange={setRef}
                />
                <button
                  type="submit"
                  class="button primary"
                  disabled={ref.trim() === "" || loading}
                >
                  {loading ? t("add.loading") : t("add.inspect")}
                </button>
              </div>
              {refError && (
                <p class="field-error" role="alert">
                  <ServiceMessage failure={refError} />
                  <ErrorDetail detail={refError.detail} />
                </p>
              )}
            </form>
          ) : (
            <div class="item-grid">
              {items.map((entry) => (
                <button
                  type="button"
                  key={entry.reference}
                  class="item-card"
                  data-testid={`item-${entry.reference}`}
                  onClick={() => setItem(entry)}
                >
                  <span class="item-title">{entry.title || entry.name}</span>
                  <span class="mono muted small">{entry.reference}</span>
                  <span class="item-desc">{entry.description}</span>
                </button>
              ))}
            </div>
          )}
        </>
      )}
      {item && (
        <ConfigureNew
          item={item}
          project={props.project}
          renders={props.renders}
          onBack={() => {
            setItem(undefined);
            setFound(undefined);
          }}
          onAdd={props.onAdd}
          reference={found ?? (stage === "other" ? ref.trim() : item.reference)}
          stage={stageOf(props.metaOf(item.reference))}
        />
      )}
    </Modal>
  );
}

/**
 * The matches of `query` in every registry (GET /api/search, asked a moment after the last
 * keystroke): each with its registry, version and title; a registry that could not be read
 * is named under them.
 */
function SearchResults(props: {
  query: string;
  onChoose: (reference: string) => void;
  error: ApiFailure | undefined;
}): JSX.Element {
  const [answer, setAnswer] = useState<SearchAnswer | undefined>();
  const [failure, setFailure] = useState<ApiFailure | undefined>();
  useEffect(() => {
    let live = true;
    const timer = setTimeout(async () => {
      try {
        const result = await api.search(props.query);
        if (live) {
          setAnswer(result);
          setFailure(undefined);
        }
      } catch (error) {
        if (live) setFailure(failureOf(error));
      }
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [props.query]);
  const shownError = failure ?? props.error;
  const t = useT();
  return (
    <div class="search-results" data-testid="search-results">
      {!answer && !failure && <p class="muted small">{t("add.searching")}</p>}
      {answer && answer.results.length === 0 && (
        <p class="muted">{t("add.noMatch", { query: props.query })}</p>
      )}
      {answer && answer.results.length > 0 && (
        <ul class="result-list">
          {answer.results.map((result) => (
            <li key={result.reference}>
              <button
                type="button"
                class="result"
                data-testid={`result-${result.reference}`}
                onClick={() => props.onChoose(result.reference)}
              >
                <span class="mono small result-registry">
                  {result.registry === "builtin" ? t("add.builtin") : result.registry}
                </span>
                <span class="mono">{result.reference}</span>
                <span class="mono muted small">{result.version ?? ""}</span>
                <span>{result.title || result.description}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {answer?.failures.map((entry) => (
        <p class="muted small" key={entry.registry} data-testid="search-failure">
          {t("add.notSearched", { registry: entry.registry, reason: entry.message })}
        </p>
      ))}
      {shownError && (
        <p class="field-error" role="alert">
          <ServiceMessage failure={shownError} />
          <ErrorDetail detail={shownError.detail} />
        </p>
      )}
    </div>
  );
}

function ConfigureNew(props: {
  item: RegistryItemView;
  reference: string;
  project: Project;
  /** The stage the item declares: its default name depends on it. */
  stage: StageId;
  renders: (RenderResult | undefined)[];
  onBack: () => void;
  onAdd: AddDialogProps["onAdd"];
}): JSX.Element {
  const t = useT();
  const { item, project } = props;
  const [name, setName] = useState(() =>
    defaultComponentName(project, props.reference, item.name, props.stage),
  );
  const [fields, setFields] = useState<Record<string, string>>({});
  const [probe, setProbe] = useState<RenderResult | undefined>();
  const required = item.fields.filter((field) => field.required && field.default === null);
  const pathFields = item.fields.filter(
    (field) =>
      !field.required &&
      item.files.some((file) => new RegExp(`\\b${field.name.replace(/\W/g, "")}\\b`).test(file)),
  );
  const shown = [...required, ...pathFields];
  const key = JSON.stringify([name, fields]);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(async () => {
      // Required fields not filled yet take their example, only to learn the paths.
      const probeFields = { ...fields };
      for (const field of required) {
        if (!probeFields[field.name]) probeFields[field.name] = field.example ?? field.name;
      }
      const result = await render({
        reference: props.reference,
        name,
        fields: probeFields,
        labels: {},
        defaultNamespace: project.project.namespace,
        automationProfile: project.project.automationProfile,
      });
      if (live) setProbe(result);
    }, 120);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key]);
  const others = props.renders.map((result) => (result?.ok ? result.files : undefined));
  const conflicts: Conflict[] = probe?.ok ? findConflicts(probe.files, others) : [];
  const label = (index: number) => {
    const component = project.components[index];
    return component
      ? t("app.componentWords", { reference: component.reference, name: component.name })
      : t("app.anotherComponent");
  };
  const blocked = name.trim() === "" || conflicts.length > 0;
  return (
    <form
      class="configure-new"
      onKeyDown={submitOnModEnter}
      onSubmit={(event) => {
        event.preventDefault();
        if (blocked) return;
        const clean = Object.fromEntries(
          Object.entries(fields).filter(([, value]) => value !== ""),
        );
        props.onAdd({ reference: props.reference, name: name.trim(), fields: clean, labels: {} });
      }}
    >
      <p class="muted">{item.description}</p>
      <label class="field">
        <span class="field-label">
          {t("form.name")} <span class="req">*</span>
        </span>
        <TextInput value={name} mono autoFocus testId="new-name" onChange={setName} />
      </label>
      {shown.map((field) => (
        <label class="field" key={field.name}>
          <span class="field-label">
            {field.name} {field.required && <span class="req">*</span>}
          </span>
          <TextInput
            value={fields[field.name] ?? ""}
            mono
            placeholder={
              field.example ? t("form.example", { example: field.example }) : (field.default ?? "")
            }
            onChange={(value) => setFields({ ...fields, [field.name]: value })}
          />
          {field.description && <span class="help">{field.description}</span>}
        </label>
      ))}
      <div class="will-write">
        <div class="subhead">{t("add.willWrite")}</div>
        {!probe && <p class="muted small">…</p>}
        {probe && !probe.ok && (
          <div class="muted small">
            {t("add.pathsLater", { reason: probe.error })}
            <ErrorDetail detail={probe.detail} />
          </div>
        )}
        {probe?.ok && (
          <ul class="paths">
            {probe.files.map((file) => (
              <li
                key={file.path}
                class={conflicts.some((c) => c.path === file.path) ? "conflict" : ""}
              >
                <code>
                  {project.project.outputDir}/{file.path}
                </code>
              </li>
            ))}
          </ul>
        )}
      </div>
      {conflicts.length > 0 && (
        <div class="conflicts" data-testid="conflict">
          <p class="conflict-title" role="alert">
            {t("add.conflict", { count: conflicts.length })}
          </p>
          {conflicts.map((conflict) => (
            <div class="side-by-side" key={conflict.path}>
              <div>
                <div class="side-head">
                  {t("add.existing", { component: label(conflict.existing) })}
                  <code>{conflict.path}</code>
                </div>
                <pre
                  class="code small"
                  // biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so that a long file scrolls by keyboard too (axe: scrollable-region-focusable)
                  tabIndex={0}
                >
                  {conflict.existingContent}
                </pre>
              </div>
              <div>
                <div class="side-head">
                  {t("add.new", {
                    component: t("app.componentWords", { reference: props.reference, name }),
                  })}
                  <code>{conflict.path}</code>
                </div>
                <pre
                  class="code small"
                  // biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so that a long file scrolls by keyboard too (axe: scrollable-region-focusable)
                  tabIndex={0}
                >
                  {conflict.incomingContent}
                </pre>
              </div>
            </div>
          ))}
        </div>
      )}
      <footer class="modal-actions">
        <button type="button" class="button" onClick={props.onBack}>
          {t("tour.back")}
        </button>
        <button type="submit" class="button primary" disabled={blocked} data-testid="confirm-add">
          {t("add.confirm")}
        </button>
      </footer>
    </form>
  );
}
