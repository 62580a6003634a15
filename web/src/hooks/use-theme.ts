// The dashboard's colour theme: the user's choice (follow the system, or always light or dark),
// remembered in localStorage, and the theme shown, set as `data-theme` on <html> for the palette
// in styles.css. index.html runs the same resolution inline before the first paint (no flash of
// the wrong theme on reload); this hook keeps it current when the choice or the system changes.
import { useEffect, useState } from "preact/hooks";

export type ThemeChoice = "system" | "light" | "dark";

export const THEME_CHOICES: readonly ThemeChoice[] = ["system", "light", "dark"];

/** The localStorage key; index.html's inline script reads the same one. */
const STORAGE_KEY = "kiln-theme";
const DARK_QUERY = "(prefers-color-scheme: dark)";

function readChoice(): ThemeChoice {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    return stored === "light" || stored === "dark" ? stored : "system";
  } catch {
    // storage can be refused (a privacy setting): the theme still follows the system
    return "system";
  }
}

function storeChoice(choice: ThemeChoice): void {
  try {
    if (choice === "system") localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, choice);
  } catch {
    // not remembered across reloads, but applied for this page
  }
}

/** The theme a choice shows now: "system" is whatever the system prefers at this moment. */
function resolveTheme(choice: ThemeChoice): "light" | "dark" {
  if (choice !== "system") return choice;
  return window.matchMedia(DARK_QUERY).matches ? "dark" : "light";
}

function applyTheme(choice: ThemeChoice): void {
  document.documentElement.dataset.theme = resolveTheme(choice);
}

/** The current choice and a setter that applies and remembers a new one. */
export function useTheme(): [ThemeChoice, (choice: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice>(readChoice);
  useEffect(() => {
    applyTheme(choice);
    if (choice !== "system") return;
    // following the system: switch when it does, without a reload
    const query = window.matchMedia(DARK_QUERY);
    const follow = () => applyTheme("system");
    query.addEventListener("change", follow);
    return () => query.removeEventListener("change", follow);
  }, [choice]);
  const choose = (next: ThemeChoice) => {
    storeChoice(next);
    // at once, in the click itself, not a frame later when the effect runs
    applyTheme(next);
    setChoice(next);
  };
  return [choice, choose];
}
