// Checks across the components of one project: the mistakes no single template can see, such as
// a play aimed at a group no inventory defines or a role that is used but not vendored. Shared by
// the dashboard (live, as you edit) and the CLI (`kiln check <preset>`), so both report the same
// findings. Pure: the caller renders (the project pipeline, src/core/project/render-components.ts,
// to learn the paths each component writes) and passes them, with the catalogue metadata that
// says which component is what.
//
// This module is the entry point the fronts call; the facts live in src/core/project/facts.ts
// and the rules, one function each, in src/core/project/checks/.
import { type Finding, runChecks } from "./project/checks/index.ts";
import type { CheckProject } from "./project/facts.ts";

export { CHECK_RULES, type ComponentToAdd, type Finding } from "./project/checks/index.ts";
export {
  type CheckComponent,
  type CheckProject,
  hostPatternTargets,
  normalizePath,
  yamlTopLevelKeys,
} from "./project/facts.ts";

/** Runs every rule over the project; findings come in rule order, then component order. */
export function checkProject(project: CheckProject): Finding[] {
  return runChecks(project);
}

/** `error: 2, warning: 1` style counts, for summaries. */
export function countFindings(findings: readonly Finding[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const finding of findings) {
    if (finding.severity === "error") errors += 1;
    else warnings += 1;
  }
  return { errors, warnings };
}

/** One line per finding: `error[rule] message (components: a, b)`. */
export function formatFinding(finding: Finding): string {
  return `${finding.severity}[${finding.rule}] ${finding.message}`;
}
