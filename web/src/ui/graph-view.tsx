// The architecture view: the project's graph laid out by elkjs (loaded on first use), hover a
// node to trace what it reaches and what reaches it, click to edit its component.
import type { ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api.js";
import type { JSX } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import {
  buildGraph,
  type Graph,
  type GraphComponent,
  type NodeKind,
  traceFrom,
} from "../model/graph.ts";

interface Placed {
  nodes: Map<string, { x: number; y: number; width: number; height: number }>;
  edges: Map<string, { points: { x: number; y: number }[] }>;
  width: number;
  height: number;
}

const KIND_LABEL: Record<NodeKind, string> = {
  group: "Group",
  "group-vars": "Group vars",
  playbook: "Playbook",
  site: "Site",
  role: "Role",
  bootstrap: "Bootstrap",
  config: "Config",
  server: "Servers",
  deployment: "Deployment",
  service: "Service",
  ingress: "Ingress",
  other: "Other",
  missing: "Missing",
};

const NODE_HEIGHT = 46;

function nodeWidth(label: string, detail: string): number {
  return Math.max(110, Math.min(260, Math.max(label.length * 7.6, detail.length * 6.2) + 34));
}

async function layout(graph: Graph): Promise<Placed> {
  const { default: ELK } = await import("elkjs/lib/elk.bundled.js");
  const elk = new ELK();
  const input: ElkNode = {
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "RIGHT",
      "elk.edgeRouting": "ORTHOGONAL",
      "elk.layered.spacing.nodeNodeBetweenLayers": "70",
      "elk.spacing.nodeNode": "18",
      "elk.spacing.componentComponent": "36",
      "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
    },
    children: graph.nodes.map((node) => ({
      id: node.id,
      width: nodeWidth(node.label, node.detail),
      height: NODE_HEIGHT,
    })),
    edges: graph.edges.map((edge) => ({
      id: edge.id,
      sources: [edge.source],
      targets: [edge.target],
    })),
  };
  const result = await elk.layout(input);
  const nodes = new Map<string, { x: number; y: number; width: number; height: number }>();
  for (const child of result.children ?? []) {
    nodes.set(child.id, {
      x: child.x ?? 0,
      y: child.y ?? 0,
      width: child.width ?? 0,
      height: child.height ?? 0,
    });
  }
  const edges = new Map<string, { points: { x: number; y: number }[] }>();
  for (const edge of (result.edges ?? []) as ElkExtendedEdge[]) {
    const section = edge.sections?.[0];
    if (!section) continue;
    edges.set(edge.id, {
      points: [section.startPoint, ...(section.bendPoints ?? []), section.endPoint],
    });
  }
  return { nodes, edges, width: result.width ?? 0, height: result.height ?? 0 };
}

export function GraphView(props: {
  components: GraphComponent[];
  namespace: string;
  onSelect: (index: number) => void;
}): JSX.Element {
  const graph = useMemo(
    () => buildGraph(props.components, props.namespace),
    [props.components, props.namespace],
  );
  const [placed, setPlaced] = useState<Placed | undefined>();
  const [error, setError] = useState("");
  const [hover, setHover] = useState<string | undefined>();
  const signature = JSON.stringify([
    graph.nodes.map((n) => [n.id, n.label, n.detail]),
    graph.edges.map((e) => e.id),
  ]);
  useEffect(() => {
    let live = true;
    layout(graph)
      .then((result) => live && setPlaced(result))
      .catch((reason: unknown) => live && setError((reason as Error).message));
    return () => {
      live = false;
    };
  }, [signature]);
  const traced = hover ? traceFrom(graph, hover) : undefined;
  const kinds = [...new Set(graph.nodes.map((node) => node.kind))];
  return (
    <section class="graph" data-testid="graph-view">
      <header class="checks-head">
        <div>
          <h2>Architecture</h2>
          <p class="muted">
            Hover a node to trace its connections; click it to edit the component.
          </p>
        </div>
        <div class="legend">
          {kinds.map((kind) => (
            <span key={kind} class={`legend-item k-${kind}`}>
              <i />
              {KIND_LABEL[kind]}
            </span>
          ))}
        </div>
      </header>
      {graph.nodes.length === 0 && <p class="empty">Add components to see how they connect.</p>}
      {error && <p class="render-error">Layout failed: {error}</p>}
      {graph.nodes.length > 0 && !placed && !error && <p class="empty">Laying out…</p>}
      {placed && graph.nodes.length > 0 && (
        <div class="graph-scroll">
          <svg
            width={placed.width + 20}
            height={placed.height + 20}
            viewBox={`-10 -10 ${placed.width + 20} ${placed.height + 20}`}
            role="img"
            aria-label="Architecture graph"
          >
            <defs>
              <marker
                id="arrow"
                viewBox="0 0 10 10"
                refX="9"
                refY="5"
                markerWidth="7"
                markerHeight="7"
                orient="auto"
              >
                <path d="M0,0 L10,5 L0,10 z" class="arrow-head" />
              </marker>
            </defs>
            {graph.edges.map((edge) => {
              const route = placed.edges.get(edge.id);
              if (!route) return null;
              const active = traced ? traced.has(edge.source) && traced.has(edge.target) : false;
              const d = route.points.map((p, i) => `${i === 0 ? "M" : "L"}${p.x},${p.y}`).join(" ");
              return (
                <path
                  key={edge.id}
                  d={d}
                  class={`edge${active ? " active" : ""}${traced && !active ? " dim" : ""}`}
                  marker-end="url(#arrow)"
                >
                  <title>{edge.label}</title>
                </path>
              );
            })}
            {graph.nodes.map((node) => {
              const box = placed.nodes.get(node.id);
              if (!box) return null;
              const dim = traced && !traced.has(node.id);
              return (
                // biome-ignore lint/a11y/useSemanticElements: an SVG node cannot be a <button>; it has the role, focus and Enter
                <g
                  key={node.id}
                  class={`node k-${node.kind}${dim ? " dim" : ""}${hover === node.id ? " hovered" : ""}${node.component !== undefined ? " clickable" : ""}`}
                  transform={`translate(${box.x},${box.y})`}
                  data-testid="graph-node"
                  role="button"
                  tabIndex={node.component !== undefined ? 0 : -1}
                  aria-label={`${node.label} (${node.detail})`}
                  onFocus={() => setHover(node.id)}
                  onBlur={() => setHover(undefined)}
                  onKeyDown={(event) => {
                    if (event.key === "Enter" && node.component !== undefined)
                      props.onSelect(node.component);
                  }}
                  onMouseEnter={() => setHover(node.id)}
                  onMouseLeave={() => setHover(undefined)}
                  onClick={() => node.component !== undefined && props.onSelect(node.component)}
                >
                  <rect width={box.width} height={box.height} rx="8" />
                  <rect class="band" width="5" height={box.height} rx="2" />
                  <text x="14" y="19" class="node-label">
                    {node.label}
                  </text>
                  <text x="14" y="35" class="node-detail">
                    {node.detail}
                  </text>
                </g>
              );
            })}
          </svg>
        </div>
      )}
    </section>
  );
}
