// The route table: the eight routes that clients depend on (GET /api/health,
// /api/components, /api/registry, /api/config, /api/presets, /api/presets/{name},
// /api/registry/inspect; POST /api/render) and kiln's own (GET /api/ready, /api/registry/meta,
// /api/openapi.json, /api/registries, /api/search; POST /api/lock/bases), matched on the raw path. GET routes also answer
// HEAD; another method on a known path is 405 with `allow`; an unknown path is 404 with an
// empty body.

import type { Handler } from "./handlers.ts";
import * as handlers from "./handlers.ts";
import { ready } from "./lifecycle.ts";
import { lockBases } from "./lock-bases.ts";

interface Route {
  path: string;
  pattern: RegExp;
  /** Names of the pattern's capture groups, in order. */
  params: string[];
  method: "GET" | "POST";
  handler: Handler;
}

const route = (path: string, method: Route["method"], handler: Handler): Route => {
  const params: string[] = [];
  const source = path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    params.push(name);
    return "([^/]+)";
  });
  return { path, pattern: new RegExp(`^${source}$`), params, method, handler };
};

export const ROUTES: readonly Route[] = [
  route("/api/health", "GET", handlers.health),
  route("/api/ready", "GET", ready),
  route("/api/components", "GET", handlers.components),
  route("/api/registry", "GET", handlers.registry),
  route("/api/config", "GET", handlers.config),
  route("/api/presets", "GET", handlers.presets),
  route("/api/presets/{name}", "GET", handlers.preset),
  route("/api/registry/inspect", "GET", handlers.inspect),
  route("/api/registry/meta", "GET", handlers.registryMeta),
  route("/api/openapi.json", "GET", handlers.openApi),
  route("/api/registries", "GET", handlers.registries),
  route("/api/search", "GET", handlers.search),
  route("/api/render", "POST", handlers.render),
  route("/api/lock/bases", "POST", lockBases),
];

/** Routes without parameters, by exact path: most requests are found with one lookup. */
const STATIC_ROUTES = new Map(
  ROUTES.filter((candidate) => candidate.params.length === 0).map((candidate) => [
    candidate.path,
    candidate,
  ]),
);
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * What a request's method and path fall on. `pattern`: the route's (`/api/presets/{name}` for
 * `/api/presets/web`), what logs and metrics name a request by: a bounded set of values that
 * holds no value a caller sent.
 */
export type Match =
  | { kind: "handler"; handler: Handler; params: Record<string, string>; pattern: string }
  | { kind: "method-not-allowed"; allow: string; pattern: string }
  | { kind: "not-found" };

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function allowedOn(candidate: Route, method: string): Match | undefined {
  const allowed = candidate.method === method || (candidate.method === "GET" && method === "HEAD");
  if (allowed) return undefined;
  return {
    kind: "method-not-allowed",
    allow: candidate.method === "GET" ? "GET,HEAD" : "POST",
    pattern: candidate.path,
  };
}

export function matchRoute(method: string, path: string): Match {
  const exact = STATIC_ROUTES.get(path);
  if (exact)
    return (
      allowedOn(exact, method) ?? {
        kind: "handler",
        handler: exact.handler,
        params: NO_PARAMS,
        pattern: exact.path,
      }
    );
  for (const candidate of ROUTES) {
    const found = candidate.pattern.exec(path);
    if (!found) continue;
    const refused = allowedOn(candidate, method);
    if (refused) return refused;
    const params: Record<string, string> = {};
    candidate.params.forEach((name, index) => {
      params[name] = decode(found[index + 1] as string);
    });
    return { kind: "handler", handler: candidate.handler, params, pattern: candidate.path };
  }
  return { kind: "not-found" };
}
