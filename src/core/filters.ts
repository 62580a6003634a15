// kiln's own template filters, added to MiniJinja's built-ins so templates can write values that
// stay valid whatever the user typed. A filter is called from inside the WASM engine: it must
// never throw and must return plain JSON data, or the engine instance panics; `safeFilter`
// guarantees both.
import { stringify } from "yaml";

/**
 * `{{ value | yaml }}`: a YAML scalar (or flow collection) that reads back as exactly `value`
 * under YAML 1.1 and 1.2 alike, quoted only when needed. YAML 1.1 rules are applied because
 * the tools that read our files use them: Kubernetes' sigs.k8s.io/yaml and the automation
 * tool's PyYAML read `yes`, `on`, `0755` or `1_000` as booleans and numbers.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we look for
const NEEDS_ESCAPES = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;

export function yamlScalar(value: unknown): string {
  if (typeof value === "string" && NEEDS_ESCAPES.test(value)) {
    return JSON.stringify(value); // one line, escaped; JSON strings are valid YAML
  }
  return stringify(value, {
    version: "1.1",
    lineWidth: 0,
    minContentWidth: 0,
    collectionStyle: "flow",
    defaultStringType: "PLAIN",
    defaultKeyType: "PLAIN",
  }).replace(/\n$/, "");
}

export type Filter = (value: unknown, ...args: unknown[]) => string;

/** Wraps a filter so that it always returns a string and never throws into the engine. */
export function safeFilter(filter: Filter): Filter {
  return (value, ...args) => {
    try {
      const out = filter(value ?? "", ...args);
      return typeof out === "string" ? out : "";
    } catch {
      return "";
    }
  };
}

/** The filters every template may use, by name. */
export const KILN_FILTERS: Record<string, Filter> = {
  yaml: yamlScalar,
};
