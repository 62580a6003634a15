// A JSON object edited as rows of key and value (group vars, host vars, labels). Values that are
// not strings (numbers, booleans, lists) are shown as JSON and stay that type until retyped.
import { scalarText } from "./json-style.ts";

export interface KvRow {
  key: string;
  value: string;
  /** The value is not a string in the JSON (number, boolean, list, object). */
  typed: boolean;
}

export function toRows(object: Record<string, unknown>): KvRow[] {
  return Object.entries(object).map(([key, value]) => ({
    key,
    value: scalarText(value),
    typed: typeof value !== "string",
  }));
}

/**
 * Rows back to an object. A typed row keeps its JSON type while its text still parses as JSON;
 * rows with an empty key are dropped, a later duplicate key wins.
 */
export function fromRows(
  rows: readonly KvRow[],
  original: Record<string, unknown> = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const row of rows) {
    if (row.key === "") continue;
    const before = original[row.key];
    if (row.typed && before !== undefined && scalarText(before) === row.value) {
      out[row.key] = before;
      continue;
    }
    if (row.typed) {
      try {
        out[row.key] = JSON.parse(row.value);
        continue;
      } catch {
        // not JSON any more: a string
      }
    }
    out[row.key] = row.value;
  }
  return out;
}
