// Whether this run of kiln may use the network: `--offline` (or `KILN_OFFLINE=1`) forbids every
// request - registries' items and indexes come only from kiln's cache, and a URL reference is
// not fetched - and `--refresh` asks for every registry index again even when the cache holds a
// recent one. The command line sets the mode as it parses a command's options, whatever they say
// (absent is off); the fetch (src/node/fetch-url.ts) and the registry client read it. A process
// that runs commands one after another in-process (`kiln mcp`, through src/cli/captured-run.ts)
// resets it when each ends, so no command inherits the mode of the one before.

/** The environment variable that makes every run offline, as `--offline` does. */
export const OFFLINE_ENV = "KILN_OFFLINE";

const mode = { offline: false, refresh: false };

/** Sets the run's mode from its command line (`--offline`, `--refresh`; absent is off). */
export function setNetworkMode(options: { offline?: boolean; refresh?: boolean }): void {
  mode.offline = options.offline === true;
  mode.refresh = options.refresh === true;
}

/** Back to the mode of a command line without `--offline` or `--refresh`, when a run ends. */
export function resetNetworkMode(): void {
  setNetworkMode({});
}

/**
 * Does this run stay off the network? `--offline`, or KILN_OFFLINE set to anything but empty,
 * `0` or `false` (so `KILN_OFFLINE=0` in a CI job's step undoes one set for the whole job).
 */
export function isOffline(env: NodeJS.ProcessEnv = process.env): boolean {
  if (mode.offline) return true;
  const value = env[OFFLINE_ENV]?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

/** Did the command line ask for every registry index again (`--refresh`)? */
export function refreshIndexes(): boolean {
  return mode.refresh;
}
