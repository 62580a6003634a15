// A project's inputs read back from its kiln.lock: the preset that rebuilds it (`kiln preset
// export`, and the dashboard opening a project from its lock). Pure, for the CLI and the browser.
//
// The lock records components, not the project's settings (those are kiln.toml's). With kiln.toml
// at hand they are exact; from the lock alone the dashboard learns them as follows: the namespace
// most components were rendered in, and the output folder from one file - its path in the lock is
// `<output folder>/<rendered path>`, and rendering its component again gives the rendered path.
import { DEFAULT_OUTPUT_DIR } from "../config.ts";
import { DEFAULT_AUTOMATION_PROFILE } from "../context.ts";
import type { ProjectConfig } from "./kiln-toml.ts";
import { inProjectOrder, type Lock } from "./lock-format.ts";
import type { Preset } from "./preset-manifest.ts";

/**
 * The preset of a project: kiln.toml's settings and kiln.lock's components, in the order they
 * were added or set up (`order`), so `kiln setup` of it lays the project out as it grew.
 */
export function presetFromLock(lock: Lock, config: ProjectConfig): Preset {
  const profile = config.automationProfile ?? DEFAULT_AUTOMATION_PROFILE;
  return {
    name: config.name,
    title: "",
    description: "",
    project: {
      name: config.name,
      namespace: config.defaultNamespace,
      outputDir: config.outputDir,
      automationProfile: profile === DEFAULT_AUTOMATION_PROFILE ? undefined : profile,
    },
    components: inProjectOrder(lock.components).map((entry) => ({
      reference: entry.reference,
      name: entry.name,
      // a component rendered in another namespace than the project's keeps it as a field
      fields:
        entry.namespace === config.defaultNamespace || entry.fields.namespace !== undefined
          ? entry.fields
          : { ...entry.fields, namespace: entry.namespace },
      labels: entry.labels,
    })),
  };
}

/** The namespace most of the lock's components were rendered in (the first on a tie). */
export function lockNamespace(lock: Lock, fallback: string): string {
  const counts = new Map<string, number>();
  for (const entry of lock.components) {
    counts.set(entry.namespace, (counts.get(entry.namespace) ?? 0) + 1);
  }
  let best = fallback;
  let most = 0;
  for (const [namespace, count] of counts) {
    if (count > most) [best, most] = [namespace, count];
  }
  return best;
}

/**
 * The output folder a lock's file was written under, given the path its template renders to
 * now (relative to the output folder): `infra/group_vars/web.yml` rendered as
 * `group_vars/web.yml` was written under `infra`. Undefined when the lock's path does not end
 * with the rendered one (the item changed since).
 */
export function outputDirOf(lockedPath: string, renderedPath: string): string | undefined {
  const rendered = renderedPath.replace(/^\.\//, "");
  if (lockedPath === rendered) return ".";
  if (!lockedPath.endsWith(`/${rendered}`)) return undefined;
  return lockedPath.slice(0, -rendered.length - 1);
}

/**
 * The output folder when no component renders any more: the first folder every recorded file
 * shares, else the default.
 */
export function sharedTopFolder(lock: Lock): string {
  const paths = lock.components.flatMap((entry) => entry.files.map((file) => file.path));
  const tops = new Set(paths.map((path) => (path.includes("/") ? path.split("/")[0] : ".")));
  const [top] = tops;
  return tops.size === 1 && top !== undefined ? top : DEFAULT_OUTPUT_DIR;
}
