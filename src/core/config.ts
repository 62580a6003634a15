// Project defaults compiled into the core (GET /api/config, `kiln init`, `kiln setup`).
export const DEFAULT_NAMESPACE = "default";
export const DEFAULT_OUTPUT_DIR = "k8s";
export const DEFAULT_PROJECT_NAME = "kiln-project";
/** The project configuration file `setup` and `init` write and `add` reads. */
export const PROJECT_FILE = "kiln.toml";
/** What kiln vendored, beside kiln.toml: written by add, setup, update and remove. */
export const LOCK_FILE = "kiln.lock";
/**
 * The write journal of a run under way (src/node/journal.ts), in the folder kiln runs in: what
 * the next writing command rolls back when the run was killed part-way.
 */
export const JOURNAL_FILE = ".kiln-journal.json";
export const PRESET_SUFFIX = ".preset.json";

export interface ConfigView {
  defaultNamespace: string;
  defaultOutputDir: string;
  defaultProjectName: string;
}

export function configView(): ConfigView {
  return {
    defaultNamespace: DEFAULT_NAMESPACE,
    defaultOutputDir: DEFAULT_OUTPUT_DIR,
    defaultProjectName: DEFAULT_PROJECT_NAME,
  };
}
