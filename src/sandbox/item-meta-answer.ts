// The answer of GET /api/registry/meta for one item: kiln's catalogue metadata (the core's
// toItemMetaView) and the item's fingerprint, the `sha256:` kiln.lock records for it - so the
// dashboard can write the lock of a project's zip exactly as `kiln setup` writes it.

import { type ItemMetaView, type RegistryItem, toItemMetaView } from "../core/item.ts";
import { itemFingerprint } from "../core/project/lock-entry.ts";
import { sha256Hex } from "../node/lock-compression.ts";

export interface ItemMetaAnswer extends ItemMetaView {
  fingerprint: string;
}

export function itemMetaAnswer(item: RegistryItem): ItemMetaAnswer {
  return { ...toItemMetaView(item), fingerprint: itemFingerprint(item, sha256Hex) };
}
