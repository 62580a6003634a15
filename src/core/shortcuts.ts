// The field shortcuts: a few fields common to the Kubernetes components can be set without
// naming them as fields - `kiln add --target-port 8080`, `{"targetPort": 8080}` in POST
// /api/render - and both mean `target_port=8080`. One table, so the CLI and the HTTP API can
// never disagree on which shortcut sets which field or how large its number may be.

export interface FieldShortcut {
  /** The field it sets. */
  readonly field: string;
  /** The CLI option, without `--`. */
  readonly option: string;
  /** Its one-letter CLI flag, without `-` (kikx's: `-i` for `--image`). */
  readonly short: string;
  /** The top-level key of a render request. */
  readonly key: string;
  /** A whole number of this many bits (serde's u16, u32), not free text. */
  readonly bits?: 16 | 32;
}

/** In a fixed order, which the CLI's help and the render request's keys follow. */
export const FIELD_SHORTCUTS = [
  { field: "image", option: "image", short: "i", key: "image" },
  { field: "replicas", option: "replicas", short: "r", key: "replicas", bits: 32 },
  { field: "port", option: "port", short: "p", key: "port", bits: 16 },
  { field: "target_port", option: "target-port", short: "t", key: "targetPort", bits: 16 },
  { field: "namespace", option: "namespace", short: "N", key: "namespace" },
  { field: "host", option: "host", short: "H", key: "host" },
  { field: "path", option: "path", short: "P", key: "path" },
  { field: "service", option: "service", short: "S", key: "service" },
] as const satisfies readonly FieldShortcut[];

export type Shortcut = (typeof FIELD_SHORTCUTS)[number];

/** The largest value a numeric shortcut takes (65535 for a port), undefined for text. */
export function shortcutMax(shortcut: FieldShortcut): number | undefined {
  return shortcut.bits === undefined ? undefined : 2 ** shortcut.bits - 1;
}
