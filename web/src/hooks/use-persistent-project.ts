// The project being edited and the selected component, kept in localStorage so a reload (or a
// closed tab) comes back to the same place. A project too large for the browser's storage (or a
// browser that keeps none) is not saved: the hook says so (`saveState`), and the app tells the
// user how to keep the project, instead of losing it on the next reload without a word.
import { type StateUpdater, useEffect, useMemo, useState } from "preact/hooks";
import type { Project } from "../model/project.ts";

const STORAGE_KEY = "kiln.dashboard.v1";

interface Saved {
  project: Project;
  selected: string | undefined;
}

/**
 * Whether the project as it is now is saved: `too-big` when the browser's storage quota refused
 * it (the copy saved before stays), `unavailable` when the browser keeps no storage for the page.
 */
export type SaveState = "saved" | "too-big" | "unavailable";

function loadSaved(): Saved | undefined {
  try {
    const text = localStorage.getItem(STORAGE_KEY);
    if (!text) return undefined;
    const saved = JSON.parse(text) as Saved;
    if (!saved.project || !Array.isArray(saved.project.components)) return undefined;
    return saved;
  } catch {
    return undefined;
  }
}

/**
 * A quota error, as each engine names it: `QuotaExceededError` (the standard, code 22), and
 * Firefox's older `NS_ERROR_DOM_QUOTA_REACHED` (code 1014).
 */
function isQuotaError(error: unknown): boolean {
  if (!(error instanceof DOMException)) return false;
  return (
    error.name === "QuotaExceededError" ||
    error.name === "NS_ERROR_DOM_QUOTA_REACHED" ||
    error.code === 22 ||
    error.code === 1014
  );
}

/** Saves `saved`, and says whether that worked. */
function save(saved: Saved): SaveState {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(saved));
    return "saved";
  } catch (error) {
    return isQuotaError(error) ? "too-big" : "unavailable";
  }
}

export interface PersistentProject {
  /** A project was saved by an earlier visit. */
  restored: boolean;
  project: Project | undefined;
  setProject: (value: StateUpdater<Project | undefined>) => void;
  selected: string | undefined;
  setSelected: (value: StateUpdater<string | undefined>) => void;
  /** Whether the project as it is now is saved in this browser. */
  saveState: SaveState;
}

export function usePersistentProject(): PersistentProject {
  const saved = useMemo(loadSaved, []);
  const [project, setProject] = useState<Project | undefined>(saved?.project);
  const [selected, setSelected] = useState<string | undefined>(saved?.selected);
  const [saveState, setSaveState] = useState<SaveState>("saved");
  useEffect(() => {
    if (!project) return;
    setSaveState(save({ project, selected }));
  }, [project, selected]);
  return { restored: saved !== undefined, project, setProject, selected, setSelected, saveState };
}
