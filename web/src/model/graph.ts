// The architecture graph: what the project holds and how it connects. Groups and their children,
// group vars → group, plays → group, site → playbooks, playbooks → roles, bootstrap → group,
// config → inventory, ingress → service → deployment. Pure data; the view lays it out with elkjs.
import {
  componentKind,
  hostPatternTargets,
  inventoryGroups,
  normalizePath,
  parseJsonField,
  playbookPlays,
} from "../../../src/core/checks.ts";

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

export interface GraphComponent {
  reference: string;
  name: string;
  fields: Record<string, string>;
  labels: Record<string, string>;
  files?: readonly string[] | undefined;
}

export function buildGraph(components: readonly GraphComponent[], namespace = "default"): Graph {
  const nodes = new Map<string, GraphNode>();
  const edges = new Map<string, GraphEdge>();
  const node = (value: GraphNode) => {
    if (!nodes.has(value.id)) nodes.set(value.id, value);
    return value.id;
  };
  const edge = (source: string, target: string, label?: string) => {
    const id = `${source}->${target}`;
    if (!edges.has(id)) edges.set(id, { id, source, target, label });
  };
  const groupNode = (name: string, component?: number) =>
    node({ id: `group:${name}`, kind: "group", label: name, detail: "group", component });
  const missing = (id: string, label: string, detail: string) =>
    node({ id: `missing:${id}`, kind: "missing", label, detail });
  const kinds = components.map((component) => componentKind(component.reference));

  // inventories first, so group nodes point at their inventory
  const knownGroups = new Set<string>(["all"]);
  components.forEach((component, index) => {
    if (kinds[index] !== "inventory") return;
    for (const group of inventoryGroups(component)) {
      knownGroups.add(group.name);
      const hosts = group.hosts.length;
      nodes.set(`group:${group.name}`, {
        id: `group:${group.name}`,
        kind: "group",
        label: group.name,
        detail: hosts > 0 ? `group · ${hosts} host${hosts === 1 ? "" : "s"}` : "group",
        component: index,
      });
    }
    for (const group of inventoryGroups(component)) {
      for (const child of group.children) {
        groupNode(child, index);
        knownGroups.add(child);
        edge(`group:${group.name}`, `group:${child}`, "child");
      }
    }
  });
  const targetNode = (target: string) =>
    knownGroups.has(target)
      ? groupNode(target)
      : missing(`group:${target}`, target, "unknown group");

  const playbookByPath = new Map<string, string>();
  const roleComponents = new Map<string, number>();
  components.forEach((component, index) => {
    const kind = kinds[index];
    if (kind === "role" || kind === "common-role") roleComponents.set(component.name, index);
  });

  components.forEach((component, index) => {
    const kind = kinds[index];
    const id = `c:${index}`;
    const base = { id, label: component.name, component: index };
    switch (kind) {
      case "group-vars": {
        node({ ...base, kind: "group-vars", detail: "group vars" });
        const group = component.fields.group;
        if (group) edge(id, targetNode(group), "vars");
        break;
      }
      case "playbook": {
        node({ ...base, kind: "playbook", detail: "playbook" });
        const folder = component.fields.folder ?? "";
        const path =
          component.files?.[0] ??
          (folder ? `${folder}/${component.name}.yml` : `${component.name}.yml`);
        playbookByPath.set(normalizePath(path), id);
        for (const play of playbookPlays(component)) {
          for (const target of hostPatternTargets(play.hosts ?? ""))
            edge(id, targetNode(target), "plays on");
          for (const role of play.roles) {
            const roleIndex = roleComponents.get(role);
            const roleId =
              roleIndex === undefined
                ? missing(`role:${role}`, role, "role not vendored")
                : node({
                    id: `c:${roleIndex}`,
                    kind: "role",
                    label: role,
                    detail: "role",
                    component: roleIndex,
                  });
            edge(id, roleId, "role");
          }
        }
        break;
      }
      case "k8s-bootstrap": {
        node({ ...base, kind: "bootstrap", detail: "k8s bootstrap" });
        playbookByPath.set(
          normalizePath(component.files?.[0] ?? `${component.name}-k8s-bootstrap.yml`),
          id,
        );
        for (const target of hostPatternTargets(component.fields.hosts ?? ""))
          edge(id, targetNode(target), "bootstraps");
        break;
      }
      case "role":
      case "common-role":
        node({ ...base, kind: "role", detail: kind === "role" ? "role" : "common role" });
        break;
      case "config":
        node({ ...base, kind: "config", detail: "cm.cfg" });
        break;
      case "cloud-a":
      case "cloud-b":
        node({ ...base, kind: "server", detail: `servers × ${component.fields.count || "1"}` });
        break;
      case "deployment":
        node({ ...base, kind: "deployment", detail: "deployment" });
        break;
      case "service":
        node({ ...base, kind: "service", detail: "service" });
        break;
      case "ingress":
        node({ ...base, kind: "ingress", detail: component.fields.host || "ingress" });
        break;
      case "site":
      case "inventory":
        break;
      default:
        node({ ...base, kind: "other", detail: component.reference });
    }
  });

  components.forEach((component, index) => {
    const kind = kinds[index];
    const id = `c:${index}`;
    if (kind === "site") {
      node({ id, kind: "site", label: component.name, detail: "site", component: index });
      const sitePath = component.files?.[0] ?? `${component.name}.yml`;
      const dir = normalizePath(sitePath).split("/").slice(0, -1).join("/");
      const entries = parseJsonField(component.fields.playbooks);
      if (Array.isArray(entries)) {
        for (const entry of entries as { path?: unknown }[]) {
          if (typeof entry?.path !== "string") continue;
          const path = normalizePath(dir ? `${dir}/${entry.path}` : entry.path);
          edge(
            id,
            playbookByPath.get(path) ?? missing(`pb:${path}`, entry.path, "playbook not written"),
            "imports",
          );
        }
      }
    }
    if (kind === "config") {
      const inventory = component.fields.inventory;
      components.forEach((other, otherIndex) => {
        if (kinds[otherIndex] !== "inventory") return;
        const path = other.files?.[0] ?? `${other.name}-inventory.ini`;
        if (inventory && normalizePath(path) === normalizePath(inventory)) {
          const groups = inventoryGroups(other);
          const top = groups.find((group) => !groups.some((g) => g.children.includes(group.name)));
          if (top) edge(id, `group:${top.name}`, "inventory");
        }
      });
    }
  });

  // Kubernetes: ingress → service → deployment (same namespace, selector ⊆ pod labels)
  const namespaceOf = (component: GraphComponent) => component.fields.namespace ?? namespace;
  const podLabels = (component: GraphComponent): Record<string, string> => ({
    app: component.name,
    ...component.labels,
  });
  components.forEach((component, index) => {
    if (kinds[index] === "service") {
      const selector = podLabels(component);
      components.forEach((other, otherIndex) => {
        if (kinds[otherIndex] !== "deployment" || namespaceOf(other) !== namespaceOf(component))
          return;
        const labels = podLabels(other);
        if (Object.entries(selector).every(([key, value]) => labels[key] === value)) {
          edge(`c:${index}`, `c:${otherIndex}`, "selects");
        }
      });
    }
    if (kinds[index] === "ingress") {
      const target = component.fields.service || component.name;
      const service = components.findIndex(
        (other, otherIndex) =>
          kinds[otherIndex] === "service" &&
          other.name === target &&
          namespaceOf(other) === namespaceOf(component),
      );
      edge(
        `c:${index}`,
        service >= 0 ? `c:${service}` : missing(`svc:${target}`, target, "service missing"),
        "routes to",
      );
    }
  });

  return {
    nodes: [...nodes.values()],
    edges: [...edges.values()].filter((e) => nodes.has(e.source) && nodes.has(e.target)),
  };
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
