import { errorMessage } from "../../../src/core/errors.ts";
import { translate } from "../i18n/i18n.ts";
// JSON-valued fields are strings that hold JSON. Editors change the parsed value and write it
// back in the style the text already had (compact, `", "`-spaced on one line, or indented), so an
// edit changes only what was edited and an untouched field stays byte-identical.

export type JsonStyle =
  | { kind: "compact" }
  | { kind: "spaced" }
  | { kind: "pretty"; indent: number };

/** The style of a JSON text: indented when it spans lines, spaced when `, `/`: ` separate. */
export function detectJsonStyle(text: string): JsonStyle {
  if (text.trim().includes("\n")) {
    const indent = /\n( +)\S/.exec(text)?.[1]?.length ?? 2;
    return { kind: "pretty", indent };
  }
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === "," || char === ":") {
      return text[index + 1] === " " ? { kind: "spaced" } : { kind: "compact" };
    }
  }
  return { kind: "compact" };
}

function spaced(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(spaced).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(
      ([, entry]) => entry !== undefined,
    );
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}: ${spaced(entry)}`).join(", ")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function stringifyJson(value: unknown, style: JsonStyle): string {
  switch (style.kind) {
    case "compact":
      return JSON.stringify(value);
    case "spaced":
      return spaced(value);
    case "pretty":
      return JSON.stringify(value, null, style.indent);
  }
}

/** Writes `value` in the style of `original` (compact when there is no original). */
export function stringifyLike(value: unknown, original: string | undefined): string {
  return stringifyJson(value, original ? detectJsonStyle(original) : { kind: "spaced" });
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Parses a JSON-valued field that must hold an array (empty text is an empty array). */
export function parseJsonArray(text: string | undefined): Parsed<unknown[]> {
  if (text === undefined || text.trim() === "") return { ok: true, value: [] };
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return { ok: false, error: translate("json.expectedArray") };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}

/** Parses a JSON-valued field that must hold an object (empty text is an empty object). */
export function parseJsonObject(text: string | undefined): Parsed<Record<string, unknown>> {
  if (text === undefined || text.trim() === "") return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return { ok: false, error: translate("json.expectedObject") };
    }
    return { ok: true, value: value as Record<string, unknown> };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A copy of `object` with `key` set (kept in place when present) or removed when `undefined`. */
export function withKey<T extends Record<string, unknown>>(
  object: T,
  key: string,
  value: unknown,
): T {
  const out: Record<string, unknown> = {};
  let placed = false;
  for (const [existing, entry] of Object.entries(object)) {
    if (existing === key) {
      placed = true;
      if (value !== undefined) out[key] = value;
    } else {
      out[existing] = entry;
    }
  }
  if (!placed && value !== undefined) out[key] = value;
  return out as T;
}

export function replaceAt<T>(list: readonly T[], index: number, value: T): T[] {
  return list.map((entry, position) => (position === index ? value : entry));
}

export function removeAt<T>(list: readonly T[], index: number): T[] {
  return list.filter((_, position) => position !== index);
}

export function move<T>(list: readonly T[], from: number, to: number): T[] {
  if (to < 0 || to >= list.length) return [...list];
  const out = [...list];
  const [entry] = out.splice(from, 1);
  out.splice(to, 0, entry as T);
  return out;
}

/** Shows a JSON scalar as an input's text (strings as they are, others as JSON). */
export function scalarText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  return JSON.stringify(value);
}
