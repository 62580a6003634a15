// On a narrow screen the builder's three columns (the components, the form or the other views,
// the preview) do not fit side by side: they become one panel at a time, chosen by these tabs.
// Above the breakpoint the tabs are hidden by the style sheet and every column shows; the
// choice is kept so a window made narrow again shows the same panel.
import type { JSX } from "preact";
import { type MessageKey, useT } from "../i18n/i18n.ts";

export type Pane = "components" | "form" | "preview";

const PANES: readonly { id: Pane; label: MessageKey }[] = [
  { id: "components", label: "app.components" },
  { id: "form", label: "panes.workspace" },
  { id: "preview", label: "preview.title" },
];

export function PaneTabs(props: { pane: Pane; onChoose: (pane: Pane) => void }): JSX.Element {
  const t = useT();
  return (
    <div class="pane-tabs" role="tablist" aria-label={t("panes.label")} data-testid="pane-tabs">
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
          {t(pane.label)}
        </button>
      ))}
    </div>
  );
}
