// `kiln.toml` moved into the project pipeline (src/core/project/kiln-toml.ts); this module keeps
// the old import path working for the fronts and tests that use it.
export * from "./project/kiln-toml.ts";
