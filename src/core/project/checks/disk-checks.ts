// Rules about the tracked files as they are on disk (`kiln check` of a project; the dashboard
// and a preset have no disk, so these find nothing there): a file that still holds the markers
// of a conflict, and a file kiln.lock tracks that is gone.
import { plural } from "../../plural.ts";
import type { ProjectFacts } from "../facts.ts";
import { defineRule, type FindingParams, type Issue, quote, type RuleContext } from "./rule.ts";

/** `deployment/api`: the address `kiln update` and `kiln remove` take for one component. */
function addressOf(context: RuleContext, index: number): string {
  const component = context.project.components[index];
  if (component === undefined) return `${index}`;
  const reference = component.reference.replace(/\/+$/, "");
  return `${reference.slice(reference.lastIndexOf("/") + 1)}/${component.name}`;
}

/** conflict-markers' parts: the component, the file and the lines where a conflict starts. */
function conflictMarkersParams(
  context: RuleContext,
  index: number,
  file: string,
  lines: readonly number[],
): FindingParams {
  return { component: context.named(index), file, lines: [...lines] };
}

/**
 * A file with the markers of a conflict left in is not YAML, INI or HCL any more: every tool
 * that reads it fails, and a half-merged file deployed by hand is worse.
 */
function conflictMarkers(facts: ProjectFacts, context: RuleContext): Issue[] {
  return facts.conflictMarkers.map((file) => ({
    message: `${context.who(file.component)}: ${quote(file.shown)} holds unresolved conflict markers (${quote("<<<<<<<")} at line ${file.lines.join(", ")}) - keep the lines you want between ${quote("<<<<<<<")}, ${quote("=======")} and ${quote(">>>>>>>")}, delete the marker lines and run \`kiln check\` again`,
    components: [file.component],
    params: conflictMarkersParams(context, file.component, file.shown, file.lines),
  }));
}

export const CONFLICT_MARKERS = defineRule({
  id: "conflict-markers",
  severity: "error",
  summary:
    "a file kiln.lock tracks holds unresolved conflict markers (`<<<<<<<`, `=======`, `>>>>>>>`; `kiln check` of a project)",
  fix: "edit the file: keep the lines you want between <<<<<<< and >>>>>>>, delete the markers, then run kiln check again",
  check: conflictMarkers,
});

/** Files named in one message: the first three, then how many more. */
function someFiles(shown: readonly string[]): string {
  const first = shown.slice(0, 3).map(quote).join(", ");
  return shown.length > 3 ? `${first} and ${shown.length - 3} more` : first;
}

/**
 * missing-file's parts: the component, every missing file, how many, and the address `kiln
 * update` and `kiln remove` take.
 */
function missingFileParams(
  context: RuleContext,
  index: number,
  files: readonly string[],
): FindingParams {
  return {
    component: context.named(index),
    files: [...files],
    count: files.length,
    address: addressOf(context, index),
  };
}

/**
 * A file kiln.lock tracks that is not on disk: deleted by hand, so the project no longer has
 * what the lock says it vendored (and a later `kiln update` writes it again). A warning:
 * nothing that runs needs every file, and the checks that do (a role, a playbook the site
 * imports) report it as an error of their own.
 */
function missingFiles(facts: ProjectFacts, context: RuleContext): Issue[] {
  const byComponent = new Map<number, string[]>();
  for (const file of facts.missingFiles) {
    byComponent.set(file.component, [...(byComponent.get(file.component) ?? []), file.shown]);
  }
  return [...byComponent].map(([component, shown]) => {
    const address = addressOf(context, component);
    return {
      message: `${context.who(component)}: ${plural(shown.length, "file")} kiln.lock tracks ${shown.length === 1 ? "is" : "are"} not on disk (${someFiles(shown)}) - \`kiln update ${address}\` writes ${shown.length === 1 ? "it" : "them"} again, or \`kiln remove ${address}\` stops tracking the component`,
      components: [component],
      params: missingFileParams(context, component, shown),
    };
  });
}

export const MISSING_FILE = defineRule({
  id: "missing-file",
  severity: "warning",
  summary: "a file kiln.lock tracks is not on disk (`kiln check` of a project)",
  fix: "run `kiln update <component>/<name>` to write the file again, or `kiln remove <component>/<name>` if the component is no longer wanted",
  check: missingFiles,
});
