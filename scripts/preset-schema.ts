// The built-in components' part of the preset file's JSON Schema
// (src/core/schemas/preset.schema.json, `$defs/builtins`), from the catalogue: for a component
// whose reference names a built-in, its fields with their descriptions, examples and defaults,
// the fields it requires, and what each value must be (a kiln format, or JSON text of a JSON
// Schema) - so an editor completes and checks a preset's field values, and the schema cannot
// drift from the components. The rest of that schema is the preset's declaration
// (src/core/wire-shapes.ts). `npm run schemas` (scripts/wire-schemas.ts) rewrites the file; a
// test (test/core/schemas.test.ts) fails when it is stale.
import { fileURLToPath } from "node:url";
import {
  type FieldCheck,
  type FieldDefinition,
  itemChecks,
  type RegistryItem,
} from "../src/core/item.ts";
import { builtinRegistry } from "../src/node/builtin-registry.ts";

export const PRESET_SCHEMA_PATH = fileURLToPath(
  new URL("../src/core/schemas/preset.schema.json", import.meta.url),
);

/** A regular expression matching the string itself. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * What a value declared with `check` must be. A format is kiln's own (`port`, `dns-label`...),
 * which editors that do not know it ignore; a JSON Schema applies to the JSON text the string
 * holds (`contentSchema`, which editors show but JSON Schema does not enforce).
 */
function valueRule(check: FieldCheck | undefined): Record<string, unknown> {
  const rule: Record<string, unknown> = {};
  if (check?.format) {
    rule.type = "string";
    rule.format = check.format;
    if (check.minimum !== undefined) rule["x-minimum"] = check.minimum;
    if (check.maximum !== undefined) rule["x-maximum"] = check.maximum;
  }
  if (check?.schema !== undefined) {
    rule.contentMediaType = "application/json";
    rule.contentSchema = check.schema;
  }
  return rule;
}

/** One field's value: a string, described as the component describes it. */
function fieldSchema(field: FieldDefinition, check: FieldCheck | undefined): object {
  const schema: Record<string, unknown> = { type: "string" };
  if (field.description) schema.description = field.description;
  if (field.default !== undefined) schema.default = field.default;
  if (field.example !== undefined) schema.examples = [field.example];
  const rule = valueRule(check);
  if (Object.keys(rule).length === 0) return schema;
  // an empty value of a field that is not required means "unset" and is not checked
  if (field.required) return { ...schema, ...rule };
  return { ...schema, anyOf: [{ const: "" }, rule] };
}

/** The rule for a component whose reference names `item`: its name and its fields. */
function componentRule(item: RegistryItem): object {
  const checks = itemChecks(item);
  const properties: Record<string, object> = {};
  for (const field of item.fields) {
    properties[field.name] = fieldSchema(field, checks.fields[field.name]);
  }
  // a required field without a default must be given (its default is never applied to namespace)
  const required = item.fields
    .filter(
      (field) => field.required && (field.default === undefined || field.name === "namespace"),
    )
    .map((field) => field.name);
  const then: Record<string, unknown> = {
    type: "object",
    properties: {
      ...(checks.nameFormat ? { name: { type: "string", format: checks.nameFormat } } : {}),
      fields: {
        type: ["object", "null"],
        properties,
        ...(required.length > 0 ? { required } : {}),
      },
    },
  };
  if (required.length > 0) then.required = ["fields"];
  return {
    if: {
      type: "object",
      properties: { reference: { type: "string", pattern: `(^|/)${literal(item.name)}$` } },
      required: ["reference"],
    },
    then,
  };
}

/** `$defs/builtins`: one rule per built-in component, in registry order. */
export function builtinsSchema(): object {
  return {
    description:
      "The built-in components' fields: a component whose reference's last segment names a built-in (k8s/deployment, deployment, ./deployment) is that component.",
    allOf: builtinRegistry().items.map(componentRule),
  };
}
