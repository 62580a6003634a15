// Libraries and generated code the core uses only for some values, loaded on first use so that a
// one-shot CLI run that never needs them does not pay for loading them: the yaml library (the
// `yaml` filter's rare values, the `yaml` field format), ajv with its formats (fields that
// declare a JSON Schema) and the built-in components' field validators compiled ahead of time;
// also the host's random UUIDs (in Node the global Web Crypto object is a module of its own,
// loaded on first touch, while node:crypto's generator is already there).
// How a library is loaded is the host's business - Node requires it from node_modules on first
// use (src/node/node-libraries.ts, which the template engine's module installs, so every render
// has it), a browser build would import it - so the core never imports them itself: it asks the
// loaders its host provided.
import type { ErrorObject } from "ajv";

/** A compiled JSON Schema validator, as ajv makes them. */
export type Validator = ((data: unknown) => boolean) & {
  errors?: ErrorObject[] | null | undefined;
};

/**
 * kiln's value formats as ajv format definitions (`host-address`, ...): what a compiled schema
 * that names one of them calls.
 */
export type SchemaFormatDefinitions = Record<
  string,
  { type: "string"; validate: (value: string) => boolean }
>;

/** The built-ins' validators compiled ahead of time: reference -> field -> its schema and code. */
export type PrecompiledValidators = Record<
  string,
  Record<string, { schema: string; validate: Validator }>
>;

export interface LazyLibraries {
  yaml(): typeof import("yaml");
  ajv(): {
    Ajv2020: typeof import("ajv/dist/2020.js").default;
    addFormats: typeof import("ajv-formats").default;
  };
  /**
   * The compiled validators, or none when they cannot be read; a schema naming one of kiln's
   * formats calls it from `formats`.
   */
  precompiledValidators(formats: SchemaFormatDefinitions): PrecompiledValidators;
  /**
   * The templates compiled ahead of time, by source text, calling `runtime`: the built-ins', or
   * `@kiln`'s (a module of its own, read only when one of its items renders); none when they
   * cannot be read (every such template then renders in the engine).
   */
  compiledTemplates(
    runtime: object,
    set: CompiledTemplateSet,
  ): ReadonlyMap<string, CompiledTemplate>;
  /** A random UUID from a cryptographically secure generator. */
  randomUUID(): string;
}

/** Which generated module of compiled templates: the built-ins', or `@kiln`'s. */
export type CompiledTemplateSet = "builtins" | "kiln-registry";

/**
 * A built-in template compiled ahead of time: the context, as src/core/template-runtime.ts's
 * `engineContext` gives it, to the rendered text.
 */
export type CompiledTemplate = (context: Map<string, unknown> | Record<string, unknown>) => string;

let provided: LazyLibraries | undefined;

/** Installs the host's loaders, once, before the first render (each is called when needed). */
export function provideLazyLibraries(libraries: LazyLibraries): void {
  provided = libraries;
}

/** The host's loaders; a render in a host that provided none is a mistake in kiln. */
export function lazyLibraries(): LazyLibraries {
  if (provided === undefined) {
    throw new Error(
      "kiln's core was used without its libraries: import src/node/node-libraries.ts (Node) first",
    );
  }
  return provided;
}
