// The eight endpoints. Each takes the parsed request and returns a Reply; errors are thrown
// (KilnError → JSON `{code, error}`, FrameworkError → text) and mapped in one place.
import type { IncomingMessage } from "node:http";
import {
  builtinFor,
  configView,
  type FetchLimits,
  KilnError,
  type Preset,
  presetSummary,
  presetView,
  type Registry,
  resolveReference,
  toItemView,
} from "../core/index.ts";
import { isJsonContentType, parseJsonBody, readBody } from "./body.ts";
import type { Catalogue } from "./catalogue.ts";
import { FrameworkError, MESSAGES } from "./errors.ts";
import type { RenderPool } from "./render-pool.ts";
import { parseRenderRequest } from "./render-request.ts";
import { constant, JSON_TYPE, json, type Reply, text } from "./reply.ts";

export interface Services {
  catalogue: Catalogue;
  pool: RenderPool;
  /** Directory that relative file references resolve against. */
  cwd: string;
  fetchLimits: FetchLimits;
  maxBodyBytes: number;
}

export class RequestContext {
  readonly req: IncomingMessage;
  /** The raw (still percent-encoded) path. */
  readonly path: string;
  /** The query string without `?`. */
  readonly search: string;
  /** Path parameters, percent-decoded. */
  readonly params: Record<string, string>;
  private parsedQuery: URLSearchParams | undefined;

  constructor(req: IncomingMessage, path: string, search: string, params: Record<string, string>) {
    this.req = req;
    this.path = path;
    this.search = search;
    this.params = params;
  }

  /** Parsed on first use: only /api/registry/inspect reads its query. */
  get query(): URLSearchParams {
    this.parsedQuery ??= new URLSearchParams(this.search);
    return this.parsedQuery;
  }
}

export type Handler = (ctx: RequestContext, services: Services) => Reply | Promise<Reply>;

/**
 * A reply that depends only on an immutable value (the loaded registry, the preset list):
 * serialized once per value and shared by every request (write() never changes a reply).
 */
function once<K extends object>(build: (key: K) => Reply): (key: K) => Reply {
  const cache = new WeakMap<K, Reply>();
  return (key) => {
    let reply = cache.get(key);
    if (!reply) {
      reply = build(key);
      cache.set(key, reply);
    }
    return reply;
  };
}

/** A JSON reply whose body is encoded once. */
function constantJson(value: unknown): Reply {
  return constant({
    status: 200,
    headers: { "content-type": JSON_TYPE },
    body: Buffer.from(JSON.stringify(value)),
  });
}

const HEALTH: Reply = constant(text(200, "ok"));
const CONFIG: Reply = constantJson(configView());
const componentsReply = once((registry: Registry) =>
  constantJson({ components: registry.references() }),
);
const registryReply = once((registry: Registry) =>
  constantJson({ items: registry.items.map(toItemView) }),
);
const presetsReply = once((list: readonly Preset[]) =>
  constantJson({ presets: list.map(presetSummary) }),
);

export const health: Handler = () => HEALTH;

export const components: Handler = (_ctx, { catalogue }) => componentsReply(catalogue.registry());

export const registry: Handler = (_ctx, { catalogue }) => registryReply(catalogue.registry());

export const config: Handler = () => CONFIG;

export const presets: Handler = (_ctx, { catalogue }) => presetsReply(catalogue.presets());

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
  const bytes = await readBody(ctx.req, services.maxBodyBytes);
  const request = parseRenderRequest(parseJsonBody(bytes));
  const registry = services.catalogue.registry();
  // A built-in is found without a turn of the promise machinery; the rest (URLs, files) is
  // resolved as before.
  const item =
    builtinFor(request.reference, registry) ??
    (await resolveReference(request.reference, {
      registry,
      cwd: services.cwd,
      fetchLimits: services.fetchLimits,
    }));
  const json = await services.pool.renderJson(item, {
    name: request.name,
    fields: request.fields,
    labels: request.labels,
    defaultNamespace: request.defaultNamespace,
  });
  return { status: 200, headers: { "content-type": JSON_TYPE }, body: json };
};
