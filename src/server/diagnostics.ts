// The service's own measurements for the benchmark (bench/server.bench.ts), outside the HTTP
// API: how long the thread that serves HTTP was ever kept from its event loop, and the
// process's resident memory. Off unless the environment asks for it (KILN_DIAGNOSTICS=1),
// so a normal service pays nothing and exposes nothing; when on, the numbers go to stderr as
// one JSON line on SIGUSR2 (the histogram then starts again) and once more on exit.
import { monitorEventLoopDelay } from "node:perf_hooks";

/** The environment variable that turns the report on. */
export const DIAGNOSTICS_ENV = "KILN_DIAGNOSTICS";

/** What one report line holds (all times in milliseconds). */
export interface DiagnosticsReport {
  eventLoopDelay: { maxMs: number; p99Ms: number; meanMs: number; samples: number };
  rssBytes: number;
}

/** The prefix of the report line on stderr, so a reader can tell it from other output. */
export const REPORT_PREFIX = "kiln-diagnostics ";

/**
 * Starts measuring when `env` asks for it; returns a function that stops it (and prints the
 * last report), or undefined when off. Resolution 1 ms: a longer block shows in the maximum
 * to within about a millisecond.
 */
export function startDiagnostics(
  env: NodeJS.ProcessEnv,
  write: (line: string) => void,
): (() => void) | undefined {
  if (env[DIAGNOSTICS_ENV] !== "1") return undefined;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const report = (): void => {
    const body: DiagnosticsReport = {
      eventLoopDelay: {
        maxMs: delay.max / 1e6,
        p99Ms: delay.percentile(99) / 1e6,
        meanMs: Number.isNaN(delay.mean) ? 0 : delay.mean / 1e6,
        samples: delay.count,
      },
      rssBytes: process.memoryUsage.rss(),
    };
    write(`${REPORT_PREFIX}${JSON.stringify(body)}\n`);
    delay.reset();
  };
  process.on("SIGUSR2", report);
  return () => {
    process.off("SIGUSR2", report);
    report();
    delay.disable();
  };
}
