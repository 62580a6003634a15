// The registry item of every component of the project: a built-in from the registry (by the
// name after the last `/`, as reference resolution picks it), anything else (a URL, a file)
// through GET /api/registry/inspect, once per reference; a reference that does not resolve
// keeps the service's message.
import { useEffect, useState } from "preact/hooks";
import { type ApiFailure, failureOf, inspect, type RegistryItemView } from "../api.ts";
import type { Project } from "../model/project.ts";

/** The built-in a reference resolves to: the name after the last `/` picks it. */
function builtinFor(registry: RegistryItemView[], reference: string): RegistryItemView | undefined {
  const name = reference.slice(reference.lastIndexOf("/") + 1);
  return registry.find((item) => item.name === name);
}

export interface Items {
  /** The item of a reference, when it is known (and resolved). */
  itemOf: (reference: string) => RegistryItemView | undefined;
  /** Why a reference did not resolve (the service's message and detail), when it did not. */
  errorOf: (reference: string) => ApiFailure | undefined;
}

function isFailure(entry: RegistryItemView | ApiFailure): entry is ApiFailure {
  return "error" in entry;
}

export function useItems(project: Project | undefined, registry: RegistryItemView[]): Items {
  const [inspected, setInspected] = useState<Record<string, RegistryItemView | ApiFailure>>({});
  useEffect(() => {
    if (!project || registry.length === 0) return;
    for (const component of project.components) {
      const { reference } = component;
      if (builtinFor(registry, reference) || inspected[reference] !== undefined) continue;
      inspect(reference).then(
        (item) => setInspected((all) => ({ ...all, [reference]: item })),
        (error: unknown) => setInspected((all) => ({ ...all, [reference]: failureOf(error) })),
      );
    }
  }, [project, registry, inspected]);
  return {
    itemOf: (reference) => {
      const builtin = builtinFor(registry, reference);
      if (builtin) return builtin;
      const entry = inspected[reference];
      return entry && !isFailure(entry) ? entry : undefined;
    },
    errorOf: (reference) => {
      const entry = inspected[reference];
      return entry && isFailure(entry) ? entry : undefined;
    },
  };
}
