// The template context: `name`, `namespace`, `labels`, declared fields with their defaults,
// supplied undeclared fields, and kiln's `automation_profile`; JSON-valued fields; the
// required-field rule.
import { KilnError } from "./errors.ts";
import { type RegistryItem, referenceOf } from "./item.ts";
import { type Decoder, variant } from "./shape.ts";
import { AUTOMATION_PROFILES, type AutomationProfile } from "./vocabulary.ts";

export const DEFAULT_AUTOMATION_PROFILE: AutomationProfile = "cm";

export function isAutomationProfile(value: unknown): value is AutomationProfile {
  return (AUTOMATION_PROFILES as readonly unknown[]).includes(value);
}

/** A profile in a JSON document (a preset, a render request), worded like serde's enums. */
export const decodeAutomationProfile: Decoder<AutomationProfile> = variant(AUTOMATION_PROFILES);

/** A profile named where `where` says (a kiln.toml key, a preset key) that kiln does not know. */
export function unknownProfileError(where: string, value: unknown): KilnError {
  return new KilnError(
    "invalid_request",
    `${where} must be one of ${AUTOMATION_PROFILES.map((profile) => `\`${profile}\``).join(", ")}, got ${JSON.stringify(value)}`,
    "`ansible` writes the names the automation tool reads (ansible_host, ansible.cfg); `cm`, the default, the specification's (cm_host, cm.cfg)",
  );
}

export interface RenderInput {
  /** `name` in the template context. */
  name: string;
  /** Supplied field values; every value is a string (JSON-valued fields hold JSON text). */
  fields?: Record<string, string>;
  /** Supplied labels; `app` defaults to `name`. */
  labels?: Record<string, string>;
  /** Namespace used when no `namespace` field is supplied (depends on the caller). */
  defaultNamespace: string;
  /** The project's automation tool profile; `cm` when absent. */
  automationProfile?: AutomationProfile | undefined;
}

/**
 * A value whose first non-whitespace character is `[` or `{` is parsed as JSON: an array gives
 * a list, an object a map; anything else (including invalid JSON) stays the original string.
 */
export function jsonValued(value: string, parsedJson?: ReadonlyMap<string, unknown>): unknown {
  const first = value.trimStart()[0];
  if (first !== "[" && first !== "{") return value;
  try {
    const parsed: unknown = parsedJson?.has(value) ? parsedJson.get(value) : JSON.parse(value);
    return typeof parsed === "object" && parsed !== null ? parsed : value;
  } catch {
    return value;
  }
}

/**
 * The fixed message for a required field without a value, `--<field> is required for
 * <reference>` (the same text in the CLI and the API), and where to give it: the `fields` of a
 * preset component or a render request (the CLI says `--set` instead, see `missingRequiredField`).
 */
export function requiredFieldError(field: string, item: RegistryItem): KilnError {
  const example = item.fields.find((candidate) => candidate.name === field)?.example;
  return new KilnError(
    "invalid_request",
    `--${field} is required for ${referenceOf(item)}`,
    `give it a value in the component's fields: "fields": {${JSON.stringify(field)}: ${example === undefined ? '"<value>"' : JSON.stringify(example)}}`,
    { field, path: "", rule: "missing", expected: "is required", code: "required", params: {} },
  );
}

/**
 * The field a `requiredFieldError` message names, or undefined for any other message (the
 * message is all that crosses from a render worker).
 */
export function missingRequiredField(message: string): string | undefined {
  const at = message.indexOf(" is required for ");
  if (!message.startsWith("--") || at <= 2) return undefined;
  return message.slice(2, at);
}

/**
 * Sets `key` as an own property of `target` (a render's context, kiln.lock's sorted JSON).
 */
export function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty for `__proto__` only: there an assignment would change the prototype
  // instead of setting a key. Every other key is assigned: defineProperty turns the object into
  // a slow dictionary, which costs every render a few microseconds and a third of serializing a
  // preset's lock (measured).
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/**
 * The template context of one component. `parsedJson` holds JSON texts already parsed (by
 * `validateInput`), by text; the rest are parsed here.
 */
export function buildContext(
  item: RegistryItem,
  input: RenderInput,
  parsedJson?: ReadonlyMap<string, unknown>,
): Record<string, unknown> {
  const supplied = input.fields ?? {};
  const has = (key: string) => Object.hasOwn(supplied, key);
  const context: Record<string, unknown> = {};
  // first, so that a field of that name (a custom item's own) wins, as every field does
  setKey(context, "automation_profile", input.automationProfile ?? DEFAULT_AUTOMATION_PROFILE);
  for (const field of item.fields) {
    if (field.name === "namespace") continue; // its default is never applied
    if (has(field.name)) continue; // set with the supplied values below
    if (field.default !== undefined)
      setKey(context, field.name, jsonValued(field.default, parsedJson));
    else if (field.required) throw requiredFieldError(field.name, item);
  }
  for (const [key, value] of Object.entries(supplied))
    setKey(context, key, jsonValued(value, parsedJson));
  const labels: Record<string, string> = {};
  setKey(labels, "app", input.name);
  for (const [key, value] of Object.entries(input.labels ?? {})) setKey(labels, key, value);
  context.name = input.name;
  context.namespace = has("namespace") ? supplied.namespace : input.defaultNamespace;
  context.labels = labels;
  return context;
}
