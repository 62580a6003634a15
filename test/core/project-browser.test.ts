// The core runs in the browser: the dashboard builds its project, renders it and lays out its
// zip with src/core/, so no module there may load a Node module or read `process`, also not
// through a core module it imports. `import type` is erased and not followed. The import rules
// of all layers are test/architecture/layers.test.ts's; this test adds the global `process`,
// which no import shows. Loading presets from files and URLs stays in the Node half
// (src/node/builtin-presets.ts).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CORE = join(ROOT, "src/core");

/** Every .ts file below `dir`. */
function modulesIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modulesIn(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The source without comments, so a comment that names `process.` is no use of it. */
function code(path: string): string {
  return readFileSync(path, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
}

/** What a module loads when it runs: its imports and re-exports that are not `import type`. */
function runtimeImports(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(
    /(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)from\s+"([^"]+)"/g,
  )) {
    if (!match[2]) found.push(match[4] as string);
  }
  for (const match of source.matchAll(/(?:^|\n)\s*import\s+"([^"]+)"/g))
    found.push(match[1] as string);
  return found;
}

const NODE = new Set(builtinModules);

/** Each Node-only thing `start` reaches, as `<module>: <what>`. */
function nodeOnlyUses(start: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    const source = code(path);
    const shown = relative(ROOT, path);
    if (/\bprocess\./.test(source)) problems.push(`${shown}: uses process`);
    for (const specifier of runtimeImports(source)) {
      if (specifier.startsWith("node:") || NODE.has(specifier)) {
        problems.push(`${shown}: imports ${specifier}`);
      } else if (specifier.startsWith(".")) {
        visit(resolve(dirname(path), specifier));
      }
    }
  };
  visit(start);
  return problems;
}

describe("the core runs in the browser", () => {
  test("the import reader sees value imports and re-exports, not type-only ones", () => {
    const source = [
      'import { a } from "./a.ts";',
      'import type { B } from "./b.ts";',
      'import {\n  c,\n  type D,\n} from "node:fs";',
      'export * from "./e.ts";',
      'export type { F } from "./f.ts";',
      'import "./g.ts";',
    ].join("\n");
    assert.deepEqual(runtimeImports(source).sort(), ["./a.ts", "./e.ts", "./g.ts", "node:fs"]);
  });

  test("no module of src/core/ reaches a Node module or process", () => {
    const modules = modulesIn(CORE);
    assert.ok(modules.length >= 40);
    assert.deepEqual(modules.flatMap(nodeOnlyUses), []);
  });

  test("the check notices a module that does (src/node/builtin-presets.ts loads files)", () => {
    const uses = nodeOnlyUses(join(ROOT, "src/node/builtin-presets.ts"));
    assert.ok(uses.some((p) => p.includes("node:fs")));
  });
});
