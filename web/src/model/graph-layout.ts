// Where the architecture graph's lanes, nodes and edges go: elkjs's layered layout (loaded on
// first use), left to right, each lane (dashboard stage) a partition of its own, so the lanes
// come out as side-by-side columns in stage order that never overlap. The view draws this
// layout and the draw.io export writes it, so both show the same picture. Pure (no DOM).
import type { ELK, ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api.js";
import type { Graph } from "./graph.ts";

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

/** Absolute positions (the graph's top-left corner is 0,0). */
export interface GraphLayout {
  /** Lane id → its column, as tall as the graph. */
  lanes: Map<string, Box>;
  nodes: Map<string, Box>;
  /** Edge id → its route, start to end. */
  edges: Map<string, Point[]>;
  width: number;
  height: number;
}

export const NODE_HEIGHT = 46;
/** Room around a lane's nodes, and above them for the lane's title. */
const LANE_PADDING = 16;
export const LANE_TITLE_HEIGHT = 28;

/** A node's width for its two lines of text. */
export function nodeWidth(label: string, detail: string): number {
  return Math.max(110, Math.min(260, Math.max(label.length * 7.6, detail.length * 6.2) + 34));
}

/** The elk input: every node in its lane's partition (the lane's position in `graph.lanes`). */
function elkInput(graph: Graph): ElkNode {
  const partition = new Map(graph.lanes.map((lane, index) => [lane.id, index]));
  return {
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "RIGHT",
      "elk.edgeRouting": "ORTHOGONAL",
      "elk.partitioning.activate": "true",
      // partitions order the layers of one connected graph; separate pieces would each start
      // at the left again and their lanes overlap
      "elk.separateConnectedComponents": "false",
      "elk.layered.spacing.nodeNodeBetweenLayers": "70",
      "elk.spacing.nodeNode": "18",
      "elk.spacing.componentComponent": "36",
      "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
      // room above the nodes for the lane titles
      "elk.padding": `[top=${LANE_TITLE_HEIGHT + LANE_PADDING},left=${LANE_PADDING},bottom=${LANE_PADDING},right=${LANE_PADDING}]`,
    },
    children: graph.nodes.map((node) => ({
      id: node.id,
      width: nodeWidth(node.label, node.detail),
      height: NODE_HEIGHT,
      layoutOptions: { "elk.partitioning.partition": String(partition.get(node.lane) ?? 0) },
    })),
    edges: graph.edges.map((edge) => ({
      id: edge.id,
      sources: [edge.source],
      targets: [edge.target],
    })),
  };
}

/** Each lane's column: from its leftmost to its rightmost node, padded, the graph's full height. */
function laneColumns(graph: Graph, nodes: Map<string, Box>, height: number): Map<string, Box> {
  const lanes = new Map<string, Box>();
  for (const lane of graph.lanes) {
    const boxes = graph.nodes
      .filter((node) => node.lane === lane.id)
      .map((node) => nodes.get(node.id))
      .filter((box): box is Box => box !== undefined);
    if (boxes.length === 0) continue;
    const left = Math.min(...boxes.map((box) => box.x)) - LANE_PADDING;
    const right = Math.max(...boxes.map((box) => box.x + box.width)) + LANE_PADDING;
    lanes.set(lane.id, { x: left, y: 0, width: right - left, height });
  }
  return lanes;
}

export async function layoutGraph(graph: Graph): Promise<GraphLayout> {
  // the bundle is CommonJS: its default export is the constructor for the bundler and for Node
  // alike, which Node's type resolution does not model, hence the cast
  const loaded = (await import("elkjs/lib/elk.bundled.js")) as unknown as {
    default: new () => ELK;
  };
  const result = await new loaded.default().layout(elkInput(graph));
  const nodes = new Map<string, Box>();
  for (const child of result.children ?? []) {
    nodes.set(child.id, {
      x: child.x ?? 0,
      y: child.y ?? 0,
      width: child.width ?? 0,
      height: child.height ?? 0,
    });
  }
  const edges = new Map<string, Point[]>();
  for (const edge of (result.edges ?? []) as ElkExtendedEdge[]) {
    const section = edge.sections?.[0];
    if (!section) continue;
    edges.set(edge.id, [section.startPoint, ...(section.bendPoints ?? []), section.endPoint]);
  }
  const width = result.width ?? 0;
  const height = result.height ?? 0;
  return { lanes: laneColumns(graph, nodes, height), nodes, edges, width, height };
}
