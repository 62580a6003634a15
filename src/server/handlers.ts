// The endpoints: the eight that clients depend on (GET /api/health, /api/components,
// /api/registry, /api/config, /api/presets, /api/presets/{name}, /api/registry/inspect; POST
// /api/render) and two of kiln's own (GET /api/registry/meta, /api/openapi.json); kiln's third,
// POST /api/lock/bases, is in lock-bases.ts. Each takes the parsed request and returns a Reply;
// errors are thrown (KilnError → JSON `{code, error}`, FrameworkError → text) and mapped in one
// place.
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { LRUCache } from "lru-cache";
import { configView } from "../core/config.ts";
import type { RenderInput } from "../core/context.ts";
import { KilnError } from "../core/errors.ts";
import { type RegistryItem, toItemView } from "../core/item.ts";
import { type Preset, presetSummary, presetView } from "../core/project/preset-manifest.ts";
import type { Registry } from "../core/registry.ts";
import {
  displayUrl,
  isRegistryReference,
  KILN_NAMESPACE,
  type RegistryConfig,
  UnknownNamespaceError,
} from "../core/registry-config.ts";
import type { RegistryIndex } from "../core/registry-index.ts";
import { searchResult } from "../core/registry-search.ts";
import { parseRenderRequest, type RenderRequest } from "../core/render-request.ts";
import { FrameworkError, MESSAGES } from "../core/wire-errors.ts";
import type { FetchLimits, FetchOptions } from "../node/fetch-url.ts";
import { RegistryClient, type SharedIndexes } from "../node/registry-client.ts";
import { searchSources } from "../node/registry-search.ts";
import { builtinFor, type Located, locateReference } from "../node/resolve-reference.ts";
import { readVersion } from "../node/version.ts";
import { itemMetaAnswer } from "../sandbox/item-meta-answer.ts";
import { parseJsonBody } from "../sandbox/json-body.ts";
import type { RenderPool } from "../sandbox/render-pool.ts";
import { isJsonContentType, readBody } from "./body.ts";
import type { Catalogue } from "./catalogue.ts";
import { type BytesInFlight, declaredLength, holdHeavy, LARGE_BODY_BYTES } from "./heavy-bodies.ts";
import { mayRenderInline, renderInline, renderSoon } from "./inline-render.ts";
import type { Readiness } from "./lifecycle.ts";
import {
  type PackagedKilnItems,
  packagedItemFor,
  packagedItemNamed,
} from "./packaged-kiln-items.ts";
import { type AnswerBody, RenderCache, renderReply } from "./render-cache.ts";
import { constant, JSON_TYPE, json, type Reply, text } from "./reply.ts";

export interface Services {
  catalogue: Catalogue;
  pool: RenderPool;
  /** Answers to render requests already computed, by body (built-in components only). */
  renderCache: RenderCache;
  /** Inspect answers of local item files, by file identity (see inspectCache). */
  inspectCache: LRUCache<string, Buffer>;
  /** Directory that relative file references resolve against. */
  cwd: string;
  fetchLimits: FetchLimits;
  /** Refuses fetch targets (the service's own address); see outbound.ts. */
  checkTarget: NonNullable<FetchOptions["checkTarget"]>;
  /** Bounds the fetches under way; see outbound.ts. */
  acquireFetch: NonNullable<FetchOptions["acquire"]>;
  /** The same bound, for fetches from the service's registries (counted apart by the metrics). */
  acquireRegistryFetch: NonNullable<FetchOptions["acquire"]>;
  maxBodyBytes: number;
  /** Bytes of heavy bodies (large render bodies, lock bases) and answers under way, bounded. */
  heavyBodies: BytesInFlight;
  /** The service's own registries (`kiln serve --config`), never a caller's. */
  registries: Map<string, RegistryConfig>;
  /** Starting, ready or draining: GET /api/ready's answer and the drain's connection closing. */
  readiness: Readiness;
  /** Their indexes, kept across requests for a while (see index-cache.ts); none: fetched each time. */
  registryIndexes: SharedIndexes | undefined;
  /** `@kiln`'s packaged items, preloaded in the render workers like the built-ins. */
  packagedKiln: PackagedKilnItems;
  /** `@kiln`'s index (a folder of the package), read once and kept for the service's life. */
  localIndexes: Map<string, Promise<RegistryIndex>>;
}

export class RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** The raw (still percent-encoded) path. */
  readonly path: string;
  /** The query string without `?`. */
  readonly search: string;
  /** Path parameters, percent-decoded. */
  readonly params: Record<string, string>;
  private parsedQuery: URLSearchParams | undefined;
  private clientGone: AbortController | undefined;

  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    search: string,
    params: Record<string, string>,
  ) {
    this.req = req;
    this.res = res;
    this.path = path;
    this.search = search;
    this.params = params;
  }

  /** Parsed on first use: only /api/registry/inspect reads its query. */
  get query(): URLSearchParams {
    this.parsedQuery ??= new URLSearchParams(this.search);
    return this.parsedQuery;
  }

  /**
   * Aborts when the client goes away before its answer is written (the connection closed):
   * fetches and queued renders for it are then dropped. Made on first use, by the handlers
   * that fetch or render.
   */
  get signal(): AbortSignal {
    if (!this.clientGone) {
      const controller = new AbortController();
      const res = this.res;
      res.once("close", () => {
        if (!res.writableFinished) controller.abort();
      });
      if (res.destroyed && !res.writableFinished) controller.abort();
      this.clientGone = controller;
    }
    return this.clientGone.signal;
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
// `kiln`: the version whose built-ins these are (kiln.lock's `source` of a built-in)
const registryMetaReply = once((registry: Registry) =>
  constantJson({ items: registry.items.map(itemMetaAnswer), kiln: readVersion() }),
);
const presetsReply = once((list: readonly Preset[]) =>
  constantJson({ presets: list.map(presetSummary) }),
);

export const health: Handler = () => HEALTH;

/**
 * The OpenAPI 3.1 description of this API, read once from the file shipped beside the server
 * (`contract/openapi.json`; the build copies it into dist/server). A test validates real
 * responses against it, so the two cannot drift apart silently.
 */
let openApiReply: Reply | undefined;
export const openApi: Handler = () => {
  openApiReply ??= constant({
    status: 200,
    headers: { "content-type": JSON_TYPE },
    body: readFileSync(new URL("./contract/openapi.json", import.meta.url)),
  });
  return openApiReply;
};

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

/**
 * What a reference names, read or fetched without blocking this thread; a stranger's item comes
 * back as bytes, to be parsed and validated in a render worker, never here.
 */
function locate(reference: string, ctx: RequestContext, services: Services): Promise<Located> {
  if (isRegistryReference(reference)) {
    const client = registryClient(ctx, services);
    // a packaged `@kiln` item is found without reading its file again; any other reference is
    // read, and one of `@kiln`'s packaged items, byte for byte, is the preloaded (trusted) one
    return packagedItemNamed(reference, services.packagedKiln, () =>
      client.readIndex(KILN_NAMESPACE),
    ).then((packaged) =>
      packaged
        ? { item: packaged }
        : client.itemBytes(reference).then(({ bytes, source }): Located => {
            const item = packagedItemFor(source, services.packagedKiln);
            return item ? { item } : { bytes, origin: reference };
          }, forTheService),
    );
  }
  return locateReference(reference, {
    registry: services.catalogue.registry(),
    cwd: services.cwd,
    fetchLimits: services.fetchLimits,
    signal: ctx.signal,
    checkTarget: services.checkTarget,
    acquire: services.acquireFetch,
  });
}

/**
 * A client of the service's own registries for one request: every request it makes goes
 * through the service's fetch rules (its own address refused, fetches under way bounded, the
 * fetch limits) and stops when the caller goes away. Nothing in the request chooses a registry
 * or its headers; a redirect to another origin is followed without them (fetch-url.ts).
 */
function registryClient(ctx: RequestContext, services: Services): RegistryClient {
  return new RegistryClient(services.cwd, {
    registries: services.registries,
    // the service writes no file, kiln's cache included: an item is fetched for each request,
    // an index at most once per freshness period (kept in memory)
    cache: false,
    ...(services.registryIndexes === undefined ? {} : { sharedIndexes: services.registryIndexes }),
    localIndexes: services.localIndexes,
    fetchOptions: {
      checkTarget: services.checkTarget,
      acquire: services.acquireRegistryFetch,
      limits: services.fetchLimits,
      signal: ctx.signal,
    },
  });
}

/**
 * A namespace the service was not started with: the CLI's advice (add it to kiln.toml) is no
 * help to a caller, who cannot add one; say where the service's registries come from instead.
 */
function forTheService(error: unknown): never {
  if (error instanceof UnknownNamespaceError) {
    throw new KilnError(
      error.kind,
      error.message,
      `configured: ${error.configured.join(", ")} - the service's registries are named when it starts (kiln serve --config <file>; GET /api/registries lists them), never by a request`,
    );
  }
  throw error;
}

/**
 * GET /api/registries: the registries the service resolves `@ns/item` through - @kiln (no URL:
 * it is read from the package) and the configured ones by namespace, each URL as messages show
 * it (user, password and query values from variables as `***`), never a header.
 */
export const registries: Handler = (_ctx, services) => registriesReply(services.registries);

/**
 * GET /api/registries' answer, made once: the service's registries are fixed when it starts, and
 * so is the environment their URLs' variables come from.
 */
const registriesReply = once((configured: Map<string, RegistryConfig>) => {
  const env = (name: string) => process.env[name];
  const listed = [...configured.values()]
    .filter((registry) => registry.namespace !== KILN_NAMESPACE)
    .sort((a, b) => (a.namespace < b.namespace ? -1 : 1))
    .map((registry: RegistryConfig) => ({
      namespace: registry.namespace,
      url: displayUrl(registry.url, env),
    }));
  return constantJson({ registries: [{ namespace: KILN_NAMESPACE, url: null }, ...listed] });
});

/** `?key=`: absent or once (a repeated key is the framework's 400, as for `ref`). */
function optionalQuery(query: URLSearchParams, key: string): string | undefined {
  return query.has(key) ? requiredQuery(query, key) : undefined;
}

/**
 * GET /api/search?q=&registry=: `kiln search`'s matching over the built-ins and the service's
 * registries; a registry that cannot be read is named in `failures`, the others still answer.
 */
export const search: Handler = async (ctx, services) => {
  const query = optionalQuery(ctx.query, "q") ?? "";
  const only = optionalQuery(ctx.query, "registry");
  const answer = await searchSources(
    registryClient(ctx, services),
    query,
    only === "" ? undefined : only,
    services.catalogue.registry(),
  ).catch(forTheService);
  return json(200, { results: answer.results.map(searchResult), failures: answer.failures });
};

/** A 200 JSON reply whose body a worker encoded. */
function jsonBytes(body: Buffer): Reply {
  return { status: 200, headers: { "content-type": JSON_TYPE }, body };
}

/** Bytes of inspect answers kept, and the largest one kept. */
export const INSPECT_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * Inspect answers of local item files, by the file's identity (device, inode, size, change
 * times): the same identity means the same bytes, so the same answer, without parsing again.
 * URL items are never kept (a URL may answer differently every time).
 */
export function inspectCache(): LRUCache<string, Buffer> {
  return new LRUCache<string, Buffer>({
    maxSize: INSPECT_CACHE_BYTES,
    maxEntrySize: INSPECT_CACHE_BYTES / 2,
    sizeCalculation: (body) => body.byteLength,
  });
}

export const inspect: Handler = async (ctx, services) => {
  const reference = requiredQuery(ctx.query, "ref");
  const located = await locate(reference, ctx, services);
  if (located.item) return json(200, toItemView(located.item));
  const { bytes, origin, identity } = located;
  const kept = identity === undefined ? undefined : services.inspectCache.get(identity);
  if (kept) return jsonBytes(kept);
  const body = await services.pool.inspectSource({ bytes, origin }, ctx.signal);
  if (identity !== undefined) services.inspectCache.set(identity, body);
  return jsonBytes(body);
};

/**
 * GET /api/registry/meta: kiln's catalogue metadata of every built-in (stage, editors, what each
 * component is for the checks), for the dashboard; with `?ref=`, of one item, resolved as
 * inspect resolves it. kiln's own route, so that GET /api/registry and /api/registry/inspect
 * keep exactly the keys clients expect. A stranger's item is parsed in a worker, never on this
 * thread.
 */
export const registryMeta: Handler = async (ctx, services) => {
  if (!ctx.query.has("ref")) return registryMetaReply(services.catalogue.registry());
  const reference = requiredQuery(ctx.query, "ref");
  const located = await locate(reference, ctx, services);
  if (located.item) return json(200, itemMetaAnswer(located.item));
  const { bytes, origin, identity } = located;
  // kept beside the inspect answers of the same file, under a key of its own
  const key = identity === undefined ? undefined : `meta:${identity}`;
  const kept = key === undefined ? undefined : services.inspectCache.get(key);
  if (kept) return jsonBytes(kept);
  const body = await services.pool.metaSource({ bytes, origin }, ctx.signal);
  if (key !== undefined) services.inspectCache.set(key, body);
  return jsonBytes(body);
};

export const render: Handler = (ctx, services) => {
  if (!isJsonContentType(ctx.req.headers["content-type"])) {
    throw new FrameworkError(415, MESSAGES.unsupportedMediaType);
  }
  // a body declared over LARGE_BODY_BYTES is heavy: held within the bound before it is read
  const declared = declaredLength(ctx);
  let holdMore =
    declared !== undefined && declared > LARGE_BODY_BYTES
      ? holdHeavy(ctx, services.heavyBodies, declared, services.maxBodyBytes)
      : undefined;
  return readBody(ctx.req, services.maxBodyBytes).then((bytes) => {
    if (!holdMore && bytes.byteLength > LARGE_BODY_BYTES) {
      // no declared length: held once it is known
      holdMore = holdHeavy(ctx, services.heavyBodies, bytes.byteLength, services.maxBodyBytes);
    }
    const answered = renderBody(bytes, ctx, services);
    if (!holdMore) return answered;
    const hold = holdMore;
    return Promise.resolve(answered).then((reply) => {
      hold(replyBytes(reply));
      return reply;
    });
  });
};

/** The bytes of a reply's body. */
function replyBytes(reply: Reply): number {
  const body = reply.body ?? "";
  return typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
}

/**
 * The answer to a render request's body: kept from an earlier identical request, shared with
 * one being rendered, or rendered now. Not an async function: a kept answer goes out without
 * further turns of the promise machinery.
 */
function renderBody(
  bytes: Buffer,
  ctx: RequestContext,
  services: Services,
): Reply | Promise<Reply> {
  const { renderCache } = services;
  const key = renderCache.enabled ? RenderCache.key(bytes) : undefined;
  const known = key === undefined ? undefined : renderCache.lookup(key);
  if (known) return known;
  if (bytes.byteLength > LARGE_BODY_BYTES) return renderLargeBody(bytes, key, ctx, services);
  const request = parseRenderRequest(parseJsonBody(bytes));
  return renderRequest(request, key, mayRenderInline(bytes.byteLength), ctx, services);
}

/** A large body's reference is not a built-in: it is resolved here, then rendered in a worker. */
class NotBuiltin {
  constructor(readonly reference: string) {}
}

/**
 * A large body, parsed in a worker and rendered there when it names a built-in (kept in the
 * render cache like any built-in's answer); a URL or file reference comes back alone, is
 * resolved as `renderRequest` resolves it, and the body goes to a worker again with its item,
 * never kept. The decoded body never reaches this thread.
 */
function renderLargeBody(
  bytes: Buffer,
  key: string | undefined,
  ctx: RequestContext,
  services: Services,
): Promise<Reply> {
  const { renderCache, pool } = services;
  const rendering = () =>
    pool.renderRequestBody(bytes).then((answer) => {
      if (Buffer.isBuffer(answer)) return answer;
      throw new NotBuiltin(answer.reference);
    });
  const rendered =
    key === undefined ? rendering().then(renderReply) : renderCache.remember(key, rendering);
  return rendered.catch((error: unknown) => {
    if (!(error instanceof NotBuiltin)) throw error;
    return locate(error.reference, ctx, services)
      .then((located) => {
        const item = located.item
          ? { item: located.item }
          : { source: { bytes: located.bytes, origin: located.origin } };
        return pool.renderRequestBody(bytes, item, ctx.signal);
      })
      .then((answer) => {
        if (!Buffer.isBuffer(answer))
          throw new KilnError("internal", "a located item was not rendered");
        return renderReply(answer);
      });
  });
}

/**
 * A built-in's answer rendered on this thread with the renders of this turn, or by a worker when
 * the compiled path declines it here. A render here is timed for the metrics as a worker's render
 * is (from the moment it is asked for, its wait included, as a worker's render counts its queue);
 * the timing and the fallback share one reaction to the render's promise.
 */
function renderBuiltinHere(
  builtin: RegistryItem,
  input: RenderInput,
  services: Services,
): Promise<AnswerBody> {
  const { pool } = services;
  const observe = pool.observeRender;
  const startedMs = observe === undefined ? 0 : performance.now();
  return renderSoon(() => renderInline(builtin, input, pool.options)).then(
    (rendered): AnswerBody | Promise<AnswerBody> => {
      if (rendered === undefined) return pool.renderJson(builtin, input);
      observe?.((performance.now() - startedMs) / 1000, false);
      return rendered;
    },
    observe === undefined
      ? undefined
      : (error: unknown) => {
          observe((performance.now() - startedMs) / 1000, true);
          throw error;
        },
  );
}

/**
 * The answer to a decoded render request (`key`: its render-cache key, if the cache is on;
 * `inline`: a built-in may render on this thread, see inline-render.ts).
 */
function renderRequest(
  request: RenderRequest,
  key: string | undefined,
  inline: boolean,
  ctx: RequestContext,
  services: Services,
): Reply | Promise<Reply> {
  const { renderCache, pool } = services;
  const input = {
    name: request.name,
    fields: request.fields,
    labels: request.labels,
    defaultNamespace: request.defaultNamespace,
    automationProfile: request.automationProfile,
  };
  const registry = services.catalogue.registry();
  // A built-in's answer depends on the body alone, so it is kept (see render-cache.ts); URLs
  // and files are resolved, and rendered, every time.
  const builtin = builtinFor(request.reference, registry);
  if (builtin) {
    // not cancelled with its client: an answer being kept may be shared with other requests
    const rendering = inline
      ? () => renderBuiltinHere(builtin, input, services)
      : () => pool.renderJson(builtin, input);
    return key === undefined ? rendering().then(renderReply) : renderCache.remember(key, rendering);
  }
  return locate(request.reference, ctx, services)
    .then((located) =>
      located.item
        ? pool.renderJson(located.item, input, ctx.signal)
        : pool.renderSource({ bytes: located.bytes, origin: located.origin }, input, ctx.signal),
    )
    .then(renderReply);
}
