// Rules about networks: address ranges of fields that take CIDRs (`"format": "cidr"` in an
// item's field) must not overlap.
import type { AddressRangeFact, ProjectFacts } from "../facts.ts";
import { defineRule, type Issue, quote, type RuleContext } from "./rule.ts";

function overlaps(a: AddressRangeFact, b: AddressRangeFact): boolean {
  return a.family === b.family && a.first <= b.last && b.first <= a.last;
}

/**
 * Two networks (or subnets) whose ranges overlap cannot be routed or peered apart. A warning:
 * a field that takes CIDRs may also be an allow-list, where a wide range over a narrow one is
 * meant.
 */
function cidrOverlap(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  const ranges = facts.addressRanges;
  ranges.forEach((a, i) => {
    for (const b of ranges.slice(i + 1)) {
      if (!overlaps(a, b)) continue;
      const left = `${a.field} ${quote(a.text)}`;
      const right = `${b.field} ${quote(b.text)}`;
      const what =
        a.component === b.component
          ? `${context.who(a.component)}: ${left} and ${right} overlap`
          : `${context.who(a.component)} (${left}) and ${context.who(b.component)} (${right}) overlap`;
      issues.push({
        message: `${what} - addresses in both ranges are ambiguous; give each its own range`,
        components: a.component === b.component ? [a.component] : [a.component, b.component],
      });
    }
  });
  return issues;
}

export const CIDR_OVERLAP = defineRule({
  id: "cidr-overlap",
  severity: "warning",
  summary: "address ranges of fields that take CIDRs overlap",
  fix: "choose address ranges that do not overlap for the fields the finding names",
  check: cidrOverlap,
});
