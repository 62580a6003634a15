// Registry item + values → rendered files (relative path and content). Nothing here writes.
import { buildContext, type RenderInput } from "./context.ts";
import type { RenderScope, TemplateEngine } from "./engine.ts";
import { KilnError } from "./errors.ts";
import { REFUSAL_MARK, refusalMessage } from "./filters.ts";
import { type RegistryItem, referenceOf } from "./item.ts";
import { normalizeRelativePath } from "./plan.ts";
import { isCatalogueItem } from "./registry.ts";

export interface RenderedFile {
  path: string;
  content: string;
}

export interface RenderResult {
  /** The component name, without category. */
  component: string;
  files: RenderedFile[];
}

/**
 * Renders every file of `item`: the output path and the content with the same context. Fails
 * when the item is missing a required value, a template fails, a filter refused a value (see
 * `refusal` in filters.ts), or two of its files render to one path.
 */
export function renderItem(
  engine: TemplateEngine,
  item: RegistryItem,
  input: RenderInput,
  scope: RenderScope = { isolated: !isCatalogueItem(item) },
): RenderResult {
  const context = buildContext(item, input);
  const reference = referenceOf(item);
  // Every path and content template in one call: the context is converted once (renderAll).
  const rendered = engine.renderAll(
    item.files.flatMap((file, index) => [
      { name: `${reference} files[${index}].path`, source: file.path },
      { name: `${reference} files[${index}].template`, source: file.template },
    ]),
    context,
    scope,
  );
  const seen = new Set<string>();
  const files = item.files.map((_file, index) => {
    const path = rendered[2 * index] as string;
    const content = rendered[2 * index + 1] as string;
    // A filter that cannot write a value safely leaves a refusal in the output (one search each).
    for (const text of [path, content]) {
      if (text.includes(REFUSAL_MARK)) {
        throw new KilnError("invalid_request", `${reference}: ${refusalMessage(text)}`);
      }
    }
    const key = normalizeRelativePath(path);
    if (seen.has(key)) {
      throw new KilnError(
        "invalid_request",
        `${reference} has two files that both render to \`${path}\``,
      );
    }
    seen.add(key);
    return { path, content };
  });
  return { component: item.name, files };
}
