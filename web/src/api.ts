// The HTTP API the dashboard talks to (same origin: `kiln serve --ui`). Renders are cached by
// request, so re-rendering an unchanged component costs nothing. `renderThroughApi` is the
// dashboard's renderer of one component for the core's project pipeline.
import type { ConfigView } from "../../src/core/config.ts";
import type { AutomationProfile } from "../../src/core/context.ts";
import type { RegistryItemView } from "../../src/core/item.ts";
import type { PresetComponent, PresetSummary } from "../../src/core/project/preset.ts";
import type { RenderOne, RenderOutcome } from "../../src/core/project/render-components.ts";

// the answers' shapes are the core's, which the service serializes
export type { ConfigView, PresetSummary, RegistryItemView };

/** One field of an item, as GET /api/registry gives it. */
export type FieldView = RegistryItemView["fields"][number];

/** POST /api/render's body, as the dashboard holds it (labels as a map). */
export interface RenderRequest extends PresetComponent {
  defaultNamespace: string;
  /** The project's automation tool profile; sent only when it is not the spec's `cm`. */
  automationProfile?: AutomationProfile | undefined;
}

/** What POST /api/render gave: the files, or the service's message (the pipeline's outcome). */
export type RenderResult = RenderOutcome;

async function errorText(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const json = JSON.parse(text) as { error?: string };
    if (json.error) return json.error;
  } catch {
    // plain text
  }
  return text || `${response.status} ${response.statusText}`;
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(await errorText(response));
  return (await response.json()) as T;
}

export const api = {
  registry: () => getJson<{ items: RegistryItemView[] }>("api/registry").then((r) => r.items),
  presets: () => getJson<{ presets: PresetSummary[] }>("api/presets").then((r) => r.presets),
  preset: (name: string) => getJson<unknown>(`api/presets/${encodeURIComponent(name)}`),
  config: () => getJson<ConfigView>("api/config"),
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

/** POST /api/render; never throws: a failure is `{ok: false, error}` with the service's message. */
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
      if (!response.ok) return { ok: false, error: await errorText(response) };
      const json = (await response.json()) as { files: { path: string; content: string }[] };
      return { ok: true, files: json.files };
    })
    .catch((error: unknown): RenderResult => {
      cache.delete(key);
      return { ok: false, error: `the service did not answer (${(error as Error).message})` };
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
 * message thrown when it fails, so the pipeline keeps it with the component.
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
  if (!result.ok) throw new Error(result.error);
  return result;
};
