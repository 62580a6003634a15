// Messages between the RenderPool (main thread) and its render workers.
import type { RenderInput } from "../core/context.ts";
import type { ErrorKind, FieldProblem } from "../core/errors.ts";
import type { RegistryItem } from "../core/item.ts";
import type { EngineLimits } from "../node/template-engine.ts";

export interface WorkerData {
  engineLimits: Partial<EngineLimits>;
  /**
   * Items every worker holds and trusts, so a job names them by index: the built-in registry,
   * then `@kiln`'s packaged items.
   */
  preloadedItems: RegistryItem[];
  /**
   * How many of `preloadedItems`, from the first, a request's reference may name (the
   * registry's); the others are reached only through the item a caller resolved.
   */
  namedItemCount: number;
  /** Ask to be replaced once WASM memory plus JS heap exceed this many bytes. */
  recycleBytes: number;
  /** Refuse answers whose JSON, encoded as UTF-8, would exceed this many bytes. */
  maxOutputBytes: number;
  /** Set the engine's fast-start flags as the worker starts (the CLI's one-shot workers). */
  fastStart: boolean;
  /**
   * Build the engine's instance as the worker starts even on the compiled path: the pool has
   * given strangers' items to workers, which render in it (see warmUp in render-worker.ts).
   */
  warmEngine: boolean;
  /**
   * Shared with the pool (an Int32Array over it): cell PROGRESS_JOB holds the id of the job
   * the worker runs now, PROGRESS_STARTED_* its start (Date.now(), split in two 32-bit halves),
   * and from CLAIM_BASE on one claim cell per job (`WorkerRequest.cell`): the worker and the
   * pool race for it with compareExchange(0 → CLAIMED | REVOKED), so a job queued in a
   * worker is either run there or handed back to the pool, never both.
   */
  progress: SharedArrayBuffer;
}

export const PROGRESS_JOB = 0;
export const PROGRESS_STARTED_HIGH = 1;
export const PROGRESS_STARTED_LOW = 2;
export const CLAIM_BASE = 3;
/** Claim cells per worker; the pool keeps fewer jobs than this in one worker. */
export const CLAIM_CELLS = 64;
export const CLAIMED = 1;
export const REVOKED = 2;

export function progressBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer((CLAIM_BASE + CLAIM_CELLS) * Int32Array.BYTES_PER_ELEMENT);
}

/** The bytes of a registry-item file or URL, parsed and validated in the worker. */
export interface ItemSource {
  bytes: Uint8Array;
  /** The reference as given (URL or path), for messages. */
  origin: string;
}

/**
 * What a job asks for; exactly one of `preloaded`, `item` and `source` names the item, except
 * for a `request` job, whose `body` names it (or `item` or `source`, once it has been resolved).
 */
export interface JobRequest {
  /**
   * `render` (the default): the render answer; `inspect`: the item's API view; `meta`: its
   * catalogue metadata (GET /api/registry/meta?ref=); `request`: a POST /api/render body, parsed
   * and decoded in the worker, then rendered with the job's `item` or `source`, or with the
   * preloaded item its reference names; any other reference comes back alone
   * (`WorkerReply.notPreloaded`) for the pool's caller to resolve and send again; `bases`: a
   * POST /api/lock/bases body, parsed, checked and compressed (lock-bases.ts).
   */
  task?: "inspect" | "meta" | "request" | "bases";
  /** A `request` or `bases` job's body: the request's bytes as they arrived. */
  body?: Uint8Array;
  /** Index into `preloadedItems`. */
  preloaded?: number;
  item?: RegistryItem;
  source?: ItemSource;
  input?: RenderInput;
}

/** A render body's reference that names no preloaded item: a URL or a file, to be resolved. */
export interface NotPreloaded {
  reference: string;
}

export interface WorkerRequest extends JobRequest {
  id: number;
  /** This job's claim cell, an index from CLAIM_BASE. */
  cell: number;
}

export type WorkerReply =
  /** `body`: the response JSON as UTF-8 (its buffer is transferred), encoded in the worker. */
  | { id: number; ok: true; body: Uint8Array; recycle: boolean }
  /** A `request` job without an item whose reference names no preloaded item. */
  | { id: number; ok: true; notPreloaded: NotPreloaded; recycle: boolean }
  | {
      id: number;
      ok: false;
      /**
       * `status`: the body itself was refused (400 bad JSON, 422 wrong shape), with the message
       * the thread that serves HTTP would have given.
       */
      error: {
        kind: ErrorKind;
        message: string;
        detail?: string | undefined;
        field?: FieldProblem | undefined;
        status?: number | undefined;
      };
      recycle: boolean;
    };

export interface WorkerReady {
  ready: true;
}

/** A worker that grew dropped its engine and collected while idle (its memory went back). */
export interface WorkerShrunk {
  shrunk: true;
}
