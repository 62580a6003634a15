// One render worker (worker_threads). It owns a TemplateEngine with its fuel and WASM-memory
// limits and renders one job at a time, in order, for the RenderPool: trusted items whose
// templates were compiled ahead of time (the built-ins) on the compiled path, everything else
// in the engine (src/core/compiled-renderer.ts; `KILN_ENGINE=sandbox` uses the engine for all). The pool holds the wall-clock
// deadline and replaces this worker when it is stopped, runs out of heap, or asks to be
// recycled because its memory grew (WASM memory never shrinks, so recycling is how a memory
// bomb's pages are given back).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { parentPort, workerData } from "node:worker_threads";
import { CompiledRenderer } from "../core/compiled-renderer.ts";
import type { RenderInput } from "../core/context.ts";
import { errorMessage, isKilnError, KilnError } from "../core/errors.ts";
import { type RegistryItem, toItemView } from "../core/item.ts";
import { Registry, trustAsCatalogueItem } from "../core/registry.ts";
import { renderItem, type TemplateRenderer } from "../core/render-item.ts";
import { parseRenderRequest } from "../core/render-request.ts";
import { FrameworkError } from "../core/wire-errors.ts";
import { engineForced } from "../node/builtin-renderer.ts";
import { preferFastStart } from "../node/fast-start.ts";
import { builtinFor, parseLocatedItem } from "../node/resolve-reference.ts";
import { type EngineLimits, TemplateEngine } from "../node/template-engine.ts";
import { itemMetaAnswer } from "./item-meta-answer.ts";
import { parseJsonBody } from "./json-body.ts";
import { lockBasesAnswer } from "./lock-bases-job.ts";
import { encodeJson, encodeRenderAnswer } from "./render-answer.ts";
import {
  CLAIMED,
  type NotPreloaded,
  PROGRESS_JOB,
  PROGRESS_STARTED_HIGH,
  PROGRESS_STARTED_LOW,
  type WorkerData,
  type WorkerReply,
  type WorkerRequest,
  type WorkerShrunk,
} from "./render-protocol.ts";

const data = workerData as WorkerData;
const port = parentPort;
if (!port) throw new Error("render-worker.ts must run as a worker thread");
// a one-shot CLI run's worker: set now that this thread has started, before the engine loads
if (data.fastStart) preferFastStart();

let engine = new TemplateEngine(data.engineLimits satisfies Partial<EngineLimits>);
/** What renders a job: the compiled path for built-ins, the current engine for the rest. */
const renderer = engineForced() ? undefined : new CompiledRenderer(() => engine, engine.limits);
function currentRenderer(): TemplateRenderer {
  return renderer ?? engine;
}

// A way to collect garbage on demand, used only after a render that left this worker large:
// dropping the engine and collecting gives a memory bomb's WASM pages back without the cost
// of a new worker. The flag only exposes `gc` to contexts created after it is set, so it is set
// for the one context that hands `gc` over, and then set back: V8 flags are the process's, and
// while one differs from the start's V8 rejects the code caches made under the others - every
// worker started after it would compile Node's own modules from source (see
// src/node/fast-start.ts). Made on first use: a new V8 context costs milliseconds of every
// worker's start, and most workers (each CLI render of a registry item) never collect.
let gcFunction: (() => void) | undefined;
function collectGarbage(): void {
  if (gcFunction === undefined) {
    setFlagsFromString("--expose-gc");
    try {
      gcFunction = runInNewContext("gc") as () => void;
    } finally {
      setFlagsFromString("--no-expose-gc");
    }
  }
  gcFunction();
}
// The configured registry's items (and `@kiln`'s packaged ones after them) are trusted: they
// render on the compiled path or in the engine's shared environment. Items that come with a job
// (URLs, files, other registries') render isolated (see RenderScope).
const preloaded: readonly RegistryItem[] = data.preloadedItems.map(trustAsCatalogueItem);
/**
 * The registry's items, to resolve a `request` job's reference as the pool would: a bare name
 * never names a packaged `@kiln` item.
 */
const preloadedRegistry = new Registry(preloaded.slice(0, data.namedItemCount));
let rendersSinceCheck = 0;

/** The item a job names: preloaded (trusted), sent whole, or parsed here from its bytes. */
function itemOf(request: WorkerRequest): RegistryItem {
  if (request.preloaded !== undefined) return preloaded[request.preloaded] as RegistryItem;
  if (request.item) return request.item;
  if (request.source) return parseLocatedItem(request.source.bytes, request.source.origin);
  throw new KilnError("internal", "render worker got no registry item");
}

/**
 * A `request` job: the body parsed and decoded as the thread that serves HTTP would (the same
 * 400 and 422 errors), then rendered with the item the job brings (a URL's or file's, resolved
 * by the pool's caller) or, without one, with the preloaded item its reference names (as
 * `builtinFor` finds it there). A reference that names no preloaded item goes back alone, to be
 * resolved and sent again with its item: the decoded body never crosses to the thread that
 * serves HTTP.
 */
function answerRequest(request: WorkerRequest, bytes: Uint8Array): Uint8Array | NotPreloaded {
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoded = parseRenderRequest(parseJsonBody(body));
  const located =
    request.preloaded !== undefined || request.item !== undefined || request.source !== undefined;
  const item = located ? itemOf(request) : builtinFor(decoded.reference, preloadedRegistry);
  if (!item) return { reference: decoded.reference };
  const { name, fields, labels, defaultNamespace, automationProfile } = decoded;
  const input = { name, fields, labels, defaultNamespace, automationProfile };
  return encodeRenderAnswer(renderItem(currentRenderer(), item, input), data.maxOutputBytes);
}

/** The answer's bytes: the item's API view, or the render answer, within the output limit. */
function answer(request: WorkerRequest): Uint8Array | NotPreloaded {
  if (request.task === "request" || request.task === "bases") {
    if (!request.body) throw new KilnError("internal", "render worker got no request body");
    if (request.task === "bases") return lockBasesAnswer(request.body);
    return answerRequest(request, request.body);
  }
  const item = itemOf(request);
  if (request.task === "inspect") return encodeJson(toItemView(item), data.maxOutputBytes);
  if (request.task === "meta") return encodeJson(itemMetaAnswer(item), data.maxOutputBytes);
  if (!request.input) throw new KilnError("internal", "render worker got no render input");
  const result = renderItem(currentRenderer(), item, request.input satisfies RenderInput);
  return encodeRenderAnswer(result, data.maxOutputBytes);
}

/** Has this worker grown past its budget (WASM memory, JS heap)? */
function grown(): boolean {
  const usage = process.memoryUsage();
  return usage.external + usage.heapUsed > data.recycleBytes;
}

/**
 * After a render that left this worker large: drop the engine (its WASM instance and memory),
 * collect, and let the freed backing stores go (they are released on a later turn of the event
 * loop). True when the worker is still large and must be replaced.
 */
async function shrink(): Promise<boolean> {
  engine = new TemplateEngine(data.engineLimits);
  collectGarbage();
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  return grown();
}

async function handle(request: WorkerRequest): Promise<WorkerReply> {
  const started = performance.now();
  let reply: WorkerReply;
  try {
    // Encoded here, not in the thread that serves HTTP, and moved to it without a copy.
    const answered = answer(request);
    reply =
      answered instanceof Uint8Array
        ? { id: request.id, ok: true, body: answered, recycle: false }
        : { id: request.id, ok: true, notPreloaded: answered, recycle: false };
  } catch (error) {
    const kind = isKilnError(error) ? error.kind : "internal";
    const message = errorMessage(error);
    const detail = isKilnError(error) ? error.detail : undefined;
    const field = isKilnError(error) ? error.field : undefined;
    const status = error instanceof FrameworkError ? error.status : undefined;
    reply = {
      id: request.id,
      ok: false,
      error: { kind, message, detail, field, status },
      recycle: false,
    };
  }
  // Checking memory costs a few microseconds: do it after failures and slow renders (where
  // memory can have grown), and now and then otherwise.
  rendersSinceCheck += 1;
  if (!reply.ok || performance.now() - started > 2 || rendersSinceCheck >= 100) {
    rendersSinceCheck = 0;
    if (grown()) reply.recycle = await shrink();
  }
  // A WASM trap (an engine panic, memory exhausted) leaves that engine instance corrupt; the
  // engine throws it away and builds a fresh one (about 10 ms) for the next render. Replacing
  // the whole worker as well would cost a worker start-up per hostile request, so the worker
  // is replaced only when its memory stays grown after a fresh engine and a collection, or it
  // died.
  return reply;
}

// Jobs arrive while one runs (the pool keeps a few queued here, so this thread need not wait
// for the pool to answer before its next render); they run one at a time, in order. Before
// starting one, the worker claims it: the pool may have taken it back meanwhile (revoked)
// to give it to a worker that is not stuck behind a slow render.
const progress = new Int32Array(data.progress);
const pending: WorkerRequest[] = [];
let draining = false;
/** Set once this worker asked to be replaced: it takes no further jobs. */
let retiring = false;

function claim(request: WorkerRequest): boolean {
  if (Atomics.compareExchange(progress, request.cell, 0, CLAIMED) !== 0) return false;
  const now = Date.now();
  Atomics.store(progress, PROGRESS_STARTED_HIGH, Math.floor(now / 2 ** 31));
  Atomics.store(progress, PROGRESS_STARTED_LOW, now % 2 ** 31);
  Atomics.store(progress, PROGRESS_JOB, request.id);
  return true;
}

async function drain(): Promise<void> {
  draining = true;
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = undefined;
  while (!retiring) {
    const request = pending.shift();
    if (!request) break;
    if (!claim(request)) continue;
    const reply = await handle(request);
    if (reply.recycle) retiring = true;
    port?.postMessage(reply, reply.ok && "body" in reply ? [reply.body.buffer as ArrayBuffer] : []);
  }
  draining = false;
  if (!retiring) idleTimer = setTimeout(shrinkWhenIdle, IDLE_SHRINK_MS);
}

/**
 * After a quiet second, a worker that grew drops its engine, collects (twice, as `shrink`
 * does), and builds a fresh engine at once: the memory goes back to the system while nothing
 * waits, and the next request finds a ready engine (only its item's templates are compiled
 * again). Two kinds of growth stay otherwise: a big inventory grows the engine's WASM memory,
 * which never shrinks, by tens of MiB (below the recycle threshold); and under load V8 grows
 * the worker's heap (its young generation up to 16 MiB a semi-space) and keeps it. Measured:
 * RSS after unique renders and a quiet period 191 MiB without this, 153 MiB with
 * it (103 MiB at start). A worker that grew less than IDLE_GROWTH_BYTES keeps its engine and
 * its compiled templates.
 */
const IDLE_SHRINK_MS = 1_000;
const IDLE_GROWTH_BYTES = 8 * 1024 * 1024;
let idleTimer: NodeJS.Timeout | undefined;
/** committedBytes() with a fresh engine: growth is counted from here. */
let settledBytes = 0;

/** Memory this worker holds: the V8 heap it committed, and outside it the engine's WASM memory. */
function committedBytes(): number {
  const usage = process.memoryUsage();
  return usage.heapTotal + usage.external;
}

async function shrinkWhenIdle(): Promise<void> {
  idleTimer = undefined;
  if (draining || retiring || pending.length > 0) return;
  if (committedBytes() <= settledBytes + IDLE_GROWTH_BYTES) return;
  // Still over the recycle threshold afterwards, the worker asks to be replaced with its next
  // answer (see handle), as after any large render.
  await shrink();
  warmUp();
  settledBytes = committedBytes();
  port?.postMessage({ shrunk: true } satisfies WorkerShrunk);
}

// The pool sends the jobs of one turn of its event loop together.
port.on("message", (requests: WorkerRequest[]) => {
  pending.push(...requests);
  if (!draining) void drain();
});

/**
 * Builds the engine's WASM instance now, so that a request does not pay for it, where renders
 * will need it: in a worker without the catalogue (the CLI's, started only because an item from
 * a registry, a URL or a file is about to render, each in an environment of its own) and in a
 * service's worker started after strangers' items came (`warmEngine`), with the environment
 * such a render uses; in a service's worker with `KILN_ENGINE=sandbox` (every render in the
 * engine) with the shared environment and a first render in it.
 * A service's worker on the compiled path, before any stranger's item, leaves it for the first
 * render that needs the engine (a stranger's item, or a built-in past the compiled path's
 * bound): the catalogue renders without it, many services never render a stranger's item, and
 * the instance and its first environment are most of a worker's memory at start (measured: a
 * two-worker service 115 MiB at start with them, 103 MiB without). That first render waits for
 * them once (measured: a file's item rendered 36-40 ms after start instead of 12-13 ms).
 */
function warmUp(): void {
  if (preloaded.length === 0 || (renderer !== undefined && data.warmEngine)) {
    engine.prepareIsolated();
  } else if (renderer === undefined) engine.render("warm-up", "{{ name }}", { name: "kiln" });
}

warmUp();
settledBytes = committedBytes();
port.postMessage({ ready: true });
