// What a handler answers: a status, headers and an optional body. Handlers return a Reply and
// never touch the socket; the server adds the cross-origin headers (`vary: origin` on every
// response) and writes it, so every answer, errors included, passes through one place.

/** Why a request was refused before any work (counted by the metrics, see metrics.ts). */
export type RejectionReason = "body_too_large" | "host_refused" | "overloaded";

export interface Reply {
  status: number;
  headers: Record<string, string>;
  /** Absent for empty bodies (404, 405, preflight); `content-length: 0` is sent then. */
  body?: string | Buffer;
  /** Close the connection after this response (used after an oversized body). */
  close?: boolean;
  /** Set on a refusal before any work: a body over the limit, a refused Host, overload. */
  rejected?: RejectionReason;
  /**
   * For a constant reply (see `constant`): the complete header list of a request without
   * `Origin`, computed once.
   */
  readonly noOriginHeaders?: readonly (string | number)[];
}

/**
 * Marks a reply as constant: it is shared by every request, never changed, and its header list
 * for requests without `Origin` (most of them) is built once.
 */
export function constant(reply: Reply): Reply {
  const body = reply.body ?? "";
  const headers: (string | number)[] = [];
  for (const name in reply.headers) headers.push(name, reply.headers[name] as string);
  headers.push(
    "vary",
    "origin",
    "content-length",
    typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
  );
  // Object.assign, not a spread: a spread object then frozen cost about 1 us (measured), and
  // every render answer is made a constant reply (render-cache.ts's renderReply), kept or not
  return Object.freeze(Object.assign({}, reply, { noOriginHeaders: Object.freeze(headers) }));
}

export const TEXT = "text/plain; charset=utf-8";
export const JSON_TYPE = "application/json";

export function text(status: number, body: string): Reply {
  return { status, headers: { "content-type": TEXT }, body };
}

export function json(status: number, value: unknown): Reply {
  return { status, headers: { "content-type": JSON_TYPE }, body: JSON.stringify(value) };
}

export function empty(status: number, headers: Record<string, string> = {}): Reply {
  return { status, headers };
}
