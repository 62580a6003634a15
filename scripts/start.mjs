// `npm start` and `npm run ui`: set up what is missing, then serve. A fresh clone gets
// `npm ci` (scripts/install.mjs) and a full build; after that, a start with nothing changed only checks times
// and starts the service (a few seconds instead of a full build every time). Only Node's
// built-in modules here: this runs before the install.
//
// Usage: node scripts/start.mjs [kiln serve options...]   (npm run ui passes --ui)
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { installIfNeeded } from "./install.mjs";

const root = new URL("..", import.meta.url).pathname;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Newest modification time under `path` (a file or a folder), 0 when it does not exist. */
function newest(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  let time = stats.mtimeMs;
  for (const entry of readdirSync(path)) time = Math.max(time, newest(join(path, entry)));
  return time;
}

/** Modification time of a file, 0 when it does not exist. */
function timeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function run(args) {
  const result = spawnSync(npm, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const at = (path) => join(root, path);

installIfNeeded();

const sources = Math.max(
  ...["src", "web/src", "web/index.html", "web/vite.config.ts", "scripts", "package-lock.json"]
    .concat(["tsconfig.json", "tsconfig.build.json", "web/tsconfig.json"])
    .map((path) => newest(at(path))),
);
const outputs = ["dist/cli/main.js", "dist/server/serve-command.js", "dist/web/index.html"].map(
  (path) => timeOf(at(path)),
);
if (Math.min(...outputs) < sources) {
  console.error("start: building");
  run(["run", "build"]);
}

const child = spawn(process.execPath, [at("dist/cli/main.js"), "serve", ...process.argv.slice(2)], {
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
