// A real web server for the registry tests: Debian's nginx, started as a child process as the
// current user with a generated configuration in a temporary folder, on a free loopback port.
// It serves one folder three ways: `/open/` to anyone, `/token/` only with
// `Authorization: Bearer <token>`, `/basic/` only with HTTP basic authentication (a password
// file made with `openssl passwd -apr1`), and `/away/<path>` answers the bearer token with a redirect
// to `redirectTo` + `<path>` (another origin, for the header-dropping test). With `logRequests`
// it writes an access log, one `<method> <uri> <status>` line per request, that `requests()`
// reads (how many times a file was asked for). As a load balancer (startLoadBalancer), it
// proxies /api/ to a set of `kiln serve` replicas and logs, per request, the client's
// `X-Request-Id` (nginx passes it on to the replicas), which replicas it tried and what each
// answered.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { toolsRequired } from "./ansible.ts";

const NGINX = "/usr/sbin/nginx";

/** Why nginx cannot run here, or undefined when it can. */
export function nginxMissing(): string | undefined {
  if (!existsSync(NGINX)) return `${NGINX} is missing; install Debian's nginx-light or nginx`;
  if (spawnSync("openssl", ["version"]).error)
    return "openssl is missing; install Debian's openssl";
  return undefined;
}

/** The `skip` option of a test that needs nginx (skipped locally, a failure in CI). */
export function nginxSkip(): string | false {
  const reason = nginxMissing();
  return reason !== undefined && !toolsRequired() ? `skipped: ${reason}` : false;
}

export interface TestNginx {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The requests served so far, `GET /open/r/registry.json 200` (empty without `logRequests`). */
  requests(): string[];
  stop(): Promise<void>;
}

export interface NginxOptions {
  /** The folder served under /open/, /token/ and /basic/. */
  root: string;
  /** The bearer token /token/ wants. */
  token: string;
  /** The user and password /basic/ wants. */
  user: string;
  password: string;
  /** Where /away/<path> redirects to (an origin, no final `/`). */
  redirectTo?: string;
  /** Keep an access log for `requests()`. */
  logRequests?: boolean;
}

/** A port nobody listens on now (asked of the system, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function apr1(password: string): string {
  const result = spawnSync("openssl", ["passwd", "-apr1", password], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`openssl passwd failed: ${result.stderr}`);
  return result.stdout.trim();
}

/** The start of a config of nginx's own syntax: the process, its temporary folders. */
function httpPreamble(dir: string): string {
  const temp = (name: string) => join(dir, name);
  // as root, nginx's workers would drop to `nobody`, who cannot read the temporary folders:
  // they run as the user that started it, as the master does for everyone else
  const user = process.getuid?.() === 0 ? `user ${userInfo().username};` : "";
  return `
${user}
worker_processes 1;
events { worker_connections 1024; }
http {
  client_body_temp_path ${temp("body")};
  proxy_temp_path ${temp("proxy")};
  fastcgi_temp_path ${temp("fastcgi")};
  uwsgi_temp_path ${temp("uwsgi")};
  scgi_temp_path ${temp("scgi")};
  default_type application/json;`;
}

/** A config of nginx's own syntax: one server on `port`, the locations above. */
function configText(dir: string, port: number, options: NginxOptions): string {
  const redirect =
    options.redirectTo === undefined
      ? ""
      : `location ~ ^/away/(.*)$ {
      if ($http_authorization != "Bearer ${options.token}") { return 401; }
      return 302 ${options.redirectTo}/$1;
    }`;
  return `${httpPreamble(dir)}
  ${
    options.logRequests
      ? `log_format kiln '$request_method $request_uri $status';
  access_log ${join(dir, "access.log")} kiln;`
      : "access_log off;"
  }
  server {
    listen 127.0.0.1:${port};
    location /open/ { alias ${options.root}/; }
    location /token/ {
      if ($http_authorization != "Bearer ${options.token}") { return 401; }
      alias ${options.root}/;
    }
    location /basic/ {
      auth_basic "kiln test";
      auth_basic_user_file ${join(dir, "htpasswd")};
      alias ${options.root}/;
    }
    ${redirect}
  }
}
`;
}

/**
 * Waits until something accepts connections on `port` (nginx has bound it), failing after 30 s:
 * a bound by time, not a count of tries, and far beyond what a busy machine needs to start it.
 */
async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
      socket.connect(port, "127.0.0.1");
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nginx did not listen on ${port}: ${log()}`);
}

/** A folder for one nginx: its temporary folders, config and logs. */
function nginxFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "kiln-nginx-"));
  for (const name of ["body", "proxy", "fastcgi", "uwsgi", "scgi", "logs"]) {
    mkdirSync(join(dir, name));
  }
  return dir;
}

/** Starts nginx serving `options.root`; `stop()` ends it and removes its folder. */
export async function startNginx(options: NginxOptions): Promise<TestNginx> {
  const dir = nginxFolder();
  writeFileSync(join(dir, "htpasswd"), `${options.user}:${apr1(options.password)}\n`);
  const port = await freePort();
  return runNginx(dir, port, configText(dir, port, options));
}

/** Runs nginx with `config` in `dir` until it listens on `port`. */
async function runNginx(dir: string, port: number, config: string): Promise<TestNginx> {
  const conf = join(dir, "nginx.conf");
  writeFileSync(conf, config);
  const child = spawn(
    NGINX,
    ["-p", dir, "-c", conf, "-g", `daemon off; pid ${join(dir, "pid")}; error_log stderr;`],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await waitForPort(port, child, () => stderr);
  return {
    origin: `http://127.0.0.1:${port}`,
    requests: () => {
      const log = join(dir, "access.log");
      if (!existsSync(log)) return [];
      return readFileSync(log, "utf8")
        .split("\n")
        .filter((line) => line !== "");
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGQUIT");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface LoadBalancer extends TestNginx {
  /**
   * The access log so far, one line per request as loadBalancerConfig's `fleet` format writes
   * it: `<X-Request-Id> <method> <path> <status> "<replicas tried>" "<what each answered>"`
   * (a replica that could not be reached or cut the connection shows as nginx's own 502).
   */
  accessLog(): string;
}

/**
 * The upstream settings of a fleet behind nginx. Renders have no side effects, so a request is
 * sent again to the next replica after a connection error, a time-out or a 503, POSTs included
 * (`non_idempotent`); a replica that failed is skipped for a second. Connections to the replicas
 * are kept alive (as a production proxy does), so a draining replica's `connection: close` and
 * its closing of idle connections are part of what is tested.
 */
function loadBalancerConfig(dir: string, port: number, upstreamPorts: number[], root: string) {
  const servers = upstreamPorts
    .map((upstream) => `server 127.0.0.1:${upstream} max_fails=1 fail_timeout=1s;`)
    .join("\n    ");
  return `${httpPreamble(dir)}
  log_format fleet '$http_x_request_id $request_method $uri $status "$upstream_addr" "$upstream_status"';
  access_log ${join(dir, "logs", "access.log")} fleet;
  upstream kiln {
    ${servers}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location /api/ {
      proxy_pass http://kiln;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_next_upstream error timeout http_503 non_idempotent;
      proxy_next_upstream_tries 0;
      proxy_next_upstream_timeout 30s;
      proxy_connect_timeout 2s;
      proxy_read_timeout 30s;
    }
    location /items/ { alias ${root}/; }
  }
}
`;
}

/**
 * nginx as the load balancer of `kiln serve` replicas on `upstreamPorts`: /api/ goes to them,
 * /items/ serves the files of `root` (registry items a replica fetches by URL).
 */
export async function startLoadBalancer(
  upstreamPorts: number[],
  root: string,
): Promise<LoadBalancer> {
  const dir = nginxFolder();
  const port = await freePort();
  const nginx = await runNginx(dir, port, loadBalancerConfig(dir, port, upstreamPorts, root));
  return {
    ...nginx,
    accessLog: () => {
      try {
        return readFileSync(join(dir, "logs", "access.log"), "utf8");
      } catch {
        return "";
      }
    },
  };
}
