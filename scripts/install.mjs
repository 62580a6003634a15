// Installs the exact versions of package-lock.json with `npm ci` when node_modules is missing
// or older than the lockfile, and does nothing otherwise (a second `npm test` or `npm start`
// does not wipe and reinstall node_modules). npm records what it installed in
// node_modules/.package-lock.json. Only Node's built-in modules here: this runs before the
// install. Used by `npm start` (scripts/start.mjs) and `npm test`.
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;

/** Modification time of a file, 0 when it does not exist. */
function timeOf(path) {
  try {
    return statSync(join(root, path)).mtimeMs;
  } catch {
    return 0;
  }
}

/** True when the locked packages are not (all) installed. */
export function installNeeded() {
  return timeOf("node_modules/.package-lock.json") < timeOf("package-lock.json");
}

/** `npm ci` when needed; exits the process with npm's status when it fails. */
export function installIfNeeded() {
  if (!installNeeded()) return;
  console.error("install: npm ci (the exact versions of package-lock.json)");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (import.meta.url === `file://${process.argv[1]}`) installIfNeeded();
