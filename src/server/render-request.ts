// The body of POST /api/render, decoded with the core's serde-worded decoders: a missing key or
// a wrong type is a ShapeError whose message becomes the 422 detail.
import {
  array,
  DEFAULT_NAMESPACE,
  type Decoder,
  optional,
  type RenderInput,
  record,
  required,
  ShapeError,
  string,
  struct,
  unsigned,
} from "../core/index.ts";
import { FrameworkError, MESSAGES } from "./errors.ts";

const decodeLabel = struct("Label", { key: required(string), value: required(string) });

const decodeRequest = struct("RenderRequest", {
  reference: required(string),
  name: required(string),
  fields: optional(record(string)),
  labels: optional(array(decodeLabel)),
  defaultNamespace: optional(string),
  image: optional(string),
  replicas: optional(unsigned(32)),
  port: optional(unsigned(16)),
  targetPort: optional(unsigned(16)),
  namespace: optional(string),
  host: optional(string),
  path: optional(string),
  service: optional(string),
});

type DecodedRequest = ReturnType<typeof decodeRequest>;

/** Top-level shortcut keys and the field each sets. */
const SHORTCUTS = [
  ["image", "image"],
  ["replicas", "replicas"],
  ["port", "port"],
  ["targetPort", "target_port"],
  ["namespace", "namespace"],
  ["host", "host"],
  ["path", "path"],
  ["service", "service"],
] as const satisfies readonly (readonly [keyof DecodedRequest, string])[];

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
  for (const [key, field] of SHORTCUTS) {
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
