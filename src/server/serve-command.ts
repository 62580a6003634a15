// `kiln serve`: flags and environment (decisions section 4), one start-up line, graceful stop
// on SIGINT/SIGTERM. A flag beats the environment.
import { parseArgs } from "node:util";
import { KilnError } from "../core/index.ts";
import { parseOriginList } from "./cors.ts";
import { DEFAULT_RENDER_CACHE_BYTES } from "./render-cache.ts";
import { DEFAULT_POOL_OPTIONS, MAX_FUEL } from "./render-pool.ts";
import { DEFAULT_BIND, DEFAULT_PORT, type ServerOptions, startServer } from "./server.ts";

export const SERVE_USAGE = `Usage: kiln serve [options]

Serve the HTTP API (and with --ui the dashboard).

Options:
  --bind <address>          address to listen on (env SERVICE_BIND, default ${DEFAULT_BIND})
  --port <port>             port, 0 for any free one (env SERVICE_PORT, default ${DEFAULT_PORT})
  --allow-origin <origin>   allowed CORS origin, repeatable or comma-separated
                            (env SERVICE_ALLOWED_ORIGINS; default: any loopback origin)
  --allowed-host <name>     extra Host name accepted while bound to loopback, repeatable or
                            comma-separated (env SERVICE_ALLOWED_HOSTS)
  --ui                      also serve the dashboard from dist/web at /
  --render-timeout <ms>     wall-clock deadline of one render (env SERVICE_RENDER_TIMEOUT_MS,
                            default ${DEFAULT_POOL_OPTIONS.deadlineMs})
  --render-fuel <n>         template engine fuel per render (env SERVICE_RENDER_FUEL,
                            default ${DEFAULT_POOL_OPTIONS.fuel})
  --render-memory <MiB>     template engine memory cap per worker (env SERVICE_RENDER_MEMORY_MB,
                            default ${DEFAULT_POOL_OPTIONS.engineMemoryBytes / 1024 / 1024})
  --render-cache <MiB>      memory kept for answers to repeated render requests of built-in
                            components, 0 to turn it off (env SERVICE_RENDER_CACHE_MB,
                            default ${DEFAULT_RENDER_CACHE_BYTES / 1024 / 1024})
  --workers <n>             render worker threads (env SERVICE_WORKERS, default: cores)
  -h, --help                show this help
`;

/** A wrong flag or value: the CLI answers exit status 2 (it tells usage errors by this name). */
class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Where the start-up line goes: the CLI's output, written at once by flush(). */
export interface ServeOutput {
  line(text: string): void;
  flush(): void;
}

function integer(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value.trim()))
    throw new UsageError(`${name} must be an integer, got \`${value}\``);
  const number = Number(value.trim());
  if (number < min || number > max) {
    throw new UsageError(`${name} must be between ${min} and ${max}, got \`${value}\``);
  }
  return number;
}

/** Flag, else environment variable, else undefined (empty environment values count as unset). */
function pick(flag: string | undefined, env: string | undefined): string | undefined {
  if (flag !== undefined) return flag;
  return env !== undefined && env.trim() !== "" ? env : undefined;
}

export function parseServeArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): ServerOptions | "help" {
  let values: ReturnType<typeof parse>["values"];
  function parse() {
    return parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        bind: { type: "string" },
        port: { type: "string" },
        "allow-origin": { type: "string", multiple: true },
        "allowed-host": { type: "string", multiple: true },
        ui: { type: "boolean" },
        "render-timeout": { type: "string" },
        "render-fuel": { type: "string" },
        "render-memory": { type: "string" },
        "render-cache": { type: "string" },
        workers: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  }
  try {
    values = parse().values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return "help";
  const options: ServerOptions = {};
  const bind = pick(values.bind, env.SERVICE_BIND);
  options.bind = bind?.trim() ?? DEFAULT_BIND;
  const port = pick(values.port, env.SERVICE_PORT);
  options.port = port === undefined ? DEFAULT_PORT : integer("port", port, 0, 65535);
  options.allowedOrigins = values["allow-origin"]
    ? parseOriginList(values["allow-origin"])
    : parseOriginList([env.SERVICE_ALLOWED_ORIGINS ?? ""]);
  options.allowedHosts = values["allowed-host"]
    ? parseOriginList(values["allowed-host"])
    : parseOriginList([env.SERVICE_ALLOWED_HOSTS ?? ""]);
  if (values.ui) options.ui = true;
  const render: NonNullable<ServerOptions["render"]> = {};
  const timeout = pick(values["render-timeout"], env.SERVICE_RENDER_TIMEOUT_MS);
  if (timeout !== undefined) render.deadlineMs = integer("render timeout", timeout, 1, 600_000);
  const fuel = pick(values["render-fuel"], env.SERVICE_RENDER_FUEL);
  if (fuel !== undefined) render.fuel = integer("render fuel", fuel, 1, MAX_FUEL);
  const memory = pick(values["render-memory"], env.SERVICE_RENDER_MEMORY_MB);
  if (memory !== undefined) {
    render.engineMemoryBytes = integer("render memory", memory, 16, 4096) * 1024 * 1024;
    render.recycleBytes = Math.max(
      DEFAULT_POOL_OPTIONS.recycleBytes,
      render.engineMemoryBytes * 0.75,
    );
  }
  const cache = pick(values["render-cache"], env.SERVICE_RENDER_CACHE_MB);
  if (cache !== undefined) {
    options.renderCacheBytes = integer("render cache", cache, 0, 4096) * 1024 * 1024;
  }
  const workers = pick(values.workers, env.SERVICE_WORKERS);
  if (workers !== undefined) render.size = integer("workers", workers, 1, 256);
  options.render = render;
  return options;
}

/**
 * Runs the service until SIGINT/SIGTERM; resolves with the exit status. Errors are thrown, for
 * the CLI to print and map to an exit status like every other command's: a UsageError for a
 * wrong flag or value, a KilnError when the service cannot start or stop.
 */
export async function serveCommand(argv: string[], output: ServeOutput): Promise<number> {
  const options = parseServeArgs(argv);
  if (options === "help") {
    output.line(SERVE_USAGE.trimEnd());
    output.flush();
    return 0;
  }
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(options);
  } catch (error) {
    throw new KilnError("internal", `could not start the service: ${(error as Error).message}`);
  }
  output.line(`kiln listening on ${server.url}`);
  output.flush();
  return new Promise<number>((resolve, reject) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      server.close().then(
        () => resolve(0),
        (error: unknown) =>
          reject(
            new KilnError(
              "internal",
              `the service did not stop cleanly: ${(error as Error).message}`,
            ),
          ),
      );
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
