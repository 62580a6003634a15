// The route table: eight routes, matched on the raw path. GET routes also answer HEAD; another
// method on a known path is 405 with `allow`; an unknown path is 404 with an empty body.

import type { Handler } from "./handlers.ts";
import * as handlers from "./handlers.ts";

interface Route {
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
  return { pattern: new RegExp(`^${source}$`), params, method, handler };
};

export const ROUTES: readonly Route[] = [
  route("/api/health", "GET", handlers.health),
  route("/api/components", "GET", handlers.components),
  route("/api/registry", "GET", handlers.registry),
  route("/api/config", "GET", handlers.config),
  route("/api/presets", "GET", handlers.presets),
  route("/api/presets/{name}", "GET", handlers.preset),
  route("/api/registry/inspect", "GET", handlers.inspect),
  route("/api/render", "POST", handlers.render),
];

export type Match =
  | { kind: "handler"; handler: Handler; params: Record<string, string> }
  | { kind: "method-not-allowed"; allow: string }
  | { kind: "not-found" };

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function matchRoute(method: string, path: string): Match {
  for (const candidate of ROUTES) {
    const found = candidate.pattern.exec(path);
    if (!found) continue;
    const allowed =
      candidate.method === method || (candidate.method === "GET" && method === "HEAD");
    if (!allowed) {
      return {
        kind: "method-not-allowed",
        allow: candidate.method === "GET" ? "GET,HEAD" : "POST",
      };
    }
    const params: Record<string, string> = {};
    candidate.params.forEach((name, index) => {
      params[name] = decode(found[index + 1] as string);
    });
    return { kind: "handler", handler: candidate.handler, params };
  }
  return { kind: "not-found" };
}
