// Gives a burst's memory back once the service is quiet. After many concurrent connections
// the HTTP thread's V8 heap keeps its high-water mark (measured: heapTotal 16 MiB before
// 1,000 concurrent connections, 61 MiB after, RSS 175 → 240 MiB) and V8 does not shrink it
// on its own while the process idles; one full collection, once nothing has arrived for a
// while, brings RSS back near where it started (measured: 189 MiB). Before it, the service
// drops what it keeps only to answer repeats (`onQuiet`: the render cache), which is most of
// what that collection must mark. The render workers give their memory back themselves (see
// RenderPool's idle refresh).
//
// The heap is not all a burst leaves: request bodies and the answers workers move here live
// outside it (`external`), and V8, seeing a small heap, need not collect them. After a flood
// of 1.8 MB POST /api/lock/bases bodies the heap was smaller than at start, so nothing was
// collected, while 22-27 MB of dead bodies and answers stayed outside it (RSS 1.25-1.4 times
// its value before the flood, 15 s later; with this collection 1.05-1.3 times, measured). So
// memory outside the heap grown by more than EXTERNAL_GROWTH_BYTES is a reason to collect too.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export interface IdleCollectorOptions {
  /** How often activity is looked at; a collection comes after one whole quiet period. */
  periodMs: number;
  /** Collect only when the heap has grown past this many times its size at start. */
  growth: number;
  /**
   * Or when the process's resident memory has grown by more than this many bytes since start.
   * A service that allocates little per request can end a burst with a heap short of `growth`
   * while V8 keeps the young generation it grew for the burst, and its pages with it (measured:
   * RSS 103 MiB at start, 126 MiB 12 s after a burst of unique renders, 99 MiB after one full
   * collection).
   */
  rssGrowthBytes: number;
  /**
   * Called once a whole period has passed without requests after some, before the heap is
   * looked at: lets the service drop what it keeps only to answer repeats faster (its render
   * cache), so that the collection has less to mark and more to give back.
   */
  onQuiet?: (() => void) | undefined;
}

export const DEFAULT_IDLE_COLLECTOR: IdleCollectorOptions = {
  periodMs: 5_000,
  growth: 1.5,
  rssGrowthBytes: 16 * 1024 * 1024,
};

/** Memory outside the heap (buffers) grown by more than this since start is collected. */
const EXTERNAL_GROWTH_BYTES = 8 * 1024 * 1024;

let collect: (() => void) | undefined;

/** Node's `gc`, exposed for contexts made after the flag is set (the worker does the same). */
function garbageCollector(): () => void {
  if (!collect) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as () => void;
  }
  return collect;
}

export class IdleCollector {
  /** Requests seen; the server counts each one (one increment, no listener). */
  requests = 0;
  /** Full collections run so far (for tests and diagnostics). */
  collections = 0;
  /** Quiet periods seen after requests, each looked at once (for tests and diagnostics). */
  quietPeriods = 0;
  private seenAtLastTick = 0;
  /** Requests seen when the service last went quiet: each quiet period is handled once. */
  private seenAtLastQuiet = 0;
  private readonly baseline = process.memoryUsage().heapTotal;
  private readonly externalBaseline = process.memoryUsage().external;
  private readonly rssBaseline = process.memoryUsage.rss();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: IdleCollectorOptions = DEFAULT_IDLE_COLLECTOR) {
    this.timer = setInterval(() => this.tick(), options.periodMs);
    this.timer.unref();
  }

  private tick(): void {
    const quiet = this.requests === this.seenAtLastTick;
    this.seenAtLastTick = this.requests;
    if (!quiet || this.requests === this.seenAtLastQuiet) return;
    this.seenAtLastQuiet = this.requests;
    this.quietPeriods += 1;
    this.options.onQuiet?.();
    if (!this.grown()) return;
    this.collections += 1;
    garbageCollector()();
  }

  /**
   * The heap grew past `growth` times its size at start, the memory outside it by 8 MiB, or the
   * resident memory by `rssGrowthBytes`.
   */
  private grown(): boolean {
    const { heapTotal, external, rss } = process.memoryUsage();
    return (
      heapTotal >= this.baseline * this.options.growth ||
      external > this.externalBaseline + EXTERNAL_GROWTH_BYTES ||
      rss > this.rssBaseline + this.options.rssGrowthBytes
    );
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
