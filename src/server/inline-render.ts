// Small renders of built-in components on the thread that serves HTTP, on the compiled path
// (functions written ahead of time from the catalogue's own templates, src/core/
// compiled-renderer.ts), instead of a round trip to a render worker, and in batches: every
// render asked for in one turn of the event loop runs at the end of that turn (setImmediate),
// so their answers go out together and the client reads them together. Measured on the built
// service under unique deployment renders (docs/http-api.md, Benchmark): the worker's round
// trip cost more CPU than the render (a compiled deployment render with its parse and its
// answer's encoding is about 15 us alone); rendering each request as soon as it was read cost
// more still (every answer written alone woke the client once each); batched, a request costs
// about a fifth less CPU across the service and the client than through the workers.
//
// Only what is bounded runs here, so no request can hold the event loop: the catalogue's
// templates (trusted: no stranger's template ever runs on this thread), bodies of at most
// INLINE_BODY_BYTES (validation and the context are linear in the body), at most
// INLINE_FUEL of the compiled path's counted work (an upper bound of the instructions the
// engine would run), at most INLINE_OUTPUT_UNITS characters written, within the worker's own
// fuel and memory bounds, and at most TURN_BUDGET_MS of renders in one turn (the rest wait for
// the next turn, at most MAX_LEFT_WAITING of them; more go to the workers, with their queue's
// bound). A render past any of these
// bounds, a template outside the compiled set, or `KILN_ENGINE=sandbox` goes to a worker as
// before, where the full fuel and the wall-clock deadline apply: the compiled path writes
// exactly what the engine writes, so the answer is the same bytes either way.

import { CompiledRenderer } from "../core/compiled-renderer.ts";
import type { RenderInput } from "../core/context.ts";
import { errorMessage, isKilnError, KilnError } from "../core/errors.ts";
import type { RegistryItem } from "../core/item.ts";
import { type RenderScope, renderItem } from "../core/render-item.ts";
import { engineForced } from "../node/builtin-renderer.ts";
// the compiled path loads the compiled templates, yaml and the field validators through these
import "../node/node-libraries.ts";
import { renderAnswerText } from "../sandbox/render-answer.ts";
import type { RenderPoolOptions } from "../sandbox/render-pool.ts";

/**
 * Bodies up to this size may render here: a built-in's render body is under 1 KiB in practice
 * (a deployment with labels and a dozen fields); a larger one goes to a worker.
 */
export const INLINE_BODY_BYTES = 8 * 1024;

/**
 * The most fuel (the compiled path's upper bound of the engine's instructions) a render here may
 * take: far above what a deployment or any built-in with a few fields takes (under 100 a
 * template), about 200 inventory hosts (some 97 instructions a host). The compiled path counts
 * a block's bound before it runs the block, so a render past it is declined before that work.
 */
const INLINE_FUEL = 20_000;

/**
 * The most characters a render here may write. Fuel does not bound the output (one instruction
 * writes a value of any length: an 8 KiB body with a 3,000-character value written for each of
 * 500 hosts writes 1.7 MB, measured 10-38 ms); this does, as the output is written, so a render
 * here, answered or declined, writes at most this much (a deployment writes about 600).
 */
const INLINE_OUTPUT_UNITS = 128 * 1024;

/** What bounds a render in a worker, so a render here is never one a worker would refuse. */
type WorkerRenderLimits = Pick<RenderPoolOptions, "maxOutputBytes" | "fuel" | "engineMemoryBytes">;

/** Renders of one turn stop after this long; the others run in the next turn. */
const TURN_BUDGET_MS = 2;

/** Thrown by the renderer below when the compiled path declines: the render goes to a worker. */
const NOT_HERE = Symbol("not rendered on the HTTP thread");

/**
 * The compiled path within INLINE_FUEL (or the worker's fuel when lower) and the worker's memory
 * bound, whose "engine" declines: a render it would leave to the engine goes to a worker.
 */
function compiledOnly(limits: WorkerRenderLimits): CompiledRenderer {
  const declined = (): never => {
    throw NOT_HERE;
  };
  return new CompiledRenderer(declined, {
    fuel: Math.min(INLINE_FUEL, limits.fuel),
    memoryBytes: limits.engineMemoryBytes,
    outputUnits: INLINE_OUTPUT_UNITS,
  });
}

/** A built-in is a catalogue item: it shares the compiled templates. */
const TRUSTED: RenderScope = { isolated: false };

/** `KILN_ENGINE=sandbox`, read once: the environment does not change while the service runs. */
const ENGINE_FORCED = engineForced();

/**
 * Whether a render body of `bodyBytes` naming a built-in may render on this thread: small, and
 * the engine not forced for everything.
 */
export function mayRenderInline(bodyBytes: number): boolean {
  return bodyBytes <= INLINE_BODY_BYTES && !ENGINE_FORCED;
}

/**
 * The render answer (`{component, files}` as JSON text, within the limits' `maxOutputBytes` as UTF-8), or
 * undefined when the compiled path declines the render (it then goes to a worker). A refused
 * value fails as the worker fails it: the same KilnError, any other error as `internal` with
 * its message.
 */
export function renderInline(
  item: RegistryItem,
  input: RenderInput,
  limits: WorkerRenderLimits,
): string | undefined {
  try {
    const result = renderItem(compiledOnly(limits), item, input, TRUSTED);
    return renderAnswerText(result, limits.maxOutputBytes);
  } catch (error) {
    if (error === NOT_HERE) return undefined;
    if (isKilnError(error)) throw error;
    throw new KilnError("internal", errorMessage(error));
  }
}

/** A render waiting for the end of this turn: run it, or leave it to a worker. */
interface WaitingRender {
  run(): void;
  decline(): void;
}

/** Renders waiting for the end of this turn of the event loop, in the order they came. */
let waiting: WaitingRender[] = [];

/**
 * The most renders left waiting for the next turn once a turn's budget is spent: about two
 * turns of deployments (some 15-20 us each). More than this are declined and go to the workers,
 * so this thread's own wait stays short and its list bounded, and under a flood the pool's
 * queue (with its bound, deadline and cancelling) takes the rest.
 */
const MAX_LEFT_WAITING = 128;

/**
 * Runs the waiting renders, in order, for at most TURN_BUDGET_MS (always the first: a turn's
 * first render may load the compiled templates, which must not send the others away); the rest
 * wait for the next turn, up to MAX_LEFT_WAITING of them, and any more go to the workers.
 */
function renderWaiting(): void {
  const batch = waiting;
  waiting = [];
  const startedMs = performance.now();
  let done = 0;
  while (done < batch.length && (done === 0 || performance.now() - startedMs <= TURN_BUDGET_MS)) {
    (batch[done] as WaitingRender).run();
    done += 1;
  }
  const kept = Math.min(batch.length, done + MAX_LEFT_WAITING);
  for (let at = kept; at < batch.length; at++) (batch[at] as WaitingRender).decline();
  if (kept > done) {
    waiting = [...batch.slice(done, kept), ...waiting];
    setImmediate(renderWaiting);
  }
}

/**
 * `render`'s result once the requests read in this turn of the event loop have all been read,
 * rendered with theirs (see the module comment); undefined when too many were left waiting
 * (the caller sends it to a worker).
 */
export function renderSoon<T>(render: () => T | undefined): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    if (waiting.length === 0) setImmediate(renderWaiting);
    waiting.push({
      run() {
        try {
          resolve(render());
        } catch (error) {
          reject(error);
        }
      },
      decline() {
        resolve(undefined);
      },
    });
  });
}
