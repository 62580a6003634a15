// Loads one of the CLI bundle's own files - a command's file, or the structural merge a command
// requires when it merges - with the V8 code cache the build wrote beside it
// (scripts/bundle-cli.mjs), so that V8 does not parse and compile the whole file again on every
// run: `setup.js` compiles in about 4.6 ms, 0.7 ms from its cache; `update.js` 14 ms, 1.2 ms.
// (The functions a run calls are still compiled on their first call, a little slower than after
// a full compile: a whole `setup` gains about 1 ms, `update`, `status` and `diff` 6-11 ms.)
// Only the bundle calls this (the build routes main.ts's imports of the commands here); run from
// source, commands are plain imports.
//
// A cache is `<file>.cache`: the sha256 of the file's bytes it was made from, a newline, then
// V8's data. It is used only for exactly those bytes (V8 itself checks only their length), and V8
// rejects one made by another Node or under other V8 flags, compiling from the source as it would
// without a cache. No cache, or one for other bytes: the file is required as any module.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { compileFunction } from "node:vm";

/**
 * The parameters Node's CommonJS loader gives a module's code, in its order; the build makes
 * the caches with the same list (scripts/bundle-cli.mjs).
 */
const MODULE_PARAMETERS = ["exports", "require", "module", "__filename", "__dirname"];

const requireHere = createRequire(import.meta.url);

/** Hex sha256 of a file's text: node:crypto, loaded only here (each command's file loads it too). */
function sha256Of(text: string): string {
  const { createHash } = requireHere("node:crypto") as typeof import("node:crypto");
  return createHash("sha256").update(text).digest("hex");
}

/** The cache written for `file` when it was made from `source`, or undefined. */
function cacheFor(file: string, source: string): Buffer | undefined {
  let cache: Buffer;
  try {
    cache = readFileSync(`${file}.cache`);
  } catch {
    return undefined;
  }
  const newline = cache.indexOf(10);
  if (newline !== 64 || cache.toString("latin1", 0, 64) !== sha256Of(source)) return undefined;
  return cache.subarray(newline + 1);
}

/**
 * The exports of the bundle file `name` in `dir`, its code compiled with its code cache when
 * the cache fits (see the module comment), else required as any module.
 */
export function loadBundleFile(dir: string, name: string): unknown {
  const file = join(dir, name);
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch {
    return requireHere(file); // says what is missing, as a require does
  }
  const cachedData = cacheFor(file, source);
  if (cachedData === undefined) return requireHere(file);
  const run = compileFunction(source, MODULE_PARAMETERS, { filename: file, cachedData });
  const module = { exports: {} as unknown };
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}
