// The HTTP API the dashboard talks to (same origin: `kiln serve --ui`). Renders are cached by
// request, so re-rendering an unchanged component costs nothing. `renderThroughApi` is the
// dashboard's renderer of one component for the core's project pipeline.

import type { ConfigView } from "../../src/core/config.ts";
import {
  type ErrorKind,
  errorMessage,
  FIELD_RULE_CODES,
  type FieldProblem,
  type FieldRuleCode,
} from "../../src/core/errors.ts";
import type { RegistryItemView } from "../../src/core/item.ts";
import type { PresetComponent, PresetSummary } from "../../src/core/project/preset-manifest.ts";
import type { RenderOne, RenderOutcome } from "../../src/core/project/render-components.ts";
import type { SearchResult } from "../../src/core/registry-search.ts";
import type { AutomationProfile } from "../../src/core/vocabulary.ts";
import { translate } from "./i18n/i18n.ts";
import type { ItemRecords, LockSources } from "./model/files.ts";
import { type CatalogueMeta, itemRecords } from "./model/project-lock.ts";

// the answers' shapes are the core's, which the service serializes
export type { ConfigView, PresetSummary, RegistryItemView, SearchResult };

/** GET /api/search's answer: the matches, and the registries that could not be read. */
export interface SearchAnswer {
  results: SearchResult[];
  failures: { registry: string; message: string }[];
}

/** One field of an item, as GET /api/registry gives it. */
export type FieldView = RegistryItemView["fields"][number];

/** POST /api/render's body, as the dashboard holds it (labels as a map). */
export interface RenderRequest extends PresetComponent {
  defaultNamespace: string;
  /** The project's automation tool profile; sent only when it is not the default `cm`. */
  automationProfile?: AutomationProfile | undefined;
}

/**
 * What POST /api/render gave: the files, or the service's message, its detail and the field it
 * is about (the pipeline's outcome).
 */
export type RenderResult = RenderOutcome | ({ ok: false } & ApiFailure);

/**
 * A failure as the service words it: `error`, and `detail` when the JSON error body has one
 * (what exactly was wrong and what to do: the path inside a JSON value, why an item is
 * invalid or a fetch failed). The dashboard shows the detail under the message.
 */
export interface ApiFailure {
  error: string;
  /** The error body's `code`, the kind of refusal (the dashboard words it in its language). */
  code?: ErrorKind | undefined;
  detail?: string | undefined;
  /** The field a validation error is about, in parts (the dashboard words it at the field). */
  field?: FieldProblem | undefined;
}

/** An error answer of the service, thrown by the calls below; it keeps the detail. */
export class ApiError extends Error {
  readonly code: ErrorKind | undefined;
  readonly detail: string | undefined;
  readonly field: FieldProblem | undefined;

  constructor(failure: ApiFailure) {
    super(failure.error);
    this.name = "ApiError";
    this.code = failure.code;
    this.detail = failure.detail;
    this.field = failure.field;
  }
}

/**
 * The kind of refusal a failure stands for: its own `code`, or, for a component's failed render
 * kept by the project pipeline, the code of the ApiError it caught.
 */
export function refusalKind(failure: {
  code?: ErrorKind | undefined;
  cause?: unknown;
}): ErrorKind | undefined {
  return failure.code ?? (failure.cause instanceof ApiError ? failure.cause.code : undefined);
}

/** The failure any thrown error stands for (an ApiError keeps its detail). */
export function failureOf(error: unknown): ApiFailure {
  if (error instanceof ApiError) {
    const failure: ApiFailure = { error: error.message, detail: error.detail };
    if (error.code) failure.code = error.code;
    if (error.field) failure.field = error.field;
    return failure;
  }
  return { error: errorMessage(error) };
}

/** An error answer's message and detail: the JSON error body's keys, or the text itself. */
export async function errorAnswer(response: Response): Promise<ApiFailure> {
  const text = await response.text();
  try {
    const json = JSON.parse(text) as {
      code?: unknown;
      error?: unknown;
      detail?: unknown;
      field?: unknown;
    };
    if (typeof json.error === "string" && json.error !== "") {
      const failure: ApiFailure = { error: json.error };
      if (isErrorKind(json.code)) failure.code = json.code;
      if (typeof json.detail === "string" && json.detail !== "") failure.detail = json.detail;
      if (isFieldProblem(json.field)) failure.field = json.field;
      return failure;
    }
  } catch {
    // plain text
  }
  return { error: text || `${response.status} ${response.statusText}` };
}

const ERROR_KINDS: readonly ErrorKind[] = [
  "invalid_request",
  "not_found",
  "not_initialized",
  "already_exists",
  "internal",
  "overloaded",
];

/** The error body's `code`, when it is one of kiln's error kinds. */
function isErrorKind(value: unknown): value is ErrorKind {
  return ERROR_KINDS.includes(value as ErrorKind);
}

/** The error body's `field`, when it has the shape the service gives it. */
function isFieldProblem(value: unknown): value is FieldProblem {
  if (typeof value !== "object" || value === null) return false;
  const problem = value as Record<string, unknown>;
  return (
    typeof problem.field === "string" &&
    typeof problem.path === "string" &&
    (problem.rule === "missing" || problem.rule === "invalid") &&
    typeof problem.expected === "string" &&
    (problem.got === undefined || typeof problem.got === "string") &&
    // the rule in parts, which the form words itself from
    FIELD_RULE_CODES.includes(problem.code as FieldRuleCode) &&
    typeof problem.params === "object" &&
    problem.params !== null
  );
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: "application/json" } });
  if (!response.ok) throw new ApiError(await errorAnswer(response));
  return (await response.json()) as T;
}

export const api = {
  registry: () => getJson<{ items: RegistryItemView[] }>("api/registry").then((r) => r.items),
  presets: () => getJson<{ presets: PresetSummary[] }>("api/presets").then((r) => r.presets),
  preset: (name: string) => getJson<unknown>(`api/presets/${encodeURIComponent(name)}`),
  config: () => getJson<ConfigView>("api/config"),
  search: (query: string) => getJson<SearchAnswer>(`api/search?q=${encodeURIComponent(query)}`),
  inspect: (ref: string) =>
    getJson<RegistryItemView>(`api/registry/inspect?ref=${encodeURIComponent(ref)}`),
};

const cache = new Map<string, Promise<RenderResult>>();

export function renderKey(request: RenderRequest): string {
  return JSON.stringify([
    request.reference,
    request.name,
    request.fields,
    request.labels,
    request.defaultNamespace,
    request.automationProfile ?? "cm",
  ]);
}

/**
 * POST /api/render; never throws: a failure is `{ok: false, error, detail?, field?}` with the
 * service's message, detail and the field it is about.
 */
export function render(request: RenderRequest): Promise<RenderResult> {
  const key = renderKey(request);
  const hit = cache.get(key);
  if (hit) return hit;
  const body = JSON.stringify({
    reference: request.reference,
    name: request.name,
    fields: request.fields,
    labels: Object.entries(request.labels).map(([key, value]) => ({ key, value })),
    defaultNamespace: request.defaultNamespace,
    ...(request.automationProfile === "ansible" ? { automationProfile: "ansible" } : {}),
  });
  const promise = fetch("api/render", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  })
    .then(async (response): Promise<RenderResult> => {
      if (!response.ok) return { ok: false, ...(await errorAnswer(response)) };
      const json = (await response.json()) as { files: { path: string; content: string }[] };
      return { ok: true, files: json.files };
    })
    .catch((error: unknown): RenderResult => {
      cache.delete(key);
      return { ok: false, error: translate("api.noAnswer", { reason: errorMessage(error) }) };
    });
  if (cache.size > 500) cache.delete(cache.keys().next().value as string);
  cache.set(key, promise);
  return promise;
}

const inspected = new Map<string, Promise<RegistryItemView>>();

/** GET /api/registry/inspect, cached per reference (failures are not cached). */
export function inspect(ref: string): Promise<RegistryItemView> {
  let hit = inspected.get(ref);
  if (!hit) {
    hit = api.inspect(ref);
    hit.catch(() => inspected.delete(ref));
    inspected.set(ref, hit);
  }
  return hit;
}

/**
 * The project pipeline's renderer of one component: POST /api/render (cached), the service's
 * message (and detail) thrown when it fails, so the pipeline keeps them with the component.
 */
export const renderThroughApi: RenderOne<PresetComponent> = async (component, input) => {
  const result = await render({
    reference: component.reference,
    name: input.name,
    fields: input.fields ?? {},
    labels: input.labels ?? {},
    defaultNamespace: input.defaultNamespace,
    automationProfile: input.automationProfile,
  });
  if (!result.ok) throw new ApiError(result);
  return result;
};

/**
 * What kiln.lock records of each reference's item, for the zip: GET /api/registry/meta (every
 * built-in's fingerprint and the kiln version) and /api/registry/meta?ref= for the others.
 */
const itemRecordsFromApi: ItemRecords = async (references) =>
  itemRecords(references, await getJson<CatalogueMeta>("api/registry/meta"), (reference) =>
    getJson<{ reference: string; fingerprint: string }>(
      `api/registry/meta?ref=${encodeURIComponent(reference)}`,
    ),
  );

/** POST /api/lock/bases: kiln.lock's compressed form of each text, by the service. */
async function lockBasesFromApi(contents: readonly string[]): Promise<string[]> {
  const response = await fetch("api/lock/bases", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ contents }),
  });
  if (!response.ok) throw new ApiError(await errorAnswer(response));
  return ((await response.json()) as { bases: string[] }).bases;
}

/** Where the zip's kiln.lock gets its item records and compressed bases: the service. */
export const lockSourcesFromApi: LockSources = {
  records: itemRecordsFromApi,
  bases: lockBasesFromApi,
};
