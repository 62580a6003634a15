// `kiln serve`: flags and environment (decisions section 4), one start-up line, graceful stop
// on SIGINT/SIGTERM. A flag beats the environment.

import { parseArgs } from "node:util";
import { KilnError } from "../core/index.ts";
import { wrap } from "../core/wrap.ts";
import { parseOriginList } from "./cors.ts";
import { startDiagnostics } from "./diagnostics.ts";
import { DEFAULT_RENDER_CACHE_BYTES } from "./render-cache.ts";
import { DEFAULT_POOL_OPTIONS, MAX_FUEL } from "./render-pool.ts";
import { DEFAULT_BIND, DEFAULT_PORT, type ServerOptions, startServer } from "./server.ts";

/** One option of `kiln serve`, declared once: the parser's config and the help come from it. */
interface ServeOption {
  name: string;
  /** The value's name in the help; absent for a flag (boolean). */
  value?: string;
  multiple?: true;
  short?: string;
  description: string;
}

const SERVE_OPTIONS: readonly ServeOption[] = [
  {
    name: "bind",
    value: "<address>",
    description: `address to listen on (env SERVICE_BIND, default ${DEFAULT_BIND})`,
  },
  {
    name: "port",
    value: "<port>",
    description: `port, 0 for any free one (env SERVICE_PORT, default ${DEFAULT_PORT})`,
  },
  {
    name: "allow-origin",
    value: "<origin>",
    multiple: true,
    description:
      "allowed CORS origin, repeatable or comma-separated (env SERVICE_ALLOWED_ORIGINS; default: any loopback origin)",
  },
  {
    name: "allowed-host",
    value: "<name>",
    multiple: true,
    description:
      "extra Host name accepted while bound to loopback, repeatable or comma-separated (env SERVICE_ALLOWED_HOSTS)",
  },
  { name: "ui", description: "also serve the dashboard from dist/web at /" },
  {
    name: "render-timeout",
    value: "<ms>",
    description: `wall-clock deadline of one render (env SERVICE_RENDER_TIMEOUT_MS, default ${DEFAULT_POOL_OPTIONS.deadlineMs})`,
  },
  {
    name: "render-fuel",
    value: "<n>",
    description: `template engine fuel per render (env SERVICE_RENDER_FUEL, default ${DEFAULT_POOL_OPTIONS.fuel})`,
  },
  {
    name: "render-memory",
    value: "<MiB>",
    description: `template engine memory cap per worker (env SERVICE_RENDER_MEMORY_MB, default ${DEFAULT_POOL_OPTIONS.engineMemoryBytes / 1024 / 1024})`,
  },
  {
    name: "render-cache",
    value: "<MiB>",
    description: `memory kept for answers to repeated render requests of built-in components, 0 to turn it off (env SERVICE_RENDER_CACHE_MB, default ${DEFAULT_RENDER_CACHE_BYTES / 1024 / 1024})`,
  },
  {
    name: "workers",
    value: "<n>",
    description: "render worker threads (env SERVICE_WORKERS, default: cores)",
  },
  { name: "help", short: "h", description: "show this help" },
];

/** The options part of the help: flags in a column, descriptions wrapped beside them. */
function optionHelp(options: readonly ServeOption[]): string {
  const column = 28;
  return options
    .map((option) => {
      const flag = `${option.short ? `-${option.short}, ` : ""}--${option.name}${option.value ? ` ${option.value}` : ""}`;
      const [first = "", ...rest] = wrap(option.description, 96 - column);
      const lead = `  ${flag}`.padEnd(column);
      return [`${lead}${first}`, ...rest.map((line) => `${" ".repeat(column)}${line}`)].join("\n");
    })
    .join("\n");
}

export const SERVE_USAGE = `Usage: kiln serve [options]

Serve the HTTP API (and with --ui the dashboard).

Options:
${optionHelp(SERVE_OPTIONS)}
`;

/** The parser's config, from the same declarations as the help. */
const SERVE_PARSE_OPTIONS = Object.fromEntries(
  SERVE_OPTIONS.map((option) => [
    option.name,
    {
      type: option.value ? ("string" as const) : ("boolean" as const),
      ...(option.multiple ? { multiple: true as const } : {}),
      ...(option.short ? { short: option.short } : {}),
    },
  ]),
);

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
  let parsed: Record<string, unknown>;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: SERVE_PARSE_OPTIONS,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  // the parser's result, typed as the declarations make it
  const values = {
    text: (name: string) =>
      typeof parsed[name] === "string" ? (parsed[name] as string) : undefined,
    list: (name: string) => (Array.isArray(parsed[name]) ? (parsed[name] as string[]) : undefined),
    flag: (name: string) => parsed[name] === true,
  };
  if (values.flag("help")) return "help";
  const options: ServerOptions = {};
  const bind = pick(values.text("bind"), env.SERVICE_BIND);
  options.bind = bind?.trim() ?? DEFAULT_BIND;
  const port = pick(values.text("port"), env.SERVICE_PORT);
  options.port = port === undefined ? DEFAULT_PORT : integer("port", port, 0, 65535);
  options.allowedOrigins = parseOriginList(
    values.list("allow-origin") ?? [env.SERVICE_ALLOWED_ORIGINS ?? ""],
  );
  options.allowedHosts = parseOriginList(
    values.list("allowed-host") ?? [env.SERVICE_ALLOWED_HOSTS ?? ""],
  );
  if (values.flag("ui")) options.ui = true;
  const render: NonNullable<ServerOptions["render"]> = {};
  const timeout = pick(values.text("render-timeout"), env.SERVICE_RENDER_TIMEOUT_MS);
  if (timeout !== undefined) render.deadlineMs = integer("render timeout", timeout, 1, 600_000);
  const fuel = pick(values.text("render-fuel"), env.SERVICE_RENDER_FUEL);
  if (fuel !== undefined) render.fuel = integer("render fuel", fuel, 1, MAX_FUEL);
  const memory = pick(values.text("render-memory"), env.SERVICE_RENDER_MEMORY_MB);
  if (memory !== undefined) {
    render.engineMemoryBytes = integer("render memory", memory, 16, 4096) * 1024 * 1024;
    render.recycleBytes = Math.max(
      DEFAULT_POOL_OPTIONS.recycleBytes,
      render.engineMemoryBytes * 0.75,
    );
  }
  const cache = pick(values.text("render-cache"), env.SERVICE_RENDER_CACHE_MB);
  if (cache !== undefined) {
    options.renderCacheBytes = integer("render cache", cache, 0, 4096) * 1024 * 1024;
  }
  const workers = pick(values.text("workers"), env.SERVICE_WORKERS);
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
  // the benchmark's view of the HTTP thread (see diagnostics.ts); off unless asked for
  const stopDiagnostics = startDiagnostics(process.env, (line) => process.stderr.write(line));
  return new Promise<number>((resolve, reject) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      stopDiagnostics?.();
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
