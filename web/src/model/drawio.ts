// The architecture graph as a draw.io file (an `mxfile` holding one uncompressed
// `mxGraphModel`): each lane a swimlane container with its nodes inside, each edge from its
// source cell to its target cell with its label and the layout's bends. Names come from users,
// so every attribute value goes through one escape, and labels are plain text (`html=0`), never
// markup draw.io would interpret. Pure (no DOM): the dashboard downloads the string.
import type { Graph } from "./graph.ts";
import type { Box, GraphLayout, Point } from "./graph-layout.ts";

/**
 * A string as an XML attribute value: the five markup characters as entities, line breaks and
 * tabs as character references (so they survive attribute normalization), and characters XML
 * 1.0 cannot hold at all (other control characters, lone surrogates) left out.
 */
export function xmlAttribute(value: string): string {
  return value
    .replace(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to drop
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
      "",
    )
    .replace(/[&<>"'\t\n\r]/g, (char) => ENTITIES[char] as string);
}

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
  "\t": "&#9;",
  "\n": "&#10;",
  "\r": "&#13;",
};

/** `<name a="…" b="…">` with every value escaped; `inner` undefined makes it self-closing. */
function element(name: string, attributes: Record<string, string | number>, inner?: string) {
  const text = Object.entries(attributes)
    .map(([key, value]) => ` ${key}="${xmlAttribute(String(value))}"`)
    .join("");
  return inner === undefined ? `<${name}${text}/>` : `<${name}${text}>${inner}</${name}>`;
}

function geometry(box: Box, origin: Point = { x: 0, y: 0 }): string {
  return element("mxGeometry", {
    x: Math.round(box.x - origin.x),
    y: Math.round(box.y - origin.y),
    width: Math.round(box.width),
    height: Math.round(box.height),
    as: "geometry",
  });
}

const LANE_STYLE = "swimlane;startSize=28;horizontal=1;html=0;collapsible=0;fontStyle=1;";
const NODE_STYLE = "rounded=1;whiteSpace=wrap;html=0;arcSize=12;";
const MISSING_STYLE = `${NODE_STYLE}dashed=1;`;
const EDGE_STYLE = "edgeStyle=orthogonalEdgeStyle;rounded=0;html=0;endArrow=block;";

/** The cells: the two draw.io root cells, the lanes, their nodes (inside them), the edges. */
function cells(graph: Graph, layout: GraphLayout): string[] {
  const out = [element("mxCell", { id: "0" }), element("mxCell", { id: "1", parent: "0" })];
  for (const lane of graph.lanes) {
    const box = layout.lanes.get(lane.id);
    if (!box) continue;
    const laneId = `lane:${lane.id}`;
    out.push(
      element(
        "mxCell",
        { id: laneId, value: lane.title, style: LANE_STYLE, vertex: 1, parent: "1" },
        geometry(box),
      ),
    );
    for (const node of graph.nodes.filter((entry) => entry.lane === lane.id)) {
      const nodeBox = layout.nodes.get(node.id);
      if (!nodeBox) continue;
      const style = node.kind === "missing" ? MISSING_STYLE : NODE_STYLE;
      out.push(
        element(
          "mxCell",
          { id: node.id, value: `${node.label}\n${node.detail}`, style, vertex: 1, parent: laneId },
          geometry(nodeBox, box),
        ),
      );
    }
  }
  for (const edge of graph.edges) {
    const bends = (layout.edges.get(edge.id) ?? []).slice(1, -1);
    const points = bends.map((point) =>
      element("mxPoint", { x: Math.round(point.x), y: Math.round(point.y) }),
    );
    const inner = element(
      "mxGeometry",
      { relative: 1, as: "geometry" },
      points.length > 0 ? element("Array", { as: "points" }, points.join("")) : undefined,
    );
    out.push(
      element(
        "mxCell",
        {
          id: edge.id,
          value: edge.label ?? "",
          style: EDGE_STYLE,
          edge: 1,
          parent: "1",
          source: edge.source,
          target: edge.target,
        },
        inner,
      ),
    );
  }
  return out;
}

/** The draw.io file of a laid-out graph; `title` names the diagram (the project's name). */
export function drawioXml(title: string, graph: Graph, layout: GraphLayout): string {
  const model = element(
    "mxGraphModel",
    {
      grid: 1,
      gridSize: 10,
      guides: 1,
      page: 0,
      pageWidth: Math.ceil(layout.width),
      pageHeight: Math.ceil(layout.height),
    },
    element("root", {}, cells(graph, layout).join("\n")),
  );
  const diagram = element("diagram", { id: "architecture", name: title }, model);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element("mxfile", { host: "kiln" }, diagram)}\n`;
}
