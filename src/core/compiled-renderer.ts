// Renders built-in templates on the compiled path (src/core/registry/compiled-templates.cjs,
// functions written ahead of time by scripts/compile-templates.ts) and everything else with the
// sandboxed engine, loaded only when a render needs it. A render takes the compiled path only
// when it shares the trusted scope (a catalogue item), every one of its templates was compiled
// from exactly its source text, it stays within the engine's limits by the compiled path's
// count (each template's instructions under the engine's fuel, the context and output well
// under its memory cap: template-runtime.ts), and nothing in it leaves what the compiled code
// restates (template-runtime.ts's FALLBACK); otherwise the whole render goes to the engine,
// which then gives its own output, error and limits.
import { type CompiledTemplate, lazyLibraries } from "./lazy-libraries.ts";
import type { RenderScope, TemplateRenderer } from "./render-item.ts";
import {
  type EngineBudget,
  engineContext,
  FALLBACK,
  fuelCounted,
  startTemplate,
  TEMPLATE_RUNTIME,
} from "./template-runtime.ts";

const SHARED: RenderScope = { isolated: false };

/** The built-ins' compiled templates by source text, read once (none when unreadable). */
let builtinTemplates: ReadonlyMap<string, CompiledTemplate> | undefined;
/** `@kiln`'s, read the first time a trusted render names a template the built-ins lack. */
let kilnTemplates: ReadonlyMap<string, CompiledTemplate> | undefined;

/** The compiled template of `source`: the built-ins' first, then `@kiln`'s. */
function compiledTemplate(source: string): CompiledTemplate | undefined {
  builtinTemplates ??= lazyLibraries().compiledTemplates(TEMPLATE_RUNTIME, "builtins");
  const builtin = builtinTemplates.get(source);
  if (builtin !== undefined) return builtin;
  kilnTemplates ??= lazyLibraries().compiledTemplates(TEMPLATE_RUNTIME, "kiln-registry");
  return kilnTemplates.get(source);
}

/**
 * The templates rendered on the compiled path, or undefined when the engine must render them
 * (see the module comment).
 */
export function renderCompiled(
  templates: readonly { name: string; source: string }[],
  context: Record<string, unknown>,
  budget: EngineBudget,
): string[] | undefined {
  const functions: CompiledTemplate[] = [];
  for (const { source } of templates) {
    const compiled = compiledTemplate(source);
    if (compiled === undefined) return undefined;
    functions.push(compiled);
  }
  try {
    const values = engineContext(context, budget);
    return functions.map((render) => {
      // each template has the whole fuel: the engine renders them one by one, each with its
      // fuel, when they do not fit in one together (template-engine.ts's renderAll)
      startTemplate(budget.fuel);
      return render(values);
    });
  } catch (error) {
    // a RangeError too (a string longer than V8 allows, a stack too deep): the engine gives
    // its own outcome, where the compiled code could only give JavaScript's
    if (error === FALLBACK || error instanceof RangeError) return undefined;
    throw error;
  }
}

/**
 * The instructions the compiled path counts for each template of a render, with no limit (for
 * the test that holds them against the engine's real fuel use); undefined when the compiled
 * path leaves the render to the engine for another reason.
 */
export function compiledFuel(
  templates: readonly { name: string; source: string }[],
  context: Record<string, unknown>,
): number[] | undefined {
  const unlimited = { fuel: Number.MAX_SAFE_INTEGER, memoryBytes: Number.MAX_SAFE_INTEGER };
  const counts: number[] = [];
  for (const template of templates) {
    const rendered = renderCompiled([template], context, unlimited);
    if (rendered === undefined) return undefined;
    counts.push(fuelCounted(unlimited.fuel));
  }
  return counts;
}

/**
 * A TemplateRenderer that renders built-ins on the compiled path and everything else with the
 * engine `engine` gives, called for each render that needs it (the caller loads it on the first
 * call and may replace it, as a render worker does after a memory bomb); `budget` is that
 * engine's fuel per template and memory cap, which bound the renders the compiled path takes
 * on (template-runtime.ts).
 */
export class CompiledRenderer implements TemplateRenderer {
  /** Renders answered on the compiled path and by the engine (for tests, diagnostics). */
  readonly counts = { compiled: 0, engine: 0 };

  constructor(
    private readonly engine: () => TemplateRenderer,
    private readonly budget: EngineBudget,
  ) {}

  renderAll(
    templates: readonly { name: string; source: string }[],
    context: Record<string, unknown>,
    scope: RenderScope = SHARED,
  ): string[] {
    if (!scope.isolated) {
      const rendered = renderCompiled(templates, context, this.budget);
      if (rendered !== undefined) {
        this.counts.compiled += 1;
        return rendered;
      }
    }
    this.counts.engine += 1;
    return this.engine().renderAll(templates, context, scope);
  }
}
