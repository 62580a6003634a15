// What the service benchmarks (server.bench.ts, server-cpu.bench.ts) share: the bare POST
// server, the unique request bodies, and a started server's URL once it is ready.
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

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

/**
 * The URL a server started as `child` prints on its first line of stdout (`... listening on
 * <url>`), once `<url>/api/ready` answers 200 (kiln prints its line before its workers are up;
 * the bare servers answer 200 on any path). Then stdout is drained in whole chunks, not split
 * into lines: kiln writes a line per request there (its request log, on by default) and this
 * process is the load generator. Reading some 17,000 lines a second through readline took CPU
 * from autocannon while it measured kiln, and not while it measured the bare servers, which log
 * nothing.
 */
export async function readyUrl(child: ChildProcess, what: string): Promise<string> {
  const output = child.stdout as NodeJS.ReadableStream;
  const lines = createInterface({ input: output });
  const line = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`${what} exited with ${code}`)));
  });
  lines.close();
  output.on("data", () => {});
  output.resume();
  const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`${what}: unexpected start-up line: ${line}`);
  while ((await fetch(`${url}/api/ready`)).status !== 200) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return url;
}
