// Loads one of the CLI bundle's own files - a command's file, or the structural merge a command
// requires when it merges - with the V8 code cache the build wrote beside it
// (scripts/bundle-cli.mjs; src/node/code-cache.ts checks and uses it), so that V8 does not parse
// and compile the whole file again on every run. Only the bundle calls this (the build routes
// main.ts's imports of the commands here); run from source, commands are plain imports.
import { join } from "node:path";
import { requireWithCodeCache } from "../node/code-cache.ts";

/** The exports of the bundle file `name` in `dir`, compiled with its code cache when it fits. */
export function loadBundleFile(dir: string, name: string): unknown {
  return requireWithCodeCache(join(dir, name));
}
