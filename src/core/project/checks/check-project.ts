// Checks across the components of one project: the mistakes no single template can see, such as
// a play aimed at a group no inventory defines or a role that is used but not vendored. Shared by
// the dashboard (live, as you edit) and the CLI (`kiln check`), so both report the same
// findings. Pure: the caller renders (src/core/project/render-components.ts, to learn the paths
// each component writes) and passes them, with the catalogue metadata that says which
// component is what; the facts are read in ../facts.ts and each rule is a function of its own
// here in checks/.
//
// Every check rule is listed once, in the order findings are reported. The docs, the
// dashboard's rule list and `kiln check --help` print CHECK_RULES, which is this list, so the
// rules they name are the rules that run. checkProject reads the project's facts once and gives
// each rule the same facts.
import { type CheckProject, projectFacts } from "../facts.ts";
import {
  BOOTSTRAP_UNKNOWN_GROUP,
  PLAY_UNKNOWN_GROUP,
  PLAYBOOK_NOT_IMPORTED,
  ROLE_NOT_VENDORED,
  SITE_MISSING_PLAYBOOK,
} from "./automation-checks.ts";
import { CONFLICT_MARKERS, MISSING_FILE } from "./disk-checks.ts";
import { DUPLICATE_PATH, INVALID_JSON, RENDER_ERROR } from "./general-checks.ts";
import {
  CHILDREN_CYCLE,
  EMPTY_CHILD_GROUP,
  GROUP_VARS_BOTH_LAYOUTS,
  GROUP_VARS_KEY_IN_INVENTORY,
  GROUP_VARS_KEY_TWICE,
  GROUP_VARS_UNKNOWN_GROUP,
  HOST_TWO_ADDRESSES,
  HOST_VAR_OVERRIDES_GROUP_VAR,
  HOSTS_SHARE_ADDRESS,
  TWO_INVENTORIES,
} from "./inventory-checks.ts";
import {
  INGRESS_MISSING_SERVICE,
  SERVICE_SELECTS_NOTHING,
  SERVICE_TARGET_PORT,
} from "./kubernetes-checks.ts";
import { CIDR_OVERLAP } from "./network-checks.ts";
import type { Finding as AnyFinding, RuleContext, RuleInfo } from "./rule.ts";
import { TERRAFORM_FOLDER_SHARED } from "./terraform-checks.ts";

/** Every rule, in the order findings are reported. */
const RULES = [
  RENDER_ERROR,
  CONFLICT_MARKERS,
  MISSING_FILE,
  INVALID_JSON,
  DUPLICATE_PATH,
  TWO_INVENTORIES,
  HOST_TWO_ADDRESSES,
  HOSTS_SHARE_ADDRESS,
  PLAY_UNKNOWN_GROUP,
  BOOTSTRAP_UNKNOWN_GROUP,
  CHILDREN_CYCLE,
  EMPTY_CHILD_GROUP,
  GROUP_VARS_UNKNOWN_GROUP,
  GROUP_VARS_KEY_TWICE,
  GROUP_VARS_KEY_IN_INVENTORY,
  HOST_VAR_OVERRIDES_GROUP_VAR,
  GROUP_VARS_BOTH_LAYOUTS,
  SITE_MISSING_PLAYBOOK,
  PLAYBOOK_NOT_IMPORTED,
  ROLE_NOT_VENDORED,
  SERVICE_SELECTS_NOTHING,
  SERVICE_TARGET_PORT,
  INGRESS_MISSING_SERVICE,
  CIDR_OVERLAP,
  TERRAFORM_FOLDER_SHARED,
] as const;

export type RuleId = (typeof RULES)[number]["id"];
export type Finding = AnyFinding<RuleId>;

/** id, severity, summary and fix of every rule, in reporting order: for docs, help and the UI. */
export const CHECK_RULES: readonly RuleInfo<RuleId>[] = RULES.map(
  ({ id, severity, summary, fix }) => ({
    id,
    severity,
    summary,
    fix,
  }),
);

/** The wording helpers rules share, bound to one project. */
function ruleContext(project: CheckProject): RuleContext {
  return {
    project,
    who(index) {
      const component = project.components[index];
      return component ? `${component.reference} \`${component.name}\`` : `component ${index}`;
    },
    named(index) {
      const component = project.components[index];
      return { reference: component?.reference ?? "", name: component?.name ?? `${index}` };
    },
    suggestion(kind) {
      return project.catalogue?.find((entry) => entry.kind === kind && entry.suggest)?.reference;
    },
  };
}

/** Runs every rule over the project; findings come in rule order, then as each rule finds them. */
export function checkProject(project: CheckProject): Finding[] {
  const facts = projectFacts(project);
  const context = ruleContext(project);
  const findings: Finding[] = [];
  for (const rule of RULES) {
    for (const issue of rule.check(facts, context)) {
      // params last: the keys a client already reads keep their places
      const finding: Finding = {
        rule: rule.id,
        severity: rule.severity,
        message: issue.message,
        components: issue.components.map((index) => {
          const component = project.components[index];
          return { index, reference: component?.reference ?? "", name: component?.name ?? "" };
        }),
        ...(issue.fix ? { fix: issue.fix } : {}),
        params: issue.params,
      };
      findings.push(finding);
    }
  }
  return findings;
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
