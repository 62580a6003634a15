// Where the CLI renders a component. Built-in components (kiln's own templates) render here, in
// this thread, exactly as before: their start-up time is what `kiln add` is measured by, so
// nothing of the following is loaded for them. So do the items of `@kiln` shipped in this
// package, byte for byte (src/node/packaged-kiln.ts decides by where the bytes came from and
// their digest): they are kiln's own templates too. Anything else - a registry item from a file,
// a URL or a registry, which anyone may have written - renders in a worker thread with a wall-clock deadline
// and a heap limit, because the engine's fuel does not count everything a template can make it
// do (a filter's argument is converted into JS objects outside any fuel count: a list doubled
// 30 times and passed to `yaml` ran for 90 s and 4 GB). Only a separate thread can be stopped
// whatever happens inside it.
//
// The worker pool is the HTTP service's (src/sandbox/render-pool.ts), loaded with import() from
// the compiled dist/server only when a component that is not built-in is rendered: the CLI
// bundle stays free of worker_threads.
import { missingRequiredField, type RenderInput } from "../core/context.ts";
import type { DependencyRequest } from "../core/dependencies.ts";
import { errorMessage, KilnError, reworded } from "../core/errors.ts";
import { type RegistryItem, referenceOf } from "../core/item.ts";
import type { Lock, LockedComponent, RegistryLockSource } from "../core/project/lock-format.ts";
import { isCatalogueItem, trustAsCatalogueItem } from "../core/registry.ts";
import {
  isRegistryReference,
  KILN_NAMESPACE,
  registryReferenceText,
} from "../core/registry-config.ts";
import { type RenderResult, renderItem, type TemplateRenderer } from "../core/render-item.ts";
import { shellWord } from "../core/shell-words.ts";
import { FIELD_SHORTCUTS } from "../core/shortcuts.ts";
import { undeclaredFieldWarnings } from "../core/validate.ts";
import { builtinRegistry } from "../node/builtin-registry.ts";
import { builtinRenderer } from "../node/builtin-renderer.ts";
import { isUrl } from "../node/fetch-url.ts";
import { isPackagedKilnSource } from "../node/packaged-kiln.ts";
import type { RegistryClient, RegistryResolution } from "../node/registry-client.ts";
import { builtinFor, resolveReference } from "../node/resolve-reference.ts";
import { DEFAULT_ENGINE_LIMITS } from "../node/template-engine.ts";
import type { RenderPool, RenderPoolOptions } from "../sandbox/render-pool.ts";
import { RunFetches } from "./url-fetches.ts";

/**
 * The bounds of one render of a component that is not built-in. 10 s is hundreds of times what
 * the largest built-in preset takes to render whole (about 30 ms); 256 MiB of heap (plus the
 * engine's own 256 MiB of WASM memory) is far more than any real template's output needs.
 */
export const UNTRUSTED_RENDER_LIMITS = { deadlineMs: 10_000, heapMb: 256 } as const;

/** The environment variable that sets the deadline of one such render, in milliseconds. */
export const RENDER_TIMEOUT_ENV = "KILN_RENDER_TIMEOUT_MS";
const MAX_RENDER_TIMEOUT_MS = 600_000;

/**
 * The wall-clock deadline of one render of an item that is not built-in: KILN_RENDER_TIMEOUT_MS
 * when set (a larger item of one's own may need more than 10 s; a CI job may want less), else
 * UNTRUSTED_RENDER_LIMITS' 10 s. A value that is no whole number from 1 to 600,000 is an error.
 */
export function untrustedRenderDeadline(env: NodeJS.ProcessEnv = process.env): number {
  const value = env[RENDER_TIMEOUT_ENV]?.trim();
  if (value === undefined || value === "") return UNTRUSTED_RENDER_LIMITS.deadlineMs;
  const ms = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(ms >= 1 && ms <= MAX_RENDER_TIMEOUT_MS)) {
    throw new KilnError(
      "invalid_request",
      `${RENDER_TIMEOUT_ENV} must be a whole number of milliseconds from 1 to ${MAX_RENDER_TIMEOUT_MS}, got \`${value}\``,
      `unset it for the default (${UNTRUSTED_RENDER_LIMITS.deadlineMs} ms)`,
    );
  }
  return ms;
}

/** How long closing the worker may hold up the exit. */
const CLOSE_WAIT_MS = 2_000;

/** A render with what it rendered: the registry item, and whether it is a built-in (kiln.lock). */
export interface ResolvedRender extends RenderResult {
  item: RegistryItem;
  builtin: boolean;
  /** For a namespaced registry's item: what kiln.lock records of it (version, digest). */
  registry?: RegistryLockSource | undefined;
}

/**
 * Which version a recorded registry component is rendered at: the one kiln.lock pins (none
 * given), `to` (`update --to <version>`), or the newest the index lists (`update --latest`).
 */
export interface PinChange {
  to?: string | undefined;
  latest?: boolean | undefined;
}

export interface RendererOptions {
  /** The project's kiln.lock: the digest it records for a registry item's version must match. */
  lock?: Lock | undefined;
  pinChange?: PinChange | undefined;
  /**
   * Where the registries' warnings go; given, a registry that does not answer has its index
   * taken from kiln's cache, however old, with a warning (see RegistryClient).
   */
  warn?: ((message: string) => void) | undefined;
  /** A worker the run started before it read the project (startWorkerEarly): used, not started. */
  earlyWorker?: EarlyWorker | undefined;
}

/** A render of a component that is not built-in was stopped by a limit (time, memory, output). */
export class RenderStopped extends KilnError {}

interface PoolModule {
  RenderPool: new (options: Partial<RenderPoolOptions>) => RenderPool;
}

async function loadPoolModule(): Promise<PoolModule> {
  try {
    return (await import("../sandbox/render-pool.ts")) as PoolModule;
  } catch (error) {
    const missing =
      (error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" &&
      errorMessage(error).includes("render-pool");
    if (!missing) throw error;
    throw new KilnError(
      "internal",
      "components from files and URLs render in a worker thread, which is not part of this build - run `npm run build` to build it",
    );
  }
}

async function startPool(): Promise<RenderPool> {
  const { RenderPool } = await loadPoolModule();
  const pool = new RenderPool({
    size: 1,
    spare: false,
    deadlineMs: untrustedRenderDeadline(),
    heapMb: UNTRUSTED_RENDER_LIMITS.heapMb,
    // the same engine limits as built-in renders in this thread
    fuel: DEFAULT_ENGINE_LIMITS.fuel,
    engineMemoryBytes: DEFAULT_ENGINE_LIMITS.memoryBytes,
    // one run renders a few components, one after the other: keep the worker rather than
    // restart it between them, and let a job wait for a restarted worker as long as it takes
    recycleBytes: DEFAULT_ENGINE_LIMITS.memoryBytes + UNTRUSTED_RENDER_LIMITS.heapMb * 1024 * 1024,
    idleRefreshMs: 60_000,
    untrustedWorkers: 1,
    queueTimeoutMs: 60_000,
    // the worker sets the engine's fast-start flags itself once it has started: set here, before
    // it starts, they would cost its start more than they save (see fast-start.ts)
    fastStart: true,
  });
  try {
    await pool.ready();
  } catch (error) {
    await pool.close();
    throw new KilnError("internal", errorMessage(error));
  }
  return pool;
}

/**
 * Whether `reference` is in `@kiln`, whose packaged items render in this thread (when their
 * bytes are the package's: see resolveRegistryItem), so no worker is started for it up front.
 */
function namesPackagedKiln(reference: string): boolean {
  return reference.startsWith(`${KILN_NAMESPACE}/`);
}

/**
 * A render worker started before the run's renderer exists. The renderer takes it (and stops
 * it when it closes); a run that ends before one took it - a project file refused, a lock from a
 * newer kiln - stops it itself, so a long-lived process (`kiln mcp`) keeps no worker of a failed
 * call.
 */
export class EarlyWorker {
  private pool: Promise<RenderPool> | undefined;

  constructor(pool: Promise<RenderPool> | undefined) {
    this.pool = pool;
    this.pool?.catch(() => undefined);
  }

  /** The worker, for the renderer that renders in it; undefined once taken, or when none. */
  take(): Promise<RenderPool> | undefined {
    const pool = this.pool;
    this.pool = undefined;
    return pool;
  }

  /** Stops the worker unless a renderer took it. */
  async stop(): Promise<void> {
    const pool = this.take();
    if (pool !== undefined) await stopPool(pool);
  }
}

/**
 * Starts the render worker now, for a run whose `reference` will render in it (a registry's
 * `@ns/item`, which never names a built-in; not `@kiln`'s packaged items, which render in this
 * thread): the thread, Node's internals in it and the engine start while this thread reads
 * kiln.toml, kiln.lock and the item, instead of after. The run gives it to its renderer
 * (RendererOptions.earlyWorker) and stops it when it ends.
 */
export function startWorkerEarly(reference: string): EarlyWorker {
  if (!isRegistryReference(reference) || namesPackagedKiln(reference)) {
    return new EarlyWorker(undefined);
  }
  return new EarlyWorker(startPool());
}

/**
 * Stops a worker pool, started or still starting; waits at most CLOSE_WAIT_MS, so an exit is
 * never held up for long (a pool still starting then is stopped as soon as it has started).
 */
async function stopPool(started: Promise<RenderPool>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CLOSE_WAIT_MS);
    timer.unref();
  });
  try {
    await Promise.race([started.then((pool) => pool.close()), waited]);
  } catch {
    // the pool never started: nothing to stop
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Renders the components of one CLI run: built-ins in this thread, the others in one worker
 * thread started on first use. `close()` when done (the worker would keep the process alive).
 */
export class ComponentRenderer {
  private readonly cwd: string;
  private readonly options: RendererOptions;
  /** Built-ins' renderer: compiled templates, the engine loaded only when one needs it. */
  private engine: TemplateRenderer | undefined;
  private pool: Promise<RenderPool> | undefined;
  private registryClient: Promise<RegistryClient> | undefined;
  /** The run's URL references: each fetched once, all within the run's bounds. */
  readonly fetches = new RunFetches();

  constructor(cwd: string, options: RendererOptions = {}) {
    this.cwd = cwd;
    this.options = options;
  }

  /**
   * The run's namespaced registries (`@acme/redis`): the client, with what it brings (fetching,
   * the cache, the user's configuration), is loaded when a reference first names one, so a run
   * of built-ins never loads it.
   */
  registries(): Promise<RegistryClient> {
    this.registryClient ??= import("../node/registry-client.ts").then(
      ({ RegistryClient, recordedDigests }) =>
        new RegistryClient(this.cwd, {
          digests: recordedDigests(this.options.lock),
          ...(this.options.warn === undefined ? {} : { warn: this.options.warn }),
        }),
    );
    return this.registryClient;
  }

  /**
   * The reference that renders a recorded component again: for a registry's item, its
   * namespace and name at the version kiln.lock pins (or the run's PinChange); for the other
   * kinds the reference as typed.
   */
  referenceFor(entry: LockedComponent): string {
    const source = entry.source;
    if (source.type !== "registry") return entry.reference;
    const change = this.options.pinChange;
    const version = change?.latest ? undefined : (change?.to ?? source.version);
    return registryReferenceText({ namespace: source.registry, item: source.item, version });
  }

  /** The built-in item `reference` names, if it names one (a reference's first lookup). */
  builtin(reference: string): RegistryItem | undefined {
    return builtinFor(reference, builtinRegistry());
  }

  /** Starts fetching the URL references among `references` (built-ins aside) now, together. */
  prefetch(references: readonly string[]): void {
    this.fetches.prefetch(references.filter((reference) => !this.builtin(reference)));
  }

  /**
   * Resolves `reference` (built-in, URL or local file) and renders it. `label` names the
   * component when a limit stops its render (default: the reference).
   */
  async render(reference: string, input: RenderInput, label = reference): Promise<ResolvedRender> {
    const builtin = this.builtin(reference);
    if (builtin) return { ...this.renderBuiltin(builtin, input), item: builtin, builtin: true };
    // the worker starts (a thread, Node's internals, the engine's WASM) while this thread reads
    // and checks the item: the two overlap instead of one waiting for the other. `@kiln`'s
    // packaged items render here: for them it waits until an item turns out not to be one.
    if (!namesPackagedKiln(reference)) this.startedPool().catch(() => undefined);
    if (isRegistryReference(reference)) {
      const { item, source } = await this.resolveRegistryItem(reference);
      const rendered = await this.renderResolved(item, input, label);
      return { ...rendered, item, builtin: false, registry: source };
    }
    const item = await this.item(reference);
    return { ...(await this.renderIsolated(item, input, label)), item, builtin: false };
  }

  /**
   * A registry's item, resolved and verified once per run; one of `@kiln`'s packaged items,
   * byte for byte, is marked trusted, to render in this thread on the compiled path.
   */
  async resolveRegistryItem(reference: string): Promise<RegistryResolution> {
    const resolution = await (await this.registries()).resolve(reference);
    if (isPackagedKilnSource(resolution.source)) trustAsCatalogueItem(resolution.item);
    return resolution;
  }

  /** The registry item `reference` gives (a URL's fetched once per run), not rendered. */
  async item(reference: string): Promise<RegistryItem> {
    const builtin = this.builtin(reference);
    if (builtin) return builtin;
    if (isRegistryReference(reference)) return (await this.resolveRegistryItem(reference)).item;
    return isUrl(reference)
      ? await this.fetches.item(reference)
      : await resolveReference(reference, { cwd: this.cwd });
  }

  /**
   * The dependencies `item` declares, their `name` and `fields` templates rendered with the
   * component's `input` - in the worker for any item but a built-in, as its files are: each
   * template is rendered as the content of a file of a stand-in item with the same fields.
   */
  async dependenciesOf(
    item: RegistryItem,
    input: RenderInput,
    builtin: boolean,
    label: string,
  ): Promise<DependencyRequest[]> {
    const declared = item.dependencies ?? [];
    if (declared.length === 0) return [];
    const templates = declared.flatMap((dependency, index) => [
      {
        path: `dependencies/${index}/name`,
        template: dependency.name,
        label: `dependencies[${index}].name`,
      },
      ...Object.entries(dependency.fields).map(([key, template], field) => ({
        path: `dependencies/${index}/fields/${field}`,
        template,
        label: `dependencies[${index}].fields.${key}`,
      })),
    ]);
    const standIn: RegistryItem = {
      ...item,
      files: templates.map(({ path, template }) => ({ path, template })),
      dependencies: undefined,
    };
    let rendered: RenderResult;
    try {
      rendered =
        builtin || isCatalogueItem(item)
          ? this.renderBuiltin(standIn, input)
          : await this.renderIsolated(standIn, input, label);
    } catch (error) {
      throw namingDependencyTemplates(error, templates);
    }
    const values = new Map(rendered.files.map((file) => [file.path, file.content]));
    return declared.map((dependency, index) => ({
      reference: dependency.reference,
      name: values.get(`dependencies/${index}/name`) ?? "",
      fields: Object.fromEntries(
        Object.keys(dependency.fields).map((key, field) => [
          key,
          values.get(`dependencies/${index}/fields/${field}`) ?? "",
        ]),
      ),
    }));
  }

  /** A built-in item, in this thread. */
  renderBuiltin(item: RegistryItem, input: RenderInput): RenderResult {
    this.engine ??= builtinRenderer();
    return renderItem(this.engine, item, input);
  }

  /**
   * An item this run resolved: a trusted one (a built-in, a packaged `@kiln` item) here, any
   * other in the worker.
   */
  renderResolved(item: RegistryItem, input: RenderInput, label: string): Promise<RenderResult> {
    if (isCatalogueItem(item)) return Promise.resolve(this.renderBuiltin(item, input));
    return this.renderIsolated(item, input, label);
  }

  /** Any other item, in the worker, within UNTRUSTED_RENDER_LIMITS. */
  async renderIsolated(
    item: RegistryItem,
    input: RenderInput,
    label: string,
  ): Promise<RenderResult> {
    const pool = await this.startedPool();
    try {
      return await pool.render(item, input);
    } catch (error) {
      throw explain(error, item, label);
    }
  }

  /** The run's worker pool: the one started early, or one started now. */
  private startedPool(): Promise<RenderPool> {
    this.pool ??= this.options.earlyWorker?.take() ?? startPool();
    return this.pool;
  }

  /** Stops the worker, if one was started; never holds the exit up for long. */
  async close(): Promise<void> {
    this.fetches.close();
    const started = this.pool;
    this.pool = undefined;
    if (started) await stopPool(started);
  }
}

/**
 * Renders one component (`kiln add`, `kiln render`) and stops the worker, if it needed one.
 * Supplied fields the item does not declare are pointed out through `warn` (the command's
 * Output, so -q silences them), with the field they were most likely meant to be; a missing required field's error
 * says how to pass it on the command line.
 */
export async function renderComponent(
  cwd: string,
  reference: string,
  input: RenderInput,
  warn: (message: string) => void,
  options: RendererOptions = {},
): Promise<ResolvedRender> {
  const renderer = new ComponentRenderer(cwd, options);
  try {
    return await renderComponentWith(renderer, reference, input, warn);
  } finally {
    await renderer.close();
  }
}

/**
 * Renders one component with a renderer the caller closes (`kiln add` renders the component's
 * dependencies with the same one), warnings and the missing-field hint as renderComponent's.
 */
export async function renderComponentWith(
  renderer: ComponentRenderer,
  reference: string,
  input: RenderInput,
  warn: (message: string) => void,
  label = reference,
): Promise<ResolvedRender> {
  // a built-in's fields are known before it renders: a misspelt field is pointed out even when
  // the render then fails for want of the field it was meant to be
  const builtin = renderer.builtin(reference);
  if (builtin) for (const warning of undeclaredFieldWarnings(builtin, input.fields)) warn(warning);
  try {
    const result = await renderer.render(reference, input, label);
    if (!builtin) {
      for (const warning of undeclaredFieldWarnings(result.item, input.fields)) warn(warning);
    }
    return result;
  } catch (error) {
    throw withOptionHint(error, builtin);
  }
}

/**
 * The fixed message `--<field> is required for <reference>` names a field as an option, and
 * most fields have no option of that name: the detail says how to pass it
 * (`--set group=<value>`, or the shortcut option when there is one), with the item's example
 * when it is short enough to type.
 */
function withOptionHint(error: unknown, item: RegistryItem | undefined): unknown {
  if (!(error instanceof KilnError) || error instanceof RenderStopped) return error;
  const field = missingRequiredField(error.message);
  if (field === undefined) return error;
  const shortcut = FIELD_SHORTCUTS.find((candidate) => candidate.field === field);
  const example = item?.fields.find((candidate) => candidate.name === field)?.example;
  const typed = example !== undefined && example !== "" && example.length <= 200;
  const detail = shortcut
    ? `pass it with --${shortcut.option} <value> (or --set ${field}=<value>)${typed ? `, for example --${shortcut.option} ${shellWord(example)}` : ""}`
    : `pass it with --set ${field}=<value>${typed ? `, for example --set ${shellWord(`${field}=${example}`)}` : ""}`;
  return reworded(error, error.message, detail);
}

/**
 * An error of a dependency's template names it as the item declares it (`dependencies[0].name`,
 * `dependencies[1].fields.memory`), not as the stand-in file that rendered it (`files[3]`).
 */
function namingDependencyTemplates(
  error: unknown,
  templates: readonly { label: string }[],
): unknown {
  if (!(error instanceof KilnError)) return error;
  const rename = (text: string) =>
    text.replace(
      /files\[(\d+)\]\.template/g,
      (whole, index: string) => templates[Number(index)]?.label ?? whole,
    );
  return reworded(error, rename(error.message), error.detail && rename(error.detail));
}

/**
 * The worker's error as this bundle's KilnError (the pool's own KilnError class is another
 * copy of the core's). An error about the template names the item (`test/thing files[0]...`,
 * `--x is required for test/thing`) and goes through as it is; an error that does not is the
 * worker being stopped - deadline, heap, output size, a crash - and gets the component's name.
 */
function explain(error: unknown, item: RegistryItem, label: string): KilnError {
  const message = errorMessage(error);
  const { kind, detail } = error as { kind?: unknown; detail?: unknown };
  const errorKind = typeof kind === "string" ? (kind as KilnError["kind"]) : "internal";
  const reference = referenceOf(item);
  if (message.includes(reference)) {
    return new KilnError(errorKind, message, typeof detail === "string" ? detail : undefined);
  }
  const name = label === reference ? label : `${label} (${reference})`;
  return new RenderStopped(
    errorKind,
    `${name}: ${message}`,
    `components from files and URLs render in a separate thread, stopped after ${untrustedRenderDeadline() / 1000} s (${RENDER_TIMEOUT_ENV} sets it) or ${UNTRUSTED_RENDER_LIMITS.heapMb} MiB of memory`,
  );
}
