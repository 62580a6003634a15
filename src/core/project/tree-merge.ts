// The three-way merge of keyed entries, shared by the YAML and INI merges (yaml-merge.ts,
// ini-merge.ts): a mapping's keys, a sequence's items by their identity, an INI section's keys
// or hosts. Each side is a list of entries with an id; the result keeps ours's order (the file
// the user edits), drops what theirs deleted where ours left it as it was, and inserts what
// theirs added after the entry that precedes it in theirs. Where both sides changed one entry
// differently the caller's conflict rule decides. Pure: runs in the browser too.

/** Which side a conflict takes while merging: the user's, the new render's, or the base's. */
export type ConflictPick = "ours" | "theirs" | "base";

/** One structural conflict: a key path and each side's text there (undefined: absent). */
export interface KeyConflict {
  /** Where in the file, e.g. `spec.template.spec.containers[name=api].image` or `[db:vars] x`. */
  keyPath: string;
  /** The text on disk there, as one or more lines; undefined where the user removed it. */
  ours: string | undefined;
  /** The text of the new render there; undefined where the new render removed it. */
  theirs: string | undefined;
  /** 1-based line of the conflict in the file on disk and in the new render (0: none). */
  oursLine: number;
  theirsLine: number;
}

/** An entry of a keyed collection: its identity and the item itself. */
export interface Entry<Item> {
  id: string;
  item: Item;
}

/** How the caller merges and compares items, and settles the conflicts of a whole entry. */
export interface EntryRules<Item> {
  /** An item of theirs as the result holds it (a copy, when items belong to their file). */
  adopt(item: Item): Item;
  /** Do two items hold the same content (whatever their formatting)? */
  same(a: Item, b: Item): boolean;
  /**
   * The merged item of an entry present on both sides (base: undefined when both added it);
   * undefined when the entry goes (a conflict settled by a side that lacks it).
   */
  merge(base: Item | undefined, ours: Item, theirs: Item, id: string): Item | undefined;
  /**
   * An entry one side removed and the other changed: records the conflict and gives the item
   * that stays, or undefined when the side taken removed it.
   */
  settleRemoval(
    id: string,
    base: Item,
    ours: Item | undefined,
    theirs: Item | undefined,
  ): Item | undefined;
}

/** Merges three lists of entries; each id at most once per list (the caller checks). */
export function mergeEntries<Item>(
  base: readonly Entry<Item>[],
  ours: readonly Entry<Item>[],
  theirs: readonly Entry<Item>[],
  rules: EntryRules<Item>,
): Entry<Item>[] {
  const baseById = new Map(base.map((entry) => [entry.id, entry.item]));
  const theirsById = new Map(theirs.map((entry) => [entry.id, entry.item]));
  const oursIds = new Set(ours.map((entry) => entry.id));
  const result: Entry<Item>[] = [];
  for (const { id, item } of ours) {
    const baseItem = baseById.get(id);
    const theirsItem = theirsById.get(id);
    if (theirsItem !== undefined) {
      const merged = rules.merge(baseItem, item, theirsItem, id);
      if (merged !== undefined) result.push({ id, item: merged });
    } else if (baseItem === undefined) {
      result.push({ id, item }); // added by the user
    } else if (!rules.same(baseItem, item)) {
      // removed upstream, changed by the user
      const kept = rules.settleRemoval(id, baseItem, item, undefined);
      if (kept !== undefined) result.push({ id, item: kept });
    }
    // else removed upstream and untouched by the user: gone
  }
  theirs.forEach(({ id, item }, index) => {
    if (oursIds.has(id)) return;
    const baseItem = baseById.get(id);
    let added: Item | undefined = rules.adopt(item);
    if (baseItem !== undefined) {
      // removed by the user: stays removed unless upstream changed it too
      if (rules.same(baseItem, item)) return;
      added = rules.settleRemoval(id, baseItem, undefined, item);
    }
    if (added !== undefined) {
      result.splice(insertionIndex(result, theirs, index), 0, { id, item: added });
    }
  });
  return result;
}

/** Where an entry theirs added goes: after the nearest entry before it in theirs that we hold. */
function insertionIndex<Item>(
  result: readonly Entry<Item>[],
  theirs: readonly Entry<Item>[],
  index: number,
): number {
  for (let before = index - 1; before >= 0; before--) {
    const id = theirs[before]?.id;
    const at = result.findIndex((entry) => entry.id === id);
    if (at >= 0) return at + 1;
  }
  return 0;
}

/** Are the ids of a list unique? A list with repeated ids is not merged by id. */
export function uniqueIds(entries: readonly { id: string }[]): boolean {
  return new Set(entries.map((entry) => entry.id)).size === entries.length;
}
