// On a narrow screen the builder's three columns (the components, the form or the other views,
// the preview) do not fit side by side: they become one panel at a time, chosen by these tabs.
// Above the breakpoint the tabs are hidden by the style sheet and every column shows; the
// choice is kept so a window made narrow again shows the same panel.
import type { JSX } from "preact";

export type Pane = "components" | "form" | "preview";

const PANES: readonly { id: Pane; label: string }[] = [
  { id: "components", label: "Components" },
  { id: "form", label: "Workspace" },
  { id: "preview", label: "Preview" },
];

export function PaneTabs(props: { pane: Pane; onChoose: (pane: Pane) => void }): JSX.Element {
  return (
    <div class="pane-tabs" role="tablist" aria-label="Panels" data-testid="pane-tabs">
      {PANES.map((pane) => (
        <button
          key={pane.id}
          type="button"
          role="tab"
          aria-selected={props.pane === pane.id}
          class={props.pane === pane.id ? "active" : ""}
          data-testid={`pane-${pane.id}`}
          onClick={() => props.onChoose(pane.id)}
        >
          {pane.label}
        </button>
      ))}
    </div>
  );
}
