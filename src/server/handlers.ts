// The eight endpoints. Each takes the parsed request and returns a Reply; errors are thrown
// (KilnError → JSON `{code, error}`, FrameworkError → text) and mapped in one place.
import type { IncomingMessage } from "node:http";
import {
  configView,
  type FetchLimits,
  KilnError,
  presetSummary,
  presetView,
  resolveReference,
  toItemView,
} from "../core/index.ts";
import { isJsonContentType, parseJsonBody, readBody } from "./body.ts";
import type { Catalogue } from "./catalogue.ts";
import { FrameworkError, MESSAGES } from "./errors.ts";
import type { RenderPool } from "./render-pool.ts";
import { parseRenderRequest } from "./render-request.ts";
import { json, type Reply, text } from "./reply.ts";

export interface Services {
  catalogue: Catalogue;
  pool: RenderPool;
  /** Directory that relative file references resolve against. */
  cwd: string;
  fetchLimits: FetchLimits;
  maxBodyBytes: number;
}

export interface RequestContext {
  req: IncomingMessage;
  /** The raw (still percent-encoded) path. */
  path: string;
  query: URLSearchParams;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
}

export type Handler = (ctx: RequestContext, services: Services) => Reply | Promise<Reply>;

export const health: Handler = () => text(200, "ok");

export const components: Handler = (_ctx, { catalogue }) =>
  json(200, { components: catalogue.registry().references() });

export const registry: Handler = (_ctx, { catalogue }) =>
  json(200, { items: catalogue.registry().items.map(toItemView) });

export const config: Handler = () => json(200, configView());

export const presets: Handler = (_ctx, { catalogue }) =>
  json(200, { presets: catalogue.presets().map(presetSummary) });

export const preset: Handler = (ctx, { catalogue }) => {
  const name = ctx.params.name as string;
  const found = catalogue.presets().find((candidate) => candidate.name === name);
  if (!found) throw new KilnError("not_found", `no preset template named \`${name}\``);
  return json(200, presetView(found));
};

/** serde_urlencoded's view of `?ref=`: required, once. */
function requiredQuery(query: URLSearchParams, key: string): string {
  const values = query.getAll(key);
  if (values.length === 0)
    throw new FrameworkError(400, MESSAGES.badQuery(`missing field \`${key}\``));
  if (values.length > 1)
    throw new FrameworkError(400, MESSAGES.badQuery(`duplicate field \`${key}\``));
  return values[0] as string;
}

export const inspect: Handler = async (ctx, services) => {
  const reference = requiredQuery(ctx.query, "ref");
  const item = await resolveReference(reference, {
    registry: services.catalogue.registry(),
    cwd: services.cwd,
    fetchLimits: services.fetchLimits,
  });
  return json(200, toItemView(item));
};

export const render: Handler = async (ctx, services) => {
  if (!isJsonContentType(ctx.req.headers["content-type"])) {
    throw new FrameworkError(415, MESSAGES.unsupportedMediaType);
  }
  const body = await readBody(ctx.req, services.maxBodyBytes);
  const request = parseRenderRequest(parseJsonBody(body));
  const item = await resolveReference(request.reference, {
    registry: services.catalogue.registry(),
    cwd: services.cwd,
    fetchLimits: services.fetchLimits,
  });
  const result = await services.pool.render(item, {
    name: request.name,
    fields: request.fields,
    labels: request.labels,
    defaultNamespace: request.defaultNamespace,
  });
  return json(200, {
    component: result.component,
    files: result.files.map((file) => ({ path: file.path, content: file.content })),
  });
};
