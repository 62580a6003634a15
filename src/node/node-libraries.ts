// Node's loaders for the libraries the core loads on first use (src/core/lazy-libraries.ts):
// each is required from node_modules only when a value needs it, so a one-shot CLI run that
// renders only strings never loads yaml or ajv. Importing this module installs them; the
// template engine's module does, so whatever renders has them.
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import {
  type CompiledTemplate,
  type PrecompiledValidators,
  provideLazyLibraries,
  type SchemaFormatDefinitions,
} from "../core/lazy-libraries.ts";
import { FIELD_VALIDATORS_FILE } from "../core/validate.ts";
import { BUILTIN_REGISTRY_DIR } from "./builtin-registry.ts";
import { requireWithCodeCache } from "./code-cache.ts";

const requireHere = createRequire(import.meta.url);
/** The built-in templates compiled ahead of time (scripts/compile-templates.ts), beside them. */
export const COMPILED_TEMPLATES_FILE = "compiled-templates.cjs";
/** `@kiln`'s templates compiled ahead of time, beside the built-ins'. */
export const COMPILED_KILN_TEMPLATES_FILE = "compiled-kiln-templates.cjs";

provideLazyLibraries({
  yaml: () => requireHere("yaml") as typeof import("yaml"),
  ajv: () => ({
    Ajv2020: (requireHere("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js")).default,
    addFormats: (requireHere("ajv-formats") as typeof import("ajv-formats")).default,
  }),
  precompiledValidators: (formats) => {
    try {
      // with the code cache the build made after real runs (code-cache.ts): a run calls a
      // handful of the validators, each compiled on its first call without it
      const validatorsWith = requireWithCodeCache(
        join(BUILTIN_REGISTRY_DIR, FIELD_VALIDATORS_FILE),
      ) as (formats: SchemaFormatDefinitions) => PrecompiledValidators;
      return validatorsWith(formats);
    } catch {
      // an edited catalogue or a missing file: every schema is compiled at run time instead
      return {};
    }
  },
  compiledTemplates: (runtime, set) => {
    const file = set === "builtins" ? COMPILED_TEMPLATES_FILE : COMPILED_KILN_TEMPLATES_FILE;
    try {
      const templatesWith = requireWithCodeCache(join(BUILTIN_REGISTRY_DIR, file)) as (
        runtime: object,
      ) => ReadonlyMap<string, CompiledTemplate>;
      return templatesWith(runtime);
    } catch {
      // a missing file: every template renders in the engine
      return new Map();
    }
  },
  // node:crypto's, loaded with the hashing kiln.lock needs anyway: `globalThis.crypto` would
  // load Node's Web Crypto module as well (about 1 ms of every CLI run that renders)
  randomUUID,
});
