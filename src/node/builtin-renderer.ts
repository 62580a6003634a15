// The renderer for built-in components in this process: the templates compiled ahead of time
// (src/core/compiled-renderer.ts), with the sandboxed engine loaded only for a render the
// compiled path leaves to it. `KILN_ENGINE=sandbox` renders everything with the engine instead
// (to compare the two paths, or to rule the compiled path out when looking into a render).
import { CompiledRenderer } from "../core/compiled-renderer.ts";
import type { TemplateRenderer } from "../core/render-item.ts";
import { DEFAULT_ENGINE_LIMITS, TemplateEngine } from "./template-engine.ts";

/** Whether the environment asks for the sandboxed engine everywhere (`KILN_ENGINE=sandbox`). */
export function engineForced(): boolean {
  return process.env.KILN_ENGINE === "sandbox";
}

/**
 * A renderer for trusted (built-in) renders: compiled where it can be, the engine otherwise.
 * `beforeEngine` runs once, just before the engine is loaded (the CLI sets V8's start-up flags
 * for it then).
 */
export function builtinRenderer(beforeEngine: () => void = () => undefined): TemplateRenderer {
  if (engineForced()) {
    beforeEngine();
    return new TemplateEngine();
  }
  let engine: TemplateEngine | undefined;
  const loaded = () => {
    if (engine === undefined) beforeEngine();
    engine ??= new TemplateEngine();
    return engine;
  };
  return new CompiledRenderer(loaded, DEFAULT_ENGINE_LIMITS.fuel);
}
