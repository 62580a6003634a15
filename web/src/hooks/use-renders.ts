// Every component of the project rendered through the service (each request cached), a moment
// after the last change, by the core's project pipeline; later results replace earlier ones
// only when no newer change started meanwhile.
import { useEffect, useRef, useState } from "preact/hooks";
import { renderCollectingErrors } from "../../../src/core/project/render-components.ts";
import { type RenderResult, renderThroughApi } from "../api.ts";
import type { Project } from "../model/project.ts";

export interface Renders {
  /** Each component's result, by component id. */
  renders: Record<string, RenderResult>;
  /** A render of the latest change is under way. */
  pending: boolean;
  /** Forgets every result (a new project was opened). */
  reset: () => void;
}

export function useRenders(project: Project | undefined): Renders {
  const [renders, setRenders] = useState<Record<string, RenderResult>>({});
  const [pending, setPending] = useState(false);
  const generation = useRef(0);
  useEffect(() => {
    if (!project) return;
    const current = ++generation.current;
    setPending(true);
    const timer = setTimeout(async () => {
      const results = await renderCollectingErrors(project.components, {
        defaultNamespace: project.project.namespace,
        automationProfile: project.project.automationProfile,
        render: renderThroughApi,
        concurrent: true,
      });
      if (current !== generation.current) return;
      setRenders(Object.fromEntries(results.map((result) => [result.component.id, result])));
      setPending(false);
    }, 120);
    return () => clearTimeout(timer);
  }, [project]);
  return { renders, pending, reset: () => setRenders({}) };
}
