// Dependencies between items: an item may declare other components it needs in the project
// (`dependencies` in the registry-item JSON). Adding it adds the ones the project lacks, in the
// same write, recursively, across registries. This module decides which components that is and
// in what order, and refuses a cycle or a graph past the bounds; how an item is fetched and its
// dependency templates rendered is the caller's (`expand`), so this stays pure.
//
// Identity: a component is "already in the project" when the project has a component of the same
// item (`key`: `@acme/redis` whatever the version, a built-in's `category/name`, a URL) and the
// same name. A cycle is one between items, whatever names their templates give: names derived
// from names (`{{ name }}-db`) would otherwise grow forever instead of repeating.
import { KilnError } from "./errors.ts";

/**
 * The bounds of one resolution: dependencies of dependencies at most 8 levels below the
 * component named, and at most 32 components added as dependencies by one command. A real
 * stack (an app, its database, its cache, their network) is 2 or 3 levels and a handful of
 * components; the bounds stop a stranger's registry from making one `kiln add` fetch and write
 * without end.
 */
export const DEPENDENCY_LIMITS = { maxDepth: 8, maxComponents: 32 } as const;

/** A dependency as an item declares it, its templates rendered with the item's values. */
export interface DependencyRequest {
  reference: string;
  name: string;
  fields: Record<string, string>;
}

/** What the caller knows of a component once its item is fetched and its dependencies rendered. */
export interface Expanded<T> {
  /** The item's `category/name` (what kiln.lock records as `component`). */
  component: string;
  dependencies: DependencyRequest[];
  /** Whatever the caller keeps for the write (the render). */
  value: T;
}

/** A component the resolution adds: the one named first, then its dependencies, depth first. */
export interface PlannedComponent<T> {
  request: DependencyRequest;
  key: string;
  component: string;
  value: T;
  /** The component that first needed it; undefined for the one named. */
  neededBy: PlannedComponent<T> | undefined;
  /** What it needs, as kiln.lock records it: each dependency's component and name. */
  needs: { component: string; name: string }[];
}

/** A dependency the project already has: not added again, not changed. */
export interface KeptDependency<T> {
  request: DependencyRequest;
  component: string;
  neededBy: PlannedComponent<T>;
}

export interface DependencyPlan<T> {
  /** The named component first, then each dependency to add. */
  added: PlannedComponent<T>[];
  kept: KeptDependency<T>[];
}

export interface DependencyResolver<T> {
  /** The item identity of a dependency's reference (throws for one that may not be one). */
  keyOf(reference: string): string;
  /** Fetches and renders a component; `neededBy` names the chain in its errors. */
  expand(request: DependencyRequest, chain: readonly string[]): Promise<Expanded<T>>;
  /** The project's component of that item and name (its `category/name`), if it has one. */
  inProject(key: string, name: string): string | undefined;
  limits?: { maxDepth: number; maxComponents: number };
}

/** The error for an item cycle, naming it: `@acme/a -> @acme/b -> @acme/a`. */
export function dependencyCycleError(cycle: readonly string[]): KilnError {
  return new KilnError(
    "invalid_request",
    `dependency cycle: ${cycle.join(" -> ")} - nothing was written`,
    "an item cannot need itself, directly or through others: remove one of these dependencies from its item",
  );
}

/** The cycle `chain` closes when it goes on to `key`, from key's first place in it; or none. */
export function cycleThrough(chain: readonly string[], key: string): string[] | undefined {
  const start = chain.indexOf(key);
  return start === -1 ? undefined : [...chain.slice(start), key];
}

function tooDeepError(chain: readonly string[], maxDepth: number): KilnError {
  return new KilnError(
    "invalid_request",
    `dependencies nest more than ${maxDepth} levels deep: ${chain.join(" -> ")} - nothing was written`,
    `kiln follows dependencies at most ${maxDepth} levels below the component you add`,
  );
}

function tooManyError(maxComponents: number, root: string): KilnError {
  return new KilnError(
    "invalid_request",
    `${root} needs more than ${maxComponents} components as dependencies - nothing was written`,
    `kiln adds at most ${maxComponents} dependencies with one component`,
  );
}

/**
 * Resolves `root` (whose item identity is `rootKey`: it may be any reference, a file too) and its dependencies, depth first in the order items declare them: which
 * components to add (each once, however many need it), which the project already has (kept),
 * what each needs. A cycle between items, a chain deeper than `maxDepth` or more than
 * `maxComponents` dependencies to add is an error, before anything is written.
 */
export async function planDependencies<T>(
  root: DependencyRequest,
  rootKey: string,
  resolver: DependencyResolver<T>,
): Promise<DependencyPlan<T>> {
  const limits = resolver.limits ?? DEPENDENCY_LIMITS;
  const added: PlannedComponent<T>[] = [];
  const kept: KeptDependency<T>[] = [];
  const planned = new Map<string, PlannedComponent<T>>();
  const identity = (key: string, name: string) => `${key}\u0000${name}`;

  const visit = async (
    request: DependencyRequest,
    key: string,
    chain: readonly string[],
    neededBy: PlannedComponent<T> | undefined,
  ): Promise<PlannedComponent<T>> => {
    const expanded = await resolver.expand(request, chain);
    const node: PlannedComponent<T> = {
      request,
      key,
      component: expanded.component,
      value: expanded.value,
      neededBy,
      needs: [],
    };
    added.push(node);
    planned.set(identity(key, request.name), node);
    for (const dependency of expanded.dependencies) {
      const dependencyKey = resolver.keyOf(dependency.reference);
      const cycle = cycleThrough(chain, dependencyKey);
      if (cycle) throw dependencyCycleError(cycle);
      const existing = resolver.inProject(dependencyKey, dependency.name);
      if (existing !== undefined) {
        node.needs.push({ component: existing, name: dependency.name });
        kept.push({ request: dependency, component: existing, neededBy: node });
        continue;
      }
      const already = planned.get(identity(dependencyKey, dependency.name));
      if (already) {
        node.needs.push({ component: already.component, name: dependency.name });
        continue;
      }
      const next = [...chain, dependencyKey];
      if (next.length - 1 > limits.maxDepth) throw tooDeepError(next, limits.maxDepth);
      if (added.length - 1 >= limits.maxComponents) {
        throw tooManyError(limits.maxComponents, root.reference);
      }
      const child = await visit(dependency, dependencyKey, next, node);
      node.needs.push({ component: child.component, name: dependency.name });
    }
    return node;
  };

  await visit(root, rootKey, [rootKey], undefined);
  return { added, kept };
}
