// The bar across the top: the brand (a way home from the builder), the current view's actions,
// the language switch (English, French) and the theme switch (follow the system, light, dark).
// On a narrow screen the actions and the switches do not fit beside the brand: they fold into a menu behind one button (the style sheet
// decides when; the button is hidden on a wide screen).
import type { JSX } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { THEME_CHOICES, type ThemeChoice, useTheme } from "../hooks/use-theme.ts";
import { LANGUAGE_NAMES, LANGUAGES, type MessageKey, useLanguage, useT } from "../i18n/i18n.ts";

const THEME_LABEL: Record<ThemeChoice, MessageKey> = {
  system: "theme.system",
  light: "theme.light",
  dark: "theme.dark",
};

/** 16px line icons: a half-filled circle (system), a sun (light), a moon (dark). */
const THEME_ICON: Record<ThemeChoice, JSX.Element> = {
  system: (
    <>
      <circle cx="8" cy="8" r="5.5" fill="none" />
      <path d="M8 2.5a5.5 5.5 0 0 1 0 11z" class="filled" />
    </>
  ),
  light: (
    <>
      <circle cx="8" cy="8" r="3" fill="none" />
      <path d="M8 1v2M8 13v2M1 8h2M13 8h2M3 3l1.4 1.4M11.6 11.6 13 13M3 13l1.4-1.4M11.6 4.4 13 3" />
    </>
  ),
  dark: <path d="M13 10A5.5 5.5 0 0 1 6 3a5.5 5.5 0 1 0 7 7z" fill="none" />,
};

/**
 * Two buttons, each language's code (`EN`, `FR`) with its name in its own language as label:
 * a reader looking for their language finds it whatever the interface speaks now.
 */
function LanguageSwitch(): JSX.Element {
  const t = useT();
  const { language, choose } = useLanguage();
  return (
    <fieldset class="switch language-switch" data-testid="language-switch">
      <legend class="visually-hidden">{t("language.legend")}</legend>
      {LANGUAGES.map((option) => (
        <button
          key={option}
          type="button"
          lang={option}
          class={option === language ? "active" : ""}
          aria-pressed={option === language}
          title={LANGUAGE_NAMES[option]}
          data-testid={`language-${option}`}
          onClick={() => choose(option)}
        >
          {/* the name is what assistive technology reads; the code is what fits on screen */}
          <span aria-hidden="true">{option.toUpperCase()}</span>
          <span class="visually-hidden">{LANGUAGE_NAMES[option]}</span>
        </button>
      ))}
    </fieldset>
  );
}

function ThemeSwitch(): JSX.Element {
  const t = useT();
  const [choice, choose] = useTheme();
  return (
    <fieldset class="switch theme-switch" data-testid="theme-switch">
      <legend class="visually-hidden">{t("theme.legend")}</legend>
      {THEME_CHOICES.map((option) => (
        <button
          key={option}
          type="button"
          class={option === choice ? "active" : ""}
          aria-pressed={option === choice}
          aria-label={t(THEME_LABEL[option])}
          title={t(THEME_LABEL[option])}
          data-testid={`theme-${option}`}
          onClick={() => choose(option)}
        >
          <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
            {THEME_ICON[option]}
          </svg>
        </button>
      ))}
    </fieldset>
  );
}

export function TopBar(props: {
  onHome: (() => void) | undefined;
  actions?: JSX.Element;
}): JSX.Element {
  const t = useT();
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  // a layout effect: the keys work from the moment the menu shows (an effect may wait a frame)
  useLayoutEffect(() => {
    if (!menuOpen) return;
    // Escape closes the menu and gives the focus back to its button; a click outside closes it
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setMenuOpen(false);
      menuButton.current?.focus();
    };
    const onPointer = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !menuButton.current?.contains(target)) {
        setMenuOpen(false);
      }
    };
    // an action chosen from the open menu closes it; the theme and language switches keep it open
    const onChosen = (event: MouseEvent) => {
      const button = (event.target as Element).closest("button");
      if (button && !button.closest(".switch")) setMenuOpen(false);
    };
    const list = menu.current;
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    list?.addEventListener("click", onChosen);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
      list?.removeEventListener("click", onChosen);
    };
  }, [menuOpen]);
  return (
    <header class="topbar">
      <button
        type="button"
        class="brand"
        onClick={props.onHome}
        disabled={!props.onHome}
        title={t("topbar.home")}
      >
        <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
          <path d="M4 20h16l-2-9H6z" class="brand-kiln" />
          <path d="M9 11c0-3 3-4 3-7 0 3 3 4 3 7" class="brand-flame" />
        </svg>
        <span>kiln</span>
        <span class="brand-sub">{t("topbar.dashboard")}</span>
      </button>
      <span class="tabs-spacer" />
      <button
        type="button"
        class="menu-button"
        ref={menuButton}
        aria-expanded={menuOpen}
        aria-controls="topbar-menu"
        data-testid="menu-button"
        onClick={() => setMenuOpen(!menuOpen)}
      >
        <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
          <path d="M2 4h12M2 8h12M2 12h12" />
        </svg>
        {t("topbar.menu")}
      </button>
      <div
        id="topbar-menu"
        class={`topbar-menu${menuOpen ? " open" : ""}`}
        ref={menu}
        data-testid="topbar-menu"
      >
        {props.actions}
        <LanguageSwitch />
        <ThemeSwitch />
      </div>
    </header>
  );
}
