// Rules about networks: address ranges of fields that take CIDRs (`"format": "cidr"` in an
// item's field) must not overlap.
import type { AddressRangeFact, ProjectFacts } from "../facts.ts";
import { defineRule, type FindingParams, type Issue, quote, type RuleContext } from "./rule.ts";

function overlaps(a: AddressRangeFact, b: AddressRangeFact): boolean {
  return a.family === b.family && a.first <= b.last && b.first <= a.last;
}

/**
 * cidr-overlap's parts: each range's component, field and text; the variant `sameComponent`
 * when one component holds both.
 */
function cidrOverlapParams(
  context: RuleContext,
  a: AddressRangeFact,
  b: AddressRangeFact,
): FindingParams {
  const both = {
    component: context.named(a.component),
    field: a.field,
    range: a.text,
    otherComponent: context.named(b.component),
    otherField: b.field,
    otherRange: b.text,
  };
  return a.component === b.component ? { ...both, variant: "sameComponent" } : both;
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
        params: cidrOverlapParams(context, a, b),
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
