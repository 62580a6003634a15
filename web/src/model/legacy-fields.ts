// Which of an item's fields are its legacy single play: a playbook item with a plays editor
// still takes the older `hosts` and `roles` fields (one play, used when `plays` is empty). Its
// catalogue metadata names them as the `hosts` and `roles` facts, so the form reads them from
// there, not from field names, and shows them folded under "Legacy", below the plays editor.
import type { ItemMeta } from "../../../src/core/item.ts";

/** The fields the item's plays editor supersedes: its `hosts` and `roles` facts. */
export function legacyPlayFields(meta: ItemMeta | undefined): Set<string> {
  if (meta === undefined) return new Set();
  const hasPlaysEditor = Object.values(meta.editors).includes("plays");
  if (!hasPlaysEditor) return new Set();
  const names = [meta.facts.hosts, meta.facts.roles].filter(
    (name): name is string => name !== undefined && meta.editors[name] !== "plays",
  );
  return new Set(names);
}
