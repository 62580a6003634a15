// What the service benchmarks (server.bench.ts, server-cpu.bench.ts) share: the bare POST
// server, the unique request bodies, and starting a server (its stdout in a file) until it is ready.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Reads each request body and answers `ok`: a bare node:http POST. */
export const POST_CEILING = `require("node:http").createServer((req, res) => { req.on("data", () => {}); req.on("end", () => res.end("ok")); }).listen(0, "127.0.0.1", function () { console.log("POST ceiling listening on http://127.0.0.1:" + this.address().port); });`;

/**
 * The last id a unique body was given, over the whole run: a body is never sent twice, in a
 * round or in the next (a counter per measurement sent `web-1`, `web-2`, ... again in every
 * round, and the render cache keeps an answer the second time its body comes).
 */
let lastUniqueId = 0;

/** Sets each request's body to `template` with `[<id>]` replaced by the next number. */
export function uniqueBody(template: string) {
  return (request: { body?: string }) => {
    lastUniqueId += 1;
    request.body = template.replaceAll("[<id>]", String(lastUniqueId));
    return request;
  };
}

/** Where started servers write their stdout: a file each, removed when this process exits. */
const stdoutFolder = mkdtempSync(join(tmpdir(), "kiln-bench-stdout-"));
process.on("exit", () => rmSync(stdoutFolder, { recursive: true, force: true }));
let serversStarted = 0;

/**
 * Starts `node <args>` with its stdout in a file of its own (see readyUrl) and returns it with
 * the URL it serves.
 */
export async function startServer(
  args: string[],
  what: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv; stderr?: "inherit" | "pipe" } = {},
): Promise<{ child: ChildProcess; url: string }> {
  serversStarted += 1;
  const stdoutPath = join(stdoutFolder, `${serversStarted}.out`);
  const stdout = openSync(stdoutPath, "w");
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", stdout, options.stderr ?? "inherit"],
  });
  closeSync(stdout);
  return { child, url: await readyUrl(child, stdoutPath, what) };
}

/**
 * The URL a server prints on its first line of stdout (`... listening on <url>`), once
 * `<url>/api/ready` answers 200 (kiln prints its line before its workers are up; the bare
 * servers answer 200 on any path). Its stdout is a file, not a pipe to this process: kiln writes
 * a line per request there (its request log, on by default), and this process is the load
 * generator. Reading some 20,000 lines a second, even in whole chunks, took this process's CPU
 * and allocations while it measured kiln and not while it measured the bare servers, which log
 * nothing; a file takes the lines without a reader, as a service's log file or journal would.
 */
async function readyUrl(child: ChildProcess, stdoutPath: string, what: string): Promise<string> {
  let line: string | undefined;
  while (line === undefined) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    const text = readFileSync(stdoutPath, "utf8");
    const end = text.indexOf("\n");
    if (end === -1) await new Promise((resolve) => setTimeout(resolve, 20));
    else line = text.slice(0, end);
  }
  const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`${what}: unexpected start-up line: ${line}`);
  while ((await fetch(`${url}/api/ready`)).status !== 200) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return url;
}
