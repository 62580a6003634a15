// Registry item + values → rendered files (relative path and content). Nothing here writes.

import { buildContext, DEFAULT_AUTOMATION_PROFILE, type RenderInput } from "./context.ts";
import { KilnError } from "./errors.ts";
import { refusalMark, refusalMessage } from "./filters.ts";
import { itemMeta, type RegistryItem, referenceOf } from "./item.ts";
import { normalizeRelativePath } from "./plan.ts";
import { isCatalogueItem } from "./registry.ts";
import { validateInput } from "./validate.ts";

/** How a render may share compiled templates with other renders. */
export interface RenderScope {
  /**
   * Render in an environment of its own, created for this render and freed after it, so its
   * templates can neither see nor `include`/`import`/`extends` any template they did not
   * bring, and leave nothing behind for later renders. For templates from strangers (items
   * that are not in the catalogue); trusted templates share one environment and stay compiled.
   */
  isolated: boolean;
}

/**
 * What renders an item's templates: kiln's sandboxed engine (src/node/template-engine.ts, the
 * WASM build of MiniJinja) or any renderer with its semantics. The core renders through the
 * engine it is given and never loads one itself.
 */
export interface TemplateRenderer {
  /** Each template rendered with `context`, in order; a failure throws a KilnError. */
  renderAll(
    templates: readonly { name: string; source: string }[],
    context: Record<string, unknown>,
    scope?: RenderScope,
  ): string[];
}

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
 * The paths the project's automation tool profile renames (the item's `kiln.profilePaths`),
 * or undefined when it renames none.
 */
function profileRenames(
  item: RegistryItem,
  input: RenderInput,
): Readonly<Record<string, string>> | undefined {
  const profile = input.automationProfile ?? DEFAULT_AUTOMATION_PROFILE;
  const table = itemMeta(item).profilePaths;
  return Object.hasOwn(table, profile) ? table[profile] : undefined;
}

/** An item's templates as `renderAll` takes them: each file's path, then its content. */
type ItemTemplates = readonly { name: string; source: string }[];

/**
 * The templates of each item rendered so far, built once per item: the same list (the same
 * object) each time also lets the engine keep what it builds around it (renderAll's wrapper).
 * Items are never changed once loaded, and a WeakMap lets an item from a URL go with its list.
 */
const itemTemplates = new WeakMap<RegistryItem, ItemTemplates>();

function templatesOf(item: RegistryItem): ItemTemplates {
  let templates = itemTemplates.get(item);
  if (!templates || !sameSources(templates, item)) {
    const reference = referenceOf(item);
    templates = item.files.flatMap((file, index) => [
      { name: `${reference} files[${index}].path`, source: file.path },
      { name: `${reference} files[${index}].template`, source: file.template },
    ]);
    itemTemplates.set(item, templates);
  }
  return templates;
}

/** The list still holds the item's own templates (cheap: the same strings, compared by identity). */
function sameSources(templates: ItemTemplates, item: RegistryItem): boolean {
  if (templates.length !== 2 * item.files.length) return false;
  return item.files.every(
    (file, index) =>
      templates[2 * index]?.source === file.path &&
      templates[2 * index + 1]?.source === file.template,
  );
}

/**
 * Renders every file of `item`: the output path and the content with the same context. Fails
 * when a value does not have the format or shape its item declares (validate.ts, checked
 * before anything renders), the item is missing a required value, a template fails, a filter
 * refused a value (see `refusal` in filters.ts), or two of its files render to one path.
 */
export function renderItem(
  engine: TemplateRenderer,
  item: RegistryItem,
  input: RenderInput,
  scope: RenderScope = { isolated: !isCatalogueItem(item) },
): RenderResult {
  const parsedJson = validateInput(item, input);
  const context = buildContext(item, input, parsedJson);
  const reference = referenceOf(item);
  // Every path and content template in one call: the context is converted once (renderAll).
  const rendered = engine.renderAll(templatesOf(item), context, scope);
  const seen = new Set<string>();
  const renames = profileRenames(item, input);
  const files = item.files.map((_file, index) => {
    const renderedPath = rendered[2 * index] as string;
    const path =
      renames && Object.hasOwn(renames, renderedPath)
        ? (renames[renderedPath] as string)
        : renderedPath;
    const content = rendered[2 * index + 1] as string;
    // A filter that cannot write a value safely leaves a refusal in the output (one search each).
    for (const text of [path, content]) {
      if (text.includes(refusalMark())) {
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
