// Bundles the command-line tool into dist/cli with esbuild, for a fast start.
//
// - ESM with code splitting: main.js only dispatches, and each command is its own chunk, so
//   `kiln list` never loads the template engine and only `kiln serve` loads the HTTP server.
// - All chunks sit beside main.js, because the core finds its data next to its own code
//   (`registry/` and `presets/` beside `import.meta.url`); both folders are copied there.
// - minijinja-js stays external: the engine reads its glue code and WASM file from
//   node_modules through createRequire.
// - The HTTP server stays external too (dist/server, compiled by build:core): it is loaded
//   only by `kiln serve`, and may use worker files that a bundle would not carry along.
//
// tsc (build:core) also compiles src/cli into dist/cli; this script replaces that folder, so
// run it after build:core (as `npm run build` does).
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const OUT = "dist/cli";

/** The server module, imported from src/cli/commands/serve.ts, is left for dist/server. */
const serverExternal = {
  name: "server-external",
  setup(builder) {
    builder.onResolve({ filter: /\/server\/serve-command\.ts$/ }, () => ({
      path: "../server/serve-command.js",
      external: true,
    }));
  },
};

rmSync(OUT, { recursive: true, force: true });
const result = await build({
  entryPoints: ["src/cli/main.ts"],
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "[name]-[hash]",
  external: ["minijinja-js"],
  plugins: [serverExternal],
  // bundled CommonJS dependencies may call require(): give the ESM output one
  banner: {
    js: 'import { createRequire as __kilnCreateRequire } from "node:module"; const require = __kilnCreateRequire(import.meta.url);',
  },
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
});
for (const folder of ["registry", "presets"]) {
  cpSync(`src/core/${folder}`, `${OUT}/${folder}`, { recursive: true });
}

// The entry point keeps its `#!/usr/bin/env node` line first (esbuild keeps an entry's hashbang
// above the banner); make sure, since npm's bin link depends on it.
const main = readFileSync(`${OUT}/main.js`, "utf8");
if (!main.startsWith("#!/usr/bin/env node\n")) {
  writeFileSync(`${OUT}/main.js`, `#!/usr/bin/env node\n${main.replace(/^#!.*\n/, "")}`);
}
const bytes = Object.entries(result.metafile.outputs)
  .filter(([file]) => file.endsWith(".js"))
  .reduce((sum, [, output]) => sum + output.bytes, 0);
console.log(`bundled the CLI into ${OUT} (${Math.round(bytes / 1024)} KiB of JavaScript)`);
