// What the service offers, loaded once: the built-in registry, the preset templates and the
// defaults for new projects, each with its own error (the home page works without the others).
import { useEffect, useState } from "preact/hooks";
import { api, type ConfigView, type PresetSummary, type RegistryItemView } from "../api.ts";

export interface Catalogue {
  registry: RegistryItemView[];
  registryError: string | undefined;
  presets: PresetSummary[] | undefined;
  presetsError: string | undefined;
  config: ConfigView | undefined;
}

export function useCatalogue(): Catalogue {
  const [registry, setRegistry] = useState<RegistryItemView[]>([]);
  const [registryError, setRegistryError] = useState<string>();
  const [presets, setPresets] = useState<PresetSummary[]>();
  const [presetsError, setPresetsError] = useState<string>();
  const [config, setConfig] = useState<ConfigView>();
  useEffect(() => {
    api.registry().then(setRegistry, (error: Error) => setRegistryError(error.message));
    api.presets().then(setPresets, (error: Error) => setPresetsError(error.message));
    api.config().then(setConfig, () => undefined);
  }, []);
  return { registry, registryError, presets, presetsError, config };
}
