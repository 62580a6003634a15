// The bar across the top: the brand (a way home from the builder) and the current view's actions.
import type { JSX } from "preact";

export function TopBar(props: {
  onHome: (() => void) | undefined;
  actions?: JSX.Element;
}): JSX.Element {
  return (
    <header class="topbar">
      <button
        type="button"
        class="brand"
        onClick={props.onHome}
        disabled={!props.onHome}
        title="Home"
      >
        <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
          <path d="M4 20h16l-2-9H6z" class="brand-kiln" />
          <path d="M9 11c0-3 3-4 3-7 0 3 3 4 3 7" class="brand-flame" />
        </svg>
        <span>kiln</span>
        <span class="brand-sub">dashboard</span>
      </button>
      <span class="tabs-spacer" />
      {props.actions}
    </header>
  );
}
