// The service's metrics, `GET /metrics` in the Prometheus text format, made with prom-client
// (the Prometheus client of the Node world: its exposition format, histogram buckets and the
// process and event-loop metrics every Node dashboard expects). Each service has its own
// registry, never prom-client's global one, so two services in one process (tests) count apart.
// The counts made on every request are kept where prom-client's per-call lookups cost nothing:
// the request counter's increments wait in each series until a scrape hands them over, and the
// request and render durations are duration-histogram.ts's, which the registry writes as its own.
//
// What is counted, and where: every answered request once, by route pattern, method and status
// (server.ts tells `answered`, also for the 400 and 408 Node's own parser answers, under the
// route `(unparsed)`); requests refused by reason (the reply carries it: a body over the limit, a
// Host the guard refuses, the service overloaded; the fetch slots' refusal when their line is
// full is counted where they are wrapped, here); renders by how
// long a worker took from queue to answer (the render pool tells `observeRender`); fetches the
// service starts for a caller, to URLs and to registries (the fetch slots, wrapped here). The
// render pool's queue and workers and the render cache's hits and misses are read when Prometheus
// scrapes, from the counts those keep anyway: nothing is added to their hot paths.
//
// Labels hold only bounded values: a route is the route table's pattern (`/api/presets/{name}`,
// never the name asked for), so a client cannot make the service keep a series per URL.
import { Counter, collectDefaultMetrics, Gauge, Registry as MetricRegistry } from "prom-client";
import type { RenderPool } from "../sandbox/render-pool.ts";
import { DurationHistogram, type DurationSeries } from "./duration-histogram.ts";
import type { Services } from "./handlers.ts";
import type { RenderCache } from "./render-cache.ts";
import { empty, type RejectionReason, type Reply } from "./reply.ts";

/**
 * Why a request was refused, as the `reason` label spells it: before any work, as its reply
 * says (RejectionReason), or `too_many_fetches` - a fetch it needed found every place under way
 * and the line of waiting fetches full.
 */
type CountedRejection = RejectionReason | "too_many_fetches";

export const REJECTION_REASONS: readonly CountedRejection[] = [
  "body_too_large",
  "host_refused",
  "overloaded",
  "too_many_fetches",
];

/** Where the service fetches for a caller: a URL reference, or a configured registry. */
export type FetchKind = "url" | "registry";

/**
 * Request durations, in seconds: a kept render answers in well under a millisecond, a stranger's
 * item fetched and rendered in seconds; the deadlines are 2 s (render) and 10 s (fetch).
 */
const REQUEST_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
/** Render durations, in seconds, up to the render deadline and past it (a queue's wait). */
const RENDER_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5];

/** One answered request, as the metrics and the request log see it. */
export interface AnsweredRequest {
  /** The method, or `(unparsed)` for an answer Node's parser gave (see server.ts). */
  method: string;
  /** The route pattern, `/metrics`, `ui` (the dashboard's files), `unmatched` or `(unparsed)`. */
  route: string;
  status: number;
  /** From the request's arrival to its answer; undefined when unknown (`(unparsed)`). */
  seconds: number | undefined;
  rejected: RejectionReason | undefined;
}

/** What the metrics read when scraped. */
export interface MetricSources {
  pool: RenderPool;
  renderCache: RenderCache;
}

export class ServiceMetrics {
  readonly registry = new MetricRegistry();
  private readonly requests: Counter<"route" | "method" | "status">;
  private readonly requestSeconds: DurationHistogram;
  private readonly renderSeconds: DurationHistogram;
  private readonly rejections: Counter<"reason">;
  private readonly tooManyFetches: ReturnType<Counter<"reason">["labels"]>;
  private readonly fetches: Counter<"kind">;
  /**
   * The request series by route, method and status, bound once: prom-client finds a series by
   * hashing its label object on every call (sorting its keys), which cost more than the rest
   * of a small request's counting (measured: about 10 us of CPU per GET /api/health, 7 with this).
   */
  private readonly series = new Map<
    string,
    {
      requests: ReturnType<Counter<"route" | "method" | "status">["labels"]>;
      /** Requests answered since the last scrape: handed to `requests` then (its collect). */
      answeredSinceScrape: number;
      seconds: DurationSeries;
    }
  >();

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: "kiln_http_requests_total",
      help: "Requests answered, by route pattern, method and status.",
      labelNames: ["route", "method", "status"],
      registers,
      // counted per request in `series`, handed over when Prometheus scrapes: prom-client's
      // inc hashes the label object on every call, even a bound series'
      collect: () => {
        for (const series of this.series.values()) {
          if (series.answeredSinceScrape === 0) continue;
          series.requests.inc(series.answeredSinceScrape);
          series.answeredSinceScrape = 0;
        }
      },
    });
    // the two durations the HTTP thread observes per request: see duration-histogram.ts
    this.requestSeconds = new DurationHistogram(
      "kiln_http_request_duration_seconds",
      "Time from a request's arrival to its answer being written, by route pattern and method.",
      ["route", "method"],
      REQUEST_BUCKETS,
      this.registry,
    );
    this.renderSeconds = new DurationHistogram(
      "kiln_render_duration_seconds",
      "Time of a render in the worker pool, from queued to answered (waiting included), by outcome.",
      ["outcome"],
      RENDER_BUCKETS,
      this.registry,
    );
    this.renderSeries = {
      ok: this.renderSeconds.labels("ok"),
      error: this.renderSeconds.labels("error"),
    };
    this.rejections = new Counter({
      name: "kiln_rejected_requests_total",
      help: "Requests refused: before any work, body_too_large (413), host_refused (403), overloaded (503); too_many_fetches (400), a fetch it needed found the fetches under way and waiting at their bound.",
      labelNames: ["reason"],
      registers,
    });
    // every reason is exported from the start, so a rate over it is 0 rather than no data
    for (const reason of REJECTION_REASONS) this.rejections.inc({ reason }, 0);
    this.tooManyFetches = this.rejections.labels({ reason: "too_many_fetches" });
    this.fetches = new Counter({
      name: "kiln_fetches_total",
      help: "Fetches started for a caller: to a URL reference (url) or a configured registry (registry).",
      labelNames: ["kind"],
      registers,
    });
    for (const kind of ["url", "registry"] as const) this.fetches.inc({ kind }, 0);
    registerPoolGauges(sources.pool, registers);
    registerCacheCounters(sources.renderCache, registers);
    collectDefaultMetrics({ register: this.registry });
  }

  /** Counts one answered request. */
  answered(request: AnsweredRequest): void {
    const key = `${request.route} ${request.method} ${request.status}`;
    let series = this.series.get(key);
    if (series === undefined) {
      series = {
        requests: this.requests.labels(request.route, request.method, String(request.status)),
        answeredSinceScrape: 0,
        seconds: this.requestSeconds.labels(request.route, request.method),
      };
      this.series.set(key, series);
    }
    series.answeredSinceScrape += 1;
    if (request.seconds !== undefined) series.seconds.observe(request.seconds);
    if (request.rejected !== undefined) this.rejections.inc({ reason: request.rejected });
  }

  /** The render series by outcome (each appears in the exposition once it has a render). */
  private readonly renderSeries: Record<"ok" | "error", DurationSeries>;

  /** Times one render job of the pool (see RenderPool.observeRender). */
  readonly observeRender = (seconds: number, failed: boolean): void => {
    (failed ? this.renderSeries.error : this.renderSeries.ok).observe(seconds);
  };

  /** The fetch slots' acquire, counting each fetch it lets start as one of `kind`. */
  countFetches(kind: FetchKind, acquire: Services["acquireFetch"]): Services["acquireFetch"] {
    const counted = this.fetches.labels({ kind });
    return (signal) =>
      acquire(signal).then(
        (release) => {
          counted.inc();
          return release;
        },
        (error: unknown) => {
          // the slots refuse in two cases: the caller went away (its signal aborted), or every
          // place is taken and the line of waiting fetches is full - the service's refusal
          if (!signal.aborted) this.tooManyFetches.inc();
          throw error;
        },
      );
  }

  /** The answer to `<method> /metrics`: the exposition text to GET and HEAD, 405 otherwise. */
  async reply(method: string): Promise<Reply> {
    if (method !== "GET" && method !== "HEAD") return empty(405, { allow: "GET,HEAD" });
    const body = await this.registry.metrics();
    return { status: 200, headers: { "content-type": this.registry.contentType }, body };
  }
}

/** The render pool's load, read when scraped. */
function registerPoolGauges(pool: RenderPool, registers: MetricRegistry[]): void {
  const gauges: [string, string, (stats: ReturnType<RenderPool["stats"]>) => number][] = [
    ["kiln_render_pool_queue_length", "Render jobs waiting for a worker.", (s) => s.queued],
    ["kiln_render_pool_busy_workers", "Render workers with a job.", (s) => s.busy],
    ["kiln_render_pool_workers", "Render workers started.", (s) => s.workers],
  ];
  for (const [name, help, read] of gauges) {
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(pool.stats()));
      },
    });
  }
}

/**
 * The render cache's hits and misses, as counters read when scraped: the cache counts them
 * anyway (plain integer increments), and a counter here moves by what they moved since the last
 * scrape.
 */
function registerCacheCounters(cache: RenderCache, registers: MetricRegistry[]): void {
  const counters: [string, string, () => number][] = [
    [
      "kiln_render_cache_hits_total",
      "Render requests answered from the render cache (or shared with the same render under way).",
      () => cache.hits,
    ],
    [
      "kiln_render_cache_misses_total",
      "Render requests the render cache did not answer (renders of URL, file and registry references are never kept).",
      () => cache.misses,
    ],
  ];
  for (const [name, help, read] of counters) {
    let exported = 0;
    new Counter({
      name,
      help,
      registers,
      collect() {
        const now = read();
        if (now > exported) this.inc(now - exported);
        exported = now;
      },
    });
  }
}
