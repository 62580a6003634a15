// The project configuration file `kiln.toml`: one `[project]` table with `name`,
// `default_namespace`, `output_dir` and, when not the default, `automation_profile`. Written by `init`, `setup` and the dashboard's zip
// (through the layout), read by `add`. Pure: smol-toml runs in the browser too.
import { parse, stringify } from "smol-toml";
import {
  DEFAULT_NAMESPACE,
  DEFAULT_OUTPUT_DIR,
  DEFAULT_PROJECT_NAME,
  PROJECT_FILE,
} from "../config.ts";
import {
  DEFAULT_AUTOMATION_PROFILE,
  isAutomationProfile,
  unknownProfileError,
} from "../context.ts";
import { errorMessage, KilnError } from "../errors.ts";
import type { AutomationProfile } from "../vocabulary.ts";

export interface ProjectConfig {
  name: string;
  defaultNamespace: string;
  outputDir: string;
  /** `automation_profile`: written only when it is not the default `cm`. */
  automationProfile?: AutomationProfile | undefined;
}

/** The exact bytes every writer of kiln.toml produces (setup and the zip must agree). */
export function serializeProjectConfig(config: ProjectConfig): string {
  const profile = config.automationProfile ?? DEFAULT_AUTOMATION_PROFILE;
  return stringify({
    project: {
      name: config.name,
      default_namespace: config.defaultNamespace,
      output_dir: config.outputDir,
      // only when not `cm`, so a project on the default names has just the three keys above
      ...(profile === DEFAULT_AUTOMATION_PROFILE ? {} : { automation_profile: profile }),
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
    throw projectFileError(" is not valid TOML", errorMessage(error));
  }
  const project = (table.project ?? {}) as Record<string, unknown>;
  const text_ = (key: string, fallback: string): string => {
    const value = project[key];
    if (value === undefined) return fallback;
    if (typeof value !== "string") throw projectFileError(`: project.${key} must be a string`);
    return value;
  };
  const profile = text_("automation_profile", DEFAULT_AUTOMATION_PROFILE);
  if (!isAutomationProfile(profile)) {
    throw unknownProfileError(`${PROJECT_FILE}: project.automation_profile`, profile);
  }
  return {
    name: text_("name", DEFAULT_PROJECT_NAME),
    defaultNamespace: text_("default_namespace", DEFAULT_NAMESPACE),
    outputDir: text_("output_dir", DEFAULT_OUTPUT_DIR),
    automationProfile: profile,
  };
}
