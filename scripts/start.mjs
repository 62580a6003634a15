// `npm start` and `npm run ui`: set up what is missing, then serve. A fresh clone gets
// `npm ci` (scripts/install.mjs) and a full build; after that, a start with nothing changed only checks times
// and starts the service (a few seconds instead of a full build every time). Only Node's
// built-in modules here: this runs before the install.
//
// Usage: node scripts/start.mjs [kiln serve options...]   (npm run ui passes --ui)
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { buildIsStale } from "./build-state.mjs";
import { installIfNeeded } from "./install.mjs";

const root = new URL("..", import.meta.url).pathname;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function run(args) {
  const result = spawnSync(npm, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const at = (path) => join(root, path);

installIfNeeded();

if (buildIsStale()) {
  console.error("start: building");
  run(["run", "build"]);
}

const child = spawn(process.execPath, [at("dist/cli/main.js"), "serve", ...process.argv.slice(2)], {
  stdio: "inherit",
});
// SIGTERM is passed on. SIGINT is not: Ctrl-C in a terminal reaches the whole foreground process
// group, the service included, and passing it on too would be the service's second signal,
// which stops it at once instead of draining. This process waits for the service either way.
process.on("SIGTERM", () => child.kill("SIGTERM"));
process.on("SIGINT", () => {});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
