// The registry item: what a component declares (fields) and renders (files). One shape for
// built-in components, local files and URLs; validated the same way wherever it comes from.
import { KilnError } from "./errors.ts";
import { parseJsonText } from "./json-text.ts";
import {
  array,
  boolean,
  type Decoder,
  optional,
  required,
  ShapeError,
  string,
  struct,
  withDefault,
} from "./shape.ts";

export interface FieldOption {
  value: string;
  label: string;
}

export interface FieldDefinition {
  name: string;
  required: boolean;
  default?: string | undefined;
  description?: string | undefined;
  example?: string | undefined;
  options: FieldOption[];
}

export interface FileTemplate {
  /** Output path template, relative to the target directory. */
  path: string;
  /** File content template. */
  template: string;
}

export interface RegistryItem {
  name: string;
  category: string;
  title: string;
  description: string;
  fields: FieldDefinition[];
  files: FileTemplate[];
}

/** The item as GET /api/registry and /api/registry/inspect return it: no template bodies. */
export interface RegistryItemView {
  name: string;
  category: string;
  title: string;
  description: string;
  reference: string;
  fields: {
    name: string;
    required: boolean;
    default: string | null;
    description: string | null;
    example: string | null;
    options: FieldOption[];
  }[];
  files: string[];
}

const decodeOption = struct("Option", {
  value: required(string),
  label: withDefault(string, () => ""),
});

const decodeField = struct("Field", {
  name: required(string),
  required: withDefault(boolean, () => false),
  default: optional(string),
  description: optional(string),
  example: optional(string),
  options: withDefault(array(decodeOption), () => []),
});

const decodeFile = struct("File", { path: required(string), template: required(string) });

const decodeItem: Decoder<RegistryItem> = struct("RegistryItem", {
  name: required(string),
  category: required(string),
  title: withDefault(string, () => ""),
  description: withDefault(string, () => ""),
  fields: withDefault(array(decodeField), () => []),
  files: required(array(decodeFile)),
});

export function referenceOf(item: Pick<RegistryItem, "category" | "name">): string {
  return `${item.category}/${item.name}`;
}

/**
 * Validates parsed JSON as a registry item. `reference` is how the caller named it (a URL, a
 * path, a built-in folder) and appears in the error; the detail says what did not fit, by key
 * path and type, never quoting a string of the document (it may be any file a reference names).
 */
export function parseRegistryItem(json: unknown, reference: string): RegistryItem {
  try {
    return decodeItem(json, "");
  } catch (error) {
    if (error instanceof ShapeError) {
      throw new KilnError(
        "invalid_request",
        `${reference} is not a valid registry item`,
        error.messageWithoutStrings,
      );
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
    throw new KilnError(
      "invalid_request",
      `${reference} is not a valid registry item`,
      `not JSON: ${(error as Error).message}`,
    );
  }
  return parseRegistryItem(json, reference);
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
