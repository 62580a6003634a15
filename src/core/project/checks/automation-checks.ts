// Rules about what the automation runs: plays and the groups they target, the site and the
// playbooks it imports, and the roles plays use.
import { hostPatternTargets, type ProjectFacts } from "../facts.ts";
import { groupHint, groupHintParams, inventoryIndexes } from "./inventory-checks.ts";
import {
  aComponent,
  defineRule,
  type FindingParams,
  type Issue,
  quote,
  type RuleContext,
} from "./rule.ts";

/** Targets of a host pattern no inventory defines, as a group or as a host. */
function unknownTargets(facts: ProjectFacts, pattern: string): string[] {
  const known = new Set(facts.knownGroups);
  return hostPatternTargets(pattern).filter(
    (target) => !known.has(target) && !facts.knownHosts.has(target),
  );
}

/** play-unknown-group's parts: the playbook, the play, its unknown target and the known groups. */
function playUnknownGroupParams(
  facts: ProjectFacts,
  context: RuleContext,
  index: number,
  play: string,
  target: string,
): FindingParams {
  return { component: context.named(index), play, target, ...groupHintParams(facts) };
}

/** A play aimed at a group nobody defines runs on no host, and the tool only warns. */
function playUnknownGroup(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const playbook of facts.playbooks) {
    for (const play of playbook.plays) {
      if (play.hosts === undefined) continue;
      for (const target of unknownTargets(facts, play.hosts)) {
        issues.push({
          message: `${context.who(playbook.component)}: play ${quote(play.name)} is aimed at ${quote(target)}, which no inventory defines - ${groupHint(facts, context)}, or change the play's hosts`,
          components: [playbook.component, ...inventoryIndexes(facts)],
          params: playUnknownGroupParams(facts, context, playbook.component, play.name, target),
        });
      }
    }
  }
  return issues;
}

export const PLAY_UNKNOWN_GROUP = defineRule({
  id: "play-unknown-group",
  severity: "error",
  summary: "a play is aimed at a group or host no inventory defines",
  fix: "add the group (or host) to an inventory component's hosts, or aim the play's hosts at a group an inventory defines",
  check: playUnknownGroup,
});

/**
 * bootstrap-unknown-group's parts: the component, its unknown target, the field that names it
 * and the known groups.
 */
function bootstrapUnknownGroupParams(
  facts: ProjectFacts,
  context: RuleContext,
  index: number,
  target: string,
  field: string,
): FindingParams {
  return { component: context.named(index), target, field, ...groupHintParams(facts) };
}

/** The same for a component aimed at one host pattern as a whole (such as a node bootstrap). */
function targetUnknownGroup(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const playbook of facts.playbooks) {
    if (playbook.target === undefined) continue;
    const field = facts.components[playbook.component]?.meta?.facts.target ?? "hosts";
    for (const target of unknownTargets(facts, playbook.target)) {
      issues.push({
        message: `${context.who(playbook.component)} is aimed at ${quote(target)}, which no inventory defines - ${groupHint(facts, context)}, or set ${field} to an existing group or \`all\``,
        components: [playbook.component, ...inventoryIndexes(facts)],
        params: bootstrapUnknownGroupParams(facts, context, playbook.component, target, field),
      });
    }
  }
  return issues;
}

export const BOOTSTRAP_UNKNOWN_GROUP = defineRule({
  id: "bootstrap-unknown-group",
  severity: "error",
  summary:
    "a component aimed at one group as a whole (such as a k8s-bootstrap) names a group no inventory defines",
  fix: "aim the component at a group an inventory defines (the field that names its group), or add that group to an inventory's hosts",
  check: targetUnknownGroup,
});

/** site-missing-playbook's parts: the site, the path it imports and where that resolves. */
function siteMissingPlaybookParams(
  context: RuleContext,
  index: number,
  path: string,
  resolved: string,
): FindingParams {
  return { component: context.named(index), path, resolved };
}

/** The site imports by path; a path nothing writes fails the whole run at start. */
function siteMissingPlaybook(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const site of facts.sites) {
    for (const entry of site.imports) {
      if (facts.knownPaths.has(entry.resolved)) continue;
      issues.push({
        message: `${context.who(site.component)} imports ${quote(entry.path)}, which no component writes - add ${aComponent(context, "playbook", "playbook")} that writes ${quote(entry.resolved)} or fix the path`,
        components: [site.component],
        params: siteMissingPlaybookParams(context, site.component, entry.path, entry.resolved),
      });
    }
  }
  return issues;
}

export const SITE_MISSING_PLAYBOOK = defineRule({
  id: "site-missing-playbook",
  severity: "error",
  summary: "the site imports a playbook no component writes",
  fix: "add a playbook component with that name, or remove the playbook from the site's playbooks field",
  check: siteMissingPlaybook,
});

/** playbook-not-imported's parts: the playbook, the path it writes and the site. */
function playbookNotImportedParams(
  context: RuleContext,
  index: number,
  path: string,
  site: number,
): FindingParams {
  return { component: context.named(index), path, site: context.named(site) };
}

/**
 * A playbook the site does not import never runs when the site runs. Only in projects with a
 * site (without one, each playbook is run by hand), and a warning: a playbook run on its own
 * now and then (an upgrade, a restore) is a deliberate layout.
 */
function playbookNotImported(facts: ProjectFacts, context: RuleContext): Issue[] {
  const [site] = facts.sites;
  if (!site) return [];
  const imported = new Set(facts.sites.flatMap((entry) => entry.imports.map((i) => i.resolved)));
  const issues: Issue[] = [];
  for (const playbook of facts.playbooks) {
    if (playbook.path === undefined || imported.has(playbook.path)) continue;
    issues.push({
      message: `${context.who(playbook.component)} writes ${quote(playbook.path)}, which no site imports, so running the site skips it - add it to the playbooks of ${context.who(site.component)}, or run it on its own on purpose`,
      components: [playbook.component, site.component],
      params: playbookNotImportedParams(context, playbook.component, playbook.path, site.component),
    });
  }
  return issues;
}

export const PLAYBOOK_NOT_IMPORTED = defineRule({
  id: "playbook-not-imported",
  severity: "warning",
  summary: "a playbook no site imports",
  fix: "add the playbook's name to the site component's playbooks field, or remove the playbook if nothing runs it",
  check: playbookNotImported,
});

/** role-not-vendored's parts: the role and the components whose plays use it. */
function roleNotVendoredParams(
  context: RuleContext,
  role: string,
  users: readonly number[],
): FindingParams {
  return { role, components: users.map(context.named) };
}

/** A role a play uses must be in a roles folder; roles from collections (`ns.col.role`) are not. */
function roleNotVendored(facts: ProjectFacts, context: RuleContext): Issue[] {
  const missing = new Map<string, number[]>();
  for (const use of facts.roleUses) {
    if (facts.vendoredRoles.has(use.role) || use.role.includes(".") || use.role.includes("{{")) {
      continue;
    }
    const users = missing.get(use.role) ?? [];
    if (!users.includes(use.component)) users.push(use.component);
    missing.set(use.role, users);
  }
  const reference = context.suggestion("role");
  return [...missing].map(([role, users]) => ({
    message: `role ${quote(role)} is used by ${users.map(context.who).join(", ")} but no component writes roles/${role}/ - add ${aComponent(context, "role", "role")} named ${quote(role)}`,
    components: users,
    params: roleNotVendoredParams(context, role, users),
    fix:
      reference === undefined
        ? undefined
        : {
            label: `Add role ${role}`,
            add: [{ reference, name: role, fields: {}, labels: {} }],
          },
  }));
}

export const ROLE_NOT_VENDORED = defineRule({
  id: "role-not-vendored",
  severity: "error",
  summary: "a play uses a role no component writes",
  fix: "add an automation/role component named after the role (the finding's fix adds the catalogue's suggested role), or take the role out of the play's roles",
  check: roleNotVendored,
});
