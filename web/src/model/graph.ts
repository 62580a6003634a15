// The architecture graph: what the project holds and how it connects. Groups and their children,
// group vars → group, plays → group, site → playbooks, playbooks → roles, a targeted playbook →
// group, config → inventory, ingress → service → deployment. Drawn from the core's project facts
// (src/core/project/facts.ts), the same facts the checks read, so the graph and the findings
// never disagree about what connects to what. Pure data; the view lays it out with elkjs.
import {
  type CheckComponent,
  hostPatternTargets,
  normalizePath,
  type ProjectFacts,
  projectFacts,
} from "../../../src/core/project/facts.ts";

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

export interface GraphNode {
  id: string;
  kind: NodeKind;
  label: string;
  detail: string;
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
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** A component as the graph needs it: the checks' shape, with its catalogue metadata. */
export type GraphComponent = CheckComponent;

/** Nodes and edges, each kept once (the first one added wins). */
class GraphBuilder {
  readonly nodes = new Map<string, GraphNode>();
  readonly edges = new Map<string, GraphEdge>();

  node(value: GraphNode): string {
    if (!this.nodes.has(value.id)) this.nodes.set(value.id, value);
    return value.id;
  }

  edge(source: string, target: string, label?: string): void {
    const id = `${source}->${target}`;
    if (!this.edges.has(id)) this.edges.set(id, { id, source, target, label });
  }

  missing(id: string, label: string, detail: string): string {
    return this.node({ id: `missing:${id}`, kind: "missing", label, detail });
  }

  graph(): Graph {
    return {
      nodes: [...this.nodes.values()],
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
      graph.nodes.set(`group:${group.name}`, {
        id: `group:${group.name}`,
        kind: "group",
        label: group.name,
        detail: hosts > 0 ? `group · ${hosts} host${hosts === 1 ? "" : "s"}` : "group",
        component: inventory.component,
      });
    }
    for (const group of inventory.groups) {
      for (const child of group.children) {
        graph.node({
          id: `group:${child}`,
          kind: "group",
          label: child,
          detail: "group",
          component: inventory.component,
        });
        graph.edge(`group:${group.name}`, `group:${child}`, "child");
      }
    }
  }
}

/** Plays → groups and roles, a targeted playbook → its group, group vars → group. */
function addAutomation(graph: GraphBuilder, facts: ProjectFacts): Map<string, string> {
  const known = new Set(facts.knownGroups);
  const targetNode = (target: string) =>
    known.has(target)
      ? graph.node({ id: `group:${target}`, kind: "group", label: target, detail: "group" })
      : facts.knownHosts.has(target)
        ? undefined // a host, which the checks accept too; the graph draws groups
        : graph.missing(`group:${target}`, target, "unknown group");
  const edgeTo = (source: string, target: string, label: string) => {
    const id = targetNode(target);
    if (id !== undefined) graph.edge(source, id, label);
  };
  for (const groupVars of facts.groupVars) {
    if (groupVars.group) edgeTo(`c:${groupVars.component}`, groupVars.group, "vars");
  }
  const playbookByPath = new Map<string, string>();
  for (const playbook of facts.playbooks) {
    const id = `c:${playbook.component}`;
    if (playbook.path !== undefined) playbookByPath.set(playbook.path, id);
    for (const target of hostPatternTargets(playbook.target ?? "")) edgeTo(id, target, "runs on");
    for (const play of playbook.plays) {
      for (const target of hostPatternTargets(play.hosts ?? "")) edgeTo(id, target, "plays on");
      for (const role of play.roles) {
        // the component vendoring it, as role-not-vendored counts them
        const vendor = facts.vendoredRoles.get(role)?.[0];
        const roleId =
          vendor === undefined
            ? graph.missing(`role:${role}`, role, "role not vendored")
            : `c:${vendor}`;
        graph.edge(id, roleId, "role");
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
        graph.node({ ...base, kind: "group-vars", detail: "group vars" });
        break;
      case "playbook": {
        const target = playbooks.get(component.index)?.target;
        graph.node(
          target === undefined
            ? { ...base, kind: "playbook", detail: "playbook" }
            : { ...base, kind: "bootstrap", detail: `runs on ${target}` },
        );
        break;
      }
      case "role":
        graph.node({ ...base, kind: "role", detail: "role" });
        break;
      case "config":
        graph.node({ ...base, kind: "config", detail: component.path ?? "config" });
        break;
      case "servers":
        graph.node({
          ...base,
          kind: "server",
          detail: `servers × ${servers.get(component.index)?.count ?? "1"}`,
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
      detail: "site",
      component: site.component,
    });
    for (const entry of site.imports) {
      graph.edge(
        id,
        playbookByPath.get(entry.resolved) ??
          graph.missing(`pb:${entry.resolved}`, entry.path, "playbook not written"),
        "imports",
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
      if (top) graph.edge(`c:${config.component}`, `group:${top.name}`, "inventory");
    }
  }
}

/** Kubernetes: ingress → service → deployment, as the facts connect them. */
function addKubernetes(graph: GraphBuilder, facts: ProjectFacts): void {
  for (const service of facts.services) {
    for (const deployment of service.selects) {
      graph.edge(`c:${service.component}`, `c:${deployment}`, "selects");
    }
  }
  for (const ingress of facts.ingresses) {
    graph.edge(
      `c:${ingress.component}`,
      ingress.backend !== undefined
        ? `c:${ingress.backend}`
        : graph.missing(`svc:${ingress.service}`, ingress.service, "service missing"),
      "routes to",
    );
  }
}

/** The graph of a project's components; each carries its catalogue metadata (`meta`). */
export function buildGraph(components: readonly GraphComponent[], namespace = "default"): Graph {
  const facts = projectFacts({ namespace, components });
  const graph = new GraphBuilder();
  addGroups(graph, facts);
  addComponents(graph, facts);
  const playbookByPath = addAutomation(graph, facts);
  addEntryPoints(graph, facts, playbookByPath);
  addKubernetes(graph, facts);
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
