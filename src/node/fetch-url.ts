// Fetching registry items and presets from URLs, with these limits: http and https only, at
// most 5 redirects, one overall deadline (10 s), a cap on the body size (10 MiB). A caller
// may add its own stop (the client that asked has gone) and a check of every address the
// fetch goes to, redirects included (the service refuses to fetch itself). Headers a caller
// sends (a registry's token) go only to the origin it asked: a redirect to another origin
// (scheme, host or port) is followed without any of them.
//
// An offline run (src/node/network-mode.ts) fetches nothing. With HTTPS_PROXY, HTTP_PROXY or
// their lowercase forms set, every request goes through that proxy (NO_PROXY's hosts aside)
// with undici's EnvHttpProxyAgent, which tunnels each request with CONNECT: the proxy sees the
// host and port asked for, and an https request's headers stay inside its TLS. undici is loaded
// only then: requiring it takes longer than a whole `kiln add`. Without a proxy the requests go
// through node:http and node:https, not Node's own fetch: fetch is undici inside Node, and its
// first use costs 40-45 ms (loading undici and compiling its WASM HTTP parser) against 15 ms for
// node:http, which parses in C++. Both ways keep the same rules: the redirects are kiln's (one
// request at a time, never followed by the transport), the body is read within the size cap,
// a compressed body is decoded within it too, and the default TLS verification of Node applies.
import type { IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import { errorMessage, KilnError } from "../core/errors.ts";
import { isOffline } from "./network-mode.ts";

export interface FetchLimits {
  timeoutMs: number;
  maxRedirects: number;
  maxBytes: number;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = {
  timeoutMs: 10_000,
  maxRedirects: 5,
  maxBytes: 10 * 1024 * 1024,
};

export interface FetchOptions {
  limits?: FetchLimits | undefined;
  /**
   * Stops the fetch early (besides the deadline), e.g. when the client that asked has gone. A
   * FetchFailure as the signal's reason is the failure's reason.
   */
  signal?: AbortSignal | undefined;
  /**
   * Called before each request, the first and every redirect: throws a FetchFailure to refuse
   * the target. May look the host up (async).
   */
  checkTarget?: ((target: URL) => void | Promise<void>) | undefined;
  /**
   * Waits for a place among the caller's fetches under way (a bound on concurrent outbound
   * fetches) and resolves with the function that gives it back; may throw a FetchFailure.
   */
  acquire?: ((signal: AbortSignal) => Promise<() => void>) | undefined;
  /** Request headers (a registry's Authorization), sent only to the first URL's origin. */
  headers?: Record<string, string> | undefined;
}

export function isUrl(reference: string): boolean {
  return reference.startsWith("http://") || reference.startsWith("https://");
}

/** Why a fetch failed, for people; the caller decides the error message. */
export class FetchFailure extends Error {
  /** The HTTP status of an answer that was not 2xx (a 401 is worded by the caller). */
  readonly status: number | undefined;

  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

/**
 * A reference that is a URL kiln could not fetch (a registry item, a preset): the fixed message
 * clients match, `failed to fetch <what> from <url>`, and why as the detail. Anything that is not
 * a FetchFailure is not a fetch's failure and is returned as it is.
 */
export function fetchFailed(
  what: "registry item" | "preset",
  url: string,
  error: unknown,
): unknown {
  if (!(error instanceof FetchFailure)) return error;
  return new KilnError("invalid_request", `failed to fetch ${what} from ${url}`, error.message);
}

/** GETs `url` as text within the limits, or throws FetchFailure. */
export async function fetchText(
  url: string,
  limits: FetchLimits = DEFAULT_FETCH_LIMITS,
): Promise<string> {
  return new TextDecoder().decode(await fetchBytes(url, { limits }));
}

/** The proxy variables undici's EnvHttpProxyAgent reads. */
const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"] as const;

/** The proxy URLs set in the environment (their user info is a secret: see `withoutProxyAuth`). */
function proxiesSet(env: NodeJS.ProcessEnv = process.env): string[] {
  return PROXY_VARIABLES.flatMap((name) => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? [] : [value];
  });
}

/** One answer to one request: its status, its `location`, and its body read within a cap. */
interface Answer {
  status: number;
  location: string | null;
  /** The body's bytes (decoded when the server compressed it), or FetchFailure past `maxBytes`. */
  body(maxBytes: number): Promise<Uint8Array>;
  /** Drops the body unread. */
  discard(): Promise<void>;
}

/** Sends one GET; redirects are the caller's. */
type Transport = (
  target: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
) => Promise<Answer>;

let proxiedTransport: Transport | undefined;

const requireHere = createRequire(import.meta.url);

/**
 * The transport of this process: node:http and node:https, or, with a proxy variable set,
 * undici's fetch with an EnvHttpProxyAgent (which reads HTTP_PROXY, HTTPS_PROXY, NO_PROXY and
 * their lowercase forms).
 */
function transport(): Transport {
  if (proxiesSet().length === 0) return nodeHttpGet;
  if (proxiedTransport === undefined) {
    const undici = requireHere("undici") as typeof import("undici");
    const dispatcher = new undici.EnvHttpProxyAgent();
    proxiedTransport = async (target, headers, signal) => {
      const response = await undici.fetch(target, {
        redirect: "manual",
        signal,
        headers,
        dispatcher,
      });
      return {
        status: response.status,
        location: response.headers.get("location"),
        body: (maxBytes) => readCappedResponse(response as unknown as Response, maxBytes),
        discard: async () => {
          await response.body?.cancel();
        },
      };
    };
  }
  return proxiedTransport;
}

/** A GET with node:http or node:https (loaded on first use: a run may fetch nothing). */
function nodeHttpGet(
  target: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<Answer> {
  const client = (
    target.protocol === "https:" ? requireHere("node:https") : requireHere("node:http")
  ) as typeof import("node:http");
  return new Promise((resolve, reject) => {
    const request = client.get(target, {
      // what fetch sent: any type, and a name (some servers refuse requests without one); no
      // accept-encoding, so a server sends the bytes as they are (one that compresses anyway is
      // decoded: see readCappedMessage)
      headers: { accept: "*/*", "user-agent": "kiln", ...headers },
      signal,
    });
    // every error, not just the first: one after the answer (an abort) must not go unheard
    request.on("error", reject);
    request.once("response", (message) => {
      // the body's errors reach its reader (readCappedMessage); unread, one is dropped here
      message.on("error", () => undefined);
      resolve({
        status: message.statusCode ?? 0,
        location: headerValue(message.headers.location),
        body: (maxBytes) => readCappedMessage(message, maxBytes),
        discard: async () => {
          message.destroy();
        },
      });
    });
  });
}

/** A header as one value (node:http gives a list for a repeated one). */
function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** `text` without the user names and passwords of the proxies set: they are secrets. */
function withoutProxyAuth(text: string): string {
  let shown = text;
  for (const proxy of proxiesSet()) {
    let parsed: URL;
    try {
      parsed = new URL(proxy);
    } catch {
      continue;
    }
    // the password, and the user name where it stands with it (alone, a short user name would
    // mask ordinary words of the message)
    if (parsed.username !== "") shown = shown.split(`${parsed.username}:`).join("***:");
    if (parsed.password === "") continue;
    for (const form of [parsed.password, decodeURIComponent(parsed.password)]) {
      shown = shown.split(form).join("***");
    }
  }
  return shown;
}

/** GETs `url` within the limits and returns the body's bytes, or throws FetchFailure. */
export async function fetchBytes(url: string, options: FetchOptions = {}): Promise<Uint8Array> {
  if (isOffline()) {
    throw new FetchFailure(
      "not fetched: kiln runs offline (--offline or KILN_OFFLINE) and fetches nothing",
    );
  }
  const limits = options.limits ?? DEFAULT_FETCH_LIMITS;
  const send = transport();
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let current = url;
  let origin: string | undefined;
  let leftOrigin = false;
  let release: (() => void) | undefined;
  try {
    release = await options.acquire?.(signal);
    for (let redirects = 0; ; redirects++) {
      const target = new URL(current);
      if (target.protocol !== "http:" && target.protocol !== "https:") {
        throw new FetchFailure(`unsupported scheme ${target.protocol}`);
      }
      // one rule for both transports (node:http would send them as Basic auth, undici refuses
      // them): a user name or password in a URL or a redirect is refused, never sent
      if (target.username !== "" || target.password !== "") {
        throw new FetchFailure(
          "the URL holds a user name or password - kiln never sends credentials from a URL; a registry takes them as headers in kiln.toml",
        );
      }
      origin ??= target.origin;
      await options.checkTarget?.(target);
      signal.throwIfAborted();
      // the caller's headers only where it sent them: never to another origin a redirect
      // names, nor back to the first one after such a hop (that hop chose the path)
      if (target.origin !== origin) leftOrigin = true;
      const headers = leftOrigin ? {} : (options.headers ?? {});
      const answer = await send(target, headers, signal);
      const location = answer.location;
      if (answer.status >= 300 && answer.status < 400 && location) {
        await answer.discard();
        if (redirects >= limits.maxRedirects) {
          throw new FetchFailure(`more than ${limits.maxRedirects} redirects`);
        }
        current = new URL(location, target).href;
        continue;
      }
      if (answer.status < 200 || answer.status > 299) {
        await answer.discard();
        throw new FetchFailure(`HTTP status ${answer.status}`, answer.status);
      }
      return await answer.body(limits.maxBytes);
    }
  } catch (error) {
    if (error instanceof FetchFailure) throw error;
    if (options.signal?.aborted) {
      // a caller that stops fetches for a reason of its own (a run's deadline) gives it
      const reason: unknown = options.signal.reason;
      if (reason instanceof FetchFailure) throw reason;
      throw new FetchFailure("the request that asked for it was cancelled");
    }
    if (deadline.aborted) throw new FetchFailure(`no answer within ${limits.timeoutMs} ms`);
    throw new FetchFailure(withoutProxyAuth(networkFailure(error)));
  } finally {
    release?.();
  }
}

/**
 * Why a request did not get an answer: node:http's error and its code, or fetch's `cause` (its
 * own message says only "fetch failed").
 */
function networkFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const ownCode = (error as { code?: unknown }).code;
  const code =
    typeof cause?.code === "string"
      ? cause.code
      : typeof ownCode === "string"
        ? ownCode
        : undefined;
  const reasons: Record<string, string> = {
    ECONNREFUSED: "the connection was refused",
    ECONNRESET: "the connection was reset",
    ENOTFOUND: "the host name does not resolve",
    EAI_AGAIN: "the host name could not be resolved now",
    ETIMEDOUT: "the connection timed out",
    EHOSTUNREACH: "the host is unreachable",
    ENETUNREACH: "the network is unreachable",
  };
  if (code !== undefined && Object.hasOwn(reasons, code)) return `${reasons[code]} (${code})`;
  if (code !== undefined) return `${errorMessage(error)} (${code})`;
  if (typeof cause?.message === "string") return `${errorMessage(error)}: ${cause.message}`;
  return errorMessage(error);
}

/** The refusal of a body past the cap. */
function tooLarge(maxBytes: number): FetchFailure {
  return new FetchFailure(`body larger than ${maxBytes} bytes`);
}

/** A fetch Response's body within the cap (the proxied transport; fetch decodes it). */
async function readCappedResponse(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge(maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  }
  return joined(chunks, total);
}

/**
 * A node:http answer's body within the cap: the declared length first, then the bytes as they
 * come, decoded when the server compressed them (gzip, deflate, br: as fetch decoded them),
 * the cap counting the decoded bytes. Another encoding is refused: its bytes are not the file.
 */
async function readCappedMessage(message: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  const encoding = headerValue(message.headers["content-encoding"])?.trim().toLowerCase() ?? "";
  const declared = Number(message.headers["content-length"] ?? "0");
  if (encoding === "" || encoding === "identity") {
    if (declared > maxBytes) {
      message.destroy();
      throw tooLarge(maxBytes);
    }
  }
  const stream = decoded(message, encoding);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      if (total > maxBytes) throw tooLarge(maxBytes);
      chunks.push(chunk);
    }
  } finally {
    message.destroy();
    if (stream !== message) stream.destroy();
  }
  return joined(chunks, total);
}

/** The message's bytes as the server meant them: undone of a content encoding it applied. */
function decoded(
  message: IncomingMessage,
  encoding: string,
): NodeJS.ReadableStream & {
  destroy(): void;
} {
  if (encoding === "" || encoding === "identity") return message;
  const zlib = requireHere("node:zlib") as typeof import("node:zlib");
  const decoders: Record<string, () => import("node:zlib").Gunzip> = {
    gzip: () => zlib.createGunzip(),
    "x-gzip": () => zlib.createGunzip(),
    deflate: () => zlib.createInflate(),
    br: () => zlib.createBrotliDecompress(),
  };
  const make = Object.hasOwn(decoders, encoding) ? decoders[encoding] : undefined;
  if (make === undefined) {
    message.destroy();
    throw new FetchFailure(
      `the body is in an encoding kiln does not read (${encoding.slice(0, 40)})`,
    );
  }
  const decoder = make();
  message.on("error", (error) => decoder.destroy(error));
  return message.pipe(decoder);
}

/** One buffer of its own (not a slice of Node's pool), so it can be handed to a worker whole. */
function joined(chunks: Uint8Array[], total: number): Uint8Array {
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}
