// A component with the dependencies its item declares (src/core/dependencies.ts decides which
// and in what order): each fetched and rendered here with one renderer, the templates of a
// stranger's dependencies in the worker like its files, so `kiln add` and `kiln setup` write
// them all in one all-or-nothing run. Also how a dependency reads in the output and in remove's
// warnings.
import type { RenderInput } from "../core/context.ts";
import {
  type DependencyPlan,
  type DependencyRequest,
  type Expanded,
  type KeptDependency,
  type PlannedComponent,
  planDependencies,
} from "../core/dependencies.ts";
import { KilnError } from "../core/errors.ts";
import { referenceOf } from "../core/item.ts";
import type { Lock, LockedComponent, LockedDependency } from "../core/project/lock-format.ts";
import { urlForLock } from "../core/project/lock-format.ts";
import type { PresetComponent } from "../core/project/preset-manifest.ts";
import { componentInput } from "../core/project/render-components.ts";
import { parseRegistryReference } from "../core/registry-config.ts";
import { isUrl } from "../node/fetch-url.ts";
import type { Output } from "./output.ts";
import type { ComponentRenderer, ResolvedRender } from "./render-component.ts";
import { renderComponentWith } from "./render-component.ts";

/** A component to write: its render and the input it was rendered with. */
export interface RenderedComponent {
  render: ResolvedRender;
  input: RenderInput;
}

/** The values every dependency is rendered with besides its own: the project's settings. */
type ProjectDefaults = Pick<RenderInput, "defaultNamespace" | "automationProfile">;

/**
 * The item identity of a dependency's reference: a registry's item by namespace and name (any
 * version), a built-in by `category/name`, a URL without credentials. A local file is refused:
 * an item from a URL or a registry naming a path would make kiln read the user's files.
 */
export function dependencyKey(renderer: ComponentRenderer, reference: string): string {
  const registry = parseRegistryReference(reference);
  if (registry) return `${registry.namespace}/${registry.item}`;
  const builtin = renderer.builtin(reference);
  if (builtin) return referenceOf(builtin);
  if (isUrl(reference)) return urlForLock(reference);
  throw new KilnError(
    "invalid_request",
    `${notADependency(reference)} - nothing was written`,
    "an item's dependencies cannot name local files: publish the dependency in a registry or at a URL",
  );
}

function notADependency(reference: string): string {
  return `the dependency \`${reference}\` is neither a built-in component, a registry's item (@acme/redis) nor an http(s) URL`;
}

/** Why `reference` cannot be a dependency (`kiln registry validate`), or undefined when it can. */
export function dependencyReferenceProblem(
  renderer: ComponentRenderer,
  reference: string,
): string | undefined {
  try {
    dependencyKey(renderer, reference);
    return undefined;
  } catch {
    return notADependency(reference);
  }
}

/** The item identity of a recorded component, as dependencyKey gives it for its reference. */
function recordedKey(entry: LockedComponent): string {
  const source = entry.source;
  if (source.type === "registry") return `${source.registry}/${source.item}`;
  if (source.type === "builtin") return entry.component;
  if (source.type === "url") return source.url;
  return `file:${source.path}`;
}

/** The root's identity: a file's too (it is named on the command line, not by a stranger). */
function rootKey(renderer: ComponentRenderer, reference: string): string {
  try {
    return dependencyKey(renderer, reference);
  } catch {
    return `file:${reference}`;
  }
}

/**
 * Renders `reference` and every dependency the project lacks, recursively, with `renderer`
 * (the caller closes it). A dependency the lock records with the same item and name is kept as
 * it is. A failure anywhere - a dependency that does not resolve, a cycle, a bound - is an
 * error naming the chain, and nothing is written.
 */
export async function renderWithDependencies(
  renderer: ComponentRenderer,
  reference: string,
  input: RenderInput,
  lock: Lock,
  defaults: ProjectDefaults,
  warn: (message: string) => void,
): Promise<DependencyPlan<RenderedComponent>> {
  const root: DependencyRequest = { reference, name: input.name, fields: input.fields ?? {} };
  return planDependencies(root, rootKey(renderer, reference), {
    keyOf: (dependency) => dependencyKey(renderer, dependency),
    inProject: (key, name) =>
      lock.components.find((entry) => entry.name === name && recordedKey(entry) === key)?.component,
    expand: async (request, chain) => {
      if (chain.length > 1) return expandDependency(renderer, request, chain, defaults, warn);
      const render = await renderComponentWith(renderer, request.reference, input, warn);
      const dependencies = await renderer.dependenciesOf(
        render.item,
        input,
        render.builtin,
        request.reference,
      );
      return { component: referenceOf(render.item), dependencies, value: { render, input } };
    },
  });
}

/**
 * Renders a dependency with the values its dependent's templates gave it and the project's
 * namespace and profile, and renders its own dependencies' templates; an error names the chain.
 */
async function expandDependency(
  renderer: ComponentRenderer,
  request: DependencyRequest,
  chain: readonly string[],
  defaults: ProjectDefaults,
  warn: (message: string) => void,
): Promise<Expanded<RenderedComponent>> {
  const input: RenderInput = {
    name: request.name,
    fields: request.fields,
    labels: {},
    ...defaults,
  };
  const label = `${request.reference} \`${request.name}\``;
  if (request.name.trim() === "") {
    throw new KilnError(
      "invalid_request",
      `the dependency ${request.reference} of ${chain.at(-2)} renders an empty name - nothing was written`,
      `its item's \`name\` template gives nothing with these values; needed as a dependency: ${chain.join(" -> ")}`,
    );
  }
  try {
    const render = await renderComponentWith(renderer, request.reference, input, warn, label);
    const dependencies = await renderer.dependenciesOf(render.item, input, render.builtin, label);
    return { component: referenceOf(render.item), dependencies, value: { render, input } };
  } catch (error) {
    throw inChain(error, chain);
  }
}

/** A dependency's error, with the chain of items that needed it. */
function inChain(error: unknown, chain: readonly string[]): unknown {
  if (!(error instanceof KilnError)) return error;
  const needed = `needed as a dependency: ${chain.join(" -> ")}; nothing was written`;
  return new KilnError(
    error.kind,
    error.message,
    error.detail ? `${error.detail}\n${needed}` : needed,
  );
}

/**
 * One line per dependency after the written files: `dependency cache-db (@acme/redis), needed
 * by cache: added`, or `: already in the project, kept` for one the project had.
 */
export function reportDependencies(
  output: Output,
  added: readonly PlannedComponent<RenderedComponent>[],
  kept: readonly KeptDependency<RenderedComponent>[],
  dryRun: boolean,
): void {
  for (const planned of added) {
    output.line(
      `dependency ${planned.request.name} (${planned.request.reference}), needed by ${planned.neededBy?.request.name}: ${dryRun ? "would be added" : "added"}`,
    );
  }
  for (const one of kept) {
    output.line(
      `dependency ${one.request.name} (${one.request.reference}), needed by ${one.neededBy.request.name}: already in the project, kept`,
    );
  }
}

/** The dependencies of a preset's components: what to add, what is kept, what each needs. */
export interface PresetDependencies {
  added: PlannedComponent<RenderedComponent>[];
  kept: KeptDependency<RenderedComponent>[];
  /** Per preset component (by its place in the preset), what kiln.lock records it needs. */
  needs: LockedDependency[][];
}

/**
 * The dependencies of a preset's rendered components (`kiln setup`), as `kiln add` resolves
 * them for one: a dependency the preset itself holds (same item and name), the project's lock
 * records, or an earlier component already brought, is kept; each is added once.
 */
export async function presetDependencies(
  renderer: ComponentRenderer,
  rendered: readonly { component: PresetComponent; output: ResolvedRender }[],
  lock: Lock | undefined,
  defaults: ProjectDefaults,
  warn: (message: string) => void,
): Promise<PresetDependencies> {
  const present = [
    ...(lock?.components ?? []).map((entry) => ({
      key: recordedKey(entry),
      name: entry.name,
      component: entry.component,
    })),
    ...rendered.map(({ component, output }) => ({
      key: rootKey(renderer, component.reference),
      name: component.name,
      component: referenceOf(output.item),
    })),
  ];
  const result: PresetDependencies = { added: [], kept: [], needs: [] };
  for (const { component, output } of rendered) {
    const input = componentInput(component, defaults.defaultNamespace, defaults.automationProfile);
    const root = { reference: component.reference, name: component.name, fields: component.fields };
    const plan = await planDependencies(root, rootKey(renderer, component.reference), {
      keyOf: (dependency) => dependencyKey(renderer, dependency),
      inProject: (key, name) =>
        present.find((entry) => entry.key === key && entry.name === name)?.component,
      expand: async (request, chain) => {
        if (chain.length > 1) return expandDependency(renderer, request, chain, defaults, warn);
        const dependencies = await renderer.dependenciesOf(
          output.item,
          input,
          output.builtin,
          request.reference,
        );
        return {
          component: referenceOf(output.item),
          dependencies,
          value: { render: output, input },
        };
      },
    });
    const [own, ...brought] = plan.added;
    result.needs.push(own?.needs ?? []);
    result.added.push(...brought);
    result.kept.push(...plan.kept);
    for (const planned of brought) {
      present.push({ key: planned.key, name: planned.request.name, component: planned.component });
    }
  }
  return result;
}
