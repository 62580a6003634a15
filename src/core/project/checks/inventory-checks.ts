// Rules about inventories and group vars: hosts and their addresses, the `:children` tree, and
// variables set in more than one place (where the automation tool's precedence decides silently
// which value a host gets).
import type { GroupFact, InventoryFact, ProjectFacts } from "../facts.ts";
import { defineRule, type FindingParams, type Issue, quote, type RuleContext } from "./rule.ts";

/** What to do about a group no inventory defines: add it, or add an inventory at all. */
export function groupHint(facts: ProjectFacts, context: RuleContext): string {
  if (facts.inventories.length === 0) {
    return `the project has no ${context.suggestion("inventory") ?? "inventory"} - add one that defines it`;
  }
  const groups = facts.knownGroups.filter((group) => group !== "ungrouped");
  return `add the group to the inventory (groups: ${groups.join(", ")})`;
}

/**
 * groupHint's parts: the groups the inventories define, or the variant `noInventory` when the
 * project has no inventory at all.
 */
export function groupHintParams(facts: ProjectFacts): FindingParams {
  if (facts.inventories.length === 0) return { variant: "noInventory" };
  return { groups: facts.knownGroups.filter((group) => group !== "ungrouped") };
}

/** Components that define groups, for findings about a group they lack. */
export function inventoryIndexes(facts: ProjectFacts): number[] {
  return facts.inventories.map((inventory) => inventory.component);
}

/** host-two-addresses' parts: the inventory, the host, its addresses and the groups giving them. */
function hostTwoAddressesParams(
  context: RuleContext,
  index: number,
  host: string,
  byAddress: ReadonlyMap<string, readonly string[]>,
): FindingParams {
  return {
    component: context.named(index),
    host,
    addresses: [...byAddress.keys()],
    groups: [...new Set([...byAddress.values()].flat())],
  };
}

/** A host written with two cm_host values: which one the tool uses depends on group order. */
function hostTwoAddresses(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const inventory of facts.inventories) {
    const addresses = new Map<string, Map<string, string[]>>();
    for (const group of inventory.groups) {
      for (const host of group.hosts) {
        if (host.address === undefined) continue;
        const byAddress = addresses.get(host.name) ?? new Map<string, string[]>();
        byAddress.set(host.address, [...(byAddress.get(host.address) ?? []), group.name]);
        addresses.set(host.name, byAddress);
      }
    }
    for (const [host, byAddress] of addresses) {
      if (byAddress.size < 2) continue;
      const listing = [...byAddress]
        .map(([address, groups]) => `${quote(address)} in ${groups.join(", ")}`)
        .join(" and ");
      issues.push({
        message: `${context.who(inventory.component)}: host ${quote(host)} has two addresses (${listing}) - give it one cm_host in every group`,
        components: [inventory.component],
        params: hostTwoAddressesParams(context, inventory.component, host, byAddress),
      });
    }
  }
  return issues;
}

export const HOST_TWO_ADDRESSES = defineRule({
  id: "host-two-addresses",
  severity: "error",
  summary: "an inventory gives one host two different addresses",
  fix: "give the host one address in every inventory, or name the second one differently",
  check: hostTwoAddresses,
});

/**
 * hosts-share-address' parts: the inventory, the hosts, their address and how many; `port` and
 * the variant `port` when they share a port too.
 */
function hostsShareAddressParams(
  context: RuleContext,
  index: number,
  hosts: readonly string[],
  address: string,
  port: string | undefined,
): FindingParams {
  const shared = {
    component: context.named(index),
    hosts: [...hosts],
    address,
    count: hosts.length,
  };
  return port === undefined ? shared : { ...shared, port, variant: "port" };
}

/**
 * Two host names with one address and port are one machine the tool configures twice, often a
 * copied line whose address was not changed. A warning: aliases of one machine exist.
 */
function hostsShareAddress(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const inventory of facts.inventories) {
    const byAddress = new Map<
      string,
      { address: string; port: string | undefined; hosts: string[] }
    >();
    for (const group of inventory.groups) {
      for (const host of group.hosts) {
        const address = host.address?.trim();
        if (!address || address.includes("{{")) continue;
        const key = `${address}\u0000${host.port ?? ""}`;
        const entry = byAddress.get(key) ?? { address, port: host.port, hosts: [] };
        if (!entry.hosts.includes(host.name)) entry.hosts.push(host.name);
        byAddress.set(key, entry);
      }
    }
    for (const { address, port, hosts } of byAddress.values()) {
      if (hosts.length < 2) continue;
      const where = port === undefined ? quote(address) : `${quote(address)} port ${port}`;
      issues.push({
        message: `${context.who(inventory.component)}: hosts ${hosts.map(quote).join(" and ")} share the address ${where}, so the automation tool configures one machine as ${hosts.length} hosts - give each host its own cm_host, or keep one of them`,
        components: [inventory.component],
        params: hostsShareAddressParams(context, inventory.component, hosts, address, port),
      });
    }
  }
  return issues;
}

export const HOSTS_SHARE_ADDRESS = defineRule({
  id: "hosts-share-address",
  severity: "warning",
  summary: "two hosts of an inventory share one address (and port)",
  fix: "check that the two hosts are really two machines: give each its own address, or its own port when they share one address on purpose",
  check: hostsShareAddress,
});

/** Each group's children, merged over every section naming the group. */
function childrenOf(inventory: InventoryFact): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const group of inventory.groups) {
    children.set(group.name, [...(children.get(group.name) ?? []), ...group.children]);
  }
  return children;
}

/**
 * children-cycle's parts: the inventory and the cycle as `a → b → a` (arrows read alike in any
 * language, where a list would be joined with `and`).
 */
function childrenCycleParams(
  context: RuleContext,
  index: number,
  cycle: readonly string[],
): FindingParams {
  return { component: context.named(index), cycle: cycle.join(" → ") };
}

/** A group that is its own ancestor: the tool refuses the inventory. */
function childrenCycle(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const inventory of facts.inventories) {
    const children = childrenOf(inventory);
    const reported = new Set<string>();
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (group: string) => {
      state.set(group, "open");
      stack.push(group);
      for (const child of children.get(group) ?? []) {
        const seen = state.get(child);
        if (seen === "open") {
          const cycle = [...stack.slice(stack.indexOf(child)), child];
          const key = [...cycle.slice(0, -1)].sort().join(",");
          if (!reported.has(key)) {
            reported.add(key);
            issues.push({
              message: `${context.who(inventory.component)}: groups form a cycle through children (${cycle.join(" → ")}) - remove one of these children`,
              components: [inventory.component],
              params: childrenCycleParams(context, inventory.component, cycle),
            });
          }
        } else if (seen === undefined) {
          visit(child);
        }
      }
      stack.pop();
      state.set(group, "done");
    };
    for (const group of children.keys()) if (!state.has(group)) visit(group);
  }
  return issues;
}

export const CHILDREN_CYCLE = defineRule({
  id: "children-cycle",
  severity: "error",
  summary: "inventory `:children` form a cycle",
  fix: "remove one `:children` entry of the cycle, so no group contains itself",
  check: childrenCycle,
});

/** empty-child-group's parts: the inventory, the empty group and the groups it is a child of. */
function emptyChildGroupParams(
  context: RuleContext,
  index: number,
  group: string,
  parents: readonly string[],
): FindingParams {
  return { component: context.named(index), group, parents: [...parents] };
}

/**
 * A `:children` entry naming a group with no hosts and no children of its own adds nothing to
 * its parent, which is usually a misspelt group name or hosts that were never added.
 */
function emptyChildGroup(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const inventory of facts.inventories) {
    const filled = new Set<string>();
    for (const group of inventory.groups) {
      if (group.hosts.length > 0 || group.children.length > 0) filled.add(group.name);
    }
    const parents = new Map<string, string[]>();
    for (const group of inventory.groups) {
      for (const child of group.children) {
        if (filled.has(child)) continue;
        const list = parents.get(child) ?? [];
        if (!list.includes(group.name)) list.push(group.name);
        parents.set(child, list);
      }
    }
    for (const [child, of] of parents) {
      issues.push({
        message: `${context.who(inventory.component)}: group ${quote(child)} is a child of ${of.map(quote).join(", ")} but has no hosts and no children, so it adds nothing - add hosts to ${quote(child)} or remove it from the children`,
        components: [inventory.component],
        params: emptyChildGroupParams(context, inventory.component, child, of),
      });
    }
  }
  return issues;
}

export const EMPTY_CHILD_GROUP = defineRule({
  id: "empty-child-group",
  severity: "warning",
  summary: "a `:children` entry names a group with no hosts and no children",
  fix: "add hosts to the group the entry names, or remove the entry from `:children`",
  check: emptyChildGroup,
});

/** group-vars-unknown-group's parts: the group vars, their unknown group and the known groups. */
function groupVarsUnknownGroupParams(
  facts: ProjectFacts,
  context: RuleContext,
  index: number,
  group: string,
): FindingParams {
  return { component: context.named(index), group, ...groupHintParams(facts) };
}

/** Group vars aimed at a group no inventory has apply to no host. */
function groupVarsUnknownGroup(facts: ProjectFacts, context: RuleContext): Issue[] {
  const known = new Set(facts.knownGroups);
  const issues: Issue[] = [];
  for (const groupVars of facts.groupVars) {
    const group = groupVars.group;
    if (group === undefined || group === "" || known.has(group)) continue;
    issues.push({
      message: `${context.who(groupVars.component)} sets vars for group ${quote(group)}, which no inventory defines - ${groupHint(facts, context)}, or change the group`,
      components: [groupVars.component, ...inventoryIndexes(facts)],
      params: groupVarsUnknownGroupParams(facts, context, groupVars.component, group),
    });
  }
  return issues;
}

export const GROUP_VARS_UNKNOWN_GROUP = defineRule({
  id: "group-vars-unknown-group",
  severity: "warning",
  summary: "group vars for a group no inventory defines",
  fix: "add the group to an inventory, or rename the group vars component to a group an inventory defines",
  check: groupVarsUnknownGroup,
});

/** group-vars-key-twice's parts: the group vars and the keys set in both fields. */
function groupVarsKeyTwiceParams(
  context: RuleContext,
  index: number,
  keys: readonly string[],
): FindingParams {
  return { component: context.named(index), keys: [...keys] };
}

/** One key in both `vars` and `yaml` writes it twice into one YAML file. */
function groupVarsKeyTwice(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const groupVars of facts.groupVars) {
    if (!groupVars.varsIsMap || groupVars.yaml === undefined) continue;
    const inYaml = new Set(groupVars.yamlKeys);
    const both = groupVars.varKeys.filter((key) => inYaml.has(key));
    if (both.length === 0) continue;
    issues.push({
      message: `${context.who(groupVars.component)} sets ${both.map(quote).join(", ")} in both vars and yaml, so the file has the key twice - keep it in one of them`,
      components: [groupVars.component],
      params: groupVarsKeyTwiceParams(context, groupVars.component, both),
    });
  }
  return issues;
}

export const GROUP_VARS_KEY_TWICE = defineRule({
  id: "group-vars-key-twice",
  severity: "error",
  summary: "group vars set one key in both `vars` and `yaml`",
  fix: "set the key in only one of the group vars component's `vars` and `yaml` fields",
  check: groupVarsKeyTwice,
});

/** Keys a group-vars component sets: its `vars` keys and its raw YAML's top-level keys. */
function groupVarsKeys(facts: ProjectFacts, component: number): Set<string> {
  const groupVars = facts.groupVars.find((entry) => entry.component === component);
  return new Set([...(groupVars?.varKeys ?? []), ...(groupVars?.yamlKeys ?? [])]);
}

/** group-vars-key-in-inventory's parts: the group vars, the keys, the group and the inventory. */
function groupVarsKeyInInventoryParams(
  context: RuleContext,
  index: number,
  keys: readonly string[],
  group: string,
  inventory: number,
): FindingParams {
  return {
    component: context.named(index),
    keys: [...keys],
    group,
    inventory: context.named(inventory),
  };
}

/**
 * A key for one group set both in a group vars file and in the inventory's group `vars`: the
 * file wins, so the inventory's value is dead text that looks live.
 */
function groupVarsKeyInInventory(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const groupVars of facts.groupVars) {
    if (!groupVars.group) continue;
    const keys = groupVarsKeys(facts, groupVars.component);
    for (const inventory of facts.inventories) {
      const both = new Set<string>();
      for (const group of inventory.groups) {
        if (group.name !== groupVars.group) continue;
        for (const key of Object.keys(group.vars)) if (keys.has(key)) both.add(key);
      }
      if (both.size === 0) continue;
      issues.push({
        message: `${context.who(groupVars.component)} sets ${[...both].map(quote).join(", ")} for group ${quote(groupVars.group)}, which ${context.who(inventory.component)} also sets in the group's vars - the group vars file wins; keep each key in one place`,
        components: [groupVars.component, inventory.component],
        params: groupVarsKeyInInventoryParams(
          context,
          groupVars.component,
          [...both],
          groupVars.group,
          inventory.component,
        ),
      });
    }
  }
  return issues;
}

export const GROUP_VARS_KEY_IN_INVENTORY = defineRule({
  id: "group-vars-key-in-inventory",
  severity: "warning",
  summary: "a key set for a group both in group vars and in the inventory's group `vars`",
  fix: "set the key in one place only: the group vars component or the inventory's group `vars`",
  check: groupVarsKeyInInventory,
});

/** The groups a host is in, directly or through `:children`, plus `all`. */
function groupsOfHost(host: string, groups: readonly GroupFact[]): Set<string> {
  const parents = new Map<string, string[]>();
  for (const group of groups) {
    for (const child of group.children)
      parents.set(child, [...(parents.get(child) ?? []), group.name]);
  }
  const found = new Set<string>();
  const queue = groups
    .filter((group) => group.hosts.some((entry) => entry.name === host))
    .map((group) => group.name);
  while (queue.length > 0) {
    const group = queue.shift() as string;
    if (found.has(group)) continue;
    found.add(group);
    queue.push(...(parents.get(group) ?? []));
  }
  found.add("all");
  return found;
}

/**
 * host-var-overrides-group-var's parts: the inventory, the host, the keys it sets that a group
 * sets too, and those groups (every key's, together).
 */
function hostVarOverridesGroupVarParams(
  context: RuleContext,
  index: number,
  host: string,
  keys: readonly string[],
  groups: readonly string[],
): FindingParams {
  return { component: context.named(index), host, keys: [...keys], groups: [...new Set(groups)] };
}

/**
 * A host var with the name of a var of one of the host's groups wins for that host without a
 * word. Often meant (one host differs), so a warning that says where both are set.
 */
function hostVarOverridesGroupVar(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const inventory of facts.inventories) {
    const hostVars = new Map<string, Set<string>>();
    for (const group of inventory.groups) {
      for (const host of group.hosts) {
        const keys = hostVars.get(host.name) ?? new Set<string>();
        for (const key of Object.keys(host.vars)) keys.add(key);
        hostVars.set(host.name, keys);
      }
    }
    for (const [host, keys] of hostVars) {
      if (keys.size === 0) continue;
      const groups = groupsOfHost(host, inventory.groups);
      const parts: string[] = [];
      const overridden: string[] = [];
      const overriding: string[] = [];
      const involved: number[] = [inventory.component];
      for (const key of keys) {
        const where: string[] = [];
        for (const group of inventory.groups) {
          if (groups.has(group.name) && Object.hasOwn(group.vars, key)) {
            where.push(`group ${quote(group.name)} in the inventory`);
            overriding.push(group.name);
          }
        }
        for (const groupVars of facts.groupVars) {
          if (!groupVars.group || !groups.has(groupVars.group)) continue;
          if (!groupVarsKeys(facts, groupVars.component).has(key)) continue;
          where.push(`group ${quote(groupVars.group)} by ${context.who(groupVars.component)}`);
          overriding.push(groupVars.group);
          if (!involved.includes(groupVars.component)) involved.push(groupVars.component);
        }
        if (where.length > 0) {
          parts.push(`${quote(key)} (also set for ${[...new Set(where)].join(" and ")})`);
          overridden.push(key);
        }
      }
      if (parts.length === 0) continue;
      issues.push({
        message: `${context.who(inventory.component)}: host ${quote(host)} sets ${parts.join(", ")} - the host's value wins for this host; remove it from the host or the group unless that is meant`,
        components: involved,
        params: hostVarOverridesGroupVarParams(
          context,
          inventory.component,
          host,
          overridden,
          overriding,
        ),
      });
    }
  }
  return issues;
}

export const HOST_VAR_OVERRIDES_GROUP_VAR = defineRule({
  id: "host-var-overrides-group-var",
  severity: "warning",
  summary: "a host var has the name of a var of one of the host's groups, and silently wins",
  fix: "rename the host var, or remove it if the group's value is the one meant",
  check: hostVarOverridesGroupVar,
});

/** group-vars-both-layouts' parts: the group, its file and its folder's file, and who writes each. */
function groupVarsBothLayoutsParams(
  context: RuleContext,
  group: string,
  file: { path: string; component: number },
  inFolder: { path: string; component: number },
): FindingParams {
  return {
    group,
    file: file.path,
    fileComponent: context.named(file.component),
    folderFile: inFolder.path,
    folderComponent: context.named(inFolder.component),
  };
}

/**
 * Group vars for one group written both as `group_vars/<group>.yml` and inside
 * `group_vars/<group>/`: the tool reads both and merges them, so a value's source is hard to see.
 */
function groupVarsBothLayouts(facts: ProjectFacts, context: RuleContext): Issue[] {
  const byGroup = new Map<string, typeof facts.groupVarsFiles>();
  for (const file of facts.groupVarsFiles) {
    const key = `${file.base}\u0000${file.group}`;
    byGroup.set(key, [...(byGroup.get(key) ?? []), file]);
  }
  const issues: Issue[] = [];
  for (const files of byGroup.values()) {
    const asFile = files.filter((file) => file.layout === "file");
    const inDir = files.filter((file) => file.layout === "dir");
    const [first, other] = [asFile[0], inDir[0]];
    if (!first || !other) continue;
    const components = [...new Set([...asFile, ...inDir].map((file) => file.component))];
    issues.push({
      message: `group ${quote(first.group)} has group vars in both layouts: ${quote(first.path)} by ${context.who(first.component)} and ${quote(other.path)} by ${context.who(other.component)} - the automation tool reads both and merges them; keep one layout`,
      components,
      params: groupVarsBothLayoutsParams(context, first.group, first, other),
    });
  }
  return issues;
}

export const GROUP_VARS_BOTH_LAYOUTS = defineRule({
  id: "group-vars-both-layouts",
  severity: "warning",
  summary: "group vars for one group written both as a file and as a folder",
  fix: "keep one layout for the group's vars: the file group_vars/<group>.yml or the folder group_vars/<group>/",
  check: groupVarsBothLayouts,
});

/** two-inventories' parts: the inventories, in the project's order, and how many. */
function twoInventoriesParams(context: RuleContext, inventories: readonly number[]): FindingParams {
  return { inventories: inventories.map(context.named), count: inventories.length };
}

/**
 * A run reads one inventory (the config names one), so a second one's hosts and groups are not
 * there: plays aimed at them find nothing. A warning: one inventory per environment is a
 * deliberate layout.
 */
function twoInventories(facts: ProjectFacts, context: RuleContext): Issue[] {
  if (facts.inventories.length < 2) return [];
  const [first, ...others] = facts.inventories.map((inventory) => inventory.component);
  const all = [first as number, ...others];
  return [
    {
      message: `${all.map(context.who).join(" and ")} are ${all.length} inventories in one project, and a run reads one of them - merge them into one, or keep them apart on purpose (one per environment)`,
      components: [...others, first as number],
      params: twoInventoriesParams(context, all),
    },
  ];
}

export const TWO_INVENTORIES = defineRule({
  id: "two-inventories",
  severity: "warning",
  summary: "a project with more than one inventory",
  fix: "keep the hosts in one inventory component, or pass each inventory on its own with `-i` when you run the automation tool",
  check: twoInventories,
});
