// `kiln serve`, the service's half: starts the server with the settings the CLI read (its
// options, declared with every other command's in src/cli/command-list.ts, and the environment),
// prints one start-up line as soon as it listens, and drains on SIGINT/SIGTERM (lifecycle.ts).
import { errorMessage, KilnError } from "../core/errors.ts";
import type { ServiceSettings } from "../core/service-settings.ts";
import { readRegistriesFile } from "../node/registry-client.ts";
import { DEFAULT_POOL_OPTIONS } from "../sandbox/render-pool.ts";
import { startDiagnostics } from "./diagnostics.ts";
import { drainOnSignals, Readiness } from "./lifecycle.ts";
import { type ServerOptions, startServer } from "./server.ts";

/** Where the start-up line goes: the CLI's output, written at once by flush(). */
export interface ServeOutput {
  line(text: string): void;
  flush(): void;
}

/**
 * The server's options for the user's settings. A larger engine memory cap raises the size at
 * which an idle worker rebuilds its engine with it (three quarters of the cap), so a worker is
 * not rebuilt after every render that uses what it is allowed.
 */
export function serverOptions(settings: ServiceSettings): ServerOptions {
  // read once at start: a caller never adds a registry, and a broken file stops the start
  const registries =
    settings.configFile === undefined ? undefined : readRegistriesFile(settings.configFile);
  const { engineMemoryBytes } = settings.render;
  const render: NonNullable<ServerOptions["render"]> = { ...settings.render };
  if (engineMemoryBytes !== undefined) {
    render.recycleBytes = Math.max(DEFAULT_POOL_OPTIONS.recycleBytes, engineMemoryBytes * 0.75);
  }
  return {
    bind: settings.bind,
    port: settings.port,
    allowedOrigins: settings.allowedOrigins,
    allowedHosts: settings.allowedHosts,
    ...(settings.ui ? { ui: true } : {}),
    ...(registries === undefined ? {} : { registries }),
    render,
    ...(settings.renderCacheBytes === undefined
      ? {}
      : { renderCacheBytes: settings.renderCacheBytes }),
    metrics: settings.metrics,
    // JSON for a log collector, text for a person at a terminal, as the common loggers choose
    requestLog: settings.logFormat ?? (process.stdout.isTTY ? "text" : "json"),
    ...(settings.indexFreshnessMs === undefined
      ? {}
      : { indexFreshnessMs: settings.indexFreshnessMs }),
  };
}

/**
 * Runs the service until SIGINT/SIGTERM; resolves with the exit status: 0 after a drain (see
 * lifecycle.ts), 128 + the signal's number when a second signal cut it short. Errors are thrown,
 * for the CLI to print and map to an exit status like every other command's: a KilnError when
 * the service cannot start or stop.
 */
export async function runService(settings: ServiceSettings, output: ServeOutput): Promise<number> {
  const readiness = new Readiness();
  const starting = startServer({
    ...serverOptions(settings),
    readiness,
    onListening: (url) => {
      output.line(`kiln listening on ${url}`);
      output.flush();
    },
  });
  let stopDiagnostics: (() => void) | undefined;
  const signals = drainOnSignals(
    readiness,
    starting,
    settings.drain,
    (line) => process.stderr.write(`${line}\n`),
    () => stopDiagnostics?.(),
  );
  try {
    await starting;
  } catch (error) {
    signals.cancel();
    throw new KilnError("internal", `could not start the service: ${errorMessage(error)}`);
  }
  // the benchmark's view of the HTTP thread (see diagnostics.ts); off unless asked for
  stopDiagnostics = startDiagnostics(process.env, (line) => process.stderr.write(line));
  try {
    return await signals.stopped;
  } catch (error) {
    throw new KilnError("internal", `the service did not stop cleanly: ${errorMessage(error)}`);
  }
}
