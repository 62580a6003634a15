// Strict validation of Kubernetes manifests against the JSON schemas generated from the
// Kubernetes OpenAPI spec, offline.
//
// Schema source: `kubernetes-models` 4.3.1 (Kubernetes 1.27.1 OpenAPI). It is the newest release
// that ships the schemas as data: from 4.4 on it ships only ajv-compiled validator code, which
// cannot be made strict. Its schemas, like the OpenAPI spec, accept unknown fields; the API
// server drops those silently, so a misspelt `replica:` or `contianers:` would go unnoticed. We
// therefore compile every schema ourselves, as kubeconform's `-strict` schemas are made: each
// object schema that lists `properties` and says nothing about `additionalProperties` gets
// `additionalProperties: false`. Maps (labels, annotations, selectors) declare
// `additionalProperties` and stay open.
//
// How the schemas reach our compiler: each of the package's schema modules hands its schema to
// `register(id, schema)` of `@kubernetes-models/validate`, and each model's `validate()` calls
// that package's `validate(id, data)`. We put our own implementation of those two functions in
// `require.cache` under that package's path before any model module loads, so the package's own
// dependency graph (which schema needs which) registers the schemas with our strict compiler.
import { createRequire } from "node:module";
import { Ajv, type ErrorObject } from "ajv";
import addFormats from "ajv-formats";

/** The Kubernetes version whose OpenAPI spec the schemas come from. */
export const K8S_SCHEMA_VERSION = "1.27.1";

type Schema = Record<string, unknown>;

/** A deep copy of `schema` in which every object schema with `properties` is closed. */
export function strictSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictSchema);
  if (typeof schema !== "object" || schema === null) return schema;
  const source = schema as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === "properties" && typeof value === "object" && value !== null) {
      // a map from property name to schema: the names are data, the values are schemas
      out.properties = Object.fromEntries(
        Object.entries(value as Schema).map(([name, sub]) => [name, strictSchema(sub)]),
      );
    } else if (["items", "additionalProperties", "not", "oneOf", "anyOf", "allOf"].includes(key)) {
      out[key] = strictSchema(value);
    } else {
      out[key] = value; // enum values, required lists, formats, types: not schemas
    }
  }
  if ("properties" in source && !("additionalProperties" in source)) {
    out.additionalProperties = false;
  }
  return out;
}

const ajv = new Ajv({
  allErrors: true,
  verbose: true, // errors carry their schema: see `withoutNullBranches`
  // the generated schemas put `nullable`/`format` beside `$ref`-free unions (`oneOf` of a `$ref`
  // and `{type: null}`) without a sibling `type`, which ajv's strict-types mode reports
  strictTypes: false,
});
addFormats.default(ajv, ["date-time"]);
const int = (bits: number) => (n: number) =>
  Number.isInteger(n) && n >= -(2 ** (bits - 1)) && n < 2 ** (bits - 1);
ajv.addFormat("int32", { type: "number", validate: int(32) });
ajv.addFormat("int64", { type: "number", validate: Number.isInteger });
ajv.addFormat("double", { type: "number", validate: () => true });
ajv.addFormat("byte", {
  type: "string",
  validate: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
});
// a resource quantity such as `500m`, `1.5Gi`, `1e3`
ajv.addFormat("quantity", {
  type: "string",
  validate: /^[+-]?(?:\d+|\d+\.\d*|\.\d+)(?:[KMGTPE]i|[numkMGTPE]|[eE][+-]?\d+)?$/,
});

/**
 * An optional object field is written `oneOf: [{$ref}, {type: "null"}]`. When the object itself
 * is wrong, ajv also reports that it is not null and that `oneOf` failed: noise that hides the
 * real reason, so those two are dropped (as kubernetes-models' own validator does).
 */
function withoutNullBranches(errors: ErrorObject[]): ErrorObject[] {
  const nullBranches = new Set<string>();
  const kept = errors.filter((error) => {
    if (error.keyword !== "oneOf" || !Array.isArray(error.schema)) return true;
    const index = (error.schema as Schema[]).findIndex((branch) => branch.type === "null");
    if (index < 0) return true;
    nullBranches.add(`${error.schemaPath}/${index}/type`);
    return false;
  });
  return kept.filter((error) => !nullBranches.has(error.schemaPath));
}

class SchemaValidationError extends Error {
  readonly errors: ErrorObject[];
  constructor(errors: ErrorObject[]) {
    super(ajv.errorsText(errors, { separator: "; " }));
    this.errors = errors;
  }
}

const validateStub = {
  register(id: string, schema: unknown): void {
    if (!ajv.getSchema(id)) ajv.addSchema(strictSchema(schema) as Schema, id);
  },
  validate(id: string, data: unknown): void {
    const check = ajv.getSchema(id);
    if (!check) throw new Error(`no schema registered as ${id}`);
    if (!check(data)) throw new SchemaValidationError(withoutNullBranches(check.errors ?? []));
  },
};

const require = createRequire(import.meta.url);
const modelsEntry = require.resolve("kubernetes-models");
for (const from of [
  modelsEntry,
  require.resolve("@kubernetes-models/base"),
  require.resolve(
    "@kubernetes-models/apimachinery/_schemas/IoK8sApimachineryPkgApisMetaV1ObjectMeta",
  ),
]) {
  const path = createRequire(from).resolve("@kubernetes-models/validate");
  const loaded = require.cache[path];
  if (loaded && loaded.exports !== validateStub) {
    // a model module loaded first would keep the package's lenient validator
    throw new Error("k8s-schema.ts must be imported before anything loads kubernetes-models");
  }
  require.cache[path] = {
    id: path,
    filename: path,
    loaded: true,
    exports: validateStub,
  } as unknown as NodeJS.Module;
}
const modelsRequire = createRequire(modelsEntry);

type ModelClass = new (data: unknown) => { validate(): void };

/** The model class for `apiVersion`/`kind`, or undefined when kubernetes-models has none. */
function modelFor(apiVersion: string, kind: string): ModelClass | undefined {
  // only names that can be a group/version and a kind: nothing else reaches `require`
  if (!/^(?:[a-z0-9.-]+\/)?v[0-9]+(?:(?:alpha|beta)[0-9]+)?$/.test(apiVersion)) return undefined;
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) return undefined;
  try {
    const mod = modelsRequire(`kubernetes-models/${apiVersion}/${kind}`) as Record<string, unknown>;
    return typeof mod[kind] === "function" ? (mod[kind] as ModelClass) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The reasons `manifest` (one parsed Kubernetes object) does not match the strict schema of
 * its `apiVersion` and `kind`; empty when it does. Unknown fields, wrong types, missing
 * required fields, and an unknown apiVersion/kind are all reasons.
 */
export function k8sManifestErrors(manifest: unknown): string[] {
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) {
    return ["a manifest must be a mapping"];
  }
  const { apiVersion, kind } = manifest as Record<string, unknown>;
  if (typeof apiVersion !== "string" || typeof kind !== "string") {
    return ["apiVersion and kind must be strings"];
  }
  const Model = modelFor(apiVersion, kind);
  if (!Model) return [`no Kubernetes ${K8S_SCHEMA_VERSION} schema for ${apiVersion} ${kind}`];
  try {
    new Model(manifest).validate();
    return [];
  } catch (error) {
    if (error instanceof SchemaValidationError) {
      return error.errors.map((e) => {
        const extra =
          e.keyword === "additionalProperties"
            ? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
            : "";
        return `${e.instancePath || "/"} ${e.message ?? e.keyword}${extra}`;
      });
    }
    throw error;
  }
}

/** Throws an error listing every reason `manifest` does not match its strict schema. */
export function validateK8sManifest(manifest: unknown): void {
  const errors = k8sManifestErrors(manifest);
  if (errors.length > 0) {
    const { kind, metadata } = manifest as { kind?: unknown; metadata?: { name?: unknown } };
    throw new Error(
      `${String(kind)} ${String(metadata?.name)} is not a valid Kubernetes ${K8S_SCHEMA_VERSION} manifest:\n  ${errors.join("\n  ")}`,
    );
  }
}
