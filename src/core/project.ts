// The project configuration file `kiln.toml`: one `[project]` table with `name`,
// `default_namespace` and `output_dir`. Written by `init` and `setup`, read by `add`.
import { parse, stringify } from "smol-toml";
import {
  DEFAULT_NAMESPACE,
  DEFAULT_OUTPUT_DIR,
  DEFAULT_PROJECT_NAME,
  PROJECT_FILE,
} from "./config.ts";
import { KilnError } from "./errors.ts";

export interface ProjectConfig {
  name: string;
  defaultNamespace: string;
  outputDir: string;
}

export function serializeProjectConfig(config: ProjectConfig): string {
  return stringify({
    project: {
      name: config.name,
      default_namespace: config.defaultNamespace,
      output_dir: config.outputDir,
    },
  }).replace(/\n*$/, "\n");
}

/** Parses `kiln.toml`; missing keys take the compiled-in defaults. */
export function parseProjectConfig(text: string): ProjectConfig {
  let table: Record<string, unknown>;
  try {
    table = parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new KilnError(
      "invalid_request",
      `${PROJECT_FILE} is not valid TOML - fix it or run \`kiln init --force\``,
      (error as Error).message,
    );
  }
  const project = (table.project ?? {}) as Record<string, unknown>;
  const text_ = (key: string, fallback: string): string => {
    const value = project[key];
    if (value === undefined) return fallback;
    if (typeof value !== "string") {
      throw new KilnError(
        "invalid_request",
        `${PROJECT_FILE}: project.${key} must be a string - fix it or run \`kiln init --force\``,
      );
    }
    return value;
  };
  return {
    name: text_("name", DEFAULT_PROJECT_NAME),
    defaultNamespace: text_("default_namespace", DEFAULT_NAMESPACE),
    outputDir: text_("output_dir", DEFAULT_OUTPUT_DIR),
  };
}
