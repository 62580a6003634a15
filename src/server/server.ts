// The HTTP service. Built on node:http directly: eleven routes (routes.ts), exact status lines,
// header names and text bodies are the whole requirement, and a framework would add its own
// defaults (headers, error bodies, body parsing) that we would then have to undo. The pieces
// live in their own modules: routes, cors, host-guard, body, http-errors, render-pool.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorMessage } from "../core/errors.ts";
import type { Preset } from "../core/project/preset-manifest.ts";
import type { Registry } from "../core/registry.ts";
import type { RegistryConfig } from "../core/registry-config.ts";
import {
  DEFAULT_BIND,
  DEFAULT_PORT,
  DEFAULT_RENDER_CACHE_BYTES,
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
import {
  DEFAULT_OUTBOUND_LIMITS,
  FetchSlots,
  type OutboundLimits,
  refuseOwnAddress,
} from "./outbound.ts";
import { readPackagedKilnItems } from "./packaged-kiln-items.ts";
import { RenderCache } from "./render-cache.ts";
import { empty, type Reply } from "./reply.ts";
import { matchRoute } from "./routes.ts";
import { defaultUiDir, serveUi } from "./static-ui.ts";

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
  timeouts?: Partial<ServerTimeouts>;
  /** When the HTTP thread's heap is collected after a burst (see idle-collector.ts). */
  idleCollector?: Partial<IdleCollectorOptions>;
  /** Where unexpected errors are reported; default: stderr. */
  log?: (message: string) => void;
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
  /** Stops accepting, lets in-flight requests finish, stops the render workers. */
  close(): Promise<void>;
}

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
 * Writes a reply with the cross-origin headers. The headers go to writeHead as one flat list
 * (no object spread, no per-header setHeader), in the order: the reply's own, `vary`,
 * `access-control-allow-origin` for an allowed origin, `content-length`, `connection: close`.
 * The reply itself is not changed, so constant replies can be shared between requests.
 */
function write(
  res: ServerResponse,
  reply: Reply,
  origin: string | undefined,
  cors: CorsPolicy,
): void {
  if (res.headersSent || res.destroyed) return;
  const body = reply.body ?? "";
  if (origin === undefined && reply.noOriginHeaders && !reply.close) {
    res.writeHead(reply.status, reply.noOriginHeaders as (string | number)[]);
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
  if (reply.close) headers.push("connection", "close");
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
  },
): (req: IncomingMessage, res: ServerResponse) => void {
  const { cors, hostGuard, uiDir, log, idleCollector } = options;
  // Synchronous as far as the handler is: the GET routes answer without a promise, a turn of
  // the microtask queue or a closure per request; only async handlers (render, inspect) and
  // the dashboard's files go through promises.
  const answer = (req: IncomingMessage, res: ServerResponse): Reply | Promise<Reply> => {
    const target = parseTarget(req.url ?? "/");
    const refused = hostGuard.check(req.headers.host, target.authority);
    if (refused) return refused;
    const method = req.method ?? "GET";
    if (method === "OPTIONS" && isPreflight(req)) return preflightReply();
    const match = matchRoute(method, target.path);
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
    let reply: Reply | Promise<Reply>;
    try {
      reply = answer(req, res);
    } catch (error) {
      reply = errorReply(error, log);
    }
    const send = (ready: Reply): void => {
      try {
        write(res, ready, origin, cors);
      } catch (error) {
        log(`kiln: could not write a response: ${errorMessage(error)}`);
        res.destroy();
      }
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
  const packagedKiln = readPackagedKilnItems(log);
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
  const services: Services = {
    catalogue: data,
    pool,
    renderCache,
    inspectCache: inspectCache(),
    cwd: options.cwd ?? process.cwd(),
    fetchLimits: options.fetchLimits ?? DEFAULT_FETCH_LIMITS,
    checkTarget: refuseOwnAddress(() => listeningPort),
    acquireFetch: new FetchSlots({ ...DEFAULT_OUTBOUND_LIMITS, ...options.outbound }).acquire,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    heavyBodies: new BytesInFlight(),
    registries: options.registries ?? new Map(),
    packagedKiln,
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
    }),
  );
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    // Malformed requests, header time-outs: answer 400/408 the way node does, without a body.
    if (!socket.writable) return socket.destroy();
    const status = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    socket.end(
      `HTTP/1.1 ${status} ${status === 408 ? "Request Timeout" : "Bad Request"}\r\nvary: origin\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`,
    );
  });
  try {
    // The workers first, then the socket: from its listen callback to the caller's start-up
    // line there is no turn of the event loop, so no request is answered before that line.
    await pool.ready();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? DEFAULT_PORT, bind, () => {
        server.off("error", reject);
        const listening = server.address() as AddressInfo;
        listeningPort = listening.port;
        hostGuard.listening(listening.address);
        resolve();
      });
    });
  } catch (error) {
    idleCollector.stop();
    await pool.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      const cut = setTimeout(() => server.closeAllConnections(), timeouts.shutdownGraceMs);
      server.close(() => {
        clearInterval(idle);
        clearTimeout(cut);
        resolve();
      });
      server.closeIdleConnections();
    }).then(() => {
      idleCollector.stop();
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
    close,
  };
}

type RegistryItemList = Registry["items"];
