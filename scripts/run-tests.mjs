// Runs node's test runner over test/**/*.test.ts (Node 20's --test takes no globs), then says
// which real-tool tests were skipped for a missing tool (scripts/skipped-tools.mjs), so a local
// run that passed without the browser or the automation tool says so at the end.
// Usage: node scripts/run-tests.mjs [folder-or-file ...]   (default: test/)
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { skippedToolLines } from "./skipped-tools.mjs";

function collect(path) {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .flatMap((entry) => {
      const child = join(path, entry.name);
      if (entry.isDirectory()) return collect(child);
      return entry.name.endsWith(".test.ts") ? [child] : [];
    })
    .sort();
}

const roots = process.argv.slice(2);
const files = (roots.length > 0 ? roots : ["test"]).flatMap(collect);
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-reporter=spec", ...files],
  { stdio: "inherit" },
);
for (const line of skippedToolLines(files)) console.log(line);
process.exit(result.status ?? 1);
