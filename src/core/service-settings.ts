// The HTTP service's settings that `kiln serve` documents and the server applies: one set of
// defaults and bounds, in a module light enough for the CLI's command table (which the CLI
// loads for every command, so it cannot import the server or the render pool).

/** Where the service listens unless told otherwise: 127.0.0.1:4000, loopback only. */
export const DEFAULT_BIND = "127.0.0.1";
export const DEFAULT_PORT = 4000;

/** A render's wall-clock deadline, in milliseconds. */
export const DEFAULT_RENDER_DEADLINE_MS = 2_000;
/** Template engine fuel (instructions) per render. */
export const DEFAULT_RENDER_FUEL = 2_000_000;
/** The template engine's memory cap per worker. */
export const DEFAULT_ENGINE_MEMORY_BYTES = 64 * 1024 * 1024;
/** Memory kept for answers to repeated renders of built-in components (0 turns it off). */
export const DEFAULT_RENDER_CACHE_BYTES = 32 * 1024 * 1024;
/**
 * After SIGTERM/SIGINT, how long the service keeps accepting connections while its readiness
 * already answers 503: a load balancer or Kubernetes takes a few probe periods to stop sending,
 * and a listener closed before that refuses requests that were still on their way.
 */
export const DEFAULT_DRAIN_DELAY_MS = 5_000;
/**
 * After SIGTERM/SIGINT, the most time until the process exits (the drain delay included):
 * requests still running then are cut. Kubernetes' default grace period is 30 s, so 25 s leaves
 * the workers time to stop before the kubelet's SIGKILL.
 */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 25_000;

/** The formats of the request log (`--log-format`): JSON lines, or text for a terminal. */
export const LOG_FORMATS = ["json", "text"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
/**
 * How long the service uses a registry's index it fetched before asking the registry again, in
 * seconds: the CLI keeps an index in its cache as long (10 minutes), so a search through the
 * service is as current as one from the command line.
 */
export const DEFAULT_INDEX_FRESHNESS_S = 600;

/** SERVICE_ALLOWED_ORIGINS / --allow-origin: comma-separated, trimmed, empty entries dropped. */
export function parseOriginList(values: readonly string[]): string[] {
  return values
    .flatMap((value) => value.split(","))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

/**
 * What `kiln serve` takes from its command line and environment, checked: the part of the
 * server's options a user sets.
 */
export interface ServiceSettings {
  bind: string;
  /** 0 picks a free port. */
  port: number;
  /** Exact origins allowed; empty: any loopback origin. */
  allowedOrigins: readonly string[];
  /** Host names accepted besides the loopback ones while bound to loopback. */
  allowedHosts: readonly string[];
  /** Serve the dashboard from dist/web. */
  ui: boolean;
  /** The TOML file naming the service's registries (`[registries]`); none: only @kiln. */
  configFile?: string;
  render: {
    deadlineMs?: number;
    fuel?: number;
    engineMemoryBytes?: number;
    recycleBytes?: number;
    size?: number;
  };
  renderCacheBytes?: number;
  /** After a stop signal: accepting while readiness says 503, then the most time until exit. */
  drain: { delayMs: number; shutdownTimeoutMs: number };
  /** Serve GET /metrics (`--metrics on|off`). */
  metrics: boolean;
  /** The request log's format; unset: JSON unless stdout is a terminal. */
  logFormat?: LogFormat;
  /** How long a fetched registry index is used before it is fetched again; 0: never kept. */
  indexFreshnessMs?: number;
}
