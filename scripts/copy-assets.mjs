// Copies the catalogue (component folders) and the preset templates next to the compiled core,
// so the Node half finds `dist/core/registry/` from dist/node/ (and the CLI bundle from dist/cli/)
// as src/node/builtin-registry.ts finds `src/core/registry/`; and the service's OpenAPI document
// next to the compiled server.
import { cpSync, rmSync } from "node:fs";

for (const folder of ["registry", "presets"]) {
  rmSync(`dist/core/${folder}`, { recursive: true, force: true });
  cpSync(`src/core/${folder}`, `dist/core/${folder}`, { recursive: true });
}
// the service's OpenAPI document, which GET /api/openapi.json serves from beside the server
rmSync("dist/server/contract", { recursive: true, force: true });
cpSync("src/server/contract", "dist/server/contract", { recursive: true });

// tsc has just compiled src/cli into dist/cli as ES modules, over the bundle; the bundle's
// `{"type": "commonjs"}` marker would make Node read them as CommonJS, so it goes until
// build:bundle writes the bundle (and the marker) again.
rmSync("dist/cli/package.json", { force: true });
