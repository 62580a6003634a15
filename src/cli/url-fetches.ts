// The URLs one CLI run fetches, bounded as a whole. Each fetch has its own limits (10 s, 5
// redirects, 10 MiB: src/node/fetch-url.ts), but a kiln.lock names any number of URL components,
// and `kiln status` fetched them one after the other: five URLs that never answer took 50 s,
// and a cloned repository's lock made `status` call any address it liked, as often as it liked.
// So a run fetches each different URL once, at most RUN_FETCH_LIMITS.concurrency at a time, at
// most RUN_FETCH_LIMITS.maxUrls different URLs, and all of them within one deadline; whatever
// is left is not fetched, and the command names it. Every URL asked for is reported - fetched,
// failed (asked, no usable answer) or not fetched - so the user sees which addresses kiln
// called.
import { KilnError } from "../core/errors.ts";
import type { RegistryItem } from "../core/item.ts";
import { FetchFailure, fetchBytes, fetchFailed, isUrl } from "../node/fetch-url.ts";
import { parseLocatedItem } from "../node/resolve-reference.ts";
import type { Style } from "./output.ts";

/**
 * The bounds of one run. 32 different URLs is far more than a project vendors from (one per
 * registry item, shared by its components); 8 at a time keeps a slow host from holding the
 * others; 30 s is three times one fetch's own deadline, so a run with URLs that never answer
 * ends in 30 s whatever their number, where each took 10 s one after the other.
 */
export const RUN_FETCH_LIMITS = { maxUrls: 32, concurrency: 8, deadlineMs: 30_000 } as const;

/** What became of a URL the run asked for. */
export type UrlState = "fetched" | "failed" | "not fetched";

export interface UrlReport {
  url: string;
  state: UrlState;
  /** Why it failed or was not fetched. */
  reason?: string | undefined;
}

/** A URL that gave no item: `failed to fetch registry item from <url>`, whatever failed. */
function notFetchedError(url: string, reason: string): KilnError {
  return new KilnError("invalid_request", `failed to fetch registry item from ${url}`, reason);
}

/** The registry items of one run's URL references: each fetched once, all within the bounds. */
export class RunFetches {
  private readonly limits: typeof RUN_FETCH_LIMITS;
  private readonly items = new Map<string, Promise<RegistryItem>>();
  private readonly reports = new Map<string, UrlReport>();
  /** Fetches under way, and those waiting for one of them to end. */
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** Stops every fetch of the run when its deadline passes (started with the first fetch). */
  private deadline: AbortController | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(limits: typeof RUN_FETCH_LIMITS = RUN_FETCH_LIMITS) {
    this.limits = limits;
  }

  /** The item at `url` (a URL reference): fetched on the first call of the run, kept after. */
  item(url: string): Promise<RegistryItem> {
    let item = this.items.get(url);
    if (item === undefined) {
      item = this.fetch(url);
      // its failure is the caller's to report; one started ahead (`prefetch`) may never be asked
      item.catch(() => undefined);
      this.items.set(url, item);
    }
    return item;
  }

  /** Starts fetching the URLs among `references` now, within the run's bounds. */
  prefetch(references: readonly string[]): void {
    for (const reference of references) if (isUrl(reference)) this.item(reference);
  }

  /** Waits for every fetch asked for; what became of each URL, in the order first asked. */
  async settled(): Promise<UrlReport[]> {
    await Promise.allSettled(this.items.values());
    return [...this.reports.values()];
  }

  /** Stops what is still under way (the run is over). */
  close(): void {
    clearTimeout(this.timer);
    this.deadline?.abort(new FetchFailure("the run ended"));
  }

  private async fetch(url: string): Promise<RegistryItem> {
    if (this.reports.size >= this.limits.maxUrls) {
      return this.notFetched(
        url,
        `a run of kiln fetches at most ${this.limits.maxUrls} different URLs, and this one names more`,
      );
    }
    this.reports.set(url, { url, state: "not fetched" });
    await this.slot();
    try {
      const signal = this.startDeadline();
      if (signal.aborted) return this.notFetched(url, this.deadlineReason());
      let bytes: Uint8Array;
      try {
        bytes = await fetchBytes(url, { signal });
      } catch (error) {
        const reason = error instanceof FetchFailure ? error.message : undefined;
        this.reports.set(url, { url, state: "failed", reason });
        throw fetchFailed("registry item", url, error);
      }
      this.reports.set(url, { url, state: "fetched" });
      return parseLocatedItem(bytes, url);
    } finally {
      this.release();
    }
  }

  private notFetched(url: string, reason: string): never {
    this.reports.set(url, { url, state: "not fetched", reason });
    throw notFetchedError(url, `not fetched: ${reason}`);
  }

  private deadlineReason(): string {
    return `the run's URL fetches took ${this.limits.deadlineMs / 1000} s in all, the most kiln allows`;
  }

  /** The run's deadline, started by its first fetch; aborted (with why) when it passes. */
  private startDeadline(): AbortSignal {
    if (this.deadline === undefined) {
      const deadline = new AbortController();
      this.deadline = deadline;
      this.timer = setTimeout(
        () => deadline.abort(new FetchFailure(`stopped: ${this.deadlineReason()}`)),
        this.limits.deadlineMs,
      );
      this.timer.unref();
    }
    return this.deadline.signal;
  }

  /** Waits for a place among the fetches under way. */
  private async slot(): Promise<void> {
    if (this.running < this.limits.concurrency) {
      this.running += 1;
      return;
    }
    // the place is handed over by `release`, the count unchanged
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}

/** Why a URL gave no item, as one line says it: `not fetched: <why>` or the failure. */
export function missedReason(report: UrlReport): string {
  const reason = report.reason ?? "no usable answer";
  return report.state === "not fetched" ? `not fetched: ${reason}` : reason;
}

/**
 * The lines that say which URLs a read-only command (status, diff, check) called, under a
 * heading: one per URL, what became of it and why. None when it called none.
 */
export function urlLines(urls: readonly UrlReport[], style: Style): string[] {
  if (urls.length === 0) return [];
  const colour = { fetched: style.dim, failed: style.red, "not fetched": style.yellow };
  return [
    style.bold("URLs of the newest items"),
    ...urls.map(
      (url) =>
        `  ${colour[url.state](url.state.padEnd(11))} ${url.url}${url.reason === undefined ? "" : `  (${url.reason})`}`,
    ),
  ];
}
