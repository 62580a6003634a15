// kiln check: the cross-component checks of the dashboard (src/core/project/checks/check-project.ts) on a preset, for
// scripts and CI. Renders every component through the project pipeline to learn the paths it
// writes (as setup would, with the same namespace default, but keeping every failure), writes
// nothing, and fails when any finding is an error.

import { LOCK_FILE } from "../../core/config.ts";
import { toItemMetaView } from "../../core/item.ts";
import { plural } from "../../core/plural.ts";
import {
  CHECK_RULES,
  checkProject,
  countFindings,
  formatFinding,
} from "../../core/project/checks/check-project.ts";
import { componentsAt, exactAddresses } from "../../core/project/component-address.ts";
import type { LockedComponent } from "../../core/project/lock-format.ts";
import { type PresetComponent, presetNamespace } from "../../core/project/preset-manifest.ts";
import { type ComponentRender, withRenderedPaths } from "../../core/project/render-components.ts";
import { builtinRegistry } from "../../node/builtin-registry.ts";
import { readLock } from "../../node/lock-on-disk.ts";
import { flag, UsageError } from "../args.ts";
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
Without <preset>, checks the project in the current folder: the components kiln.lock records,
rendered with their recorded values (\`kiln check\` in CI). With components of that lock
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
  const { label, namespace, count, results, urls } =
    reference === undefined ? await lockChecked(addressed) : await presetChecked(reference);
  const findings = checkProject({
    namespace,
    components: results.map((result) => withRenderedPaths(result.component, result)),
    // what each built-in is (inventory, playbook, ...) is catalogue data: component.json's `kiln`
    catalogue: builtinRegistry().items.map(toItemMetaView),
  }).filter(
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
    // `urls` only when the project's lock names any (a JSON answer without it stays as it was)
    const answer =
      urls === undefined || urls.length === 0
        ? { findings, errors, warnings }
        : { findings, errors, warnings, urls };
    output.line(JSON.stringify(answer, null, 2));
    return status;
  }
  const style = output.out;
  for (const finding of findings) {
    const line = formatFinding(finding);
    output.line(finding.severity === "error" ? style.red(line) : style.yellow(line));
    if (finding.fix) output.line(style.dim(`  fix: ${finding.fix.label}`));
  }
  for (const line of urlLines(urls ?? [], style)) output.line(line);
  const components = plural(count, "component");
  if (findings.length === 0) {
    output.line(`checked ${label}: ${components}, no findings`);
  } else {
    output.line(
      `checked ${label}: ${components}, ${plural(errors, "error")}, ${plural(warnings, "warning")}`,
    );
  }
  return status;
}

interface Checked {
  label: string;
  namespace: string;
  count: number;
  results: ComponentRender<PresetComponent>[];
  /** The project's URLs and what became of them (a preset's components are not listed). */
  urls?: UrlReport[] | undefined;
}

async function presetChecked(reference: string): Promise<Checked> {
  const { preset, results } = await renderPresetForChecks(reference, process.cwd());
  return {
    label: presetLabel(preset, reference),
    namespace: presetNamespace(preset),
    count: preset.components.length,
    results,
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
 * The project of the current folder: its kiln.lock's components with their recorded values
 * (all checked; `addressed` only names whose findings are reported).
 */
async function lockChecked(addressed?: readonly LockedComponent[]): Promise<Checked> {
  const project = readLockedProject(process.cwd());
  const { results, urls } = await renderLockForChecks(project);
  const named =
    addressed === undefined
      ? ""
      : ` for ${exactAddresses(addressed, project.lock.components).join(", ")}`;
  return {
    label: `the project (${LOCK_FILE})${named}`,
    namespace: project.config.defaultNamespace,
    count: project.lock.components.length,
    results,
    urls,
  };
}
