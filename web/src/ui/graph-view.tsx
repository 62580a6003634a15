// The architecture view: the project's graph in its lanes (one per stage), laid out by elkjs
// (web/src/model/graph-layout.ts), fitted to the window on open and whenever the window changes
// until the user zooms or pans; wheel or pinch zooms at the pointer, dragging pans, and the
// + / - / Fit buttons and the keyboard (+, -, 0, arrow keys on the focused canvas) do the same.
// Hover or focus a node to trace what it reaches and what reaches it, click it (Enter, Space) to
// edit its component. "Export draw.io" downloads the same picture as a .drawio file.

import type { JSX } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { errorMessage } from "../../../src/core/errors.ts";
import { type MessageKey, useLanguage, useT } from "../i18n/i18n.ts";
import { drawioXml } from "../model/drawio.ts";
import {
  buildGraph,
  type Graph,
  type GraphComponent,
  type NodeKind,
  traceFrom,
} from "../model/graph.ts";
import { type GraphLayout, LANE_TITLE_HEIGHT, layoutGraph } from "../model/graph-layout.ts";
import { download } from "./common.tsx";

const KIND_LABEL: Record<NodeKind, MessageKey> = {
  group: "graph.kind.group",
  "group-vars": "graph.kind.groupVars",
  playbook: "graph.kind.playbook",
  site: "graph.kind.site",
  role: "graph.kind.role",
  bootstrap: "graph.kind.bootstrap",
  config: "graph.kind.config",
  server: "graph.kind.server",
  deployment: "graph.kind.deployment",
  service: "graph.kind.service",
  ingress: "graph.kind.ingress",
  other: "graph.kind.other",
  missing: "graph.kind.missing",
};

/** How the graph sits in the viewport: canvas pixels = graph units × scale, then shifted. */
interface View {
  scale: number;
  x: number;
  y: number;
}

const MIN_SCALE = 0.1;
const MAX_SCALE = 3;
const ZOOM_STEP = 1.25;
const PAN_STEP = 60;
/** Room kept between the fitted graph and the viewport's edges. */
const FIT_MARGIN = 12;

function clampScale(scale: number): number {
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale));
}

/** The whole graph in the viewport, centred, never enlarged past its natural size. */
function fittedView(
  graph: { width: number; height: number },
  viewport: { width: number; height: number },
): View {
  const room = { width: viewport.width - 2 * FIT_MARGIN, height: viewport.height - 2 * FIT_MARGIN };
  const scale = Math.max(
    MIN_SCALE,
    Math.min(1, room.width / Math.max(1, graph.width), room.height / Math.max(1, graph.height)),
  );
  return {
    scale,
    x: (viewport.width - graph.width * scale) / 2,
    y: (viewport.height - graph.height * scale) / 2,
  };
}

/** The view zoomed by `factor` keeping the viewport point (px, py) still. */
function zoomedAt(view: View, factor: number, px: number, py: number): View {
  const scale = clampScale(view.scale * factor);
  const applied = scale / view.scale;
  return { scale, x: px - (px - view.x) * applied, y: py - (py - view.y) * applied };
}

/** The viewport's size, followed as the window changes. */
function useSize(element: HTMLElement | null): { width: number; height: number } | undefined {
  const [size, setSize] = useState<{ width: number; height: number }>();
  useEffect(() => {
    if (!element) return;
    const observer = new ResizeObserver(() =>
      setSize({ width: element.clientWidth, height: element.clientHeight }),
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return size;
}

export function GraphView(props: {
  components: GraphComponent[];
  namespace: string;
  /** The diagram's name in the export (the project's name). */
  title: string;
  /** The export's file name, `<project name>.drawio`. */
  fileName: string;
  onSelect: (index: number) => void;
}): JSX.Element {
  const t = useT();
  // the nodes' details and the links' words are in the interface's language
  const { language } = useLanguage();
  const graph = useMemo(
    () => buildGraph(props.components, props.namespace),
    [props.components, props.namespace, language],
  );
  const [placed, setPlaced] = useState<{ graph: Graph; layout: GraphLayout } | undefined>();
  const [error, setError] = useState("");
  const [hover, setHover] = useState<string | undefined>();
  const signature = JSON.stringify([
    graph.nodes.map((n) => [n.id, n.label, n.detail, n.lane]),
    graph.edges.map((e) => e.id),
  ]);
  useEffect(() => {
    let live = true;
    layoutGraph(graph)
      .then((layout) => live && setPlaced({ graph, layout }))
      .catch((reason: unknown) => live && setError(errorMessage(reason)));
    return () => {
      live = false;
    };
  }, [signature]);
  const traced = hover ? traceFrom(graph, hover) : undefined;
  const kinds = [...new Set(graph.nodes.map((node) => node.kind))];
  const layout = placed?.layout;
  return (
    <section class="graph" data-testid="graph-view">
      <header class="checks-head">
        <div>
          <h2>{t("app.tabArchitecture")}</h2>
          <p class="muted">{t("graph.intro")}</p>
        </div>
        <div class="graph-head-side">
          <div class="legend">
            {kinds.map((kind) => (
              <span key={kind} class={`legend-item k-${kind}`}>
                <i />
                {t(KIND_LABEL[kind])}
              </span>
            ))}
          </div>
          <button
            type="button"
            class="button small"
            data-testid="export-drawio"
            disabled={!placed || graph.nodes.length === 0}
            onClick={() =>
              placed &&
              download(
                props.fileName,
                drawioXml(props.title, placed.graph, placed.layout),
                "application/vnd.jgraph.mxfile",
              )
            }
          >
            {t("graph.export")}
          </button>
        </div>
      </header>
      {graph.nodes.length === 0 && <p class="empty">{t("graph.empty")}</p>}
      {error && <p class="render-error">{t("graph.layoutFailed", { reason: error })}</p>}
      {graph.nodes.length > 0 && !layout && !error && <p class="empty">{t("graph.layingOut")}</p>}
      {layout && graph.nodes.length > 0 && (
        <Canvas
          graph={graph}
          layout={layout}
          traced={traced}
          hover={hover}
          setHover={setHover}
          onSelect={props.onSelect}
        />
      )}
    </section>
  );
}

/** The zoomable, pannable drawing: lanes, edges, nodes, and the zoom buttons over it. */
function Canvas(props: {
  graph: Graph;
  layout: GraphLayout;
  traced: Set<string> | undefined;
  hover: string | undefined;
  setHover: (id: string | undefined) => void;
  onSelect: (index: number) => void;
}): JSX.Element {
  const t = useT();
  const { graph, layout, traced, hover } = props;
  const [element, setElement] = useState<HTMLDivElement | null>(null);
  const size = useSize(element);
  // undefined: fitted (refitted as the window or the graph changes); else the user's view
  const [chosen, setChosen] = useState<View | undefined>();
  const drag = useRef<{ pointer: number; x: number; y: number; view: View } | undefined>(undefined);
  const [panning, setPanning] = useState(false);
  const fitted = size ? fittedView(layout, size) : { scale: 1, x: 0, y: 0 };
  const view = chosen ?? fitted;
  const current = useRef(view);
  current.current = view;

  // wheel and pinch (a wheel event with ctrlKey) zoom at the pointer; the listener is not
  // passive so the page does not scroll as well
  useEffect(() => {
    if (!element) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      const box = element.getBoundingClientRect();
      const factor = Math.exp(-event.deltaY * (event.ctrlKey ? 0.01 : 0.0015));
      setChosen(
        zoomedAt(current.current, factor, event.clientX - box.left, event.clientY - box.top),
      );
    };
    element.addEventListener("wheel", onWheel, { passive: false });
    return () => element.removeEventListener("wheel", onWheel);
  }, [element]);

  const zoomBy = (factor: number) =>
    setChosen(zoomedAt(view, factor, (size?.width ?? 0) / 2, (size?.height ?? 0) / 2));
  const panBy = (dx: number, dy: number) => setChosen({ ...view, x: view.x + dx, y: view.y + dy });
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.target !== event.currentTarget) return; // a node's own keys
    const actions: Record<string, () => void> = {
      "+": () => zoomBy(ZOOM_STEP),
      "=": () => zoomBy(ZOOM_STEP),
      "-": () => zoomBy(1 / ZOOM_STEP),
      "0": () => setChosen(undefined),
      ArrowLeft: () => panBy(PAN_STEP, 0),
      ArrowRight: () => panBy(-PAN_STEP, 0),
      ArrowUp: () => panBy(0, PAN_STEP),
      ArrowDown: () => panBy(0, -PAN_STEP),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };

  return (
    <div class="graph-frame">
      <div
        ref={setElement}
        class={`graph-viewport${panning ? " panning" : ""}`}
        data-testid="graph-viewport"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the canvas takes the arrow, + and - keys itself (an application)
        tabIndex={0}
        role="application"
        aria-label={t("graph.viewportLabel")}
        onKeyDown={onKeyDown}
        onPointerDown={(event) => {
          if ((event.target as Element).closest(".node") || event.button !== 0) return;
          drag.current = { pointer: event.pointerId, x: event.clientX, y: event.clientY, view };
          setPanning(true);
          (event.currentTarget as HTMLElement).setPointerCapture(event.pointerId);
        }}
        onPointerMove={(event) => {
          const start = drag.current;
          if (!start || start.pointer !== event.pointerId) return;
          setChosen({
            ...start.view,
            x: start.view.x + event.clientX - start.x,
            y: start.view.y + event.clientY - start.y,
          });
        }}
        onPointerUp={() => {
          drag.current = undefined;
          setPanning(false);
        }}
        onPointerCancel={() => {
          drag.current = undefined;
          setPanning(false);
        }}
      >
        <svg class="graph-svg" aria-label={t("graph.label")}>
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
          <g
            data-testid="graph-canvas"
            transform={`translate(${view.x},${view.y}) scale(${view.scale})`}
          >
            {graph.lanes.map((lane) => {
              const box = layout.lanes.get(lane.id);
              if (!box) return null;
              return (
                <g key={lane.id} class={`lane lane-${lane.id}`} data-testid="graph-lane">
                  <rect x={box.x} y={box.y} width={box.width} height={box.height} rx="10" />
                  <text x={box.x + 12} y={box.y + LANE_TITLE_HEIGHT - 8} class="lane-title">
                    {lane.title}
                  </text>
                </g>
              );
            })}
            {graph.edges.map((edge) => {
              const route = layout.edges.get(edge.id);
              if (!route) return null;
              const active = traced ? traced.has(edge.source) && traced.has(edge.target) : false;
              const d = route.map((p, i) => `${i === 0 ? "M" : "L"}${p.x},${p.y}`).join(" ");
              return (
                <path
                  key={edge.id}
                  d={d}
                  class={`edge${active ? " active" : ""}${traced && !active ? " dim" : ""}`}
                  data-testid="graph-edge"
                  data-source={edge.source}
                  data-target={edge.target}
                  marker-end="url(#arrow)"
                >
                  <title>{edge.label}</title>
                </path>
              );
            })}
            {graph.nodes.map((node) => {
              const box = layout.nodes.get(node.id);
              if (!box) return null;
              const dim = traced && !traced.has(node.id);
              const select = () => node.component !== undefined && props.onSelect(node.component);
              return (
                // biome-ignore lint/a11y/useSemanticElements: an SVG node cannot be a <button>; it has the role, focus and Enter
                <g
                  key={node.id}
                  class={`node k-${node.kind}${dim ? " dim" : ""}${hover === node.id ? " hovered" : ""}${node.component !== undefined ? " clickable" : ""}`}
                  transform={`translate(${box.x},${box.y})`}
                  data-testid="graph-node"
                  data-id={node.id}
                  role="button"
                  tabIndex={node.component !== undefined ? 0 : -1}
                  // the name holds all the visible text (axe: label-content-name-mismatch)
                  aria-label={`${node.label} ${node.detail}`}
                  onFocus={() => props.setHover(node.id)}
                  onBlur={() => props.setHover(undefined)}
                  onKeyDown={(event) => {
                    if (event.key !== "Enter" && event.key !== " ") return;
                    event.preventDefault();
                    select();
                  }}
                  onMouseEnter={() => props.setHover(node.id)}
                  onMouseLeave={() => props.setHover(undefined)}
                  onClick={select}
                >
                  <rect width={box.width} height={box.height} rx="8" />
                  <rect class="band" width="5" height={box.height} rx="2" />
                  <text x="14" y="19" class="node-label">
                    {/* the space keeps label and detail two words in the node's text */}
                    {`${node.label} `}
                  </text>
                  <text x="14" y="35" class="node-detail">
                    {node.detail}
                  </text>
                </g>
              );
            })}
          </g>
        </svg>
      </div>
      <div class="graph-controls" role="toolbar" aria-label={t("graph.zoom")}>
        <button
          type="button"
          class="icon-button"
          aria-label={t("graph.zoomIn")}
          title={t("graph.zoomInTitle")}
          data-testid="zoom-in"
          onClick={() => zoomBy(ZOOM_STEP)}
        >
          +
        </button>
        <button
          type="button"
          class="icon-button"
          aria-label={t("graph.zoomOut")}
          title={t("graph.zoomOutTitle")}
          data-testid="zoom-out"
          onClick={() => zoomBy(1 / ZOOM_STEP)}
        >
          −
        </button>
        <button
          type="button"
          class="button small"
          title={t("graph.fitTitle")}
          data-testid="zoom-fit"
          onClick={() => setChosen(undefined)}
        >
          {t("graph.fit")}
        </button>
        <span class="muted small" data-testid="zoom-level" aria-live="polite">
          {Math.round(view.scale * 100)}%
        </span>
      </div>
    </div>
  );
}
