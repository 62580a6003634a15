#!/usr/bin/env node
// The `kiln` binary of the CLI bundle (dist/cli/main.js, the package's `bin`): it loads the
// program itself (src/main.ts, bundled as main-body.js beside it) with the V8 code cache the
// build made after real runs (src/node/code-cache.ts), so a run does not parse and compile the
// program's 35 KiB again - about 3.8 ms less CPU for `kiln add k8s/deployment` (30 alternated
// pairs). Node loads the file named on its command line itself, with no cache, so this file
// stays a few lines.
//
// The cache is checked against the sha256 of the file and its data, which loads node:crypto
// (about 3 ms of CPU).
// A command whose own file is compiled from a code cache (add, setup, status, list, ...: each
// has a `<command>.js.cache` beside it) loads node:crypto for that check anyway; the others
// (`--version`, `init`, `presets`, `completion`) would pay more for node:crypto than the cache
// saves them, so for them the program is required as any module.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { requireWithCodeCache } from "../node/code-cache.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const PROGRAM = join(HERE, "main-body.js");

/**
 * Whether the command has a file with a code cache. Only a first word can say so: global
 * options (`-C <dir>`, `-q`) come before the command, and a run that starts with one loads the
 * program as any module. That also keeps `kiln serve` off the cached path whatever its
 * arguments are: the program imports the server with `import()`, which Node 20 refuses in a
 * script compiled from cached data (see src/node/code-cache.ts).
 */
function commandHasCodeCache(argv: readonly string[]): boolean {
  const command = argv[0];
  return (
    command !== undefined &&
    /^[a-z]+$/.test(command) &&
    existsSync(join(HERE, `${command}.js.cache`))
  );
}

if (commandHasCodeCache(process.argv.slice(2))) requireWithCodeCache(PROGRAM);
else createRequire(import.meta.url)(PROGRAM);
