// Values are checked against what their item declares, before anything renders: the component
// name against `kiln.nameFormat`, each field's value against its `format` (src/core/formats.ts)
// and, for JSON-valued fields, its JSON `schema` (ajv, draft 2020-12). `renderItem` calls
// `validateInput` first, so the CLI, the service's workers, presets and the dashboard's renders
// all get the same refusal. An item that declares nothing is not checked at all: its values
// reach the templates unchecked (a value starting with `[` or `{` is parsed as JSON; invalid
// JSON stays a string).
//
// Messages start like the checking filters' refusals, `<reference>: \`<field>...\``, then say
// where inside a JSON value (`hosts[0].members[1].cm_port`) and what was expected; JSON that
// does not parse gets its line and column. The detail repeats the field's description and
// example, which is what to do.
//
// Schemas of the built-in components are compiled ahead of time into
// registry/field-validators.cjs (scripts/field-validators.ts, a test keeps it current), so a
// one-shot CLI run never loads ajv for them; any other schema is compiled here on first use,
// once per item, with ajv loaded only then.
import type { ErrorObject, Options } from "ajv";
import type { RenderInput } from "./context.ts";
import { closest } from "./did-you-mean.ts";
import { errorMessage, type FieldRule, type FieldRuleParams, KilnError } from "./errors.ts";
import { shown } from "./filters.ts";
import { formatFailure, formatProblem, SCHEMA_FORMATS } from "./formats.ts";
import {
  type FieldCheck,
  type FieldDefinition,
  invalidItem,
  itemChecks,
  type RegistryItem,
  referenceOf,
} from "./item.ts";
import { JsonTextError, parseJsonText } from "./json-text.ts";
import {
  lazyLibraries,
  type PrecompiledValidators,
  type SchemaFormatDefinitions,
  type Validator,
} from "./lazy-libraries.ts";
import type { FieldFormat } from "./vocabulary.ts";

/** A compiled schema: ajv's validate function (or its standalone code). */

/**
 * ajv's options, the same for the schemas compiled ahead of time (scripts/field-validators.ts,
 * which adds strict mode for kiln's own schemas) and at run time: the first error only, with
 * the schema beside it (`verbose`) for the message; unknown keywords and formats ignored, as
 * JSON Schema says; nothing kept by `$id` (each item's schemas are its own).
 */
export const AJV_OPTIONS = {
  allErrors: false,
  verbose: true,
  allowUnionTypes: true,
  strict: false,
  logger: false,
  addUsedSchema: false,
} as const satisfies Options;

type AjvInstance = import("ajv/dist/2020.js").default;
let ajvInstance: AjvInstance | undefined;

/** ajv with the standard formats (ajv-formats) and kiln's, loaded on first use. */
function ajv(): AjvInstance {
  if (!ajvInstance) {
    const { Ajv2020, addFormats } = lazyLibraries().ajv();
    const instance = new Ajv2020(AJV_OPTIONS);
    addFormats(instance);
    for (const [format, definition] of Object.entries(schemaFormatDefinitions())) {
      instance.addFormat(format, definition);
    }
    ajvInstance = instance;
  }
  return ajvInstance;
}

/** kiln's formats as JSON Schema formats, for ajv and for the validators compiled ahead of time. */
export function schemaFormatDefinitions(): SchemaFormatDefinitions {
  return Object.fromEntries(
    SCHEMA_FORMATS.map((format) => [
      format,
      {
        type: "string" as const,
        validate: (value: string) => formatProblem(format, value) === undefined,
      },
    ]),
  );
}

/** The file the built-ins' schemas are compiled into, beside the catalogue it comes from. */
export const FIELD_VALIDATORS_FILE = "field-validators.cjs";

let precompiled: PrecompiledValidators | undefined;

/**
 * The built-in component's validator of `field` compiled ahead of time, when it was compiled
 * from exactly this schema (an edited component.json falls back to compiling at run time).
 */
function precompiledValidator(
  reference: string,
  field: string,
  schema: unknown,
): Validator | undefined {
  precompiled ??= lazyLibraries().precompiledValidators(schemaFormatDefinitions());
  const fields = Object.hasOwn(precompiled, reference) ? precompiled[reference] : undefined;
  const entry = fields && Object.hasOwn(fields, field) ? fields[field] : undefined;
  return entry && entry.schema === JSON.stringify(schema) ? entry.validate : undefined;
}

/** Each item's compiled schemas, by field; kept as long as the item is. */
const compiled = new WeakMap<RegistryItem, Map<string, Validator>>();

function validatorFor(item: RegistryItem, field: string, schema: FieldCheck["schema"]): Validator {
  let fields = compiled.get(item);
  if (!fields) {
    fields = new Map();
    compiled.set(item, fields);
  }
  let validator = fields.get(field);
  if (!validator) {
    validator =
      precompiledValidator(referenceOf(item), field, schema) ?? compileSchema(item, field, schema);
    fields.set(field, validator);
  }
  return validator;
}

function compileSchema(item: RegistryItem, field: string, schema: FieldCheck["schema"]): Validator {
  const instance = ajv();
  try {
    return instance.compile(schema as object) as Validator;
  } catch (error) {
    const index = item.fields.findIndex((candidate) => candidate.name === field);
    throw invalidItem(referenceOf(item), `fields[${index}].schema: ${errorMessage(error)}`);
  } finally {
    // ajv keeps every schema it compiled; an item's are dropped with the item instead
    instance.removeSchema(schema as object);
  }
}

// --- messages -----------------------------------------------------------------------------

/** A JSON value as a message names what it got. */
function describeData(data: unknown): string {
  if (typeof data === "string") return `the text ${shown(data)}`;
  if (typeof data === "number" || typeof data === "boolean") return String(data);
  if (data === null) return "null";
  if (Array.isArray(data)) return "an array";
  return "an object";
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "a whole number",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
};

function typeList(types: readonly string[]): string {
  const names = [...new Set(types.map((type) => TYPE_NAMES[type] ?? type))];
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `/0/members/1/cm_port` of `data` as `[0].members[1].cm_port`. */
function pathText(pointer: string, data: unknown): string {
  if (pointer === "") return "";
  let at: unknown = data;
  let out = "";
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(at)) out += `[${key}]`;
    else out += IDENTIFIER.test(key) ? `.${key}` : `[${shown(key)}]`;
    at =
      typeof at === "object" && at !== null && Object.hasOwn(at, key)
        ? (at as Record<string, unknown>)[key]
        : undefined;
  }
  return out;
}

const depth = (error: ErrorObject) =>
  error.instancePath === "" ? 0 : error.instancePath.split("/").length - 1;

/** The schema's own words for what it expects, when it has them (its `description`). */
function described(error: ErrorObject): string | undefined {
  const parent = error.parentSchema as { description?: unknown } | undefined;
  return typeof parent?.description === "string" && parent.description !== ""
    ? parent.description
    : undefined;
}

const COMPARISONS: Record<string, string> = {
  ">=": "at least",
  "<=": "at most",
  ">": "more than",
  "<": "less than",
};

/** The keys a schema declares (`properties`), for suggestions. */
function declaredKeys(schema: unknown): string[] {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  return typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
}

/** A problem's English words and the same rule in parts (FieldProblem's `code` and `params`). */
interface Worded {
  text: string;
  rule: FieldRule;
}

/**
 * "is missing the key `role`", or, when the object holds a key that is a misspelling of a
 * missing one (`rol`), that key and what it was meant to be: the likelier mistake.
 */
function missingKeys(data: unknown, missing: readonly string[], known: readonly string[]): Worded {
  if (typeof data === "object" && data !== null && !Array.isArray(data)) {
    for (const key of Object.keys(data)) {
      if (known.includes(key) || missing.includes(key)) continue;
      const guess = closest(key, missing);
      if (guess) {
        return {
          text: `has an unknown key ${shown(key)}; did you mean \`${guess}\`?`,
          rule: {
            code: "json_unknown_key",
            params: { key: keyText(key), suggestion: guess, keys: [...known] },
          },
        };
      }
    }
  }
  return {
    text: `is missing the key ${missing.map((key) => `\`${key}\``).join(" or ")}`,
    rule: { code: "json_missing_key", params: { keys: [...missing] } },
  };
}

/** The bound keywords of JSON Schema, as the json_size rule's params name them. */
const SIZE_KEYWORDS: Record<string, FieldRuleParams["json_size"]["of"]> = {
  minLength: "characters",
  maxLength: "characters",
  minItems: "entries",
  maxItems: "entries",
  minProperties: "keys",
  maxProperties: "keys",
};

/** What one ajv error says, worded to follow the path, with its rule in parts. */
function describeError(error: ErrorObject): Worded {
  const params = error.params as Record<string, unknown>;
  const got = `got ${describeData(error.data)}`;
  const plainText = typeof error.data === "string";
  switch (error.keyword) {
    case "required":
      return missingKeys(
        error.data,
        [String(params.missingProperty)],
        declaredKeys(error.parentSchema),
      );
    case "additionalProperties":
    case "unevaluatedProperties": {
      const key = String(params.additionalProperty ?? params.unevaluatedProperty ?? "");
      const parent = error.parentSchema as { properties?: Record<string, unknown> } | undefined;
      const known = Object.keys(parent?.properties ?? {});
      const guess = closest(key, known);
      const hint = guess
        ? `; did you mean \`${guess}\`?`
        : known.length > 0
          ? `; its keys are ${known.map((name) => `\`${name}\``).join(", ")}`
          : "";
      return {
        text: `has an unknown key ${shown(key)}${hint}`,
        rule: {
          code: "json_unknown_key",
          params: { key: keyText(key), suggestion: guess, keys: known },
        },
      };
    }
  }
  const description = described(error);
  if (description) {
    return {
      text: `must be ${description}; ${got}`,
      rule: { code: "json_described", params: { description, plainText } },
    };
  }
  const limit = Number(params.limit);
  switch (error.keyword) {
    case "type": {
      const types = String(params.type).split(",");
      return {
        text: `must be ${typeList(types)}; ${got}`,
        rule: { code: "json_type", params: { types, plainText } },
      };
    }
    case "enum": {
      const values = (params.allowedValues as unknown[]).map((value) => JSON.stringify(value));
      return {
        text: `must be one of ${values.join(", ")}; ${got}`,
        rule: { code: "json_enum", params: { values } },
      };
    }
    case "const": {
      const value = JSON.stringify(params.allowedValue);
      return { text: `must be ${value}; ${got}`, rule: { code: "json_const", params: { value } } };
    }
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum": {
      const comparison = String(params.comparison);
      return {
        text: `must be ${COMPARISONS[comparison] ?? comparison} ${String(params.limit)}; ${got}`,
        rule: { code: "json_bound", params: { comparison, limit } },
      };
    }
    case "minLength":
    case "maxLength":
    case "minItems":
    case "maxItems":
    case "minProperties":
    case "maxProperties":
      return sizeProblem(error.keyword, limit, got);
    case "pattern": {
      const pattern = String(params.pattern);
      return {
        text: `must match the pattern ${pattern}; ${got}`,
        rule: { code: "json_pattern", params: { pattern } },
      };
    }
    case "format": {
      // kiln's own formats say what they take, as they do for a field
      const format = String(params.format) as FieldFormat;
      if (SCHEMA_FORMATS.includes(format) && typeof error.data === "string") {
        const failure = formatFailure(format, error.data);
        if (failure !== undefined) return failure;
      }
      return {
        text: `must be in the format \`${String(params.format)}\`; ${got}`,
        rule: { code: "json_format", params: { format } },
      };
    }
    case "uniqueItems": {
      const [first, second] = [Number(params.j), Number(params.i)];
      return {
        text: `must not hold the same entry twice (entries ${first} and ${second} are equal)`,
        rule: { code: "json_unique", params: { first, second } },
      };
    }
    default: {
      const message = error.message ?? "does not match its schema";
      return {
        text: message,
        rule: { code: "json_schema", params: { keyword: error.keyword, message } },
      };
    }
  }
}

/** A length, an entry count or a key count out of its bound, worded as the messages have it. */
function sizeProblem(keyword: string, limit: number, got: string): Worded {
  const of = SIZE_KEYWORDS[keyword] ?? "entries";
  const bound = keyword.startsWith("min") ? "min" : "max";
  const least = bound === "min" ? "at least" : "at most";
  const text =
    of === "characters"
      ? `must be ${least} ${limit} characters long; ${got}`
      : `must have ${least} ${limit} ${of}`;
  return { text, rule: { code: "json_size", params: { of, bound, limit } } };
}

interface Problem extends Worded {
  pointer: string;
}

/**
 * The one error worth showing among ajv's (the first error, plus the branches tried when a
 * value matched none of an `anyOf`'s forms): inside an `anyOf`, an error about the form the
 * value has (an unknown key of an object) beats "must be a string" from the form it has not;
 * when only types were wrong, the forms are listed (or the schema's description is used).
 */
function pickProblem(errors: readonly ErrorObject[]): Problem {
  const visible = errors.filter((error) => error.keyword !== "if");
  const last = visible.at(-1) as ErrorObject;
  if (last.keyword === "anyOf" || last.keyword === "oneOf") {
    if (last.keyword === "oneOf" && Array.isArray(last.params.passingSchemas)) {
      return {
        pointer: last.instancePath,
        text: "matches more than one of its forms",
        rule: { code: "json_several_forms", params: {} },
      };
    }
    // ajv stops at the first failure and forgets the errors of forms that matched, so what
    // came before is the forms this value tried (also through `$ref`s)
    const branches = visible.slice(0, -1);
    const specific = branches.filter(
      (error) => !(error.keyword === "type" && error.instancePath === last.instancePath),
    );
    if (specific.length > 0) {
      const deepest = Math.max(...specific.map(depth));
      const atDeepest = specific.filter((error) => depth(error) === deepest);
      const pointer = (atDeepest[0] as ErrorObject).instancePath;
      if (
        atDeepest.every((error) => error.keyword === "required" && error.instancePath === pointer)
      ) {
        const keys = [...new Set(atDeepest.map((error) => String(error.params.missingProperty)))];
        // the forms' own keys are declared beside the `anyOf` (or in the required branch)
        const known = [
          ...declaredKeys(last.parentSchema),
          ...atDeepest.flatMap((error) => declaredKeys(error.parentSchema)),
        ];
        return { pointer, ...missingKeys((atDeepest[0] as ErrorObject).data, keys, known) };
      }
      return pickProblem(specific.filter((error) => depth(error) === deepest));
    }
    const description = described(last);
    const types = branches.flatMap((error) => String(error.params.type).split(","));
    const expected = description ?? typeList(types);
    const plainText = typeof last.data === "string";
    return {
      pointer: last.instancePath,
      text: `must be ${expected || "one of its forms"}; got ${describeData(last.data)}`,
      rule:
        description === undefined
          ? { code: "json_type", params: { types, plainText } }
          : { code: "json_described", params: { description, plainText } },
    };
  }
  const first = visible[0] ?? last;
  return { pointer: first.instancePath, ...describeError(first) };
}

/**
 * Warnings for supplied fields the item does not declare (the CLI prints them; an undeclared
 * field is no error, and its value still reaches the template): `replica is not a field of
 * k8s/deployment; did you mean replicas?`. None for an item that declares no fields (it takes
 * its values undeclared) or for `namespace`, which every template receives.
 */
export function undeclaredFieldWarnings(
  item: RegistryItem,
  fields: Readonly<Record<string, string>> | undefined,
): string[] {
  if (item.fields.length === 0) return [];
  const declared = item.fields.map((field) => field.name);
  const reference = referenceOf(item);
  const warnings: string[] = [];
  for (const key of Object.keys(fields ?? {})) {
    if (key === "namespace" || declared.includes(key)) continue;
    const guess = closest(key, declared);
    warnings.push(
      guess
        ? `${key} is not a field of ${reference}; did you mean ${guess}?`
        : `${key} is not a field of ${reference} (its fields: ${declared.join(", ")}); the template receives it as it is`,
    );
  }
  return warnings;
}

// --- validation ---------------------------------------------------------------------------

/** What to do about a refused field: its description and example, as the catalogue gives them. */
function fieldDetail(field: FieldDefinition): string | undefined {
  const lines: string[] = [];
  if (field.description) lines.push(`${field.name}: ${field.description}`);
  if (field.example !== undefined && field.example !== "") {
    lines.push(`for example: ${field.example}`);
  }
  return lines.length > 0 ? lines.join("\n") : undefined;
}

const NAME_DETAIL =
  "the name is the component's `name`: `kiln add --name`, a preset component's `name`, or the render request's `name`";

/** A value that starts with `[` or `{` is JSON text, as the template context reads it. */
function looksLikeJson(value: string): boolean {
  const first = value.trimStart()[0];
  return first === "[" || first === "{";
}

/**
 * What a field takes, from a problem's text: the words before `; got …` (the value the message
 * quotes travels on its own, in `got`), or the whole text when it quotes none.
 */
function expectedPart(text: string): string {
  const at = text.lastIndexOf("; got ");
  return at < 0 ? text : text.slice(0, at);
}

/** The value at a JSON pointer inside `data` (undefined when the pointer leads nowhere). */
function dataAt(pointer: string, data: unknown): unknown {
  if (pointer === "") return data;
  let at: unknown = data;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    at =
      typeof at === "object" && at !== null && Object.hasOwn(at, key)
        ? (at as Record<string, unknown>)[key]
        : undefined;
  }
  return at;
}

/** How much of a refused value an error carries, as much as its message quotes. */
const GOT_CHARACTERS = 60;

/**
 * A refused value as text - a string as it is, anything else as its JSON - cut after 60
 * characters (with `…`): a value can be megabytes, and the error goes back to whoever sent it.
 */
function gotText(data: unknown): string | undefined {
  if (data === undefined) return undefined;
  const text = typeof data === "string" ? data : JSON.stringify(data);
  // only the first characters are split into code points, not a value of megabytes: a code
  // point is at most two UTF-16 units, so a longer text's slice still holds over 60 of them
  const chars = Array.from(text.slice(0, 4 * GOT_CHARACTERS));
  return chars.length > GOT_CHARACTERS
    ? `${chars.slice(0, GOT_CHARACTERS).join("")}…`
    : chars.join("");
}

/**
 * A refused key as an error's params carry it: cut as `got` is (the key is the sender's, and a
 * key can be megabytes), so the params never hold more of it than the message quotes.
 */
function keyText(key: string): string {
  return gotText(key) ?? "";
}

/** Checks one value of a field that declares a format or a schema; throws when it does not fit. */
function checkField(
  item: RegistryItem,
  field: FieldDefinition,
  check: FieldCheck,
  value: string,
  fromDefault: boolean,
  parsedJson: Map<string, unknown>,
): void {
  const reference = referenceOf(item);
  const subject = `\`${field.name}\`${fromDefault ? " (its default)" : ""}`;
  const refuse = (
    { text, rule }: Worded,
    got: string | undefined,
    path = "",
    detail = fieldDetail(field),
  ) => {
    const where =
      path === "" ? subject : `\`${field.name}${path}\`${fromDefault ? " (its default)" : ""}`;
    return new KilnError("invalid_request", `${reference}: ${where} ${text}`, detail, {
      field: field.name,
      path,
      rule: "invalid",
      expected: expectedPart(text),
      got,
      ...rule,
    });
  };
  if (check.format) {
    const failure = formatFailure(check.format, value, check);
    if (failure) throw refuse(failure, gotText(value));
  }
  if (check.schema === undefined) return;
  let data: unknown = value;
  if (looksLikeJson(value)) {
    try {
      data = parseJsonText(value);
      parsedJson.set(value, data);
    } catch (error) {
      if (!(error instanceof JsonTextError)) throw error;
      const detail = [
        "a value starting with `[` or `{` is read as JSON",
        fieldDetail(field),
      ].filter(Boolean);
      const { line, column, reason } = error;
      // no `got`: the message says where the text stops parsing, and the text can be megabytes
      throw refuse(
        {
          text: `is not valid JSON - ${error.message}`,
          rule: { code: "json_parse", params: { line, column, reason } },
        },
        undefined,
        "",
        detail.join("\n"),
      );
    }
  }
  const validate = validatorFor(item, field.name, check.schema);
  if (validate(data)) return;
  const problem = pickProblem(validate.errors ?? []);
  let text = problem.text;
  // a plain text where JSON was expected: say how JSON is recognised
  if (problem.pointer === "" && typeof data === "string" && /an (?:array|object)/.test(text)) {
    text += " (JSON text starts with `[` or `{`)";
  }
  throw refuse(
    { text, rule: problem.rule },
    gotText(dataAt(problem.pointer, data)),
    pathText(problem.pointer, data),
  );
}

/**
 * Checks the name and every value `input` gives (or the item's default) against what the item
 * declares, before rendering. An empty value of a field that is not required is not checked:
 * it means "unset" to the templates (`replicas or 1`). Fields without declarations, undeclared
 * fields and items that declare nothing are never checked.
 *
 * Returns the JSON texts it parsed, by text, so that the context reuses them instead of
 * parsing them again (a 10,000-host inventory's JSON: about 10 ms a parse, measured). Neither
 * the validator nor the engine changes a parsed value.
 */
export function validateInput(item: RegistryItem, input: RenderInput): Map<string, unknown> {
  const parsedJson = new Map<string, unknown>();
  const checks = itemChecks(item);
  if (checks.nameFormat) {
    const failure = formatFailure(checks.nameFormat, input.name);
    if (failure) {
      throw new KilnError(
        "invalid_request",
        `${referenceOf(item)}: \`name\` ${failure.text}`,
        NAME_DETAIL,
        {
          field: "name",
          path: "",
          rule: "invalid",
          expected: expectedPart(failure.text),
          got: gotText(input.name),
          ...failure.rule,
        },
      );
    }
  }
  const supplied = input.fields ?? {};
  for (const field of item.fields) {
    const check = Object.hasOwn(checks.fields, field.name) ? checks.fields[field.name] : undefined;
    if (!check) continue;
    let value: string;
    let fromDefault = false;
    if (Object.hasOwn(supplied, field.name)) {
      value = supplied[field.name] as string;
    } else if (field.default !== undefined && field.name !== "namespace") {
      value = field.default;
      fromDefault = true;
    } else {
      continue;
    }
    if (value === "" && !field.required) continue;
    checkField(item, field, check, value, fromDefault, parsedJson);
  }
  return parsedJson;
}
