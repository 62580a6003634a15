// Where a render worker's code is and how to start it. Compiled (dist): `render-worker.js` next
// to the pool (or at `../sandbox/render-worker.js` for a CLI bundle that moved the pool). From
// source (tsx, tests): `render-worker.ts`, started through a tiny bootstrap that registers tsx
// inside the worker first, because Node 20 does not apply `--import tsx` from a worker's
// execArgv to the worker's own entry file.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

/** tsx's ESM API (`register`), as an URL the bootstrap can import. */
function tsxEsmApi(): string {
  if (typeof import.meta.resolve === "function") return import.meta.resolve("tsx/esm/api");
  // CommonJS-compiled callers (a test runner transpiling to CJS) have no import.meta.resolve.
  const cjs = createRequire(import.meta.url).resolve("tsx/esm/api");
  return pathToFileURL(cjs.replace(/\.cjs$/, ".mjs")).href;
}

/** The `Worker` constructor's first argument and its `eval` option. */
export function workerEntry(): { entry: string | URL; eval: boolean } {
  if (import.meta.url.endsWith(".ts")) {
    const worker = new URL("./render-worker.ts", import.meta.url).href;
    const tsx = tsxEsmApi();
    const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(worker)}); });`;
    return { entry: bootstrap, eval: true };
  }
  const candidates = [
    new URL("./render-worker.js", import.meta.url),
    new URL("../sandbox/render-worker.js", import.meta.url),
  ];
  const url = candidates.find((candidate) => existsSync(fileURLToPath(candidate)));
  if (!url) throw new Error(`render worker not found (looked for ${candidates.join(", ")})`);
  return { entry: url, eval: false };
}
