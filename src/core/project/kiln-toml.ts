// The project configuration file `kiln.toml`: one `[project]` table with `name`,
// `default_namespace`, `output_dir` and, when not the default, `automation_profile`, and an
// optional `[registries]` table (src/core/registry-config.ts). Written by `init`, `setup` and the dashboard's zip
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
import { didYouMean } from "../did-you-mean.ts";
import { errorMessage, KilnError } from "../errors.ts";
import { parseRegistriesTable, REGISTRY_KEYS, type RegistryConfig } from "../registry-config.ts";
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

/** Parses `kiln.toml`'s TOML, with its keys checked (an unknown one is an error). */
function parseProjectTable(text: string): Record<string, unknown> {
  let table: Record<string, unknown>;
  try {
    table = parse(text) as Record<string, unknown>;
  } catch (error) {
    throw projectFileError(" is not valid TOML", errorMessage(error));
  }
  refuseUnknownKeys(table, text);
  return table;
}

/**
 * The registries `kiln.toml` configures (its `[registries]` table), each checked; `from` names
 * the file in errors. The user's config file has the same form (src/node/registry-client.ts).
 */
export function parseConfigRegistries(text: string, from = PROJECT_FILE): RegistryConfig[] {
  return parseRegistriesTable(parseProjectTable(text).registries, from);
}

/**
 * `text` (a kiln.toml kiln writes anew: `setup --force`) with the `[registries]` table of the
 * kiln.toml it replaces, which the preset knows nothing of: the project's registries, and the
 * lock entries that name them, stay usable. A previous file kiln cannot read keeps nothing.
 */
export function withRegistriesKept(text: string, previous: string | undefined): string {
  if (previous === undefined) return text;
  let registries: unknown;
  try {
    registries = parseProjectTable(previous).registries;
  } catch {
    return text;
  }
  if (registries === undefined) return text;
  return `${text}\n${stringify({ registries }).replace(/\n*$/, "\n")}`;
}

/** Parses `kiln.toml`; missing keys take the compiled-in defaults. */
export function parseProjectConfig(text: string): ProjectConfig {
  const table = parseProjectTable(text);
  // a registry's entry is checked with the file, not only when a reference names it
  parseRegistriesTable(table.registries, PROJECT_FILE);
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

/** The tables kiln.toml may hold, and the keys of each. */
const KNOWN_KEYS: Readonly<Record<string, readonly string[]>> = {
  project: ["name", "default_namespace", "output_dir", "automation_profile"],
  // its keys are namespaces (any `@name`); the keys of each namespace's table are REGISTRY_KEYS
  registries: [],
};

/**
 * A key kiln does not know is an error, not silently ignored: `outputdir = "k8s"` would
 * otherwise send files to the default folder. Names the line, the nearest known key, and the
 * keys there are.
 */
function refuseUnknownKeys(table: Record<string, unknown>, text: string): void {
  const tables = Object.keys(KNOWN_KEYS);
  for (const [name, value] of Object.entries(table)) {
    const keys = KNOWN_KEYS[name];
    if (keys === undefined) {
      throw unknownKeyError(
        text,
        [name],
        tables,
        `its tables: ${tables.map((known) => `[${known}]`).join(", ")}`,
      );
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw projectFileError(`: ${name} must be a table ([${name}])`);
    }
    if (name === "registries") {
      refuseUnknownRegistryKeys(value as Record<string, unknown>, text);
      continue;
    }
    for (const key of Object.keys(value)) {
      if (!keys.includes(key)) {
        throw unknownKeyError(text, [name, key], keys, `the keys of [${name}]: ${keys.join(", ")}`);
      }
    }
  }
}

/** A typo in a registry's table (`urll`, `header`) is an error too, with its line. */
function refuseUnknownRegistryKeys(registries: Record<string, unknown>, text: string): void {
  for (const [namespace, entry] of Object.entries(registries)) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) continue;
    for (const key of Object.keys(entry)) {
      if (!(REGISTRY_KEYS as readonly string[]).includes(key)) {
        throw unknownKeyError(
          text,
          ["registries", namespace, key],
          REGISTRY_KEYS,
          `the keys of a registry's table: ${REGISTRY_KEYS.join(", ")}`,
        );
      }
    }
  }
}

function unknownKeyError(
  text: string,
  path: readonly string[],
  known: readonly string[],
  knownText: string,
): KilnError {
  const line = lineOfKey(text, path);
  const key = path.at(-1) ?? "";
  const table = path
    .slice(0, -1)
    .map((part) => (/^[A-Za-z0-9_-]+$/.test(part) ? part : `"${part}"`));
  const where = path.length > 1 ? ` in [${table.join(".")}]` : "";
  return projectFileError(
    `${line === undefined ? "" : `, line ${line}`}: unknown key \`${key}\`${where}${didYouMean(key, known)}`,
    knownText,
  );
}

/** A bare or quoted TOML key, one part of a dotted key. */
const KEY_PART = `(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')`;
const DOTTED_KEY = String.raw`${KEY_PART}(?:\s*\.\s*${KEY_PART})*`;
const TABLE_HEADER = new RegExp(String.raw`^\s*\[\s*(${DOTTED_KEY})\s*\]`);
const KEY_LINE = new RegExp(String.raw`^\s*(${DOTTED_KEY})\s*=`);

function keyParts(dotted: string): string[] {
  return (dotted.match(new RegExp(KEY_PART, "g")) ?? []).map((part) =>
    part.startsWith('"') || part.startsWith("'") ? part.slice(1, -1) : part,
  );
}

/**
 * The line (from 1) where the key `path` is set or its table opens, for the error message.
 * Hand-written: smol-toml gives no positions, and the TOML library that does (toml-patch,
 * about 170 kB) would load with every command that reads kiln.toml, for an error's line number.
 * Lines inside multi-line strings are not told apart; kiln.toml holds none.
 */
function lineOfKey(text: string, path: readonly string[]): number | undefined {
  let table: string[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    const header = TABLE_HEADER.exec(line);
    const key = header ? undefined : KEY_LINE.exec(line);
    const full = header
      ? keyParts(header[1] ?? "")
      : key
        ? [...table, ...keyParts(key[1] ?? "")]
        : undefined;
    if (header) table = full ?? [];
    if (full !== undefined && path.every((part, at) => full[at] === part)) return index + 1;
  }
  return undefined;
}
