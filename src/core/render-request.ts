// The body of POST /api/render, declared once (RENDER_REQUEST in src/core/wire-shapes.ts, from
// which its decoder and the OpenAPI document's RenderRequest are made) and decoded with the
// core's serde-worded rules: a missing key or a wrong type is a ShapeError whose message becomes
// the 422 detail.

import { DEFAULT_NAMESPACE } from "./config.ts";
import type { RenderInput } from "./context.ts";
import { type Decoder, ShapeError } from "./shape.ts";
import { FIELD_SHORTCUTS } from "./shortcuts.ts";
import type { Decoded } from "./wire.ts";
import { decodeRenderRequestBody } from "./wire-decoders.ts";
import { FrameworkError, MESSAGES } from "./wire-errors.ts";
import type { RENDER_REQUEST } from "./wire-shapes.ts";

type DecodedRequest = Decoded<typeof RENDER_REQUEST>;

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
  toRenderRequest(decodeRenderRequestBody(value, path));

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
