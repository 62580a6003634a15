// kiln check: the cross-component checks of the dashboard (src/core/project/checks/check-project.ts) on a preset, for
// scripts and CI. Renders every component through the project pipeline to learn the paths it
// writes (as setup would, with the same namespace default, but keeping every failure), writes
// nothing, and fails when any finding is an error. A project is checked as its files are on
// disk (check-on-disk.ts): its summary counts the files and those edited by hand.

import { LOCK_FILE } from "../../core/config.ts";
import { type ItemMetaView, toItemMetaView } from "../../core/item.ts";
import { plural } from "../../core/plural.ts";
import {
  CHECK_RULES,
  checkProject,
  countFindings,
  formatFinding,
} from "../../core/project/checks/check-project.ts";
import { componentsAt, exactAddresses } from "../../core/project/component-address.ts";
import type { CheckComponent } from "../../core/project/facts.ts";
import type { LockedComponent } from "../../core/project/lock-format.ts";
import { presetNamespace } from "../../core/project/preset-manifest.ts";
import { withRenderedPaths } from "../../core/project/render-components.ts";
import { builtinRegistry } from "../../node/builtin-registry.ts";
import { readLock } from "../../node/lock-on-disk.ts";
import { flag, UsageError } from "../args.ts";
import { type ProjectOnDisk, readProjectOnDisk } from "../check-on-disk.ts";
import { CHECK } from "../command-list.ts";
import { EXIT_FAILED, EXIT_OK } from "../exit.ts";
import { readLockedProject, renderLockForChecks, selectComponents } from "../lifecycle.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { presetLabel, renderPresetForChecks } from "../preset-run.ts";
import { type UrlReport, urlLines } from "../url-fetches.ts";

export function help(): string {
  const width = Math.max(...CHECK_RULES.map((rule) => rule.id.length));
  return commandHelp(CHECK, {
    title: "check a preset's components against each other",
    about: `<preset> is a built-in template (\`kiln presets\`), a URL or a path to a .preset.json file.
Without <preset>, checks the project in the current folder as its files are on disk: the files
kiln.lock tracks, each edited one parsed as what it is (\`kiln check\` in CI). A file that does
not parse is named and checked by the values kiln.lock records; a missing file is a warning,
conflict markers left in a file an error. With components of that lock
(\`kiln check ingress/api\`, \`kiln check api\`), the whole project is checked and the findings
that involve them are reported.
Renders every component (nothing is written) and reports what no single template can see:
a play aimed at a group no inventory defines, a role used but not vendored, two components
writing one path, and more. Exits 1 when any finding is an error, 0 otherwise (warnings
alone pass).`,
    notes: `Rules:
${CHECK_RULES.map((rule) => `  ${rule.id.padEnd(width)}  ${rule.severity.padEnd(7)}  ${rule.summary}`).join("\n")}`,
    examples: [
      "kiln check multi-tier-platform",
      "kiln check ./shop.preset.json",
      "kiln check ./shop.preset.json --json | jq -r '.findings[].message'",
      "kiln check    # the project in this folder: the components of kiln.lock",
      "kiln check deployment/api",
    ],
  });
}

export async function run(argv: string[], output: Output): Promise<number> {
  // <preset> is optional: without it, the project in the current folder (its kiln.lock)
  const { parsed, args } = parseCommand(argv, CHECK);
  const addressed = addressedComponents(args);
  if (addressed === undefined && args.length > 1) {
    throw new UsageError(
      `${args.length} arguments that are not components of ${LOCK_FILE}: give one preset, or components of the project`,
    );
  }
  // built-ins render here; components from files and URLs in a worker with a deadline. A
  // render stopped by a limit ends the check with that error (see renderPresetForChecks)
  const reference =
    addressed === undefined && args[0] !== undefined ? output.typed(args[0]) : undefined;
  // what each built-in is (inventory, playbook, ...) is catalogue data: component.json's `kiln`
  const catalogue = builtinRegistry().items.map(toItemMetaView);
  const { label, namespace, count, components, urls, disk } =
    reference === undefined
      ? await lockChecked(catalogue, output, addressed)
      : await presetChecked(reference);
  const findings = checkProject({ namespace, components, catalogue }).filter(
    // components named: the findings that involve one of them (the whole project is checked)
    (finding) =>
      addressed === undefined ||
      finding.components.some(({ name, reference }) =>
        addressed.some((entry) => entry.name === name && entry.reference === reference),
      ),
  );
  const { errors, warnings } = countFindings(findings);
  const status = errors > 0 ? EXIT_FAILED : EXIT_OK;
  if (flag(parsed, "json")) {
    // `urls` only when the project's lock names any (a JSON answer without it stays as it was);
    // what was read from disk only for a project, after every key a preset's answer has
    const answer = {
      findings,
      errors,
      warnings,
      ...(urls === undefined || urls.length === 0 ? {} : { urls }),
      ...(disk === undefined
        ? {}
        : { files: disk.files, edited: disk.edited, unread: disk.unread }),
    };
    output.json(answer);
    return status;
  }
  const style = output.out;
  for (const { path, reason } of disk?.unread ?? []) {
    output.line(
      style.yellow(
        `warning: ${output.path(path)} was not read: ${reason} - checked with the values ${LOCK_FILE} records for it instead`,
      ),
    );
  }
  for (const finding of findings) {
    const line = formatFinding(finding);
    output.line(finding.severity === "error" ? style.red(line) : style.yellow(line));
    if (finding.fix) output.line(style.dim(`  fix: ${finding.fix.label}`));
  }
  for (const line of urlLines(urls ?? [], style)) output.line(line);
  const checked = [plural(count, "component"), ...(disk ? [filesChecked(disk)] : [])].join(", ");
  if (findings.length === 0) {
    output.line(`checked ${label}: ${checked}, no findings`);
  } else {
    output.line(
      `checked ${label}: ${checked}, ${plural(errors, "error")}, ${plural(warnings, "warning")}`,
    );
  }
  return status;
}

/** `41 files (3 edited by hand, checked as they are)`: what the summary says of the files. */
function filesChecked(disk: ProjectOnDisk): string {
  return `${plural(disk.files, "file")} (${disk.edited.length} edited by hand, checked as they are)`;
}

interface Checked {
  label: string;
  namespace: string;
  count: number;
  components: CheckComponent[];
  /** The project's URLs and what became of them (a preset's components are not listed). */
  urls?: UrlReport[] | undefined;
  /** What was read from the project's files (a preset has none: it is checked as rendered). */
  disk?: ProjectOnDisk | undefined;
}

async function presetChecked(reference: string): Promise<Checked> {
  const { preset, results } = await renderPresetForChecks(reference, process.cwd());
  return {
    label: presetLabel(preset, reference),
    namespace: presetNamespace(preset),
    count: preset.components.length,
    components: results.map((result) => withRenderedPaths(result.component, result)),
  };
}

/**
 * The components of the project's kiln.lock the arguments name (`api`, `deployment/api`), or
 * undefined when there are none or they are not all components (then the one argument is a
 * preset, as in `kiln diff`: a name the lock records is a component first).
 */
function addressedComponents(args: readonly string[]): LockedComponent[] | undefined {
  if (args.length === 0) return undefined;
  const lock = readLock(process.cwd());
  if (lock === undefined) return undefined;
  if (!args.every((address) => componentsAt(lock.components, address).length > 0)) {
    return undefined;
  }
  return selectComponents(lock, args);
}

/**
 * The project of the current folder: its kiln.lock's components as their files are on disk,
 * each file that is missing or does not read by the values the lock records (all checked;
 * `addressed` only names whose findings are reported). The recorded values are rendered too:
 * a value that no longer renders is a finding.
 */
async function lockChecked(
  catalogue: readonly ItemMetaView[],
  output: Output,
  addressed?: readonly LockedComponent[],
): Promise<Checked> {
  const project = readLockedProject(process.cwd());
  const { results, urls } = await renderLockForChecks(project);
  const disk = readProjectOnDisk(
    project,
    results.map((result) => withRenderedPaths(result.component, result)),
    catalogue,
    (path) => output.path(path),
  );
  const named =
    addressed === undefined
      ? ""
      : ` for ${exactAddresses(addressed, project.lock.components).join(", ")}`;
  return {
    label: `the project (${LOCK_FILE})${named}`,
    namespace: project.config.defaultNamespace,
    count: project.lock.components.length,
    components: disk.components,
    urls,
    disk,
  };
}
