// Cross-origin rules, the same for all endpoints:
// - with no configured origins, any origin whose host is exactly `localhost`, `127.0.0.1` or
//   `[::1]` is allowed, any scheme and port; `null`, `http://localhost.evil.com` are not;
// - with configured origins, exactly those (whole-string match) and nothing else;
// - an allowed origin is echoed in `access-control-allow-origin`; a refused one gets no such
//   header but the request is still processed; every response carries `vary: origin`;
// - a preflight is an OPTIONS request with both `Origin` and `Access-Control-Request-Method`.
import type { IncomingMessage } from "node:http";
import type { Reply } from "./reply.ts";

export const ALLOWED_METHODS = "GET,POST";
export const ALLOWED_HEADERS = "content-type";

const LOOPBACK_ORIGIN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::\d*)?$/;

export function isLoopbackOrigin(origin: string): boolean {
  return LOOPBACK_ORIGIN.test(origin);
}

export class CorsPolicy {
  private readonly listed: ReadonlySet<string>;

  constructor(allowedOrigins: readonly string[]) {
    this.listed = new Set(allowedOrigins);
  }

  isAllowed(origin: string): boolean {
    return this.listed.size > 0 ? this.listed.has(origin) : isLoopbackOrigin(origin);
  }
}

export function isPreflight(req: IncomingMessage): boolean {
  return (
    req.method === "OPTIONS" &&
    req.headers.origin !== undefined &&
    req.headers["access-control-request-method"] !== undefined
  );
}

/** 200 with the allowed methods and headers and an empty body (the origin is added later). */
export function preflightReply(): Reply {
  return {
    status: 200,
    headers: {
      "access-control-allow-methods": ALLOWED_METHODS,
      "access-control-allow-headers": ALLOWED_HEADERS,
    },
  };
}
