// Renders run in a pool of worker threads, never in the thread that serves HTTP, because a
// template is untrusted code: the engine's fuel bounds its CPU and its WASM memory is capped,
// but only a separate thread can be stopped by a wall-clock deadline whatever happens inside
// it. One job per worker at a time; a job past the deadline terminates its worker, a worker
// that dies (heap limit) or asks to be recycled (memory grew, engine broke) is replaced.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import {
  KilnError,
  MAX_FUEL,
  type RegistryItem,
  type RenderInput,
  type RenderResult,
} from "../core/index.ts";
import type { WorkerData, WorkerReady, WorkerReply, WorkerRequest } from "./render-protocol.ts";

export interface RenderPoolOptions {
  /** Number of worker threads; default: the number of cores. */
  size: number;
  /** Wall-clock deadline of one render, in milliseconds. */
  deadlineMs: number;
  /** MiniJinja fuel per render. */
  fuel: number;
  /** Cap of each worker's WASM memory, in bytes. */
  engineMemoryBytes: number;
  /** V8 heap limit (old generation) of each worker, in MiB. */
  heapMb: number;
  /** A worker whose WASM memory plus heap exceeds this is replaced after its job. */
  recycleBytes: number;
  /** Largest accepted render result (paths plus contents), in characters. */
  maxOutputChars: number;
  /** Jobs waiting for a worker beyond this are refused. */
  maxQueue: number;
  /** Keep one started worker in reserve to replace a failed one at once. */
  spare: boolean;
  /** Items every worker loads once (the registry), so jobs for them carry only an index. */
  preloadedItems: readonly RegistryItem[];
}

/** The engine's own bound on fuel (larger values make every render run out). */
export { MAX_FUEL };

export const DEFAULT_POOL_OPTIONS: Omit<RenderPoolOptions, "preloadedItems"> = {
  size: Math.max(1, availableParallelism()),
  deadlineMs: 2_000,
  fuel: 2_000_000,
  engineMemoryBytes: 64 * 1024 * 1024,
  heapMb: 128,
  recycleBytes: 48 * 1024 * 1024,
  maxOutputChars: 16 * 1024 * 1024,
  maxQueue: 10_000,
  spare: true,
};

interface Job {
  request: Omit<WorkerRequest, "id">;
  resolve: (result: RenderResult) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: (Job & { id: number; timer: NodeJS.Timeout }) | undefined;
  /** Set once the pool has given up on this worker (deadline, recycle, crash). */
  retired: boolean;
}

/**
 * How to start a render worker. Compiled (dist): `render-worker.js` next to this module (or at
 * `../server/render-worker.js` for a bundle that moved this module). From source (tsx, tests):
 * `render-worker.ts`, started through a tiny bootstrap that registers tsx inside the worker
 * first, because Node 20 does not apply `--import tsx` from a worker's execArgv to the
 * worker's own entry file.
 */
/** tsx's ESM API (`register`), as an URL the bootstrap can import. */
function tsxEsmApi(): string {
  if (typeof import.meta.resolve === "function") return import.meta.resolve("tsx/esm/api");
  // CommonJS-compiled callers (a test runner transpiling to CJS) have no import.meta.resolve.
  const cjs = createRequire(import.meta.url).resolve("tsx/esm/api");
  return pathToFileURL(cjs.replace(/\.cjs$/, ".mjs")).href;
}

export function workerEntry(): { entry: string | URL; eval: boolean } {
  if (import.meta.url.endsWith(".ts")) {
    const worker = new URL("./render-worker.ts", import.meta.url).href;
    const tsx = tsxEsmApi();
    const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(worker)}); });`;
    return { entry: bootstrap, eval: true };
  }
  const candidates = [
    new URL("./render-worker.js", import.meta.url),
    new URL("../server/render-worker.js", import.meta.url),
  ];
  const url = candidates.find((candidate) => existsSync(fileURLToPath(candidate)));
  if (!url) throw new Error(`render worker not found (looked for ${candidates.join(", ")})`);
  return { entry: url, eval: false };
}

export class RenderPool {
  readonly options: RenderPoolOptions;
  private readonly slots = new Set<Slot>();
  /**
   * A started worker kept aside, so a replaced worker's place is taken at once instead of
   * after a worker start-up (a few hundred milliseconds, more from source).
   */
  private spare: Slot | undefined;
  private readonly queue: Job[] = [];
  private readonly preloadedIndex: Map<RegistryItem, number>;
  private readonly file = workerEntry();
  private nextId = 1;
  private closed = false;
  /** Why the last worker failed before it was ready, if one did. */
  private startError: Error | undefined;
  /** Workers replaced so far (deadline, crash, recycle): for tests and diagnostics. */
  replaced = 0;

  constructor(options: Partial<RenderPoolOptions> = {}) {
    this.options = { ...DEFAULT_POOL_OPTIONS, preloadedItems: [], ...options };
    if (!(this.options.fuel >= 1 && this.options.fuel <= MAX_FUEL)) {
      throw new RangeError(`render fuel must be between 1 and ${MAX_FUEL}`);
    }
    this.preloadedIndex = new Map(this.options.preloadedItems.map((item, index) => [item, index]));
    for (let index = 0; index < this.options.size; index++) this.spawn(false);
    if (this.options.spare) this.spawn(true);
  }

  stats(): { workers: number; ready: number; busy: number; queued: number; replaced: number } {
    let ready = 0;
    let busy = 0;
    for (const slot of this.slots) {
      if (slot.ready) ready += 1;
      if (slot.job) busy += 1;
    }
    return {
      workers: this.slots.size,
      ready,
      busy,
      queued: this.queue.length,
      replaced: this.replaced,
    };
  }

  /** Resolves once every worker has started (its engine built); rejects if one cannot start. */
  async ready(): Promise<void> {
    while (this.stats().ready < this.options.size && !this.closed) {
      if (this.startError) throw this.startError;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  render(item: RegistryItem, input: RenderInput): Promise<RenderResult> {
    if (this.closed)
      return Promise.reject(new KilnError("internal", "the service is shutting down"));
    if (this.queue.length >= this.options.maxQueue) {
      return Promise.reject(
        new KilnError("internal", "too many renders are waiting - try again in a moment"),
      );
    }
    const index = this.preloadedIndex.get(item);
    const request: Omit<WorkerRequest, "id"> =
      index !== undefined ? { preloaded: index, input } : { item, input };
    return new Promise<RenderResult>((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) {
      job.reject(new KilnError("internal", "the service is shutting down"));
    }
    const all = [...this.slots, ...(this.spare ? [this.spare] : [])];
    this.spare = undefined;
    await Promise.all(all.map((slot) => this.retire(slot)));
  }

  private spawn(asSpare: boolean): void {
    if (this.closed) return;
    const workerData: WorkerData = {
      engineLimits: { fuel: this.options.fuel, memoryBytes: this.options.engineMemoryBytes },
      preloadedItems: [...this.options.preloadedItems],
      recycleBytes: this.options.recycleBytes,
      maxOutputChars: this.options.maxOutputChars,
    };
    const worker = new Worker(this.file.entry, {
      eval: this.file.eval,
      workerData,
      resourceLimits: {
        maxOldGenerationSizeMb: this.options.heapMb,
        maxYoungGenerationSizeMb: 16,
        stackSizeMb: 4,
      },
    });
    const slot: Slot = { worker, ready: false, job: undefined, retired: false };
    if (asSpare) this.spare = slot;
    else this.slots.add(slot);
    worker.on("message", (message: WorkerReply | WorkerReady) => {
      if ("ready" in message) {
        slot.ready = true;
        this.dispatch();
      } else {
        this.finish(slot, message);
      }
    });
    worker.on("error", (error: Error & { code?: string }) => {
      const reason =
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? "the render ran out of memory and was stopped"
          : `the renderer failed: ${error.message}`;
      this.fail(slot, reason, !slot.ready);
    });
    worker.on("exit", () => this.fail(slot, "the renderer stopped unexpectedly", !slot.ready));
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.job || slot.retired) continue;
      const job = this.queue.shift() as Job;
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.fail(
          slot,
          `the render took longer than ${this.options.deadlineMs} ms and was stopped`,
          false,
        );
      }, this.options.deadlineMs);
      slot.job = { ...job, id, timer };
      slot.worker.postMessage({ ...job.request, id } satisfies WorkerRequest);
    }
  }

  private finish(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    clearTimeout(job.timer);
    slot.job = undefined;
    if (reply.ok) job.resolve(reply.result);
    else job.reject(new KilnError(reply.error.kind, reply.error.message));
    if (reply.recycle) this.replace(slot);
    this.dispatch();
  }

  /** The worker is unusable: fail its job (if any) and put a fresh worker in its place. */
  private fail(slot: Slot, reason: string, beforeReady: boolean): void {
    if (slot.retired) return;
    const job = slot.job;
    slot.job = undefined;
    if (job) {
      clearTimeout(job.timer);
      job.reject(new KilnError("internal", reason));
    }
    const wasSpare = slot === this.spare;
    if (wasSpare) this.spare = undefined;
    if (beforeReady || wasSpare) {
      this.startError = new Error(`a render worker could not start: ${reason}`);
      // A worker that cannot even start would fail again at once: back off instead of looping.
      void this.retire(slot);
      this.replaced += 1;
      setTimeout(() => this.spawn(wasSpare), 1_000).unref();
      return;
    }
    this.replace(slot);
  }

  private replace(slot: Slot): void {
    if (slot.retired) return;
    void this.retire(slot);
    this.replaced += 1;
    const spare = this.spare;
    if (spare?.ready) {
      this.spare = undefined;
      this.slots.add(spare);
      this.spawn(true);
    } else {
      this.spawn(false);
    }
    this.dispatch();
  }

  private async retire(slot: Slot): Promise<void> {
    if (slot.retired) return;
    slot.retired = true;
    slot.ready = false;
    this.slots.delete(slot);
    if (this.spare === slot) this.spare = undefined;
    await slot.worker.terminate();
  }
}
