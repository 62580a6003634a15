// Which structured editor a field gets: catalogue data (a field's `"editor"` in component.json or
// a registry-item file), so a custom item that declares `"editor": "inventory"` on a field gets
// the inventory editor for it, exactly as the built-in inventory does.
import type { ItemMeta } from "../../../../src/core/item.ts";
import type { EditorKind } from "../../../../src/core/vocabulary.ts";

export type StructuredKind = EditorKind;

/** The structured editor a field gets, as its item's metadata declares; none when undeclared. */
export function structuredKind(
  meta: Pick<ItemMeta, "editors"> | undefined,
  field: string,
): StructuredKind | undefined {
  return meta && Object.hasOwn(meta.editors, field) ? meta.editors[field] : undefined;
}
