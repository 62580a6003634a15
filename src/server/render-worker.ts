// One render worker (worker_threads). It owns a TemplateEngine with its fuel and WASM-memory
// limits and renders one job at a time for the RenderPool. The pool holds the wall-clock
// deadline and replaces this worker when it is stopped, runs out of heap, or asks to be
// recycled because its memory grew (WASM memory never shrinks, so recycling is how a memory
// bomb's pages are given back).
import { parentPort, workerData } from "node:worker_threads";
import {
  type EngineLimits,
  isKilnError,
  KilnError,
  type RegistryItem,
  type RenderInput,
  renderItem,
  TemplateEngine,
} from "../core/index.ts";
import type { WorkerData, WorkerReply, WorkerRequest } from "./render-protocol.ts";

const data = workerData as WorkerData;
const port = parentPort;
if (!port) throw new Error("render-worker.ts must run as a worker thread");

const engine = new TemplateEngine(data.engineLimits satisfies Partial<EngineLimits>);
const preloaded: readonly RegistryItem[] = data.preloadedItems;
let rendersSinceCheck = 0;

function outputBytes(files: readonly { path: string; content: string }[]): number {
  let total = 0;
  for (const file of files) total += file.path.length + file.content.length;
  return total;
}

/** Has this worker grown past its budget (WASM memory, JS heap)? */
function grown(): boolean {
  const usage = process.memoryUsage();
  return usage.external + usage.heapUsed > data.recycleBytes;
}

function handle(request: WorkerRequest): WorkerReply {
  const started = performance.now();
  let reply: WorkerReply;
  try {
    const item =
      request.preloaded !== undefined
        ? (preloaded[request.preloaded] as RegistryItem)
        : request.item;
    if (!item) throw new KilnError("internal", "render worker got no registry item");
    const result = renderItem(engine, item, request.input satisfies RenderInput);
    if (outputBytes(result.files) > data.maxOutputChars) {
      throw new KilnError(
        "internal",
        `rendered output is larger than ${data.maxOutputChars} characters - the service refuses to send it`,
      );
    }
    reply = { id: request.id, ok: true, result, recycle: false };
  } catch (error) {
    const kind = isKilnError(error) ? error.kind : "internal";
    const message = error instanceof Error ? error.message : String(error);
    reply = { id: request.id, ok: false, error: { kind, message }, recycle: false };
  }
  // Checking memory costs a few microseconds: do it after failures and slow renders (where
  // memory can have grown), and now and then otherwise.
  rendersSinceCheck += 1;
  if (!reply.ok || performance.now() - started > 2 || rendersSinceCheck >= 100) {
    rendersSinceCheck = 0;
    reply.recycle = grown();
  }
  // A WASM trap leaves the engine's instance corrupt; the engine drops it, and the pool also
  // replaces the worker so nothing of the broken instance lingers.
  if (!reply.ok && reply.error.message.startsWith("template engine failure")) reply.recycle = true;
  return reply;
}

port.on("message", (request: WorkerRequest) => {
  port.postMessage(handle(request));
});

// Build the WASM instance now, so the first request does not pay for it.
engine.render("warm-up", "{{ name }}", { name: "kiln" });
port.postMessage({ ready: true });
