// The body of POST /api/render, decoded with the core's serde-worded decoders: a missing key or
// a wrong type is a ShapeError whose message becomes the 422 detail.
import {
  array,
  DEFAULT_NAMESPACE,
  type Decoder,
  decodeAutomationProfile,
  type FieldSpec,
  optional,
  type RenderInput,
  record,
  required,
  ShapeError,
  string,
  struct,
  unsigned,
} from "../core/index.ts";
import { FIELD_SHORTCUTS, type Shortcut } from "../core/project/shortcuts.ts";
import { FrameworkError, MESSAGES } from "./errors.ts";

const decodeLabel = struct("Label", { key: required(string), value: required(string) });

/** Each shortcut key and what it decodes to, from the table (Object.fromEntries loses both). */
type ShortcutSpecs = {
  [S in Shortcut as S["key"]]: FieldSpec<S extends { bits: number } ? number : string> & {
    optional: true;
  };
};

/** The top-level shortcut keys (`image`, `targetPort`, ...), from the core's one table. */
const shortcutSpecs = Object.fromEntries(
  FIELD_SHORTCUTS.map((shortcut): [string, FieldSpec<unknown>] => [
    shortcut.key,
    "bits" in shortcut ? optional(unsigned(shortcut.bits)) : optional(string),
  ]),
) as unknown as ShortcutSpecs;

const decodeRequest = struct("RenderRequest", {
  reference: required(string),
  name: required(string),
  fields: optional(record(string)),
  labels: optional(array(decodeLabel)),
  defaultNamespace: optional(string),
  // kiln's own key (the spec ignores unknown keys, so clients that never send it get the
  // spec's output): the automation tool profile, `cm` or `ansible`
  automationProfile: optional(decodeAutomationProfile),
  ...shortcutSpecs,
});

type DecodedRequest = ReturnType<typeof decodeRequest>;

export interface RenderRequest extends RenderInput {
  reference: string;
  fields: Record<string, string>;
  labels: Record<string, string>;
}

/** Sets an own key even when it is named `__proto__`. */
function put(target: Record<string, string>, key: string, value: string): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** Shortcuts set fields; a key in `fields` wins; numbers become strings; labels become a map. */
export function toRenderRequest(decoded: DecodedRequest): RenderRequest {
  const fields: Record<string, string> = {};
  for (const { key, field } of FIELD_SHORTCUTS) {
    const value = decoded[key];
    if (value !== undefined) put(fields, field, String(value));
  }
  for (const [key, value] of Object.entries(decoded.fields ?? {})) put(fields, key, value);
  const labels: Record<string, string> = {};
  for (const label of decoded.labels ?? []) put(labels, label.key, label.value);
  return {
    reference: decoded.reference,
    name: decoded.name,
    fields,
    labels,
    defaultNamespace: decoded.defaultNamespace ?? DEFAULT_NAMESPACE,
    automationProfile: decoded.automationProfile,
  };
}

export const decodeRenderRequest: Decoder<RenderRequest> = (value, path) =>
  toRenderRequest(decodeRequest(value, path));

/** Decodes parsed JSON into a RenderRequest, or throws the 422 framework error. */
export function parseRenderRequest(json: unknown): RenderRequest {
  try {
    return decodeRenderRequest(json, "");
  } catch (error) {
    if (error instanceof ShapeError)
      throw new FrameworkError(422, MESSAGES.wrongShape(error.message));
    throw error;
  }
}
