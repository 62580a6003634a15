// The first-visit guide: four short steps (choose a template, edit a field, see the checks,
// download) in a small panel at the corner of the page, shown once per browser. It never blocks
// the page - a non-modal dialog the user can read beside the dashboard or dismiss - takes the
// focus when it appears so a keyboard user finds it, and closes on Escape. The browser
// remembers it was shown (`kiln-tour-seen` in localStorage) as soon as it appears, so a
// returning user, or a reload, never sees it again.
import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { type MessageKey, useT } from "../i18n/i18n.ts";

/** The localStorage key that says the guide was shown in this browser. */
export const TOUR_SEEN_KEY = "kiln-tour-seen";

const STEPS: readonly { title: MessageKey; text: MessageKey }[] = [
  { title: "tour.templateTitle", text: "tour.templateText" },
  { title: "tour.editTitle", text: "tour.editText" },
  { title: "tour.checksTitle", text: "tour.checksText" },
  { title: "tour.downloadTitle", text: "tour.downloadText" },
];

/** Was the guide shown in this browser before? A browser that keeps no storage counts as yes. */
function seenBefore(): boolean {
  try {
    return localStorage.getItem(TOUR_SEEN_KEY) !== null;
  } catch {
    // no storage: the guide could not be remembered, and showing it on every visit is worse
    return true;
  }
}

function rememberSeen(): void {
  try {
    localStorage.setItem(TOUR_SEEN_KEY, "1");
  } catch {
    // a full or missing storage: the guide is simply shown again next time
  }
}

export function Tour(): JSX.Element | null {
  const t = useT();
  const [open, setOpen] = useState(() => !seenBefore());
  const [step, setStep] = useState(0);
  const panel = useRef<HTMLElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  // a layout effect: Escape works from the moment the guide shows (an effect may wait a frame)
  useLayoutEffect(() => {
    if (!open) return;
    rememberSeen();
    const element = panel.current;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") setOpen(false);
    };
    element?.addEventListener("keydown", onKey);
    return () => element?.removeEventListener("keydown", onKey);
  }, [open]);
  // each step's heading takes the focus, so a screen reader reads the step that just came
  useEffect(() => {
    if (open) heading.current?.focus();
  }, [open, step]);

  const current = STEPS[step];
  if (!open || current === undefined) return null;
  const last = step === STEPS.length - 1;
  return (
    <section
      ref={panel}
      class="tour"
      role="dialog"
      aria-modal="false"
      aria-labelledby="tour-title"
      aria-describedby="tour-text"
      data-testid="tour"
    >
      <p class="tour-count muted small">
        {t("tour.count", { step: step + 1, steps: STEPS.length })}
      </p>
      <h2 id="tour-title" ref={heading} tabIndex={-1}>
        {t(current.title)}
      </h2>
      <p id="tour-text">{t(current.text)}</p>
      <div class="tour-actions">
        <button
          type="button"
          class="link-button"
          data-testid="tour-skip"
          onClick={() => setOpen(false)}
        >
          {t("tour.skip")}
        </button>
        <span class="tabs-spacer" />
        {step > 0 && (
          <button type="button" class="button" onClick={() => setStep(step - 1)}>
            {t("tour.back")}
          </button>
        )}
        <button
          type="button"
          class="button primary"
          data-testid="tour-next"
          onClick={() => (last ? setOpen(false) : setStep(step + 1))}
        >
          {last ? t("tour.done") : t("tour.next")}
        </button>
      </div>
    </section>
  );
}
