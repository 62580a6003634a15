// Build only (scripts/bundle-cli.mjs runs it after the code-cache training, in a node with the
// flags a kiln run has): for each file named, checks its `<file>.cache` in the format
// src/node/code-cache.ts reads - the sha256 of the file's text followed by V8's data, a newline,
// V8's data - and that V8 accepts the data when compiling the file in a fresh vm.Script, wrapped
// as code-cache.ts wraps it. A cache V8 rejects would cost every run its compile without a word,
// so any failure is printed and the exit status is 1: the build stops.
"use strict";
const { createHash } = require("node:crypto");
const { readFileSync } = require("node:fs");
const { Script } = require("node:vm");

/** What is wrong with the cache of `file`, or undefined when V8 takes it. */
function problemWith(file) {
  const source = readFileSync(file, "utf8");
  const cache = readFileSync(`${file}.cache`);
  if (cache.indexOf(10) !== 64) return "no 64-character hash line";
  const data = cache.subarray(65);
  const hash = createHash("sha256").update(source).update(data).digest("hex");
  if (cache.toString("latin1", 0, 64) !== hash) return "its hash is not that of the file and data";
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    { filename: file, cachedData: data },
  );
  return script.cachedDataRejected ? "V8 rejected it" : undefined;
}

const problems = process.argv
  .slice(2)
  .map((file) => [file, problemWith(file)])
  .filter(([, problem]) => problem !== undefined);
for (const [file, problem] of problems) process.stderr.write(`${file}.cache: ${problem}\n`);
process.exitCode = problems.length === 0 ? 0 : 1;
