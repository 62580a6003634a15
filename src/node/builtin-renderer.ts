// The renderer for built-in components in this process: the templates compiled ahead of time
// (src/core/compiled-renderer.ts), with the sandboxed engine loaded only for a render the
// compiled path leaves to it. `KILN_ENGINE=sandbox` renders everything with the engine instead
// (to compare the two paths, or to rule the compiled path out when looking into a render).
import { CompiledRenderer } from "../core/compiled-renderer.ts";
import type { TemplateRenderer } from "../core/render-item.ts";
import { preferFastStart } from "./fast-start.ts";
import { DEFAULT_ENGINE_LIMITS, TemplateEngine } from "./template-engine.ts";

/** Whether the environment asks for the sandboxed engine everywhere (`KILN_ENGINE=sandbox`). */
export function engineForced(): boolean {
  return process.env.KILN_ENGINE === "sandbox";
}

/**
 * A renderer for trusted (built-in) renders in a one-shot CLI run: compiled where it can be,
 * the engine otherwise, with the engine's fast-start flags set only when the engine is loaded
 * (a run whose renders are all compiled changes no V8 flag: see fast-start.ts).
 */
export function builtinRenderer(): TemplateRenderer {
  if (engineForced()) {
    preferFastStart();
    return new TemplateEngine();
  }
  let engine: TemplateEngine | undefined;
  const loaded = () => {
    if (engine === undefined) {
      preferFastStart();
      engine = new TemplateEngine();
    }
    return engine;
  };
  return new CompiledRenderer(loaded, DEFAULT_ENGINE_LIMITS);
}
