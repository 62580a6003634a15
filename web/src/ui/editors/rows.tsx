// What every structured editor's rows share: the move-up and remove buttons of a reorderable
// row, a datalist of suggestions, and stable keys for rows of a JSON list (which has no ids), so
// moving or removing a row keeps each row's own state (open sections, focus) with that row.
import type { JSX } from "preact";
import { useRef } from "preact/hooks";
import { useT } from "../../i18n/i18n.ts";
import { IconButton } from "../common.tsx";

export function Datalist(props: { id: string; values: readonly string[] }): JSX.Element {
  return (
    <datalist id={props.id}>
      {props.values.map((value) => (
        <option key={value} value={value} />
      ))}
    </datalist>
  );
}

/** The ↑ and × of a reorderable row. */
export function RowActions(props: {
  index: number;
  removeTitle: string;
  onMoveUp: () => void;
  onRemove: () => void;
}): JSX.Element {
  const t = useT();
  return (
    <>
      <IconButton
        icon="↑"
        title={t("rows.moveUp")}
        disabled={props.index === 0}
        onClick={props.onMoveUp}
      />
      <IconButton icon="×" title={props.removeTitle} onClick={props.onRemove} />
    </>
  );
}

interface ListKeys {
  /** One key per row, in row order. */
  keys: readonly string[];
  /** Call with the list's own move: the keys follow their rows. */
  move(from: number, to: number): void;
  /** Call with the list's own removal. */
  remove(index: number): void;
}

let keysMade = 0;
function freshKey(): string {
  keysMade += 1;
  return `row${keysMade}`;
}

/**
 * Keys for the rows of a list of `length`: a row keeps its key when rows are moved or removed
 * through `move` and `remove`; rows added at the end get new keys; a list that changed length
 * some other way (its JSON edited by hand) keeps the keys of the rows that are still there.
 */
export function useListKeys(length: number): ListKeys {
  const keys = useRef<string[]>([]);
  const current = keys.current;
  if (current.length > length) current.length = length;
  while (current.length < length) current.push(freshKey());
  return {
    keys: current,
    move(from, to) {
      const [key] = current.splice(from, 1);
      if (key !== undefined) current.splice(to, 0, key);
    },
    remove(index) {
      current.splice(index, 1);
    },
  };
}
