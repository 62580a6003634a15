// Shared helpers of the HTTP service tests: a fixture registry (the real k8s/deployment plus
// test components), a raw HTTP client (node:http, so Host, methods and request targets can be
// anything), and the service started as a child process or in-process.
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseRegistryItem, type RegistryItem } from "../../src/core/item.ts";
import { Registry } from "../../src/core/registry.ts";
import { BUILTIN_REGISTRY_DIR, loadComponentFolder } from "../../src/node/builtin-registry.ts";
import { type RunningServer, type ServerOptions, startServer } from "../../src/server/server.ts";
import { BIN, ensureBuilt } from "../cli/helpers.ts";

export const REPO = fileURLToPath(new URL("../..", import.meta.url));

const item = (json: unknown): RegistryItem => parseRegistryItem(json, "fixture");

/** A small inventory template: one line per host, like automation/inventory. */
export const INVENTORY_TEMPLATE = `{%- for g in hosts %}
[{{ g.group }}]
{%- for h in g.members %}
{{ h.name }} cm_host={{ h.cm_host }}{% for k, v in (h.vars or {}) | items %} {{ k }}={{ v }}{% endfor %}
{%- endfor %}
{% endfor %}`;

export const FIXTURE_ITEMS: RegistryItem[] = [
  loadComponentFolder(join(BUILTIN_REGISTRY_DIR, "k8s/deployment"), "k8s/deployment"),
  item({
    name: "echo",
    category: "test",
    title: "Echo",
    description: "Prints its context.",
    fields: [
      {
        name: "greeting",
        default: "hello",
        options: [{ value: "hi" }, { value: "yo", label: "Yo!" }],
      },
      { name: "target_port", description: "port", example: "8080" },
      { name: "namespace", default: "ignored" },
    ],
    files: [
      {
        path: "{{ name }}.txt",
        template:
          "{{ greeting }} {{ name }} ns={{ namespace }}{% for k, v in labels | items %} {{ k }}={{ v }}{% endfor %}\nimage={{ image }} replicas={{ replicas }} port={{ port }} target_port={{ target_port }} host={{ host }} path={{ path }} service={{ service }}\n",
      },
    ],
  }),
  item({
    name: "dupe",
    category: "test",
    files: [
      { path: "same.txt", template: "a" },
      { path: "./same.txt", template: "b" },
    ],
  }),
  item({ name: "broken", category: "test", files: [{ path: "x.txt", template: "{% if %}" }] }),
  item({
    name: "inventory",
    category: "automation",
    fields: [{ name: "hosts", required: true }],
    files: [{ path: "{{ name }}-inventory.ini", template: INVENTORY_TEMPLATE }],
  }),
];

export function fixtureRegistry(): Registry {
  return new Registry(FIXTURE_ITEMS);
}

/** `count` hosts in one group, as the inventory's JSON-valued `hosts` field. */
/** A stranger's template that loops 10^10 times: it holds a worker until its deadline or the service closes. */
export const SLOW_TEMPLATE =
  "{% for a in range(100000) %}{% for b in range(100000) %}{{ a }}{% endfor %}{% endfor %}";

/**
 * Writes a stranger's registry item `<name>.json` into `folder`: one file, `<name>.txt`, rendered
 * from `template`, and any other keys in `extra`; its path.
 */
export function writeItemFile(
  folder: string,
  name: string,
  template: string,
  extra: Record<string, unknown> = {},
): string {
  const path = join(folder, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      name,
      category: "stranger",
      files: [{ path: `${name}.txt`, template }],
      ...extra,
    }),
  );
  return path;
}

/** Writes a stranger's item `<name>.json` rendering SLOW_TEMPLATE into `folder`; its path. */
export function writeSlowItem(folder: string, name = "slow"): string {
  return writeItemFile(folder, name, SLOW_TEMPLATE);
}

export function inventoryHosts(count: number): string {
  const members = Array.from({ length: count }, (_, index) => ({
    name: `web-${index}`,
    cm_host: `10.0.${index >> 8}.${index & 255}`,
    vars: { role: "web" },
  }));
  return JSON.stringify([{ group: "web", members }]);
}

export function expectedInventory(count: number): string {
  const lines = Array.from(
    { length: count },
    (_, index) => `web-${index} cm_host=10.0.${index >> 8}.${index & 255} role=web`,
  );
  return `\n[web]\n${lines.join("\n")}\n`;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RawRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** Sent as the first line's target instead of `path` (absolute-form, `*`). */
  target?: string;
}

/** One HTTP/1.1 request over a fresh connection to `base`. */
export function raw(base: string, options: RawRequest = {}): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname.replace(/^\[|\]$/g, ""),
        port: url.port,
        method: options.method ?? "GET",
        path: options.target ?? options.path ?? "/",
        headers: options.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

export function postJson(base: string, body: unknown, headers: Record<string, string> = {}) {
  return raw(base, {
    method: "POST",
    path: "/api/render",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export interface ChildServer {
  url: string;
  child: ChildProcess;
  /** Everything the child wrote to stdout so far, line by line. */
  stdout: string[];
  stderr: () => string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * `kiln serve <args>` as the user runs it: the built binary (dist/cli/main.js, built first when
 * stale), which loads the compiled service.
 */
function serveCommand(args: string[], bin = BIN): string[] {
  ensureBuilt();
  return [bin, "serve", ...args];
}

/**
 * What a test's `kiln serve` runs with unless the test says otherwise. No load balancer is in
 * front: it stops without the drain delay (which test/server/lifecycle.test.ts proves). One
 * render worker (and the spare): each worker is about 0.4 s of CPU to start, and the suite is
 * CPU-bound; a test about the number of workers passes `--workers` (the option wins over the
 * variable).
 */
export const TEST_SERVICE_ENV: Readonly<Record<string, string>> = {
  SERVICE_DRAIN_DELAY_SECONDS: "0",
  SERVICE_WORKERS: "1",
};

/**
 * Starts `kiln serve` as a child process and waits for its start-up line; `bin`: another copy of
 * the built CLI than this clone's.
 */
export async function startChild(
  args: string[],
  env: Record<string, string> = {},
  bin = BIN,
): Promise<ChildServer> {
  const child = spawn(process.execPath, serveCommand(args, bin), {
    cwd: REPO,
    env: { ...process.env, ...TEST_SERVICE_ENV, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const stdout: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    lines.on("line", (line) => {
      stdout.push(line);
      if (stdout.length === 1) resolve(line);
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  const match = /^kiln listening on (http:\/\/\S+)$/.exec(first);
  if (!match) throw new Error(`unexpected start-up line: ${first}`);
  return {
    url: match[1] as string,
    child,
    stdout,
    stderr: () => stderr,
    exited,
    stop: async (signal = "SIGTERM") => {
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * Runs `kiln serve <args>` to completion (for usage errors and --help). `timeoutMs` kills it
 * after that long, so a service that starts where it must refuse fails the test instead of
 * hanging it.
 */
export function runChild(
  args: string[],
  env: Record<string, string> = {},
  { timeoutMs }: { timeoutMs?: number } = {},
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, serveCommand(args), {
      cwd: REPO,
      env: { ...process.env, ...env },
      // SIGKILL: a service that started would wait out its drain delay on SIGTERM
      ...(timeoutMs === undefined ? {} : { timeout: timeoutMs, killSignal: "SIGKILL" as const }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The pool of an in-process test service unless the test passes its own `render` options: one
 * worker and no spare. Each worker is about 0.4 s of CPU to start (a service with the default
 * pool, two workers and a spare on this machine, 1.3 s; with this one 0.45 s), and the suite is
 * CPU-bound; a test about several workers, the spare or their limits passes `render`.
 */
const ONE_WORKER: NonNullable<ServerOptions["render"]> = { size: 1, spare: false };

/** The service in-process on a free port with the fixture registry. */
export function startFixtureServer(options: ServerOptions = {}): Promise<RunningServer> {
  return startServer({
    port: 0,
    registry: fixtureRegistry(),
    log: () => {},
    render: ONE_WORKER,
    ...options,
  });
}
