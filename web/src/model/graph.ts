// The architecture graph: what the project holds and how it connects. Groups and their children,
// group vars → group, plays → group, site → playbooks, playbooks → roles, a targeted playbook →
// group, config → inventory, ingress → service → deployment, cloud servers → the inventory groups
// of the hosts they provision (else the playbook of their name), deployments → the cluster's
// group. Each node sits in a lane, the dashboard stage of what it is
// (provision, inventory, configure, deploy, other), so the view and the draw.io export show the
// same swimlanes. Drawn from the core's project facts (src/core/project/facts.ts), the same
// facts the checks read, so the graph and the findings never disagree about what connects to
// what. Pure data; the view lays it out with elkjs.

import {
  type CheckComponent,
  type HostFact,
  hostPatternTargets,
  normalizePath,
  type ProjectFacts,
  projectFacts,
  type ServerFact,
} from "../../../src/core/project/facts.ts";
import type { StageId } from "../../../src/core/vocabulary.ts";
import { type MessageKey, translate } from "../i18n/i18n.ts";

export type NodeKind =
  | "group"
  | "group-vars"
  | "playbook"
  | "site"
  | "role"
  | "bootstrap"
  | "config"
  | "server"
  | "deployment"
  | "service"
  | "ingress"
  | "other"
  | "missing";

/** A swimlane: one dashboard stage. */
export interface GraphLane {
  id: StageId;
  title: string;
}

/** The lanes in stage order; a graph holds only those with nodes. */
const LANES: readonly { id: StageId; title: MessageKey }[] = [
  { id: "provision", title: "stage.provision" },
  { id: "inventory", title: "stage.inventory" },
  { id: "configure", title: "stage.configure" },
  { id: "deploy", title: "stage.deploy" },
  { id: "other", title: "graph.kind.other" },
];

export interface GraphNode {
  id: string;
  kind: NodeKind;
  label: string;
  detail: string;
  /** The lane (dashboard stage) it is drawn in. */
  lane: StageId;
  /** The component to edit on click. */
  component?: number | undefined;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  label?: string | undefined;
}

export interface Graph {
  /** The lanes that hold nodes, in stage order. */
  lanes: GraphLane[];
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** A node as the builders below give it: its lane comes from its kind or component. */
type NodeInput = Omit<GraphNode, "lane"> & { lane?: StageId | undefined };

/** A component as the graph needs it: the checks' shape, with its catalogue metadata. */
export type GraphComponent = CheckComponent;

/** The lane of a node without a component (a group, a missing target), by its kind. */
const LANE_OF_KIND: Record<NodeKind, StageId> = {
  group: "inventory",
  "group-vars": "inventory",
  playbook: "configure",
  site: "configure",
  role: "configure",
  bootstrap: "configure",
  config: "configure",
  server: "provision",
  deployment: "deploy",
  service: "deploy",
  ingress: "deploy",
  other: "other",
  missing: "other",
};

/** Nodes and edges, each kept once (the first one added wins). */
class GraphBuilder {
  readonly nodes = new Map<string, GraphNode>();
  readonly edges = new Map<string, GraphEdge>();

  /**
   * Where a node goes: its component's stage, else the stage of what its kind is. (Inventory
   * groups say `inventory` themselves: they are inventory whatever stage their item declares.)
   */
  constructor(private readonly stageOfComponent: (index: number) => StageId | undefined) {}

  private placed(value: NodeInput): GraphNode {
    const lane =
      value.lane ??
      (value.component !== undefined ? this.stageOfComponent(value.component) : undefined) ??
      LANE_OF_KIND[value.kind];
    return { ...value, lane };
  }

  node(value: NodeInput): string {
    if (!this.nodes.has(value.id)) this.nodes.set(value.id, this.placed(value));
    return value.id;
  }

  /** Sets a node, replacing one of the same id. */
  set(value: NodeInput): void {
    this.nodes.set(value.id, this.placed(value));
  }

  edge(source: string, target: string, label?: string): void {
    const id = `${source}->${target}`;
    if (!this.edges.has(id)) this.edges.set(id, { id, source, target, label });
  }

  /** A node for something referred to but not in the project, in the lane it would be in. */
  missing(id: string, label: string, detail: string, lane: StageId): string {
    return this.node({ id: `missing:${id}`, kind: "missing", label, detail, lane });
  }

  graph(): Graph {
    const nodes = [...this.nodes.values()];
    const used = new Set(nodes.map((node) => node.lane));
    return {
      // titled in the interface's language, on screen and in the draw.io file alike
      lanes: LANES.filter((lane) => used.has(lane.id)).map((lane) => ({
        id: lane.id,
        title: translate(lane.title),
      })),
      nodes,
      edges: [...this.edges.values()].filter(
        (e) => this.nodes.has(e.source) && this.nodes.has(e.target),
      ),
    };
  }
}

/** Inventory groups first, so a group node points at the inventory defining it. */
function addGroups(graph: GraphBuilder, facts: ProjectFacts): void {
  for (const inventory of facts.inventories) {
    for (const group of inventory.groups) {
      const hosts = group.hosts.length;
      graph.set({
        id: `group:${group.name}`,
        kind: "group",
        lane: "inventory",
        label: group.name,
        detail:
          hosts > 0
            ? translate("graphModel.groupHosts", { count: hosts })
            : translate("graphModel.group"),
        component: inventory.component,
      });
    }
    for (const group of inventory.groups) {
      for (const child of group.children) {
        graph.node({
          id: `group:${child}`,
          kind: "group",
          lane: "inventory",
          label: child,
          detail: translate("graphModel.group"),
          component: inventory.component,
        });
        graph.edge(`group:${group.name}`, `group:${child}`, translate("graphEdge.child"));
      }
    }
  }
}

/** Plays → groups and roles, a targeted playbook → its group, group vars → group. */
function addAutomation(graph: GraphBuilder, facts: ProjectFacts): Map<string, string> {
  const known = new Set(facts.knownGroups);
  const targetNode = (target: string) =>
    known.has(target)
      ? graph.node({
          id: `group:${target}`,
          kind: "group",
          label: target,
          detail: translate("graphModel.group"),
        })
      : facts.knownHosts.has(target)
        ? undefined // a host, which the checks accept too; the graph draws groups
        : graph.missing(
            `group:${target}`,
            target,
            translate("graphModel.unknownGroup"),
            "inventory",
          );
  const edgeTo = (source: string, target: string, label: string) => {
    const id = targetNode(target);
    if (id !== undefined) graph.edge(source, id, label);
  };
  for (const groupVars of facts.groupVars) {
    if (groupVars.group)
      edgeTo(`c:${groupVars.component}`, groupVars.group, translate("graphEdge.vars"));
  }
  const playbookByPath = new Map<string, string>();
  for (const playbook of facts.playbooks) {
    const id = `c:${playbook.component}`;
    if (playbook.path !== undefined) playbookByPath.set(playbook.path, id);
    for (const target of hostPatternTargets(playbook.target ?? ""))
      edgeTo(id, target, translate("graphModel.runsOn"));
    for (const play of playbook.plays) {
      for (const target of hostPatternTargets(play.hosts ?? ""))
        edgeTo(id, target, translate("graphModel.playsOn"));
      for (const role of play.roles) {
        // the component vendoring it, as role-not-vendored counts them
        const vendor = facts.vendoredRoles.get(role)?.[0];
        const roleId =
          vendor === undefined
            ? graph.missing(
                `role:${role}`,
                role,
                translate("graphModel.roleNotVendored"),
                "configure",
              )
            : `c:${vendor}`;
        graph.edge(id, roleId, translate("graphEdge.role"));
      }
    }
  }
  return playbookByPath;
}

/** One node per component that is not a group list or a site, by what its metadata says it is. */
function addComponents(graph: GraphBuilder, facts: ProjectFacts): void {
  const playbooks = new Map(facts.playbooks.map((playbook) => [playbook.component, playbook]));
  const servers = new Map(facts.servers.map((server) => [server.component, server]));
  const ingresses = new Map(facts.ingresses.map((ingress) => [ingress.component, ingress]));
  for (const component of facts.components) {
    const base = { id: `c:${component.index}`, label: component.name, component: component.index };
    switch (component.kind) {
      case "group-vars":
        graph.node({ ...base, kind: "group-vars", detail: translate("graphModel.groupVars") });
        break;
      case "playbook": {
        const target = playbooks.get(component.index)?.target;
        graph.node(
          target === undefined
            ? { ...base, kind: "playbook", detail: translate("graphModel.playbook") }
            : {
                ...base,
                kind: "bootstrap",
                detail: translate("graphModel.runsOnTarget", { target }),
              },
        );
        break;
      }
      case "role":
        graph.node({ ...base, kind: "role", detail: translate("graphModel.role") });
        break;
      case "config":
        graph.node({ ...base, kind: "config", detail: component.path ?? "config" });
        break;
      case "servers":
        graph.node({
          ...base,
          kind: "server",
          detail: translate("graphModel.servers", {
            count: servers.get(component.index)?.count ?? "1",
          }),
        });
        break;
      case "deployment":
      case "service":
        graph.node({ ...base, kind: component.kind, detail: component.kind });
        break;
      case "ingress":
        graph.node({
          ...base,
          kind: "ingress",
          detail: ingresses.get(component.index)?.host ?? "ingress",
        });
        break;
      case "site":
      case "inventory":
        break;
      default:
        graph.node({ ...base, kind: "other", detail: component.reference });
    }
  }
}

/** Site → the playbooks it imports; config → the top group of the inventory it names. */
function addEntryPoints(
  graph: GraphBuilder,
  facts: ProjectFacts,
  playbookByPath: Map<string, string>,
): void {
  for (const site of facts.sites) {
    const component = facts.components[site.component];
    const id = `c:${site.component}`;
    graph.node({
      id,
      kind: "site",
      label: component?.name ?? "",
      detail: translate("graphModel.site"),
      component: site.component,
    });
    for (const entry of site.imports) {
      graph.edge(
        id,
        playbookByPath.get(entry.resolved) ??
          graph.missing(
            `pb:${entry.resolved}`,
            entry.path,
            translate("graphModel.playbookNotWritten"),
            "configure",
          ),
        translate("graphEdge.imports"),
      );
    }
  }
  for (const config of facts.configs) {
    if (!config.inventory) continue;
    const wanted = normalizePath(config.inventory);
    for (const inventory of facts.inventories) {
      if (facts.components[inventory.component]?.path !== wanted) continue;
      const groups = inventory.groups;
      const top = groups.find((group) => !groups.some((g) => g.children.includes(group.name)));
      if (top)
        graph.edge(`c:${config.component}`, `group:${top.name}`, translate("graphEdge.inventory"));
    }
  }
}

/** Kubernetes: ingress → service → deployment, as the facts connect them. */
function addKubernetes(graph: GraphBuilder, facts: ProjectFacts): void {
  for (const service of facts.services) {
    for (const deployment of service.selects) {
      graph.edge(`c:${service.component}`, `c:${deployment}`, translate("graphEdge.selects"));
    }
  }
  for (const ingress of facts.ingresses) {
    graph.edge(
      `c:${ingress.component}`,
      ingress.backend !== undefined
        ? `c:${ingress.backend}`
        : graph.missing(
            `svc:${ingress.service}`,
            ingress.service,
            translate("graphModel.serviceMissing"),
            "deploy",
          ),
      translate("graphModel.routesTo"),
    );
  }
}

/**
 * The index among a servers component's machines of an inventory host it provisions, else
 * undefined. The provisioning templates name their machines `<name>-<index>` (index from 0 to
 * count - 1), so a host provisioned by them is one whose name or address (`cm_host`) is such a
 * machine name.
 */
export function provisionedIndex(server: ServerFact, host: HostFact): number | undefined {
  const count = /^\d+$/.test(server.count.trim()) ? Number(server.count) : 1;
  const prefix = `${server.name}-`;
  for (const address of [host.name, host.address]) {
    if (address === undefined || !address.startsWith(prefix)) continue;
    const rest = address.slice(prefix.length);
    if (/^\d+$/.test(rest) && Number(rest) < count) return Number(rest);
  }
  return undefined;
}

/** A servers component and the inventory groups holding hosts it provisions, with those hosts. */
interface Provisioning {
  server: ServerFact;
  groups: { group: string; hosts: string[] }[];
}

/**
 * Each cloud servers component with the inventory groups (of every inventory) that hold hosts it
 * provisions: one scan, which the provisioning edges and the configured-by edges both read.
 */
function provisioningOf(facts: ProjectFacts): Provisioning[] {
  return facts.servers.map((server) => ({
    server,
    groups: facts.inventories.flatMap((inventory) =>
      inventory.groups.flatMap((group) => {
        const hosts = group.hosts
          .filter((host) => provisionedIndex(server, host) !== undefined)
          .map((host) => host.name);
        return hosts.length === 0 ? [] : [{ group: group.name, hosts }];
      }),
    ),
  }));
}

/** Cloud servers → each inventory group holding hosts they provision, the hosts named. */
function addProvisioning(graph: GraphBuilder, provisioning: readonly Provisioning[]): void {
  for (const { server, groups } of provisioning) {
    for (const { group, hosts } of groups) {
      const label =
        hosts.length <= 2
          ? translate("graphModel.provisionsNamed", { hosts: hosts.join(", ") })
          : translate("graphModel.provisionsCount", { count: hosts.length });
      graph.edge(`c:${server.component}`, `group:${group}`, label);
    }
  }
}

/**
 * Cloud servers with no inventory host named after their machines → the playbook of the same
 * name (`edge` servers, `edge` playbook): naming both alike is how a project says which play
 * configures which machines, and it ties the servers to the groups that playbook runs on.
 */
function addConfiguredBy(
  graph: GraphBuilder,
  facts: ProjectFacts,
  provisioning: readonly Provisioning[],
): void {
  for (const { server, groups } of provisioning) {
    if (groups.length > 0) continue;
    for (const playbook of facts.playbooks) {
      if (facts.components[playbook.component]?.name !== server.name) continue;
      graph.edge(
        `c:${server.component}`,
        `c:${playbook.component}`,
        translate("graphModel.configuredBy"),
      );
    }
  }
}

/** The names an inventory conventionally gives the group of a Kubernetes cluster's nodes. */
const CLUSTER_GROUP_NAMES = ["k8s_cluster", "k8s", "kubernetes", "kube", "cluster"];

/**
 * The inventory groups the project's Kubernetes cluster runs on: the groups its bootstrap
 * components (playbooks aimed at one host pattern as a whole, such as the k8s-bootstrap) target;
 * without one, the group named as inventories conventionally name a cluster's (`k8s_cluster`,
 * `k8s`, `kubernetes`, `kube`, `cluster`, the first found).
 */
export function clusterGroups(facts: ProjectFacts): string[] {
  const known = new Set(facts.knownGroups);
  const targeted = facts.playbooks.flatMap((playbook) =>
    hostPatternTargets(playbook.target ?? "").filter((target) => known.has(target)),
  );
  if (targeted.length > 0) return [...new Set(targeted)];
  const named = CLUSTER_GROUP_NAMES.find((name) => known.has(name));
  return named === undefined ? [] : [named];
}

/** The Kubernetes lane → the cluster's group: each deployment runs on the cluster's nodes. */
function addCluster(graph: GraphBuilder, facts: ProjectFacts): void {
  const groups = clusterGroups(facts);
  for (const deployment of facts.components.filter((c) => c.kind === "deployment")) {
    for (const group of groups) {
      const id = graph.node({
        id: `group:${group}`,
        kind: "group",
        label: group,
        detail: translate("graphModel.group"),
      });
      graph.edge(`c:${deployment.index}`, id, translate("graphModel.runsOn"));
    }
  }
}

/** The graph of a project's components; each carries its catalogue metadata (`meta`). */
export function buildGraph(components: readonly GraphComponent[], namespace = "default"): Graph {
  const facts = projectFacts({ namespace, components });
  const graph = new GraphBuilder((index) => facts.components[index]?.meta?.stage);
  addGroups(graph, facts);
  addComponents(graph, facts);
  const playbookByPath = addAutomation(graph, facts);
  addEntryPoints(graph, facts, playbookByPath);
  addKubernetes(graph, facts);
  const provisioning = provisioningOf(facts);
  addProvisioning(graph, provisioning);
  addConfiguredBy(graph, facts, provisioning);
  addCluster(graph, facts);
  return graph.graph();
}

/** Nodes reachable from `start` following edges forwards and backwards (for hover tracing). */
export function traceFrom(graph: Graph, start: string): Set<string> {
  const seen = new Set<string>([start]);
  for (const direction of ["forward", "backward"] as const) {
    const queue = [start];
    while (queue.length > 0) {
      const current = queue.shift() as string;
      for (const e of graph.edges) {
        const [from, to] = direction === "forward" ? [e.source, e.target] : [e.target, e.source];
        if (from === current && !seen.has(to)) {
          seen.add(to);
          queue.push(to);
        }
      }
    }
  }
  return seen;
}
