// The HTTP service. Built on node:http directly: eleven routes (routes.ts), exact status lines,
// header names and text bodies are the whole requirement, and a framework would add its own
// defaults (headers, error bodies, body parsing) that we would then have to undo. The pieces
// live in their own modules: routes, cors, host-guard, body, http-errors, render-pool, and
// metrics and request-log (GET /metrics, one log line per request; loaded only when asked for).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorMessage } from "../core/errors.ts";
import type { Preset } from "../core/project/preset-manifest.ts";
import type { Registry } from "../core/registry.ts";
import type { RegistryConfig } from "../core/registry-config.ts";
import {
  DEFAULT_BIND,
  DEFAULT_INDEX_FRESHNESS_S,
  DEFAULT_PORT,
  DEFAULT_RENDER_CACHE_BYTES,
  type LogFormat,
} from "../core/service-settings.ts";
import { DEFAULT_FETCH_LIMITS, type FetchLimits } from "../node/fetch-url.ts";
import {
  DEFAULT_POOL_OPTIONS,
  RenderPool,
  type RenderPoolOptions,
} from "../sandbox/render-pool.ts";
import { DEFAULT_MAX_BODY_BYTES } from "./body.ts";
import { type Catalogue, catalogue } from "./catalogue.ts";
import { CorsPolicy, isPreflight, preflightReply } from "./cors.ts";
import { inspectCache, RequestContext, type Services } from "./handlers.ts";
import { BytesInFlight } from "./heavy-bodies.ts";
import { HostGuard } from "./host-guard.ts";
import { errorReply } from "./http-errors.ts";
import {
  DEFAULT_IDLE_COLLECTOR,
  IdleCollector,
  type IdleCollectorOptions,
} from "./idle-collector.ts";
import { serviceIndexCache } from "./index-cache.ts";
import { Readiness } from "./lifecycle.ts";
import type { ServiceMetrics } from "./metrics.ts";
import {
  DEFAULT_OUTBOUND_LIMITS,
  FetchSlots,
  type OutboundLimits,
  refuseOwnAddress,
} from "./outbound.ts";
import { readPackagedKilnItems } from "./packaged-kiln-items.ts";
import { RenderCache } from "./render-cache.ts";
import { empty, type Reply } from "./reply.ts";
import type { RequestLog } from "./request-log.ts";
import { type Match, matchRoute } from "./routes.ts";
import { defaultUiDir, serveUi } from "./static-ui.ts";

/**
 * The method and route the log and the metrics give an answer Node's own HTTP parser gave (400
 * for a request it cannot parse, 408 for headers that took too long) before any request reached
 * the service: nothing of the request is known, and a label holds only bounded values.
 */
const UNPARSED = "(unparsed)";

export interface ServerTimeouts {
  /** Time allowed to receive the request headers (slow-loris guard). */
  headersMs: number;
  /** Time allowed to receive the whole request, body included. */
  requestMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveMs: number;
  /** On close: how long in-flight requests may take before connections are cut. */
  shutdownGraceMs: number;
}

export const DEFAULT_TIMEOUTS: ServerTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  shutdownGraceMs: 10_000,
};

export interface ServerOptions {
  bind?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Exact origins allowed; empty: any loopback origin. */
  allowedOrigins?: readonly string[];
  /** Host names accepted besides the loopback ones while bound to loopback. */
  allowedHosts?: readonly string[];
  /** Serve the dashboard: true for dist/web, or a folder. */
  ui?: boolean | string;
  /** Defaults to the built-in registry. */
  registry?: Registry;
  /** The namespaced registries `@ns/item` references resolve through; default: only @kiln. */
  registries?: Map<string, RegistryConfig>;
  /** Defaults to the built-in preset templates. */
  presets?: readonly Preset[];
  /** Directory relative file references resolve against; default: process.cwd(). */
  cwd?: string;
  fetchLimits?: FetchLimits;
  /** Bounds on the fetches under way at once (registry items from URLs). */
  outbound?: Partial<OutboundLimits>;
  maxBodyBytes?: number;
  render?: Partial<Omit<RenderPoolOptions, "preloadedItems">>;
  /** Bytes kept of answers to repeated render requests (see render-cache.ts); 0: none. */
  renderCacheBytes?: number;
  /** How long a fetched registry index is used before it is fetched again; 0: not kept. */
  indexFreshnessMs?: number;
  timeouts?: Partial<ServerTimeouts>;
  /** When the HTTP thread's heap is collected after a burst (see idle-collector.ts). */
  idleCollector?: Partial<IdleCollectorOptions>;
  /** Where unexpected errors are reported; default: stderr. */
  log?: (message: string) => void;
  /**
   * Called with the URL once the socket listens, before any request is answered (the render
   * workers may still be starting: /api/ready says 503 until they are up).
   */
  onListening?: (url: string) => void;
  /** GET /api/ready's phase, when the caller drains on signals (lifecycle.ts); default: own. */
  readiness?: Readiness;
  /** Serve GET /metrics and count for it (metrics.ts); default: off. */
  metrics?: boolean;
  /** One line per request on stdout in this format (request-log.ts); default: none. */
  requestLog?: LogFormat;
}

export interface RunningServer {
  /** `http://<bind>:<port>` with the real port. */
  url: string;
  bind: string;
  port: number;
  pool: RenderPool;
  renderCache: RenderCache;
  /** Inspect answers of local item files, by file identity. */
  inspectCache: Services["inspectCache"];
  /** Bytes of heavy bodies (large render bodies, lock bases) and answers under way. */
  heavyBodies: BytesInFlight;
  idleCollector: IdleCollector;
  /** The fetches the service makes for its callers: how many are under way and waiting. */
  fetchSlots: Pick<FetchSlots, "underWay" | "waiting">;
  /** GET /api/ready's phase: starting, ready, draining. */
  readiness: Readiness;
  /**
   * Stops accepting, closes idle connections, lets in-flight requests finish (cut after
   * `graceMs`, default the shutdown grace of the time-outs), stops the render workers.
   */
  close(graceMs?: number): Promise<void>;
}

/** Where the metrics are served, beside the API (where Prometheus looks by default). */
export const METRICS_PATH = "/metrics";

/** The request target: origin-form (`/path?query`) or absolute-form (`http://host/path`). */
function parseTarget(target: string): { path: string; search: string; authority?: string } {
  if (target.startsWith("/")) {
    const mark = target.indexOf("?");
    return mark === -1
      ? { path: target, search: "" }
      : { path: target.slice(0, mark), search: target.slice(mark + 1) };
  }
  try {
    const url = new URL(target);
    if (url.protocol === "http:" || url.protocol === "https:") {
      return { path: url.pathname, search: url.search.slice(1), authority: url.host };
    }
  } catch {
    // fall through: an unparsable target is an unknown path
  }
  return { path: target, search: "" };
}

/**
 * The header list of a constant reply with the request's id added, made in one reused array:
 * writeHead turns the list into the response's header text before it returns and keeps no
 * reference to it, so no list is copied or allocated per request.
 */
const withRequestId: (string | number)[] = [];

/**
 * Writes a reply with the cross-origin headers. The headers go to writeHead as one flat list
 * (no object spread, no per-header setHeader), in the order: the reply's own, `vary`,
 * `access-control-allow-origin` for an allowed origin, `content-length`, `x-request-id` when the
 * service logs requests, `connection: close`.
 * The reply itself is not changed, so constant replies can be shared between requests.
 */
function write(
  res: ServerResponse,
  reply: Reply,
  origin: string | undefined,
  cors: CorsPolicy,
  closeAfter: boolean,
  requestId: string | undefined,
): void {
  if (res.headersSent || res.destroyed) return;
  const body = reply.body ?? "";
  if (origin === undefined && reply.noOriginHeaders && !closeAfter) {
    const shared = reply.noOriginHeaders as (string | number)[];
    if (requestId === undefined) {
      res.writeHead(reply.status, shared);
    } else {
      let at = 0;
      for (const header of shared) withRequestId[at++] = header;
      withRequestId[at++] = "x-request-id";
      withRequestId[at++] = requestId;
      withRequestId.length = at;
      res.writeHead(reply.status, withRequestId);
    }
    res.end(body);
    return;
  }
  const headers: (string | number)[] = [];
  const own = reply.headers;
  for (const name in own) headers.push(name, own[name] as string);
  headers.push("vary", "origin");
  if (origin !== undefined && cors.isAllowed(origin)) {
    headers.push("access-control-allow-origin", origin);
  }
  headers.push(
    "content-length",
    typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
  );
  if (requestId !== undefined) headers.push("x-request-id", requestId);
  if (closeAfter) headers.push("connection", "close");
  res.writeHead(reply.status, headers);
  res.end(body);
}

/** How often Node checks the header and request time-outs: they fire at most this late. */
export function timeoutCheckInterval(timeouts: ServerTimeouts): number {
  return Math.max(
    10,
    Math.min(1_000, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 10)),
  );
}

function formatUrl(bind: string, port: number): string {
  const host = bind.includes(":") && !bind.startsWith("[") ? `[${bind}]` : bind;
  return `http://${host}:${port}`;
}

export function createHandler(
  services: Services,
  options: {
    cors: CorsPolicy;
    hostGuard: HostGuard;
    uiDir: string | undefined;
    log: (message: string) => void;
    idleCollector?: IdleCollector;
    metrics?: ServiceMetrics | undefined;
    requestLog?: RequestLog | undefined;
  },
): (req: IncomingMessage, res: ServerResponse) => void {
  const { cors, hostGuard, uiDir, log, idleCollector, metrics, requestLog } = options;
  const readiness = services.readiness;
  const observing = metrics !== undefined || requestLog !== undefined;
  /** What logs and metrics call a path: its route's pattern, never the path itself. */
  const routeLabel = (method: string, path: string, match: Match): string =>
    match.kind !== "not-found"
      ? match.pattern
      : metrics !== undefined && path === METRICS_PATH
        ? METRICS_PATH
        : uiDir !== undefined && (method === "GET" || method === "HEAD")
          ? "ui"
          : "unmatched";
  // Synchronous as far as the handler is: the GET routes answer without a promise, a turn of
  // the microtask queue or a closure per request; only async handlers (render, inspect) and
  // the dashboard's files go through promises.
  const answer = (
    req: IncomingMessage,
    res: ServerResponse,
    target: ReturnType<typeof parseTarget>,
    method: string,
    match: Match,
  ): Reply | Promise<Reply> => {
    const refused = hostGuard.check(req.headers.host, target.authority);
    if (refused) return refused;
    if (method === "OPTIONS" && isPreflight(req)) return preflightReply();
    if (metrics !== undefined && target.path === METRICS_PATH) return metrics.reply(method);
    if (match.kind === "handler") {
      return match.handler(
        new RequestContext(req, res, target.path, target.search, match.params),
        services,
      );
    }
    if (match.kind === "method-not-allowed") return empty(405, { allow: match.allow });
    if (uiDir !== undefined && (method === "GET" || method === "HEAD")) {
      return serveUi(uiDir, target.path, req.headers.accept).then((file) => file ?? empty(404));
    }
    return empty(404);
  };
  return (req, res) => {
    if (idleCollector) idleCollector.requests += 1;
    const origin = req.headers.origin;
    const target = parseTarget(req.url ?? "/");
    const startedMs = observing ? performance.now() : 0;
    const id = requestLog?.id(req.headers["x-request-id"]);
    const method = req.method ?? "GET";
    // matched once: the handler and, when observing, the route's name in the log and metrics
    const match = matchRoute(method, target.path);
    let reply: Reply | Promise<Reply>;
    try {
      reply = answer(req, res, target, method, match);
    } catch (error) {
      reply = errorReply(error, log);
    }
    const send = (ready: Reply): void => {
      try {
        // while draining, every answer ends its keep-alive connection, so clients reconnect
        // (through their load balancer, to another replica) instead of reusing this one
        write(res, ready, origin, cors, ready.close === true || readiness.draining, id);
      } catch (error) {
        log(`kiln: could not write a response: ${errorMessage(error)}`);
        res.destroy();
      }
      if (!observing) return;
      const answered = {
        method,
        route: routeLabel(method, target.path, match),
        status: ready.status,
        seconds: (performance.now() - startedMs) / 1000,
        rejected: ready.rejected,
      };
      metrics?.answered(answered);
      if (id !== undefined) requestLog?.request(id, answered);
    };
    if (reply instanceof Promise) {
      reply.then(send, (error: unknown) => send(errorReply(error, log)));
    } else {
      send(reply);
    }
  };
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const bind = options.bind ?? DEFAULT_BIND;
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const data: Catalogue = catalogue(options);
  let preloadedItems: RegistryItemList = [];
  try {
    preloadedItems = data.registry().items;
  } catch (error) {
    log(`kiln: warning: ${errorMessage(error)}`);
  }
  const packagedKiln = await readPackagedKilnItems(log);
  const pool = new RenderPool({
    ...DEFAULT_POOL_OPTIONS,
    ...options.render,
    preloadedItems,
    packagedItems: [...packagedKiln.values()],
  });
  const renderCache = new RenderCache({
    maxBytes: options.renderCacheBytes ?? DEFAULT_RENDER_CACHE_BYTES,
  });
  let listeningPort = -1;
  // loaded only when asked for: prom-client and pino stay out of a service started without them
  const metrics = options.metrics
    ? new (await import("./metrics.ts")).ServiceMetrics({ pool, renderCache })
    : undefined;
  if (metrics) pool.observeRender = metrics.observeRender;
  const requestLog =
    options.requestLog === undefined
      ? undefined
      : (await import("./request-log.ts")).requestLog(options.requestLog);
  const fetchSlots = new FetchSlots({ ...DEFAULT_OUTBOUND_LIMITS, ...options.outbound });
  const services: Services = {
    catalogue: data,
    pool,
    renderCache,
    inspectCache: inspectCache(),
    cwd: options.cwd ?? process.cwd(),
    fetchLimits: options.fetchLimits ?? DEFAULT_FETCH_LIMITS,
    checkTarget: refuseOwnAddress(() => listeningPort),
    acquireFetch: metrics?.countFetches("url", fetchSlots.acquire) ?? fetchSlots.acquire,
    acquireRegistryFetch:
      metrics?.countFetches("registry", fetchSlots.acquire) ?? fetchSlots.acquire,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    heavyBodies: new BytesInFlight(),
    registries: options.registries ?? new Map(),
    readiness: options.readiness ?? new Readiness(),
    registryIndexes: serviceIndexCache(
      options.indexFreshnessMs ?? DEFAULT_INDEX_FRESHNESS_S * 1000,
    ),
    packagedKiln,
    localIndexes: new Map(),
  };
  const uiDir =
    options.ui === true ? defaultUiDir() : typeof options.ui === "string" ? options.ui : undefined;
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  // once quiet, the render cache is emptied before the heap is looked at (see RenderCache.clear)
  const idleCollector = new IdleCollector({
    ...DEFAULT_IDLE_COLLECTOR,
    onQuiet: () => renderCache.clear(),
    ...options.idleCollector,
  });
  const hostGuard = new HostGuard(bind, options.allowedHosts ?? []);
  const server: Server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      // Node checks these time-outs every 30 s by default, so they fired up to 30 s late; a
      // check every second (or a tenth of the shortest time-out) keeps the documented limits.
      connectionsCheckingInterval: timeoutCheckInterval(timeouts),
    },
    createHandler(services, {
      cors: new CorsPolicy(options.allowedOrigins ?? []),
      hostGuard,
      uiDir,
      log,
      idleCollector,
      metrics,
      requestLog,
    }),
  );
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    // Malformed requests, header time-outs: answer 400/408 the way node does, without a body.
    if (!socket.writable) return socket.destroy();
    const status = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    socket.end(
      `HTTP/1.1 ${status} ${status === 408 ? "Request Timeout" : "Bad Request"}\r\nvary: origin\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`,
    );
    // an answer like any other for the log and the counts; nothing of the request is known
    const answered = { method: UNPARSED, route: UNPARSED, status, seconds: undefined };
    metrics?.answered({ ...answered, rejected: undefined });
    requestLog?.request(requestLog.id(undefined), { ...answered, rejected: undefined });
  });
  try {
    // The socket first, then the workers: a probe sees `starting` (503 on /api/ready) instead of
    // a refused connection, and /api/health answers. From the listen callback to the caller's
    // start-up line (onListening) there is no turn of the event loop, so no request is answered
    // before that line.
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? DEFAULT_PORT, bind, () => {
        server.off("error", reject);
        const listening = server.address() as AddressInfo;
        listeningPort = listening.port;
        hostGuard.listening(listening.address);
        options.onListening?.(formatUrl(bind, listening.port));
        resolve();
      });
    });
    await pool.ready();
    services.readiness.started();
  } catch (error) {
    idleCollector.stop();
    if (server.listening) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await pool.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const close = (graceMs = timeouts.shutdownGraceMs): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      const cut = setTimeout(() => server.closeAllConnections(), graceMs);
      server.close(() => {
        clearInterval(idle);
        clearTimeout(cut);
        resolve();
      });
      server.closeIdleConnections();
    }).then(() => {
      idleCollector.stop();
      // the last answers' log lines, before the process exits
      requestLog?.flush();
      return pool.close();
    });
    return closing;
  };
  return {
    url: formatUrl(bind, port),
    bind,
    port,
    pool,
    renderCache,
    inspectCache: services.inspectCache,
    heavyBodies: services.heavyBodies,
    idleCollector,
    fetchSlots,
    readiness: services.readiness,
    close,
  };
}

type RegistryItemList = Registry["items"];
