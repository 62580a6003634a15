// Small renders of built-in components on the thread that serves HTTP, without the hop to a
// render worker. A built-in's templates were compiled ahead of time (src/core/compiled-renderer.ts):
// trusted code, which never evaluates text, over the request's untrusted values. What a worker
// adds for such a render is the wall-clock deadline, and that guards against templates, not
// values: here the render's cost is bounded before it starts instead, by the size of the body
// (INLINE_BODY_BYTES) and a work budget far below the engine's fuel (INLINE_FUEL), so it costs
// this thread at most a fraction of a millisecond. Measured: the hop (the job sent to a worker,
// the worker woken, the answer sent back and settled) cost the HTTP thread more than the render
// itself, on a deployment 14 us against about 13 us of render.
//
// Nothing here decides an answer: a render that would leave the compiled path (a value the
// compiled code does not restate, a budget exceeded) or fail in any way (a value refused, a
// required field missing, an output over the limit) is given to a worker as before, which
// renders it from the start and gives its own answer or error. So an inline answer is, byte for
// byte, the compiled path's answer in a worker: the same functions (renderItem, the compiled
// templates, encodeRenderAnswer) over the same input, with a budget that is never larger.
import "../node/node-libraries.ts";
import { CompiledRenderer } from "../core/compiled-renderer.ts";
import type { RenderInput } from "../core/context.ts";
import type { RegistryItem } from "../core/item.ts";
import { isCatalogueItem } from "../core/registry.ts";
import { type RenderScope, renderItem } from "../core/render-item.ts";
import { encodeRenderAnswer } from "../sandbox/render-answer.ts";

/**
 * Request bodies up to this many bytes may render here (a deployment's is about 70): every
 * value, and so every piece of output, is smaller than this.
 */
export const INLINE_BODY_BYTES = 8 * 1024;

/**
 * The engine fuel whose share of compiled work (template-runtime.ts's FUEL_PER_WORK: 2,000
 * units of values, characters and loop turns) a render here may take; past it the render goes
 * to a worker. A deployment takes a few hundred units.
 */
export const INLINE_FUEL = 200_000;

/** The longest answer, in characters of rendered text, kept on this thread. */
const INLINE_OUTPUT_CHARS = 256 * 1024;

/** The compiled path would leave for the engine, which does not run on this thread. */
const NEEDS_ENGINE: unique symbol = Symbol("kiln:render-in-a-worker");

/** Built-ins share the catalogue's scope, as in a worker. */
const SHARED: RenderScope = { isolated: false };

export interface InlineRendererOptions {
  /** The render workers' engine fuel: the budget here is never larger than its share. */
  fuel: number;
  /** The workers' limit on an answer's bytes, checked here the same way. */
  maxOutputBytes: number;
}

/** Renders small built-in requests on this thread, or says that a worker must. */
export class InlineRenderer {
  /** Renders answered here, and those given to a worker (for tests and diagnostics). */
  readonly counts = { inline: 0, declined: 0 };
  private readonly renderer: CompiledRenderer;

  constructor(private readonly options: InlineRendererOptions) {
    this.renderer = new CompiledRenderer(
      () => {
        throw NEEDS_ENGINE;
      },
      Math.min(INLINE_FUEL, options.fuel),
    );
  }

  /**
   * The answer's bytes (as a worker encodes them), or undefined when a worker must render this:
   * the body is large, the item is not a catalogue item, or the render leaves the compiled path,
   * its budget or fails in any way.
   */
  render(item: RegistryItem, input: RenderInput, bodyBytes: number): Buffer | undefined {
    if (!fitsInline(item, bodyBytes)) return undefined;
    try {
      const result = renderItem(this.renderer, item, input, SHARED);
      if (!withinInlineOutput(result.files)) return this.declined();
      const bytes = encodeRenderAnswer(result, this.options.maxOutputBytes);
      this.counts.inline += 1;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch {
      // the worker renders it again and answers with its own error, exactly as before
      return this.declined();
    }
  }

  private declined(): undefined {
    this.counts.declined += 1;
    return undefined;
  }
}

/** A small body naming a catalogue item: what may be tried here at all. */
function fitsInline(item: RegistryItem, bodyBytes: number): boolean {
  return bodyBytes <= INLINE_BODY_BYTES && isCatalogueItem(item);
}

/** The rendered text is small enough to encode on this thread. */
function withinInlineOutput(files: readonly { path: string; content: string }[]): boolean {
  let characters = 0;
  for (const file of files) characters += file.path.length + file.content.length;
  return characters <= INLINE_OUTPUT_CHARS;
}
