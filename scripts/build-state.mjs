// Whether dist/ is older than what it is built from: `npm start` (scripts/start.mjs) and the
// test runner (scripts/run-tests.mjs) both build first when it is, with this one rule, so the
// test runner never leaves a build to a test that starts the service while other test files run
// the same dist/ (a build clears dist/cli part-way). Only Node's built-in modules here: this
// runs before the install.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;

/** What the build reads: sources, build scripts, configurations and the lockfile. */
const SOURCES = [
  "src",
  "web/src",
  "web/index.html",
  "web/vite.config.ts",
  "scripts",
  "registries",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "web/tsconfig.json",
];

/**
 * What the build writes last in each of its steps: the CLI bundle, the service, kiln's own
 * registry, the dashboard.
 */
const OUTPUTS = [
  "dist/cli/main.js",
  "dist/server/serve-command.js",
  "dist/registries/kiln/registry.json",
  "dist/web/index.html",
];

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

/** True when an output is missing or older than a source. */
export function buildIsStale() {
  const sources = Math.max(...SOURCES.map((path) => newest(join(root, path))));
  const outputs = Math.min(...OUTPUTS.map((path) => newest(join(root, path))));
  return outputs < sources;
}
