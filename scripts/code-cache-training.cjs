// Build only (scripts/bundle-cli.mjs preloads it with --require into the real runs it makes of
// the built CLI): installs the training hook of src/node/code-cache.ts, which tells it each of
// kiln's files the run compiled, and when the run exits writes each one's V8 code cache beside
// it, `<file>.cache`: the sha256 of the file's bytes (its text) followed by V8's data, a newline, V8's data
// (the format code-cache.ts reads). Made after the run, the cache holds every function the run
// called, not only the file's top level. Only files under KILN_CODE_CACHE_ROOT (the build's
// dist/) are written.
"use strict";
const { writeFileSync } = require("node:fs");

const root = process.env.KILN_CODE_CACHE_ROOT;
if (!root) throw new Error("code-cache-training: KILN_CODE_CACHE_ROOT names no folder");
const compiled = new Map();

globalThis[Symbol.for("kiln.codeCacheTraining")] = (file, source, script) => {
  if (file.startsWith(root)) compiled.set(file, { source, script });
};

process.on("exit", () => {
  const { createHash } = require("node:crypto");
  for (const [file, { source, script }] of compiled) {
    const data = script.createCachedData();
    const hash = createHash("sha256").update(source).update(data).digest("hex");
    writeFileSync(`${file}.cache`, Buffer.concat([Buffer.from(`${hash}\n`), data]));
  }
});
