// Where the service reads its built-in data: the registry and the preset templates. Injected
// for tests (a temporary registry), the built-ins by default, loaded lazily so that a broken
// catalogue answers 500 on the endpoints that need it instead of stopping the service.
import { errorMessage, KilnError } from "../core/errors.ts";
import type { Preset } from "../core/project/preset-manifest.ts";
import type { Registry } from "../core/registry.ts";
import { builtinPresets } from "../node/builtin-presets.ts";
import { builtinRegistry } from "../node/builtin-registry.ts";

export interface Catalogue {
  registry(): Registry;
  presets(): readonly Preset[];
}

function loadOrFail<T>(what: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (error instanceof KilnError) throw error;
    throw new KilnError(
      "internal",
      `the built-in ${what} could not be loaded: ${errorMessage(error)}`,
    );
  }
}

export function catalogue(options: {
  registry?: Registry;
  presets?: readonly Preset[];
}): Catalogue {
  const { registry, presets } = options;
  return {
    registry: () => registry ?? loadOrFail("registry", builtinRegistry),
    presets: () => presets ?? loadOrFail("presets", builtinPresets),
  };
}
