// One render worker as the pool sees it: the thread, the jobs it holds, and the memory it
// shares with the thread (which job runs since when, and one claim cell per job, see
// render-protocol.ts). The pool decides what goes where; a slot answers questions about its
// worker and keeps the claim protocol in one place.
import type { Worker } from "node:worker_threads";
import {
  CLAIM_BASE,
  CLAIM_CELLS,
  PROGRESS_JOB,
  PROGRESS_STARTED_HIGH,
  PROGRESS_STARTED_LOW,
  REVOKED,
  type WorkerRequest,
} from "./render-protocol.ts";

export class WorkerSlot<Job extends { cell: number }> {
  readonly worker: Worker;
  /** Shared with the worker: the job it runs, since when, and the claim cells. */
  readonly progress: Int32Array;
  /** Its engine is built and it takes jobs. */
  ready = false;
  /** Jobs sent to this worker and not answered, by id, in the order it runs them. */
  readonly jobs = new Map<number, Job>();
  /** Jobs given to this worker in this turn of the event loop, sent together by the pool. */
  outbox: WorkerRequest[] = [];
  /** Checks the running job against the deadline (and slowMs) while the worker has jobs. */
  timer: NodeJS.Timeout | undefined;
  /** Its current job has run slowMs: it gets no more jobs until it answers. */
  slow = false;
  /** Set once the pool has given up on this worker (deadline, recycle, crash). */
  retired = false;
  /** It holds a heavy job (a stranger's item, a large body, lock bases; no other job then). */
  heavy = false;
  /** It has run a stranger's item since it started. */
  ranUntrusted = false;
  /** A job failed on it since it started. */
  failed = false;
  /** Next claim cell, cycling through CLAIM_CELLS. */
  private nextCell = 0;

  constructor(worker: Worker, progress: SharedArrayBuffer) {
    this.worker = worker;
    this.progress = new Int32Array(progress);
  }

  /** Ready, not retired, not slow and not running heavy work: it may take more jobs. */
  get open(): boolean {
    return this.ready && !this.retired && !this.slow && !this.heavy;
  }

  /** A fresh claim cell for a job given to this worker. */
  claimCell(): number {
    const cell = CLAIM_BASE + this.nextCell;
    this.nextCell = (this.nextCell + 1) % CLAIM_CELLS;
    Atomics.store(this.progress, cell, 0);
    return cell;
  }

  /** Takes a job back before the worker starts it; false when the worker already claimed it. */
  revoke(job: Job): boolean {
    return Atomics.compareExchange(this.progress, job.cell, 0, REVOKED) === 0;
  }

  /** The worker claimed this job (it runs or ran it). */
  started(job: Job): boolean {
    return Atomics.load(this.progress, job.cell) !== 0;
  }

  /** The id of the job the worker runs (or ran last) and when it started it. */
  current(): { id: number; startedAt: number } {
    for (;;) {
      const id = Atomics.load(this.progress, PROGRESS_JOB);
      const startedAt =
        Atomics.load(this.progress, PROGRESS_STARTED_HIGH) * 2 ** 31 +
        Atomics.load(this.progress, PROGRESS_STARTED_LOW);
      if (Atomics.load(this.progress, PROGRESS_JOB) === id) return { id, startedAt };
    }
  }

  /** Removes a job it holds; a slot left without jobs runs no heavy work any more. */
  drop(id: number): void {
    this.jobs.delete(id);
    if (this.jobs.size === 0) this.heavy = false;
  }
}
