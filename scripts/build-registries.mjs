// Builds kiln's own registries (registries/<name>/, source folders like any registry author's)
// into dist/registries/<name>/ with the CLI just bundled: `kiln registry build`, the command a
// registry author runs, so the package ships exactly what that command publishes. The output is
// cleared first: the package carries the versions of this kiln release (a web-served registry
// keeps every version it published; a package is a release).
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";

for (const name of readdirSync("registries")) {
  const output = `dist/registries/${name}`;
  rmSync(output, { recursive: true, force: true });
  const result = spawnSync(
    process.execPath,
    ["dist/cli/main.js", "registry", "build", `registries/${name}`, "--output", output],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  if (result.status !== 0) {
    console.error(`building registries/${name} failed`);
    process.exit(1);
  }
}
console.log(`registries built into dist/registries`);
