// Loads a CommonJS file of kiln's own build with the V8 code cache the build wrote beside it
// (`<file>.cache`), so that a one-shot run does not parse and compile the file again: the CLI
// bundle's command files (src/cli/bundle-file.ts) and the catalogue's files compiled ahead of
// time (compiled-templates.cjs, field-validators.cjs, through src/node/node-libraries.ts).
//
// A cache is `<file>.cache`: the sha256 of the file's text followed by V8's data, a newline,
// then V8's data. It is used only for exactly that text and that data: V8 itself checks only the
// source's length (a file edited to the same length would run the old code), and a release build
// of V8 does not checksum the data (a damaged cache of the right length could misbehave instead of
// being refused). V8 rejects one made by another Node or under other V8 flags, compiling from the
// source as it would without a cache; the build fails when V8 rejects one it ships. No cache, or
// one whose hash differs: the file is required as any module. The hash costs every start that
// loads such a file about 0.3 ms more than one of the source alone (the data is 1-3 times the
// source; measured for `kiln add`, which hashes four files).
//
// The build makes each cache after a real run of the commands that load the file (scripts/
// bundle-cli.mjs, through the training hook below), not right after compiling it: V8 compiles a
// function on its first call, and a cache made after the run holds every function the run
// called, while one made at compile time holds only the top level (a cache made after the run
// took about 5 ms of CPU off `kiln add` and 6 ms off `kiln setup multi-tier-platform`).
import { isAscii } from "node:buffer";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { Script } from "node:vm";

/**
 * Told each file compiled here, during the build only (scripts/code-cache-training.cjs installs
 * it under this key), so that it can write each file's cache after the run.
 */
export type CodeCacheTraining = (file: string, source: Uint8Array, script: Script) => void;

const TRAINING_KEY = Symbol.for("kiln.codeCacheTraining");

const requireHere = createRequire(import.meta.url);

/** Each file's exports once evaluated: a second load returns them, as `require` does. */
const loaded = new Map<string, unknown>();

/** The build's training hook, when this process runs for the build. */
function training(): CodeCacheTraining | undefined {
  return (globalThis as { [TRAINING_KEY]?: CodeCacheTraining })[TRAINING_KEY];
}

/**
 * Hex sha256 of a file's bytes (its text, as UTF-8) followed by its cache's V8 data
 * (node:crypto: every command that loads a cached file hashes).
 */
function sha256Of(bytes: Uint8Array, data: Uint8Array): string {
  const { createHash } = requireHere("node:crypto") as typeof import("node:crypto");
  return createHash("sha256").update(bytes).update(data).digest("hex");
}

/**
 * The V8 data of the cache written for `file` when it was made from `source` (its bytes), or
 * undefined: its header must be the hash of `source` and the data, so a cache damaged on disk
 * is never given to V8.
 */
function cacheFor(file: string, source: Uint8Array): Buffer | undefined {
  let cache: Buffer;
  try {
    cache = readFileSync(`${file}.cache`);
  } catch {
    return undefined;
  }
  const newline = cache.indexOf(10);
  if (newline !== 64) return undefined;
  const data = cache.subarray(newline + 1);
  return cache.toString("latin1", 0, 64) === sha256Of(source, data) ? data : undefined;
}

const WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname) {";
const WRAPPER_TAIL = "\n})";

/**
 * The source Node's CommonJS loader would compile for a module, wrapped in the function it
 * gives the module's code (its parameters in its order), so that the cache V8 makes of the
 * whole script serves this module: made as one string from the file's bytes. Wrapping the text
 * read as a string made V8 hold two copies of each file on the young heap, the text and the
 * wrapped one (add: about 350 KB more, where a run has about 660 KB of young heap before its
 * first collection, which copies what is alive). Bytes in a Buffer are outside V8's heap; an
 * ASCII file (the bundle's are: test/cli/start-up-modules.test.ts) is decoded as Latin-1, byte
 * for character, any other as UTF-8 - the same text either way.
 */
function wrapped(bytes: Uint8Array): string {
  const whole = Buffer.allocUnsafe(WRAPPER_HEAD.length + bytes.length + WRAPPER_TAIL.length);
  whole.write(WRAPPER_HEAD, 0, "latin1");
  whole.set(bytes, WRAPPER_HEAD.length);
  whole.write(WRAPPER_TAIL, WRAPPER_HEAD.length + bytes.length, "latin1");
  return whole.toString(isAscii(bytes) ? "latin1" : "utf8");
}

/**
 * The exports of the CommonJS file `file`, its code compiled with its code cache when the
 * cache fits (see the module comment), else required as any module.
 */
export function requireWithCodeCache(file: string): unknown {
  if (loaded.has(file)) return loaded.get(file);
  const exports = evaluate(file);
  loaded.set(file, exports);
  return exports;
}

function evaluate(file: string): unknown {
  let source: Buffer;
  try {
    source = readFileSync(file);
  } catch {
    return requireHere(file); // says what is missing, as a require does
  }
  const train = training();
  const cachedData = train === undefined ? cacheFor(file, source) : undefined;
  if (cachedData === undefined && train === undefined) return requireHere(file);
  // no `import()` may run in such a file: Node 20 gives a script compiled from cached data no
  // dynamic import callback (its importModuleDynamically is lost with the cache; measured), so
  // an import() there throws - kiln's bin never loads the program this way for `kiln serve`
  const script = new Script(wrapped(source), { filename: file, cachedData });
  train?.(file, source, script);
  const run = script.runInThisContext() as (...parameters: unknown[]) => void;
  const module = { exports: {} as unknown };
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}
