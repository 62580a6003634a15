// Renders run in a pool of worker threads, never in the thread that serves HTTP (except the
// bounded compiled renders of built-ins, src/server/inline-render.ts), because a template is
// untrusted code: the engine's fuel bounds its CPU and its WASM memory is capped,
// but only a separate thread can be stopped by a wall-clock deadline whatever happens inside
// it. A job past the deadline (counted from the moment its worker starts it) terminates its
// worker; a worker that dies (heap limit) or asks to be recycled (memory grew, engine broke)
// is replaced.
//
// A worker runs one job at a time but holds up to `pipeline` of them: waking a sleeping thread
// costs more than a small render on a busy machine, so a worker that finds its next job
// already waiting keeps going instead of sleeping until the pool answers. A job is never
// stuck behind a slow one: once a worker's current job has run `slowMs`, the jobs it has not
// started are taken back (see the claim cells in render-protocol.ts) and that worker gets no
// more until it answers.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { RenderInput } from "../core/context.ts";
import { KilnError } from "../core/errors.ts";
import type { RegistryItem } from "../core/item.ts";
import type { RenderResult } from "../core/render-item.ts";
import {
  DEFAULT_ENGINE_MEMORY_BYTES,
  DEFAULT_RENDER_DEADLINE_MS,
  DEFAULT_RENDER_FUEL,
} from "../core/service-settings.ts";
import { FrameworkError } from "../core/wire-errors.ts";
import { MAX_FUEL } from "../node/template-engine.ts";
import {
  CLAIM_CELLS,
  type ItemSource,
  type JobRequest,
  type NotPreloaded,
  progressBuffer,
  type WorkerData,
  type WorkerReady,
  type WorkerReply,
  type WorkerShrunk,
} from "./render-protocol.ts";
import { workerEntry } from "./worker-entry.ts";
import { WorkerSlot } from "./worker-slot.ts";

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
  /** Largest answer (the response JSON as UTF-8), in bytes. */
  maxOutputBytes: number;
  /** Jobs waiting for a worker beyond this are refused. */
  maxQueue: number;
  /** A job that waited this long for a worker is dropped with an error. */
  queueTimeoutMs: number;
  /**
   * Workers that may run heavy work at once: items from strangers (URLs, files), render bodies
   * over LARGE_BODY_BYTES whatever they name, lock bases (see Share). The others stay free for
   * the catalogue's small renders, so heavy or hostile work cannot hold every worker.
   */
  untrustedWorkers: number;
  /** Keep one started worker in reserve to replace a failed one at once. */
  spare: boolean;
  /** Idle this long after strangers' or failed work, the workers that ran it are replaced. */
  idleRefreshMs: number;
  /** Jobs one worker holds at most (the one it runs and those waiting behind it). */
  pipeline: number;
  /** A worker whose current job has run this long gets no more jobs, and gives back its others. */
  slowMs: number;
  /** Items every worker loads once (the registry), so jobs for them carry only an index. */
  preloadedItems: readonly RegistryItem[];
  /**
   * Workers compile the engine for a short life (src/node/fast-start.ts): a one-shot CLI run's
   * pool, never the service's.
   */
  fastStart?: boolean;
  /**
   * Trusted items outside the registry (`@kiln`'s packaged ones), loaded and rendered as its
   * items are; no reference in a request body names them, only the item itself does.
   */
  packagedItems: readonly RegistryItem[];
}

/** The engine's own bound on fuel (larger values make every render run out). */

/** A job refused or dropped because the pool is closing. */
function shuttingDown(): KilnError {
  return new KilnError("internal", "the service is shutting down");
}

export const DEFAULT_POOL_OPTIONS: Omit<RenderPoolOptions, "preloadedItems" | "packagedItems"> = {
  size: Math.max(1, availableParallelism()),
  deadlineMs: DEFAULT_RENDER_DEADLINE_MS,
  fuel: DEFAULT_RENDER_FUEL,
  engineMemoryBytes: DEFAULT_ENGINE_MEMORY_BYTES,
  heapMb: 128,
  recycleBytes: 48 * 1024 * 1024,
  maxOutputBytes: 16 * 1024 * 1024,
  maxQueue: 10_000,
  queueTimeoutMs: 5_000,
  untrustedWorkers: Math.max(1, Math.floor(availableParallelism() / 2)),
  spare: true,
  idleRefreshMs: 1_000,
  pipeline: 8,
  slowMs: 50,
};

/**
 * Where a job may run. `trusted`: it runs no stranger's templates, so its worker needs no
 * refresh afterwards (see freshenWhenIdle). `heavy`: it runs alone on a worker, on at most
 * `untrustedWorkers` workers at once (the strangers' share); other jobs share the workers.
 */
interface Share {
  trusted: boolean;
  heavy: boolean;
}

/** A small render of the configured registry's item: any worker, beside other such jobs. */
const CATALOGUE: Share = { trusted: true, heavy: false };
/** A stranger's item (a URL's, a file's): alone, in the strangers' share, refreshed after. */
const STRANGER: Share = { trusted: false, heavy: true };
/**
 * kiln's own work that is heavy by its size, whatever it names: a render body over
 * LARGE_BODY_BYTES (parsing it costs a worker what a big render does, and a flood of them
 * naming a built-in held every worker: other callers' renders fell from 64,277 to 676 in 15 s),
 * and lock bases (up to 2 MiB of texts to compress). Alone, in the strangers' share.
 */
const HEAVY: Share = { trusted: true, heavy: true };

interface Job extends Share {
  request: JobRequest;
  /** With the answer's bytes; a `request` job may answer that its reference is not preloaded. */
  resolve: (answer: Buffer | NotPreloaded) => void;
  reject: (error: Error) => void;
  /** Its claim cell in the worker it was last given to. */
  cell: number;
  /** When it was queued (performance.now(): one clock for the queue time-out and observeRender). */
  queuedAtMs: number;
  /** The worker it was given to, while it is there. */
  slot: Slot | undefined;
  /** Removes the abort listener, once the job is settled. */
  release: (() => void) | undefined;
  settled: boolean;
}

type Slot = WorkerSlot<Job>;

/** The error of a job whose client went away before a worker started it. */
function cancelled(): KilnError {
  return new KilnError("internal", "the render was cancelled: the client closed the connection");
}

/** Why a job was stopped at its deadline, in the words of its work. */
function pastDeadline(request: JobRequest, deadlineMs: number): string {
  return request.task === "bases"
    ? `compressing the texts took longer than ${deadlineMs} ms and was stopped - send fewer or smaller texts in one request`
    : `the render took longer than ${deadlineMs} ms and was stopped`;
}

/**
 * The error of a job that waited too long for a worker. Lock bases answer `overloaded` (503),
 * as past their bound on bytes in flight; renders keep their documented `internal` (500).
 */
function waitedTooLong(request: JobRequest, queueTimeoutMs: number): KilnError {
  return request.task === "bases"
    ? new KilnError(
        "overloaded",
        `the service is busy: the texts waited ${queueTimeoutMs} ms for a worker and were dropped - try again in a moment`,
      )
    : new KilnError(
        "internal",
        `the service is busy: the render waited ${queueTimeoutMs} ms for a worker and was dropped - try again in a moment`,
      );
}

export class RenderPool {
  readonly options: RenderPoolOptions;
  private readonly slots = new Set<Slot>();
  /**
   * A started worker kept aside, so a replaced worker's place is taken at once instead of
   * after a worker start-up (a few hundred milliseconds, more from source).
   */
  private spare: Slot | undefined;
  /** Jobs waiting for a worker: the catalogue's small ones, and heavy ones (see Share). */
  private readonly queue: Job[] = [];
  private readonly heavyQueue: Job[] = [];
  /** Drops jobs that waited longer than queueTimeoutMs; armed while a queue is not empty. */
  private queueTimer: NodeJS.Timeout | undefined;
  /** Workers ran strangers' items or failed jobs since the last refresh (see freshenWhenIdle). */
  private dirty = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly preloadedIndex: Map<RegistryItem, number>;
  private readonly file = workerEntry();
  private nextId = 1;
  /** A flush() is scheduled. */
  private flushing = false;
  private closed = false;
  /** Why the last worker failed before it was ready, if one did. */
  private startError: Error | undefined;
  /**
   * Whether a stranger's item has been given to a worker: workers started from then on build
   * the engine's instance as they start (see warmUp in render-worker.ts), since such items
   * render in it; before, a worker of the compiled path leaves it for the render that needs it.
   */
  private strangersSeen = false;
  /**
   * When the first worker came up (performance.now()), or undefined before. The service listens while
   * its workers start, so a job can be queued before any worker could take it: its time in the
   * queue counts from here, as waiting for a start is not the pool being busy.
   */
  private firstReadyAt: number | undefined;
  /** Callers of ready() not answered yet. */
  private readyWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  /** Workers replaced so far (deadline, crash, recycle): for tests and diagnostics. */
  replaced = 0;
  /** POST /api/render bodies parsed in a worker (renderRequestBody), for tests and diagnostics. */
  requestBodies = 0;
  /** Workers replaced when idle after strangers' or failed work (freshenWhenIdle), for tests. */
  refreshed = 0;
  /**
   * Whether workers that ran strangers' items or failed jobs are still to be replaced once the
   * pool is idle (freshenWhenIdle): tests wait for this instead of guessing how long it takes.
   */
  get refreshDue(): boolean {
    return this.dirty;
  }
  /** Idle workers that grew, dropped their engine and gave the memory back, for tests. */
  idleShrinks = 0;
  /** Jobs given to a worker in the strangers' share (heavy work, see Share), for tests. */
  heavyJobs = 0;
  /**
   * Told of every settled render (not lock bases, inspect or meta jobs): seconds from queued to
   * settled, and whether it failed. The service's metrics set it (src/server/metrics.ts).
   */
  observeRender: ((seconds: number, failed: boolean) => void) | undefined;

  constructor(options: Partial<RenderPoolOptions> = {}) {
    this.options = { ...DEFAULT_POOL_OPTIONS, preloadedItems: [], packagedItems: [], ...options };
    if (!(this.options.fuel >= 1 && this.options.fuel <= MAX_FUEL)) {
      throw new RangeError(`render fuel must be between 1 and ${MAX_FUEL}`);
    }
    if (!(this.options.untrustedWorkers >= 1)) {
      throw new RangeError("render untrustedWorkers must be at least 1");
    }
    if (!(this.options.pipeline >= 1 && this.options.pipeline < CLAIM_CELLS)) {
      throw new RangeError(`render pipeline must be between 1 and ${CLAIM_CELLS - 1}`);
    }
    this.preloadedIndex = new Map(
      [...this.options.preloadedItems, ...this.options.packagedItems].map((item, index) => [
        item,
        index,
      ]),
    );
    for (let index = 0; index < this.options.size; index++) this.spawn(false);
    if (this.options.spare) this.spawn(true);
  }

  /** `heavy`: workers running heavy work now (at most `untrustedWorkers`). */
  stats(): {
    workers: number;
    ready: number;
    busy: number;
    heavy: number;
    queued: number;
    replaced: number;
  } {
    let ready = 0;
    let busy = 0;
    let heavy = 0;
    for (const slot of this.slots) {
      if (slot.ready) ready += 1;
      if (slot.jobs.size > 0) busy += 1;
      if (slot.heavy) heavy += 1;
    }
    return {
      workers: this.slots.size,
      ready,
      busy,
      heavy,
      queued: this.queue.length + this.heavyQueue.length,
      replaced: this.replaced,
    };
  }

  /** Resolves once every worker has started (its engine built); rejects if one cannot start. */
  ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.readyWaiters.push({ resolve, reject });
      this.settleReadyWaiters();
    });
  }

  /** Answers `ready()` callers once all workers are ready, one failed to start, or closing. */
  private settleReadyWaiters(): void {
    if (this.readyWaiters.length === 0) return;
    const waiters = this.readyWaiters;
    if (this.startError) {
      this.readyWaiters = [];
      for (const waiter of waiters) waiter.reject(this.startError);
    } else if (this.closed || this.stats().ready >= this.options.size) {
      this.readyWaiters = [];
      for (const waiter of waiters) waiter.resolve();
    }
  }

  /** Renders and resolves with the result as parsed JSON (see renderJson). */
  async render(
    item: RegistryItem,
    input: RenderInput,
    signal?: AbortSignal,
  ): Promise<RenderResult> {
    return JSON.parse((await this.renderJson(item, input, signal)).toString()) as RenderResult;
  }

  /**
   * Renders and resolves with the response body, `{component, files: [{path, content}]}` as
   * UTF-8 JSON, encoded in the worker. Items of the configured registry run in the workers'
   * shared template environment; any other item runs isolated, on a worker of its own.
   */
  renderJson(item: RegistryItem, input: RenderInput, signal?: AbortSignal): Promise<Buffer> {
    const index = this.preloadedIndex.get(item);
    return index !== undefined
      ? this.run({ preloaded: index, input }, CATALOGUE, signal)
      : this.run({ item, input }, STRANGER, signal);
  }

  /** Parses, validates and renders the bytes of an item file or URL, in a worker. */
  renderSource(source: ItemSource, input: RenderInput, signal?: AbortSignal): Promise<Buffer> {
    return this.run({ source, input }, STRANGER, signal);
  }

  /**
   * Parses and decodes a POST /api/render body in a worker, never in the thread that serves
   * HTTP (a body near the 2 MiB limit takes that thread 10-25 ms to check, decode and parse),
   * and renders it there. Without `located`, it renders when the body names an item of the
   * configured registry and otherwise resolves with the reference, for the caller to resolve
   * (a URL or a file) and send again with `located`: that item, or its bytes, renders isolated
   * on a worker of its own, as `renderJson` and `renderSource` do. A body that is not JSON, or
   * not a render request, fails with the same 400 or 422 FrameworkError as when parsed here.
   * Only bodies over LARGE_BODY_BYTES come here, and they are heavy work whatever they name:
   * they run alone, within the strangers' share of the workers (see HEAVY).
   */
  renderRequestBody(
    body: Uint8Array,
    located?: { item: RegistryItem } | { source: ItemSource },
    signal?: AbortSignal,
  ): Promise<Buffer | NotPreloaded> {
    this.requestBodies += 1;
    if (!located) return this.runAny({ task: "request", body }, HEAVY, signal);
    const index = "item" in located ? this.preloadedIndex.get(located.item) : undefined;
    if (index !== undefined) {
      return this.runAny({ task: "request", body, preloaded: index }, HEAVY, signal);
    }
    return this.runAny({ task: "request", body, ...located }, STRANGER, signal);
  }

  /**
   * A POST /api/lock/bases body parsed, checked and compressed in a worker, as heavy work:
   * the answer's bytes (lock-bases.ts).
   */
  lockBases(body: Uint8Array, signal?: AbortSignal): Promise<Buffer> {
    return this.run({ task: "bases", body }, HEAVY, signal);
  }

  /** Parses and validates the bytes of an item file or URL in a worker: its API view as JSON. */
  inspectSource(source: ItemSource, signal?: AbortSignal): Promise<Buffer> {
    return this.run({ task: "inspect", source }, STRANGER, signal);
  }

  /** Parses and validates the bytes of an item file or URL in a worker: its metadata as JSON. */
  metaSource(source: ItemSource, signal?: AbortSignal): Promise<Buffer> {
    return this.run({ task: "meta", source }, STRANGER, signal);
  }

  /**
   * Queues a job. When `signal` aborts before a worker starts it, the job is dropped (its
   * client has gone); a job already running finishes within the deadline and is not awaited.
   */
  private run(request: JobRequest, share: Share, signal?: AbortSignal): Promise<Buffer> {
    // only `request` jobs answer that a reference is not preloaded (renderRequestBody)
    return this.runAny(request, share, signal) as Promise<Buffer>;
  }

  private runAny(
    request: JobRequest,
    share: Share,
    signal?: AbortSignal,
  ): Promise<Buffer | NotPreloaded> {
    if (this.closed) return Promise.reject(shuttingDown());
    if (this.queue.length + this.heavyQueue.length >= this.options.maxQueue) {
      return Promise.reject(
        new KilnError("internal", "too many renders are waiting - try again in a moment"),
      );
    }
    if (signal?.aborted) return Promise.reject(cancelled());
    if (!share.trusted) this.strangersSeen = true;
    return new Promise<Buffer | NotPreloaded>((resolve, reject) => {
      const job: Job = {
        request,
        ...share,
        resolve,
        reject,
        cell: 0,
        queuedAtMs: performance.now(),
        slot: undefined,
        release: undefined,
        settled: false,
      };
      if (signal) {
        const abort = () => this.cancel(job);
        signal.addEventListener("abort", abort, { once: true });
        job.release = () => signal.removeEventListener("abort", abort);
      }
      (job.heavy ? this.heavyQueue : this.queue).push(job);
      this.armQueueTimer();
      this.dispatch();
    });
  }

  /** Settles a job once: resolves or rejects it and drops its abort listener. */
  private settle(
    job: Job,
    outcome: { body: Buffer } | { notPreloaded: NotPreloaded } | { error: Error },
  ): void {
    if (job.settled) return;
    job.settled = true;
    job.release?.();
    const task = "task" in job.request ? job.request.task : undefined;
    // a large body that names no built-in comes back to be resolved and is rendered after: once
    const rendered = !("notPreloaded" in outcome) && (task === undefined || task === "request");
    if (this.observeRender && rendered) {
      this.observeRender((performance.now() - job.queuedAtMs) / 1000, "error" in outcome);
    }
    if ("body" in outcome) job.resolve(outcome.body);
    else if ("notPreloaded" in outcome) job.resolve(outcome.notPreloaded);
    else job.reject(outcome.error);
  }

  /** The client gave up: drop the job unless a worker has started it. */
  private cancel(job: Job): void {
    if (job.settled) return;
    for (const queue of [this.queue, this.heavyQueue]) {
      const at = queue.indexOf(job);
      if (at !== -1) {
        queue.splice(at, 1);
        this.settle(job, { error: cancelled() });
        return;
      }
    }
    const slot = job.slot;
    if (!slot) return;
    if (!slot.revoke(job)) return; // running
    for (const [id, held] of slot.jobs) {
      if (held !== job) continue;
      slot.drop(id);
      break;
    }
    job.slot = undefined;
    this.settle(job, { error: cancelled() });
    this.dispatch();
  }

  private armQueueTimer(): void {
    if (this.queueTimer) return;
    this.queueTimer = setTimeout(this.expire, Math.min(100, this.options.queueTimeoutMs));
    this.queueTimer.unref();
  }

  /** Drops every queued job that has waited longer than queueTimeoutMs. */
  private readonly expire = (): void => {
    this.queueTimer = undefined;
    const oldest = performance.now() - this.options.queueTimeoutMs;
    const startedAt = this.firstReadyAt ?? Number.POSITIVE_INFINITY;
    for (const queue of [this.queue, this.heavyQueue]) {
      for (let at = queue.length - 1; at >= 0; at--) {
        const job = queue[at] as Job;
        if (Math.max(job.queuedAtMs, startedAt) > oldest) continue;
        queue.splice(at, 1);
        this.settle(job, { error: waitedTooLong(job.request, this.options.queueTimeoutMs) });
      }
    }
    if (this.queue.length + this.heavyQueue.length > 0) this.armQueueTimer();
  };

  async close(): Promise<void> {
    this.closed = true;
    this.settleReadyWaiters();
    if (this.queueTimer) clearTimeout(this.queueTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    for (const job of [...this.queue.splice(0), ...this.heavyQueue.splice(0)]) {
      this.settle(job, { error: shuttingDown() });
    }
    const all = [...this.slots, ...(this.spare ? [this.spare] : [])];
    this.spare = undefined;
    await Promise.all(all.map((slot) => this.retire(slot)));
  }

  private spawn(asSpare: boolean): void {
    if (this.closed) return;
    const workerData: WorkerData = {
      engineLimits: { fuel: this.options.fuel, memoryBytes: this.options.engineMemoryBytes },
      preloadedItems: [...this.options.preloadedItems, ...this.options.packagedItems],
      namedItemCount: this.options.preloadedItems.length,
      recycleBytes: this.options.recycleBytes,
      maxOutputBytes: this.options.maxOutputBytes,
      progress: progressBuffer(),
      fastStart: this.options.fastStart === true,
      warmEngine: this.strangersSeen,
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
    const slot: Slot = new WorkerSlot(worker, workerData.progress);
    if (asSpare) this.spare = slot;
    else this.slots.add(slot);
    worker.on("message", (message: WorkerReply | WorkerReady | WorkerShrunk) => {
      if ("ready" in message) {
        slot.ready = true;
        // a job's time in the queue counts from the first worker that can take it: the spare
        // takes none until it replaces one, so its start (often first) does not count
        if (this.slots.has(slot)) this.firstReadyAt ??= performance.now();
        this.dispatch();
        this.settleReadyWaiters();
      } else if ("shrunk" in message) {
        this.idleShrinks += 1;
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

  /**
   * Gives queued jobs to workers. The catalogue's small ones go to the least loaded worker that
   * is not slow, full, or running heavy work. Heavy work (a stranger's item, a large body, lock
   * bases) goes to an idle worker only, alone, and to at most `untrustedWorkers` of them at once.
   */
  private dispatch(): void {
    while (this.queue.length > 0) {
      let best: Slot | undefined;
      for (const slot of this.slots) {
        if (!slot.open || slot.jobs.size >= this.options.pipeline) continue;
        if (!best || slot.jobs.size < best.jobs.size) best = slot;
        if (slot.jobs.size === 0) break;
      }
      if (!best) break;
      this.give(best, this.queue.shift() as Job);
    }
    while (this.heavyQueue.length > 0) {
      let running = 0;
      let idle: Slot | undefined;
      for (const slot of this.slots) {
        if (slot.heavy) running += 1;
        else if (!idle && slot.ready && !slot.retired && slot.jobs.size === 0) idle = slot;
      }
      if (!idle || running >= this.options.untrustedWorkers) break;
      const job = this.heavyQueue.shift() as Job;
      idle.heavy = true;
      if (!job.trusted) idle.ranUntrusted = true;
      this.heavyJobs += 1;
      this.give(idle, job);
    }
  }

  /** Puts a job in a worker's outbox (sent by flush) and watches the worker. */
  private give(slot: Slot, job: Job): void {
    const id = this.nextId++;
    const cell = slot.claimCell();
    job.cell = cell;
    job.slot = slot;
    slot.jobs.set(id, job);
    slot.outbox.push({ ...job.request, id, cell });
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(this.flush);
    }
    if (!slot.timer) this.watch(slot, Math.min(this.options.deadlineMs, this.options.slowMs));
  }

  /**
   * Sends each worker the jobs it was given since the last flush, in one message: requests
   * read in the same turn of the event loop wake a sleeping worker once, not once each.
   */
  private readonly flush = (): void => {
    this.flushing = false;
    for (const slot of this.slots) {
      if (slot.outbox.length === 0) continue;
      slot.worker.postMessage(slot.outbox);
      slot.outbox = [];
    }
  };

  private watch(slot: Slot, delayMs: number): void {
    slot.timer = setTimeout(() => this.check(slot), Math.max(1, delayMs));
  }

  /**
   * The slot's timer: stops the running job at its deadline; once it has run slowMs, takes
   * back the jobs queued behind it. Re-armed while the worker holds jobs.
   */
  private check(slot: Slot): void {
    slot.timer = undefined;
    if (slot.retired || slot.jobs.size === 0) return;
    const { deadlineMs, slowMs } = this.options;
    const { id, startedAt } = slot.current();
    if (!slot.jobs.has(id)) {
      // Between two jobs: the next one starts now at the earliest.
      this.watch(slot, Math.min(deadlineMs, slowMs));
      return;
    }
    const elapsed = Date.now() - startedAt;
    if (elapsed >= deadlineMs) {
      const running = slot.jobs.get(id) as Job;
      this.fail(slot, pastDeadline(running.request, deadlineMs), false);
      return;
    }
    if (elapsed >= slowMs && !slot.slow) {
      slot.slow = true;
      this.revoke(slot, id);
    }
    this.watch(slot, (slot.slow ? deadlineMs : Math.min(deadlineMs, slowMs)) - elapsed);
  }

  /** Takes back the jobs the worker has not started (all but `running`) and requeues them. */
  private revoke(slot: Slot, running: number | undefined): void {
    const back: Job[] = [];
    for (const [id, job] of slot.jobs) {
      if (id === running) continue;
      if (!slot.revoke(job)) continue;
      slot.jobs.delete(id);
      back.push(job);
    }
    if (back.length === 0) return;
    this.requeue(back);
    this.dispatch();
  }

  private finish(slot: Slot, reply: WorkerReply): void {
    const job = slot.jobs.get(reply.id);
    if (!job) return;
    slot.drop(reply.id);
    job.slot = undefined;
    slot.slow = false;
    if (reply.ok && "notPreloaded" in reply) {
      this.settle(job, { notPreloaded: reply.notPreloaded });
    } else if (reply.ok) {
      const { body } = reply;
      this.settle(job, { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) });
    } else {
      const { kind, message, detail, field, status } = reply.error;
      // a body refused before anything ran (bad JSON, wrong shape) leaves the worker as it was
      const refusedBody = status !== undefined;
      if (!refusedBody) slot.failed = true;
      const error = refusedBody
        ? new FrameworkError(status, message)
        : new KilnError(kind, message, detail, field);
      this.settle(job, { error });
    }
    if ((!reply.ok && slot.failed) || slot.ranUntrusted) this.markDirty();
    if (reply.recycle) this.replace(slot);
    this.dispatch();
    this.freshenWhenIdle();
  }

  /** Something ran that may have left a worker large (a stranger's item, a failure). */
  private markDirty(): void {
    this.dirty = true;
  }

  /**
   * Once the pool has been idle for `idleRefreshMs` after hostile or failing work, every worker
   * that ran such work is replaced by a fresh one: WASM memory never shrinks and a worker's heap
   * keeps its high-water mark, so this is how the memory a burst took goes back to the system.
   */
  private freshenWhenIdle(): void {
    if (!this.dirty || this.idleTimer || this.closed) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.closed) return;
      const busy =
        this.queue.length + this.heavyQueue.length > 0 ||
        [...this.slots].some((slot) => slot.jobs.size > 0 || !slot.ready);
      if (busy) {
        this.freshenWhenIdle();
        return;
      }
      this.dirty = false;
      for (const slot of [...this.slots]) {
        if (!slot.ranUntrusted && !slot.failed) continue;
        this.refreshed += 1;
        this.replace(slot, false);
      }
    }, this.options.idleRefreshMs);
    this.idleTimer.unref();
  }

  /**
   * The worker is unusable: fail the job it was running (if any), hand the ones it had not
   * started back to the queue, and put a fresh worker in its place.
   */
  private fail(slot: Slot, reason: string, beforeReady: boolean): void {
    if (slot.retired) return;
    const running = slot.current().id;
    const job = slot.jobs.get(running);
    if (job && slot.started(job)) {
      slot.jobs.delete(running);
      job.slot = undefined;
      this.settle(job, { error: new KilnError("internal", reason) });
    }
    this.takeBack(slot);
    const wasSpare = slot === this.spare;
    if (wasSpare) this.spare = undefined;
    if (beforeReady || wasSpare) {
      this.startError = new Error(`a render worker could not start: ${reason}`);
      this.settleReadyWaiters();
      // A worker that cannot even start would fail again at once: back off instead of looping.
      void this.retire(slot);
      this.replaced += 1;
      setTimeout(() => this.spawn(wasSpare), 1_000).unref();
      this.dispatch();
      return;
    }
    this.replace(slot);
  }

  /** Requeues (at the front) every job a retiring worker still holds; they had not started. */
  private takeBack(slot: Slot): void {
    const back = [...slot.jobs.values()];
    slot.jobs.clear();
    slot.heavy = false;
    slot.outbox = [];
    this.requeue(back);
  }

  /** Puts jobs handed back by a worker at the front of their queues, in order. */
  private requeue(jobs: Job[]): void {
    for (const job of jobs) job.slot = undefined;
    this.queue.unshift(...jobs.filter((job) => !job.heavy));
    this.heavyQueue.unshift(...jobs.filter((job) => job.heavy));
    if (jobs.length > 0) this.armQueueTimer();
  }

  private replace(slot: Slot, counted = true): void {
    if (slot.retired) return;
    // A worker asked to be replaced starts nothing more: what it holds goes to the others.
    this.takeBack(slot);
    void this.retire(slot);
    if (counted) this.replaced += 1;
    const spare = this.spare;
    if (spare?.ready) {
      this.spare = undefined;
      this.slots.add(spare);
      this.firstReadyAt ??= performance.now();
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
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    this.slots.delete(slot);
    if (this.spare === slot) this.spare = undefined;
    await slot.worker.terminate();
  }
}
