// Rendering a project's components: every component of a preset (or, later, of kiln.lock) goes
// through one injected renderer, in order, into per-component results. Two ways to meet a
// failure, because the fronts need both: `setup` and `apply` stop at the first error and show
// it exactly as the renderer threw it; `check` and the dashboard go on and keep each error
// beside the component that caused it. The renderer of one component is the caller's (the CLI
// renders built-ins in its thread and other items in a sandboxed worker; the dashboard asks the
// HTTP API), so this module knows no engine, worker or network and runs in the browser.

import type { RenderInput } from "../context.ts";
import { errorMessage, type FieldProblem } from "../errors.ts";
import type { ItemMeta } from "../item.ts";
import { checkNoDuplicatePaths, type PlannedFile } from "../plan.ts";
import type { AutomationProfile } from "../vocabulary.ts";
import type { PresetComponent } from "./preset-manifest.ts";

/** What rendering one component gives: its files (a core `RenderResult` fits). */
export interface ComponentFiles {
  files: PlannedFile[];
}

/**
 * Renders one component with its input; throws with the reason when it cannot. It may return
 * more than the files (`R`: where the item came from, its metadata); the result keeps it.
 */
export type RenderOne<
  C extends PresetComponent = PresetComponent,
  R extends ComponentFiles = ComponentFiles,
> = (component: C, input: RenderInput) => Promise<R> | R;

/**
 * The outcome of one render, as the dashboard keeps it per component: the files, or the
 * message and, when the renderer gave them, its detail (what exactly was wrong, what to do) and
 * the field it is about (which a form shows at the field).
 */
export type RenderOutcome =
  | { ok: true; files: PlannedFile[] }
  | { ok: false; error: string; detail?: string | undefined; field?: FieldProblem | undefined };

/** Which component an outcome belongs to: the component itself and its place in the list. */
export interface ComponentOf<C extends PresetComponent = PresetComponent> {
  index: number;
  component: C;
}

export type RenderedComponent<
  C extends PresetComponent = PresetComponent,
  R extends ComponentFiles = ComponentFiles,
> = ComponentOf<C> & {
  ok: true;
  files: PlannedFile[];
  /** All the renderer returned, for what the fronts record beside the files (a lock entry). */
  output: R;
};

export type FailedComponent<C extends PresetComponent = PresetComponent> = ComponentOf<C> & {
  ok: false;
  /** The renderer's message. */
  error: string;
  /** The detail of what it threw (a KilnError's, or an Error's `detail`), if any. */
  detail?: string | undefined;
  /** The field a validation error is about (a KilnError's, or an Error's `field`), if any. */
  field?: FieldProblem | undefined;
  /** What the renderer threw, for a front that maps error kinds. */
  cause: unknown;
};

export type ComponentRender<
  C extends PresetComponent = PresetComponent,
  R extends ComponentFiles = ComponentFiles,
> = RenderedComponent<C, R> | FailedComponent<C>;

export interface RenderComponentsOptions<
  C extends PresetComponent,
  R extends ComponentFiles = ComponentFiles,
> {
  /** The project's namespace: a component without a `namespace` field renders in it. */
  defaultNamespace: string;
  /** The project's automation tool profile; `cm` when absent. */
  automationProfile?: AutomationProfile | undefined;
  render: RenderOne<C, R>;
}

export interface CollectOptions<
  C extends PresetComponent,
  R extends ComponentFiles = ComponentFiles,
> extends RenderComponentsOptions<C, R> {
  /**
   * Render all at once (the dashboard: each render is an HTTP request) instead of one after
   * the other (the CLI: one worker thread, and a limit stop should stop the rest).
   */
  concurrent?: boolean | undefined;
  /**
   * An error that ends the whole run instead of being kept with its component (the CLI: a
   * render stopped by a time or memory limit, which each further render could hit again).
   */
  isFatal?: ((error: unknown) => boolean) | undefined;
}

/** The render input of one component: its values, with the project's namespace as default. */
export function componentInput(
  component: PresetComponent,
  defaultNamespace: string,
  automationProfile?: AutomationProfile,
): RenderInput {
  return {
    name: component.name,
    fields: component.fields,
    labels: component.labels,
    defaultNamespace,
    ...(automationProfile === undefined ? {} : { automationProfile }),
  };
}

/**
 * Renders every component in order and stops at the first that fails, throwing what the
 * renderer threw, unchanged: its message is what `setup` and `apply` print.
 */
export async function renderUntilError<C extends PresetComponent, R extends ComponentFiles>(
  components: readonly C[],
  options: RenderComponentsOptions<C, R>,
): Promise<RenderedComponent<C, R>[]> {
  const rendered: RenderedComponent<C, R>[] = [];
  for (const [index, component] of components.entries()) {
    const output = await options.render(
      component,
      componentInput(component, options.defaultNamespace, options.automationProfile),
    );
    rendered.push({ index, component, ok: true, files: output.files, output });
  }
  return rendered;
}

/** The `detail` an error carries (KilnError's, or one the dashboard's API layer set). */
function errorDetail(error: unknown): string | undefined {
  const detail =
    typeof error === "object" && error !== null
      ? (error as { detail?: unknown }).detail
      : undefined;
  return typeof detail === "string" && detail !== "" ? detail : undefined;
}

/** The field a validation error is about (KilnError's, or one the dashboard's API layer set). */
function errorField(error: unknown): FieldProblem | undefined {
  const field =
    typeof error === "object" && error !== null ? (error as { field?: unknown }).field : undefined;
  return typeof field === "object" && field !== null ? (field as FieldProblem) : undefined;
}

/** One component's render, its failure caught and kept with it unless it is fatal. */
async function renderKeepingError<C extends PresetComponent, R extends ComponentFiles>(
  component: C,
  index: number,
  options: CollectOptions<C, R>,
): Promise<ComponentRender<C, R>> {
  try {
    const output = await options.render(
      component,
      componentInput(component, options.defaultNamespace, options.automationProfile),
    );
    return { index, component, ok: true, files: output.files, output };
  } catch (error) {
    if (options.isFatal?.(error)) throw error;
    const message = errorMessage(error);
    const detail = errorDetail(error);
    const field = errorField(error);
    return {
      index,
      component,
      ok: false,
      error: message,
      ...(detail === undefined ? {} : { detail }),
      ...(field === undefined ? {} : { field }),
      cause: error,
    };
  }
}

/**
 * Renders every component and keeps each failure with its component, so every problem of the
 * project shows at once. Results are in component order, whether rendered concurrently or not.
 */
export async function renderCollectingErrors<C extends PresetComponent, R extends ComponentFiles>(
  components: readonly C[],
  options: CollectOptions<C, R>,
): Promise<ComponentRender<C, R>[]> {
  if (options.concurrent) {
    return Promise.all(
      components.map((component, index) => renderKeepingError(component, index, options)),
    );
  }
  const results: ComponentRender<C, R>[] = [];
  for (const [index, component] of components.entries()) {
    results.push(await renderKeepingError(component, index, options));
  }
  return results;
}

/** Did this component render? (A type guard, for `filter`.) */
export function isRendered<C extends PresetComponent, R extends ComponentFiles>(
  result: ComponentRender<C, R>,
): result is RenderedComponent<C, R> {
  return result.ok;
}

/** The first component that did not render, if any. */
export function firstFailure<C extends PresetComponent, R extends ComponentFiles>(
  results: readonly ComponentRender<C, R>[],
): FailedComponent<C> | undefined {
  return results.find((result): result is FailedComponent<C> => !result.ok);
}

/**
 * The files of one run, component by component, after the run's first rule: no two files
 * share a path, also not in two spellings one file system reads as one file.
 */
export function runFiles(rendered: readonly ComponentFiles[]): PlannedFile[] {
  const files = rendered.flatMap((result) => result.files);
  checkNoDuplicatePaths(files);
  return files;
}

/** A component with what its render gave, as the checks read it. */
export interface ComponentWithPaths extends PresetComponent {
  /** The catalogue metadata of the item it rendered from, when the render said. */
  meta?: ItemMeta | undefined;
  /** Rendered paths, relative to the output folder; absent when not (or not yet) rendered. */
  files?: readonly string[] | undefined;
  /** Why rendering failed, when it did. */
  renderError?: string | undefined;
}

/**
 * The catalogue metadata of the item a render used, when the renderer returned the item (the
 * CLI's renderer does: `output.item`): a component from a file, a URL or a registry is then
 * read as what its item declares, as a built-in is read from the catalogue.
 */
function renderedItemMeta(outcome: RenderOutcome | undefined): ItemMeta | undefined {
  const output = outcome?.ok ? (outcome as { output?: unknown }).output : undefined;
  if (typeof output !== "object" || output === null || !("item" in output)) return undefined;
  const item = (output as { item: unknown }).item;
  if (typeof item !== "object" || item === null || !("meta" in item)) return undefined;
  return (item as { meta?: ItemMeta }).meta;
}

/**
 * `component` and the paths it writes, or why it did not render; neither while its render is
 * still to come (the dashboard renders a moment after each change). When the render carries its
 * item's metadata, the component carries it too, so the checks read its facts (a `cidr` field,
 * its kind) whatever the item's reference.
 */
export function withRenderedPaths(
  component: PresetComponent,
  outcome: RenderOutcome | undefined,
): ComponentWithPaths {
  const meta = renderedItemMeta(outcome);
  return {
    reference: component.reference,
    name: component.name,
    fields: component.fields,
    labels: component.labels,
    files: outcome?.ok ? outcome.files.map((file) => file.path) : undefined,
    renderError: outcome && !outcome.ok ? outcome.error : undefined,
    ...(meta === undefined ? {} : { meta }),
  };
}
