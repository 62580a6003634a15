// Heavy bodies: POST /api/render bodies over LARGE_BODY_BYTES and every POST /api/lock/bases
// body. They are parsed and worked on in render workers, within the strangers' share (see
// RenderPool), so they wait for a worker while strangers' items run; a flood of them once held
// whatever arrived. So the bytes they hold on the HTTP thread - bodies from the moment their
// length is known, then their answers, until the answer is sent - are bounded across all
// requests: past HEAVY_BYTES_IN_FLIGHT a request is answered `503 overloaded` at once, before a
// byte of its body is read (the connection is then closed).
//
// Why a bound on bytes, not only on work: request bodies are allocated by the C library's
// malloc on the HTTP thread, and memory malloc has freed is not given back to the system while
// other blocks sit above it. After a mixed hostile load with large bodies waiting by the
// hundred, RSS stayed 1.36-1.43 times its value before (15 s of quiet), all of it free memory
// of malloc (calling malloc_trim from a debugger took it from 288 to 163 MiB); with this bound
// the peak is lower and RSS came back to 1.04-1.13 times.

import type { IncomingMessage, ServerResponse } from "node:http";
import { KilnError } from "../core/errors.ts";

/**
 * Render bodies larger than this are parsed in a render worker, never in the thread that serves
 * HTTP: checking, decoding and parsing a body costs that thread about 1 ms per 100 KB (10-25 ms
 * near the 2 MiB limit, measured), and it must never block longer than 10 ms (the event-loop
 * delay goal that `npm run bench:server` checks). Smaller bodies are parsed there: a hop to a
 * worker and back costs more than they do. A body over it is heavy work, whatever it names.
 */
export const LARGE_BODY_BYTES = 256 * 1024;

/** Bytes of heavy bodies and their answers held at once, across all requests. */
export const HEAVY_BYTES_IN_FLIGHT = 16 * 1024 * 1024;

/** The bytes all heavy requests under way hold (bodies, then answers), bounded. */
export class BytesInFlight {
  private heldBytes = 0;

  constructor(readonly limit: number = HEAVY_BYTES_IN_FLIGHT) {}

  get held(): number {
    return this.heldBytes;
  }

  /**
   * Takes `bytes` for one request until `done` fires (the response written, or its connection
   * gone) and gives back a function that changes what it holds (its answer, which is never
   * refused); throws `overloaded` when they do not fit.
   */
  take(bytes: number, done: (release: () => void) => void): (more: number) => void {
    if (this.heldBytes + bytes > this.limit) {
      throw new KilnError(
        "overloaded",
        `the service has ${this.limit / 2 ** 20} MiB of large requests under way - try again in a moment`,
        `render bodies over ${LARGE_BODY_BYTES / 1024} KiB and lock bases count until their answer is sent; send smaller requests, or fewer at once`,
      );
    }
    let taken = bytes;
    this.heldBytes += taken;
    done(() => {
      this.heldBytes -= taken;
      taken = 0;
    });
    return (more) => {
      this.heldBytes += more;
      taken += more;
    };
  }
}

/** The body length a request declares (`content-length`), if it declares one. */
export function declaredLength(ctx: { req: IncomingMessage }): number | undefined {
  const declared = Number(ctx.req.headers["content-length"]);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
}

/**
 * Holds `bytes` of a heavy request within the bound until its response is done; throws
 * `overloaded`. A body declared over the body limit holds nothing: it is refused with 413 as
 * soon as it is read, whatever else is under way.
 */
export function holdHeavy(
  ctx: { res: ServerResponse },
  budget: BytesInFlight,
  bytes: number,
  maxBodyBytes: number,
): (more: number) => void {
  if (bytes > maxBodyBytes) return () => {};
  return budget.take(bytes, (release) => ctx.res.once("close", release));
}
