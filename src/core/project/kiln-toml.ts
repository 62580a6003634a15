// The project configuration file `kiln.toml`: one `[project]` table with `name`,
// `default_namespace` and `output_dir`. Written by `init`, `setup` and the dashboard's zip
// (through the layout), read by `add`. Pure: smol-toml runs in the browser too.
import { parse, stringify } from "smol-toml";
import {
  DEFAULT_NAMESPACE,
  DEFAULT_OUTPUT_DIR,
  DEFAULT_PROJECT_NAME,
  PROJECT_FILE,
} from "../config.ts";
import { KilnError } from "../errors.ts";

export interface ProjectConfig {
  name: string;
  defaultNamespace: string;
  outputDir: string;
}

/** The exact bytes every writer of kiln.toml produces (setup and the zip must agree). */
export function serializeProjectConfig(config: ProjectConfig): string {
  return stringify({
    project: {
      name: config.name,
      default_namespace: config.defaultNamespace,
      output_dir: config.outputDir,
    },
  }).replace(/\n*$/, "\n");
}

/**
 * A kiln.toml that kiln cannot use: `problem` follows the file's name (`` is not valid TOML``,
 * `: project.name must be a string`), and the way out is always the same.
 */
export function projectFileError(problem: string, detail?: string): KilnError {
  return new KilnError(
    "invalid_request",
    `${PROJECT_FILE}${problem} - fix it or run \`kiln init --force\``,
    detail,
  );
}

/** Parses `kiln.toml`; missing keys take the compiled-in defaults. */
export function parseProjectConfig(text: string): ProjectConfig {
  let table: Record<string, unknown>;
  try {
    table = parse(text) as Record<string, unknown>;
  } catch (error) {
    throw projectFileError(" is not valid TOML", (error as Error).message);
  }
  const project = (table.project ?? {}) as Record<string, unknown>;
  const text_ = (key: string, fallback: string): string => {
    const value = project[key];
    if (value === undefined) return fallback;
    if (typeof value !== "string") throw projectFileError(`: project.${key} must be a string`);
    return value;
  };
  return {
    name: text_("name", DEFAULT_PROJECT_NAME),
    defaultNamespace: text_("default_namespace", DEFAULT_NAMESPACE),
    outputDir: text_("output_dir", DEFAULT_OUTPUT_DIR),
  };
}
