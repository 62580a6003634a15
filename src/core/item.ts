// The registry item: what a component declares (fields) and renders (files). One shape for
// built-in components, local files and URLs; validated the same way wherever it comes from.
// Besides the standard keys (name, category, title, description, fields, files) an item may
// carry kiln's catalogue metadata (the `kiln` object and the per-field `editor` and `format`
// keys): the dashboard stage, the structured editors, and which fields hold the facts the checks
// and the architecture graph read. It is parsed leniently and never part of the API view, so
// clients of GET /api/registry and /api/registry/inspect never see it. Fields (and the name)
// may also declare what their values must be - a `format`, or a JSON `schema` - read here as
// the item's `checks` and enforced before rendering by src/core/validate.ts.
import { errorMessage, KilnError } from "./errors.ts";
import { parseJsonText } from "./json-text.ts";
import { ShapeError } from "./shape.ts";
import {
  EDITOR_KINDS,
  type EditorKind,
  FACT_KINDS,
  type FactKind,
  FIELD_FORMATS,
  type FieldFormat,
  STAGE_IDS,
  type StageId,
} from "./vocabulary.ts";
import type { Decoded, Static } from "./wire.ts";
import { decodeRegistryItem } from "./wire-decoders.ts";
import type { FIELD, REGISTRY_ITEM, REGISTRY_ITEM_VIEW } from "./wire-shapes.ts";

/** What a field's value must be, as its item declares it (README, "Field formats and shapes"). */
export interface FieldCheck {
  format?: FieldFormat;
  /** Bounds of an `integer` value. */
  minimum?: number;
  maximum?: number;
  /** A JSON Schema (draft 2020-12) the value must match: JSON text parsed, other text as a string. */
  schema?: boolean | Record<string, unknown>;
}

/** Everything an item declares about the values it takes; empty when it declares nothing. */
export interface ItemChecks {
  /** The format of the component name (`kiln.nameFormat`), or null. */
  nameFormat: FieldFormat | null;
  /** Field → what its value must be; only fields that declare something. */
  fields: Record<string, FieldCheck>;
}

/**
 * kiln's catalogue metadata of one item, as parsed from its JSON:
 *
 * ```json
 * { "kiln": { "stage": "configure", "kind": "playbook", "suggest": true,
 *             "writes": "{folder}/{name}.yml",
 *             "facts": { "plays": "plays", "hosts": "hosts", "roles": "roles" } },
 *   "fields": [ { "name": "plays", "editor": "plays" }, { "name": "subnet", "format": "cidr" } ] }
 * ```
 */
export interface ItemMeta {
  /** Dashboard stage; `other` when undeclared or unknown. */
  stage: StageId;
  /** What the component is for the facts; null when undeclared or unknown. */
  kind: FactKind | null;
  /** The component checks name (and fixes add) when a project lacks one of its kind. */
  suggest: boolean;
  /**
   * The path of the component's main file for checks made before it renders: `{name}` is the
   * component name, `{field}` that field's value; empty segments are dropped.
   */
  writes: string | null;
  /** Fact name → the field holding it (names per kind: docs in README, "Catalogue metadata"). */
  facts: Record<string, string>;
  /** Field → structured editor. */
  editors: Record<string, EditorKind>;
  /** Field → value format. */
  formats: Record<string, FieldFormat>;
  /** Field → default value, so facts read a field as the template would. */
  defaults: Record<string, string>;
  /**
   * Automation tool profile → (rendered path → the path written under that profile), e.g.
   * `{"ansible": {"cm.cfg": "ansible.cfg"}}`: the path templates (and so the API view) keep
   * the default `cm` names, and a profile renames the file.
   */
  profilePaths: Record<string, Record<string, string>>;
}

/**
 * The metadata as GET /api/registry/meta returns it: the item's reference, its meta, and the
 * dependencies it declares as written (their templates not rendered: a render renders one item).
 */
export interface ItemMetaView extends ItemMeta {
  reference: string;
  dependencies: ItemDependency[];
}

/** A dependency as an item declares it: a reference, a name template, field templates. */
export type ItemDependency = NonNullable<RegistryItem["dependencies"]>[number];

// The shape of a registry-item file and of its API view are declared in src/core/wire-shapes.ts
// (REGISTRY_ITEM, REGISTRY_ITEM_VIEW), with the published schema and the decoder made from them.

export type FieldDefinition = Decoded<typeof FIELD>;

export interface RegistryItem extends Decoded<typeof REGISTRY_ITEM> {
  /** kiln's catalogue metadata; absent on items built in code, read as `itemMeta(item)`. */
  meta?: ItemMeta | undefined;
  /** The formats and shapes its values must have; absent on items built in code. */
  checks?: ItemChecks | undefined;
}

/** The item as GET /api/registry and /api/registry/inspect return it: no template bodies. */
export type RegistryItemView = Static<typeof REGISTRY_ITEM_VIEW>;

function oneOf<T extends string>(values: readonly T[], value: unknown): T | undefined {
  return typeof value === "string" && (values as readonly string[]).includes(value)
    ? (value as T)
    : undefined;
}

function plainObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Sets an own key; defineProperty keeps a key named `__proto__` an ordinary key. */
function put<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * Reads kiln's metadata from an item's JSON (already validated as an item). Lenient on purpose:
 * an older kiln ignores these keys, so a value this one does not know (a future stage, a typo)
 * is left out rather than making the item invalid; an item that declares nothing gets the
 * defaults, which is how every item behaved before the metadata existed.
 */
function parseItemMeta(json: unknown, fields: readonly FieldDefinition[]): ItemMeta {
  const root = plainObject(json) ?? {};
  const kiln = plainObject(root.kiln) ?? {};
  const facts: Record<string, string> = {};
  for (const [fact, field] of Object.entries(plainObject(kiln.facts) ?? {})) {
    if (typeof field === "string" && field !== "") put(facts, fact, field);
  }
  const editors: Record<string, EditorKind> = {};
  const formats: Record<string, FieldFormat> = {};
  const rawFields = Array.isArray(root.fields) ? root.fields : [];
  for (const raw of rawFields) {
    const field = plainObject(raw);
    if (!field || typeof field.name !== "string") continue;
    const editor = oneOf(EDITOR_KINDS, field.editor);
    if (editor) put(editors, field.name, editor);
    const format = oneOf(FIELD_FORMATS, field.format);
    if (format) put(formats, field.name, format);
  }
  const defaults: Record<string, string> = {};
  for (const field of fields)
    if (field.default !== undefined) put(defaults, field.name, field.default);
  const profilePaths: Record<string, Record<string, string>> = {};
  for (const [profile, paths] of Object.entries(plainObject(kiln.profilePaths) ?? {})) {
    const renames: Record<string, string> = {};
    for (const [from, to] of Object.entries(plainObject(paths) ?? {})) {
      if (typeof to === "string" && to !== "") put(renames, from, to);
    }
    put(profilePaths, profile, renames);
  }
  return {
    stage: oneOf(STAGE_IDS, kiln.stage) ?? "other",
    kind: oneOf(FACT_KINDS, kiln.kind) ?? null,
    suggest: kiln.suggest === true,
    writes: typeof kiln.writes === "string" && kiln.writes !== "" ? kiln.writes : null,
    facts,
    editors,
    formats,
    defaults,
    profilePaths,
  };
}

/** A finite number, or undefined. */
function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * Reads what an item declares about its values: per field `format` (with `minimum` and
 * `maximum` for `integer`) and `schema`, and the name's `kiln.nameFormat`. Lenient like the
 * metadata: a format this kiln does not know, a bound that is not a number or a schema that is
 * neither an object nor a boolean is left out (a schema that does not compile is an invalid item
 * when a value meets it: see src/core/validate.ts).
 */
function parseItemChecks(json: unknown): ItemChecks {
  const root = plainObject(json) ?? {};
  const kiln = plainObject(root.kiln) ?? {};
  const fields: Record<string, FieldCheck> = {};
  for (const raw of Array.isArray(root.fields) ? root.fields : []) {
    const field = plainObject(raw);
    if (!field || typeof field.name !== "string") continue;
    const check: FieldCheck = {};
    const format = oneOf(FIELD_FORMATS, field.format);
    if (format) check.format = format;
    const minimum = finite(field.minimum);
    const maximum = finite(field.maximum);
    if (format === "integer" && minimum !== undefined) check.minimum = minimum;
    if (format === "integer" && maximum !== undefined) check.maximum = maximum;
    const schema = field.schema;
    if (typeof schema === "boolean") check.schema = schema;
    else if (plainObject(schema)) check.schema = schema as Record<string, unknown>;
    if (Object.keys(check).length > 0) put(fields, field.name, check);
  }
  return { nameFormat: oneOf(FIELD_FORMATS, kiln.nameFormat) ?? null, fields };
}

/** What an item declares about its values; an item built in code declares nothing. */
export function itemChecks(item: RegistryItem): ItemChecks {
  return item.checks ?? { nameFormat: null, fields: {} };
}

/** An item's metadata; an item built in code without any reads as one that declares nothing. */
export function itemMeta(item: RegistryItem): ItemMeta {
  return item.meta ?? parseItemMeta({}, item.fields);
}

/** The metadata view of an item (GET /api/registry/meta). */
export function toItemMetaView(item: RegistryItem): ItemMetaView {
  return { reference: referenceOf(item), ...itemMeta(item), dependencies: item.dependencies ?? [] };
}

export function referenceOf(item: Pick<RegistryItem, "category" | "name">): string {
  return `${item.category}/${item.name}`;
}

/**
 * `<reference> is not a valid registry item` (fixed text), for what a reference names that does
 * not fit the schema or declares what cannot be checked; `detail` says why.
 */
export function invalidItem(reference: string, detail: string): KilnError {
  return new KilnError("invalid_request", `${reference} is not a valid registry item`, detail);
}

/**
 * Validates parsed JSON as a registry item. `reference` is how the caller named it (a URL, a
 * path, a built-in folder) and appears in the error; the detail says what did not fit, by key
 * path and type, never quoting a string of the document (it may be any file a reference names).
 */
export function parseRegistryItem(json: unknown, reference: string): RegistryItem {
  try {
    const item: RegistryItem = decodeRegistryItem(json, "");
    item.meta = parseItemMeta(json, item.fields);
    item.checks = parseItemChecks(json);
    return item;
  } catch (error) {
    if (error instanceof ShapeError) {
      throw invalidItem(reference, error.messageWithoutStrings);
    }
    throw error;
  }
}

/**
 * Parses registry-item JSON text; text that is not JSON is not a valid registry item either.
 * The detail gives the line, the column and what was expected there, never the text itself.
 */
export function parseRegistryItemText(text: string, reference: string): RegistryItem {
  let json: unknown;
  try {
    json = parseJsonText(text);
  } catch (error) {
    throw invalidItem(reference, `not JSON: ${errorMessage(error)}`);
  }
  return parseRegistryItem(json, reference);
}

/**
 * The field values that try an item out (`kiln registry validate`, `kiln view`'s example): with
 * `all`, every field that has an example or a default, the example first; otherwise the
 * required fields only (the others then take their defaults, as in `kiln add`, and the
 * examples of optional fields are left out).
 */
export function exampleValues(item: RegistryItem, all: boolean): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of item.fields) {
    if (!all && !field.required) continue;
    const value = field.example ?? field.default;
    if (value !== undefined) values[field.name] = value;
  }
  return values;
}

export function toItemView(item: RegistryItem): RegistryItemView {
  return {
    name: item.name,
    category: item.category,
    title: item.title,
    description: item.description,
    reference: referenceOf(item),
    fields: item.fields.map((field) => ({
      name: field.name,
      required: field.required,
      default: field.default ?? null,
      description: field.description ?? null,
      example: field.example ?? null,
      options: field.options.map((option) => ({
        value: option.value,
        label: option.label === "" ? option.value : option.label,
      })),
    })),
    files: item.files.map((file) => file.path),
  };
}
