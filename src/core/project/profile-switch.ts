// Switching a project's automation tool profile (`kiln update --profile`). Each kiln.lock entry
// records the profile its files were rendered with, and status, diff and update render a
// component again with its recorded values: so kiln.toml's `automation_profile` steers only the
// components added after it changed, and a project switches by rendering every component under
// the new profile. Here: the profiles the lock records, whether kiln.toml disagrees with them
// (and the command that brings them together), kiln.toml with only that one key rewritten, and
// whether an item's files depend on the profile at all (setup's hint).
import { parse, patch } from "@decimalturn/toml-patch";
import { PROJECT_FILE } from "../config.ts";
import { DEFAULT_AUTOMATION_PROFILE } from "../context.ts";
import { errorMessage, KilnError } from "../errors.ts";
import { itemMeta, type RegistryItem } from "../item.ts";
import type { AutomationProfile } from "../vocabulary.ts";
import { type ProjectConfig, parseProjectConfig } from "./kiln-toml.ts";
import type { Lock } from "./lock-format.ts";

/** The command that renders every component of a project under `profile`. */
export function switchCommand(profile: AutomationProfile): string {
  return `kiln update --profile ${profile}`;
}

/** The profiles kiln.lock's components were rendered with, each once, in the lock's order. */
export function lockProfiles(lock: Lock): AutomationProfile[] {
  const profiles = lock.components.map(
    (entry) => entry.automationProfile ?? DEFAULT_AUTOMATION_PROFILE,
  );
  return [...new Set(profiles)];
}

/** kiln.toml names one profile, and kiln.lock's components were rendered with others. */
export interface ProfileDisagreement {
  /** kiln.toml's `automation_profile` (`cm` when absent). */
  project: AutomationProfile;
  /** The profiles kiln.lock records, each once. */
  lock: AutomationProfile[];
}

/**
 * Whether kiln.toml's profile and the one its components were rendered with disagree: a
 * hand-edited `automation_profile` steers only components added afterwards until the project
 * is switched. A lock without components agrees with any profile.
 */
export function profileDisagreement(
  config: ProjectConfig,
  lock: Lock,
): ProfileDisagreement | undefined {
  const project = config.automationProfile ?? DEFAULT_AUTOMATION_PROFILE;
  const recorded = lockProfiles(lock);
  if (recorded.every((profile) => profile === project)) return undefined;
  return { project, lock: recorded };
}

/** The line `kiln status` prints for a disagreement: both sides and the command to run. */
export function profileDisagreementLine(disagreement: ProfileDisagreement): string {
  const recorded = disagreement.lock.map((profile) => `\`${profile}\``).join(" and ");
  return `automation profile: ${PROJECT_FILE} says \`${disagreement.project}\`, the files in kiln.lock were rendered with ${recorded} - run \`${switchCommand(disagreement.project)}\` to switch them`;
}

/**
 * kiln.toml's text with `automation_profile` set to `profile`, every other byte (the user's
 * keys, comments, blank lines, quoting) as it was: a library that edits TOML in place
 * (toml-patch), since re-serializing the parsed table (smol-toml) would drop comments. The text
 * itself when it names `profile` already (an absent key is `cm`). The result is read back: a
 * rewrite that changed anything but the profile is refused, never written.
 */
export function withAutomationProfile(text: string, profile: AutomationProfile): string {
  const before = parseProjectConfig(text);
  if ((before.automationProfile ?? DEFAULT_AUTOMATION_PROFILE) === profile) return text;
  let rewritten: string;
  try {
    const table = parse(text) as Record<string, unknown>;
    const project = (table.project ?? {}) as Record<string, unknown>;
    rewritten = patch(text, { ...table, project: { ...project, automation_profile: profile } });
    // a file that ended its last line (or was empty) still does
    if ((text === "" || text.endsWith("\n")) && !rewritten.endsWith("\n")) rewritten += "\n";
  } catch (error) {
    throw profileRewriteError(profile, errorMessage(error));
  }
  const after = parseProjectConfig(rewritten);
  const same =
    after.automationProfile === profile &&
    after.name === before.name &&
    after.defaultNamespace === before.defaultNamespace &&
    after.outputDir === before.outputDir;
  if (!same) throw profileRewriteError(profile, "the rewritten file did not read back the same");
  return rewritten;
}

function profileRewriteError(profile: AutomationProfile, why: string): KilnError {
  return new KilnError(
    "invalid_request",
    `could not set automation_profile in ${PROJECT_FILE} (${why}) - nothing was written`,
    `set \`automation_profile = "${profile}"\` under [project] in ${PROJECT_FILE} by hand, then run \`${switchCommand(profile)}\` again`,
  );
}

/**
 * Whether an item's files depend on the automation tool profile: it renames paths per profile
 * (`kiln.profilePaths`), or a template or path reads `automation_profile`.
 */
export function readsAutomationProfile(item: RegistryItem): boolean {
  if (Object.keys(itemMeta(item).profilePaths).length > 0) return true;
  return item.files.some(
    (file) =>
      file.template.includes("automation_profile") || file.path.includes("automation_profile"),
  );
}

/**
 * The line after `kiln setup` when the preset's files use the default profile's names and some
 * of them depend on the profile: the real tool reads none of them, and one command switches.
 */
export function defaultProfileHint(
  profile: AutomationProfile,
  items: readonly RegistryItem[],
): string | undefined {
  if (profile !== DEFAULT_AUTOMATION_PROFILE || !items.some(readsAutomationProfile)) {
    return undefined;
  }
  return `the automation files use the \`cm_\` names (cm_host, cm.cfg), which ansible-core does not read - \`${switchCommand("ansible")}\` switches them to the real tool's names`;
}
