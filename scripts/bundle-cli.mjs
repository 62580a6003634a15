// Bundles the command-line tool into dist/cli with esbuild, for a fast start.
//
// - One file per command, each with everything that command needs, plus main.js, which only
//   dispatches: `kiln add` reads main.js and add.js and nothing else of ours. That beats
//   esbuild's code splitting here: splitting made a dozen small shared chunks, and every
//   extra ES module file costs a resolve, a read and a compile at start-up. The price is that
//   shared modules (args, output, core) exist once per command file, so nothing may rely on
//   class identity across main.js and a command (see isUsageError).
// - `kiln list` never loads the template engine; only `kiln serve` loads the HTTP server.
// - The core finds its data next to its own code (`registry/` and `presets/` beside
//   `import.meta.url`), so both folders are copied into dist/cli.
// - minijinja-js stays external: the engine reads its glue code and WASM file from
//   node_modules through createRequire.
// - The HTTP server stays external too (dist/server, compiled by build:core): its render pool
//   starts worker threads from their own files, which a bundle would not carry along.
//
// tsc (build:core) also compiles src/cli into dist/cli; this script replaces that folder, so
// run it after build:core (as `npm run build` does).
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { build } from "esbuild";

const require = createRequire(import.meta.url);

const OUT = process.env.KILN_BUNDLE_OUT ?? "dist/cli";
const COMMANDS = readdirSync("src/cli/commands")
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.replace(/\.ts$/, ""));

/** main.ts's dynamic imports of the commands, and serve's import of the server, stay imports. */
const keepSeparate = {
  name: "keep-separate",
  setup(builder) {
    builder.onResolve({ filter: /^\.\/commands\/[\w-]+\.ts$/ }, (args) => {
      if (!args.importer.endsWith("main.ts")) return undefined;
      return { path: args.path.replace(/^\.\/commands\/([\w-]+)\.ts$/, "./$1.js"), external: true };
    });
    builder.onResolve({ filter: /\/server\/serve-command\.ts$/ }, () => ({
      path: "../server/serve-command.js",
      external: true,
    }));
  },
};

rmSync(OUT, { recursive: true, force: true });
const result = await build({
  entryPoints: ["src/cli/main.ts", ...COMMANDS.map((name) => `src/cli/commands/${name}.ts`)],
  outdir: OUT,
  entryNames: "[name]",
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["minijinja-js"],
  plugins: [keepSeparate],
  // yaml's own ES module build (same version, same code as its CommonJS build): esbuild can
  // drop what the core's `yaml` filter never calls, and it loads without the CommonJS wrapper
  alias: { yaml: join(dirname(require.resolve("yaml/package.json")), "browser", "index.js") },
  // smaller files parse faster; errors are shown by message, never by stack, so names can go
  minify: true,
  // a bundled CommonJS dependency would call require(): give each ES module file one
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

// npm's bin link needs `#!/usr/bin/env node` on the first line of main.js (esbuild keeps the
// entry's hashbang above the banner; this makes sure).
const main = readFileSync(`${OUT}/main.js`, "utf8");
if (!main.startsWith("#!/usr/bin/env node\n")) {
  writeFileSync(`${OUT}/main.js`, `#!/usr/bin/env node\n${main.replace(/^#!.*\n/, "")}`);
}
const sizes = Object.entries(result.metafile.outputs)
  .filter(([file]) => file.endsWith(".js"))
  .map(([file, output]) => `${file.split("/").pop()} ${Math.round(output.bytes / 1024)} KiB`);
console.log(`bundled the CLI into ${OUT}: ${sizes.join(", ")}`);
