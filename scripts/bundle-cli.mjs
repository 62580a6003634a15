// Bundles the command-line tool into dist/cli with esbuild, for a fast start.
//
// - CommonJS, not ES modules (dist/cli gets a package.json saying so): an ES module entry starts
//   Node's ES module loader, and each `import` of a built-in builds an ES module facade over it
//   (node:fs's even loads the streams code); together about 9 ms of `kiln add`, measured against
//   the same bundle as ES modules. The core's import.meta.url becomes the file's own URL.
// - One file per command, each with everything that command needs, plus main-body.js (src/main.ts,
//   the program's entry), which only dispatches (a command's file is required when the command
//   runs), and main.js (src/cli/bin.ts, the bin), which loads main-body.js: `kiln add` loads main.js
//   and add.js and nothing else of ours. That beats esbuild's code splitting here: splitting
//   made a dozen small shared chunks, and every extra module file costs a resolve, a read and
//   a compile at start-up. The price is that shared modules (args, output, core) exist once
//   per command file, so nothing may rely on class identity across main.js and a command (see
//   isUsageError).
// - `kiln list` never loads the template engine; only `kiln serve` loads the HTTP server, and
//   only `kiln mcp` the MCP server and its SDK (mcp-server.js).
// - The catalogue's data is found as `../core/registry` and `../core/presets` from the code that
//   reads it (src/node/builtin-registry.ts, builtin-presets.ts): from dist/cli that is
//   dist/core/registry, which build:core copies there (scripts/copy-assets.mjs), so nothing is
//   copied here.
// - minijinja-js stays external: the engine reads its glue code and WASM file from
//   node_modules through createRequire. So does the yaml library, which the core's `yaml`
//   filter requires only for values it cannot write itself (never for the built-ins).
// - The HTTP server stays external too (dist/server, compiled by build:core, ES modules, loaded
//   with import()). The sandboxed render pool, which add, setup, apply, check and render load
//   only when they render a component that is not built-in (src/cli/render-component.ts), is
//   bundled into two files of its own: render-pool.js, required when that happens, and
//   render-worker.js, the file its worker threads start from (the pool looks for it beside
//   itself). A worker from one bundled file is ready in about 50 ms instead of 85 ms from the
//   compiled ES modules of dist/sandbox (measured), which every `kiln add ./item.json` pays.
// - Each file of 64 KiB or more that the CLI requires itself (a command's file, the structural
//   merge), the program (main-body.js) and the catalogue's compiled templates and validators get
//   a V8 code cache beside them, `<file>.cache`, and are loaded through src/node/code-cache.ts,
//   which uses a cache only for the exact bytes it was made from (and the exact data it holds,
//   by a hash of both; a cache V8 rejects fails the build, scripts/check-code-caches.cjs): V8
//   then need not parse and compile the file on every run. Each cache is made after real runs
//   of the built CLI (trainCodeCaches below), so it holds the functions a run calls, not only
//   the top level. A Node other than the one that ran the build, or other V8 flags, make V8
//   reject the cache and compile the file as without one. main.js is loaded by Node itself,
//   and the render worker by its thread: neither has one.
//
// tsc (build:core) also compiles src/cli into dist/cli; this script replaces that folder, so
// run it after build:core (as `npm run build` does).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Script } from "node:vm";
import { build } from "esbuild";

const OUT = "dist/cli";
const COMMANDS = readdirSync("src/cli/commands")
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.replace(/\.ts$/, ""));

/** What loads a bundle file with its code cache (bundled into the files that load others). */
const BUNDLE_FILE_LOADER = resolve("src/cli/bundle-file.ts");

/**
 * main.ts's dynamic imports of the commands become `loadBundleFile(__dirname, "<command>.js")`
 * (src/cli/bundle-file.ts: a require, with the file's code cache), run when the import is (a
 * CommonJS file loaded with import() would start the ES module loader, the very cost this
 * bundle avoids). serve's import of the server stays an import(): dist/server is ES modules.
 */
const keepSeparate = {
  name: "keep-separate",
  setup(builder) {
    builder.onResolve({ filter: /^\.\/cli\/commands\/[\w-]+\.ts$/ }, (args) => {
      if (!args.importer.endsWith("main.ts")) return undefined;
      return {
        path: args.path.replace(/^\.\/cli\/commands\/([\w-]+)\.ts$/, "$1"),
        namespace: "command",
      };
    });
    builder.onLoad({ filter: /.*/, namespace: "command" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(BUNDLE_FILE_LOADER)}).loadBundleFile(__dirname, "${args.path}.js");`,
      loader: "js",
      resolveDir: process.cwd(),
    }));
    builder.onResolve({ filter: /\/server\/serve-command\.ts$/ }, () => ({
      path: "../server/serve-command.js",
      external: true,
    }));
    // `kiln mcp`'s server, with the MCP SDK and zod, is a file of its own (mcp-server.js),
    // required only when `kiln mcp` serves: no other command reads a byte of it. Both are
    // bundled in, so they are devDependencies: installing kiln does not fetch the SDK's own
    // dependencies (its HTTP transports' express and hono), which stdio never uses
    builder.onResolve({ filter: /\/mcp\/mcp-server\.ts$/ }, (args) => {
      if (args.kind === "entry-point") return undefined;
      return { path: "mcp-server", namespace: "command" };
    });
    // components from files and URLs render in the sandbox's worker pool (render-component.ts),
    // required only then, from its own bundle file
    builder.onResolve({ filter: /\/sandbox\/render-pool\.ts$/ }, (args) => {
      if (args.kind === "entry-point") return undefined;
      return { path: "render-pool", namespace: "command" };
    });
    // setup and apply merge a file kiln.lock tracks only when it was edited and the render
    // changed it (src/cli/tracked-merge.ts): the structural merge, with the yaml library, is a
    // file of its own they require then; update and diff, which always merge, bundle it
    builder.onResolve({ filter: /\/core\/project\/structure-merge\.ts$/ }, (args) => {
      if (args.kind !== "dynamic-import") return undefined;
      return { path: "structure-merge", namespace: "command" };
    });
  },
};

/**
 * In a bundle file, import.meta.url is the file's own URL, made from __filename: the core's
 * `createRequire(import.meta.url)` and `fileURLToPath(import.meta.url)` are written with
 * __filename itself, which means the same. Made from the URL, each createRequire parsed it again
 * (about 50 us, against 8 us from the path), and the URL itself, made at the top of each file
 * Node loads for a command (main.js, main-body.js, the command's), cost 0.3 ms the first time:
 * setup made it three times and parsed it ten. The URL is made now only where something reads
 * it (see `define` below).
 */
const fileUrlsAsPaths = {
  name: "file-urls-as-paths",
  setup(builder) {
    builder.onLoad({ filter: /[/\\]src[/\\].*\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, "utf8")
        .replaceAll("createRequire(import.meta.url)", "createRequire(__filename)")
        .replaceAll("fileURLToPath(import.meta.url)", "__filename"),
      loader: "ts",
    }));
  },
};

rmSync(OUT, { recursive: true, force: true });
const result = await build({
  entryPoints: [
    // the bin, a few lines that load the program (main-body.js) with its code cache
    { in: "src/cli/bin.ts", out: "main" },
    { in: "src/main.ts", out: "main-body" },
    ...COMMANDS.map((name) => `src/cli/commands/${name}.ts`),
    "src/sandbox/render-pool.ts",
    "src/sandbox/render-worker.ts",
    "src/core/project/structure-merge.ts",
    "src/mcp/mcp-server.ts",
  ],
  outdir: OUT,
  entryNames: "[name]",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external: ["minijinja-js"],
  plugins: [keepSeparate, fileUrlsAsPaths],
  // the core finds its data and minijinja-js through import.meta.url: in a CommonJS file that
  // is the file's own URL, made the first time it is read (fileUrlsAsPaths above); the version
  // is written in, which the CLI would otherwise read from package.json (src/node/version.ts)
  define: {
    "import.meta.url": "__kilnMeta.url",
    KILN_BUNDLED_VERSION: JSON.stringify(JSON.parse(readFileSync("package.json", "utf8")).version),
  },
  banner: {
    js: 'let __kilnFileUrl;const __kilnMeta={get url(){return __kilnFileUrl??=require("node:url").pathToFileURL(__filename).href}};',
  },
  // smaller files parse faster; errors are shown by message, never by stack, so names can go
  // (KILN_BUNDLE_MINIFY=0 keeps them, for reading a --cpu-prof profile)
  minify: process.env.KILN_BUNDLE_MINIFY !== "0",
  legalComments: "none",
  // the worker's locator asks import.meta.resolve only when it runs from source (.ts); in the
  // bundle import.meta.url is the file's own .js URL, so that branch never runs here
  logOverride: { "empty-import-meta": "silent" },
  logLevel: "warning",
  metafile: true,
});
// the package is "type": "module"; this folder's files are CommonJS
writeFileSync(`${OUT}/package.json`, '{ "type": "commonjs" }\n');

// npm's bin link needs `#!/usr/bin/env node` on the first line of main.js (esbuild keeps the
// entry's hashbang above the banner; this makes sure). main-body.js is compiled inside a function
// by src/node/code-cache.ts, where a hashbang line would be a syntax error: it has none.
const main = readFileSync(`${OUT}/main.js`, "utf8");
if (!main.startsWith("#!/usr/bin/env node\n")) {
  writeFileSync(`${OUT}/main.js`, `#!/usr/bin/env node\n${main.replace(/^#!.*\n/, "")}`);
}
const body = readFileSync(`${OUT}/main-body.js`, "utf8");
writeFileSync(`${OUT}/main-body.js`, body.replace(/^#!.*\n/, ""));
// the code caches (see the header and src/node/code-cache.ts, which reads them): first one made
// right after compiling, for every file the CLI loads through code-cache.ts (a command's file of
// 64 KiB or more, the structural merge, the catalogue's compiled templates and validators); then
// real runs of the commands replace the caches of the files they load with ones made after the
// run, which hold the functions the run called too
const CACHED_FROM_BYTES = 64 * 1024;
const REGISTRY = "dist/core/registry";
const CATALOGUE_FILES = [
  "compiled-templates.cjs",
  "compiled-kiln-templates.cjs",
  "field-validators.cjs",
];
const cached = [
  ...readdirSync(OUT)
    .filter((name) => name.endsWith(".js") && name !== "main.js" && name !== "render-worker.js")
    .map((name) => `${OUT}/${name}`)
    .filter((file) => file.endsWith("/main-body.js") || statSync(file).size >= CACHED_FROM_BYTES),
  ...CATALOGUE_FILES.map((name) => `${REGISTRY}/${name}`).filter((file) => existsSync(file)),
];
for (const file of cached) {
  const source = readFileSync(file, "utf8");
  // the wrapper of code-cache.ts: the cache is of the whole script it compiles
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    {
      filename: resolve(file),
    },
  );
  const data = script.createCachedData();
  const hash = createHash("sha256").update(source).update(data).digest("hex");
  writeFileSync(`${file}.cache`, Buffer.concat([Buffer.from(`${hash}\n`), data]));
}
trainCodeCaches();
// a cache V8 rejects would ship silently (kiln falls back to compiling): each is loaded in a
// fresh node, without NODE_OPTIONS as the training runs, and a rejected one stops the build
const checked = spawnSync(
  process.execPath,
  [resolve("scripts/check-code-caches.cjs"), ...cached.map((file) => resolve(file))],
  { env: { ...process.env, NODE_OPTIONS: "" }, encoding: "utf8" },
);
if (checked.status !== 0) throw new Error(`code caches: ${checked.stderr}`);

/**
 * Runs the built CLI as a user would, in a temporary folder, with the training hook
 * (scripts/code-cache-training.cjs) writing the caches of the files each run loads. The most
 * common commands run last, since a file several commands load (the compiled templates) keeps
 * the cache of the last run: `add`, then `setup`. No run may load the template engine (it
 * changes V8's flags, and V8 rejects a cache made under other flags): built-ins only, on the
 * compiled path. A run that fails stops the build.
 */
function trainCodeCaches() {
  const folder = mkdtempSync(join(tmpdir(), "kiln-code-cache-"));
  const env = { ...process.env, KILN_CODE_CACHE_ROOT: resolve("dist") };
  for (const name of Object.keys(env)) {
    if (name === "NODE_OPTIONS" || (name.startsWith("KILN_") && name !== "KILN_CODE_CACHE_ROOT")) {
      delete env[name];
    }
  }
  env.XDG_CACHE_HOME = join(folder, "cache");
  env.XDG_CONFIG_HOME = join(folder, "config");
  const kiln = (cwd, ...args) => {
    const run = spawnSync(
      process.execPath,
      ["--require", resolve("scripts/code-cache-training.cjs"), resolve(`${OUT}/main.js`), ...args],
      { cwd, env, encoding: "utf8" },
    );
    if (run.status !== 0) {
      throw new Error(
        `code cache training: kiln ${args.join(" ")} failed (${run.status}): ${run.stderr}`,
      );
    }
  };
  try {
    const project = join(folder, "project");
    mkdirSync(project);
    kiln(folder, "list");
    kiln(folder, "search", "server", "--offline");
    kiln(folder, "view", "k8s/deployment");
    kiln(folder, "render", "k8s/deployment", "--name", "web", "--image", "nginx:1.27");
    kiln(folder, "apply", "k8s-web-app", "--into", "applied");
    kiln(folder, "check", "k8s-web-app");
    kiln(project, "setup", "multi-tier-platform");
    writeFileSync(join(project, "infra", "site.yml"), "---\n# edited by hand\n", { flag: "a" });
    kiln(project, "status");
    kiln(project, "diff");
    kiln(project, "update", "api", "--image", "ghcr.io/example/api:2.0");
    kiln(project, "preset", "export");
    kiln(project, "remove", "worker");
    kiln(project, "add", "k8s/deployment", "--name", "web", "--image", "nginx:1.27");
    const fresh = join(folder, "fresh");
    mkdirSync(fresh);
    kiln(fresh, "setup", "multi-tier-platform");
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const sizes = Object.entries(result.metafile.outputs)
  .filter(([file]) => file.endsWith(".js"))
  .map(([file, output]) => `${file.split("/").pop()} ${Math.round(output.bytes / 1024)} KiB`);
console.log(`bundled the CLI into ${OUT}: ${sizes.join(", ")}`);
