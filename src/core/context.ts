// The template context: `name`, `namespace`, `labels`, declared fields with their defaults,
// supplied undeclared fields; JSON-valued fields; the required-field rule.
import { KilnError } from "./errors.ts";
import { type RegistryItem, referenceOf } from "./item.ts";

export interface RenderInput {
  /** `name` in the template context. */
  name: string;
  /** Supplied field values; every value is a string (JSON-valued fields hold JSON text). */
  fields?: Record<string, string>;
  /** Supplied labels; `app` defaults to `name`. */
  labels?: Record<string, string>;
  /** Namespace used when no `namespace` field is supplied (depends on the caller). */
  defaultNamespace: string;
}

/**
 * A value whose first non-whitespace character is `[` or `{` is parsed as JSON: an array gives
 * a list, an object a map; anything else (including invalid JSON) stays the original string.
 */
export function jsonValued(value: string): unknown {
  const first = value.trimStart()[0];
  if (first !== "[" && first !== "{") return value;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === "object" && parsed !== null ? parsed : value;
  } catch {
    return value;
  }
}

export function requiredFieldError(field: string, item: RegistryItem): KilnError {
  return new KilnError("invalid_request", `--${field} is required for ${referenceOf(item)}`);
}

function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty: a field named `__proto__` is an ordinary key, not a prototype change
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

export function buildContext(item: RegistryItem, input: RenderInput): Record<string, unknown> {
  const supplied = input.fields ?? {};
  const has = (key: string) => Object.hasOwn(supplied, key);
  const context: Record<string, unknown> = {};
  for (const field of item.fields) {
    if (field.name === "namespace") continue; // its default is never applied
    if (has(field.name)) continue; // set with the supplied values below
    if (field.default !== undefined) setKey(context, field.name, jsonValued(field.default));
    else if (field.required) throw requiredFieldError(field.name, item);
  }
  for (const [key, value] of Object.entries(supplied)) setKey(context, key, jsonValued(value));
  const labels: Record<string, string> = {};
  setKey(labels, "app", input.name);
  for (const [key, value] of Object.entries(input.labels ?? {})) setKey(labels, key, value);
  context.name = input.name;
  context.namespace = has("namespace") ? supplied.namespace : input.defaultNamespace;
  context.labels = labels;
  return context;
}
