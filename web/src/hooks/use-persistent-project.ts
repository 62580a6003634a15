// The project being edited and the selected component, kept in localStorage so a reload (or a
// closed tab) comes back to the same place.
import { type StateUpdater, useEffect, useMemo, useState } from "preact/hooks";
import type { Project } from "../model/project.ts";

const STORAGE_KEY = "kiln.dashboard.v1";

interface Saved {
  project: Project;
  selected: string | undefined;
}

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

export interface PersistentProject {
  /** A project was saved by an earlier visit. */
  restored: boolean;
  project: Project | undefined;
  setProject: (value: StateUpdater<Project | undefined>) => void;
  selected: string | undefined;
  setSelected: (value: StateUpdater<string | undefined>) => void;
}

export function usePersistentProject(): PersistentProject {
  const saved = useMemo(loadSaved, []);
  const [project, setProject] = useState<Project | undefined>(saved?.project);
  const [selected, setSelected] = useState<string | undefined>(saved?.selected);
  useEffect(() => {
    if (!project) return;
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify({ project, selected } satisfies Saved));
    } catch {
      // storage full or disabled: the project lives on in memory
    }
  }, [project, selected]);
  return { restored: saved !== undefined, project, setProject, selected, setSelected };
}
