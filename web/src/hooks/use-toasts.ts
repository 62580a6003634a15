// Short messages in a corner: at most four at once, each gone after a few seconds (longer when
// it offers an action, such as undo).
import { useCallback, useState } from "preact/hooks";
import type { Toast } from "../ui/common.tsx";

export function useToasts(): {
  toasts: Toast[];
  toast: (text: string, tone?: Toast["tone"], action?: Toast["action"]) => void;
  dismiss: (id: number) => void;
} {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => {
    setToasts((list) => list.filter((t) => t.id !== id));
  }, []);
  const toast = useCallback(
    (text: string, tone: Toast["tone"] = "info", action?: Toast["action"]) => {
      const id = Date.now() + Math.random();
      setToasts((list) => [...list.slice(-3), { id, text, tone, action }]);
      setTimeout(() => dismiss(id), action ? 10_000 : 6_000);
    },
    [dismiss],
  );
  return { toasts, toast, dismiss };
}
