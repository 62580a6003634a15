// Namespaced registries: the `[registries]` table of kiln.toml and of the user's
// `$XDG_CONFIG_HOME/kiln/config.toml`, the references that name them (`@acme/redis`,
// `@acme/redis@1.2.0`), the `${VAR}` expansion of their URL and header values, and the
// redaction that keeps what came from a variable (a token, a password) out of every message.
// Pure: the files are read and the environment is handed in by src/node/registry-client.ts.
//
// Each limit is a count a stranger's file (a cloned repository's kiln.toml) cannot exceed;
// docs/security.md lists them.
import { didYouMean } from "./did-you-mean.ts";
import { KilnError } from "./errors.ts";
import { isPlainObject } from "./shape.ts";

/** The bounds of a registry configuration (docs/security.md). */
export const REGISTRY_LIMITS = {
  /** Characters of a namespace after its `@`. */
  namespaceLength: 63,
  /** Registries one file may configure. */
  registries: 100,
  /** Headers one registry may send. */
  headers: 32,
  /** Characters of a header's name. */
  headerNameLength: 128,
  /** Characters of a header's value, after expansion. */
  headerValueLength: 8192,
  /** Characters of a URL template (url or index), before and after expansion. */
  urlLength: 2048,
  /** Characters of a `${VAR}` name. */
  variableNameLength: 128,
  /** Characters of an item's name in a reference. */
  itemNameLength: 128,
  /** Characters of a version in a reference. */
  versionLength: 64,
} as const;

/** The keys a registry's table form may hold. */
export const REGISTRY_KEYS = ["url", "headers", "index"] as const;

/** The namespace kiln ships itself, resolved from the package with no configuration. */
export const KILN_NAMESPACE = "@kiln";

/** A registry as configured: its templates and headers, still with their `${VAR}`s. */
export interface RegistryConfig {
  namespace: string;
  /** The item URL template (`{name}`, optionally `{version}`). */
  url: string;
  /** The index URL when not the item template with `{name}` = `registry`. */
  index?: string | undefined;
  headers: Record<string, string>;
  /** Where it was configured, for messages: `kiln.toml` or the user file's path. */
  from: string;
}

const NAMESPACE = new RegExp(`^@[a-z0-9][a-z0-9-]{0,${REGISTRY_LIMITS.namespaceLength - 1}}$`);
const ITEM_NAME = new RegExp(`^[a-z0-9][a-z0-9_-]{0,${REGISTRY_LIMITS.itemNameLength - 1}}$`);
/** A version's characters (semver's: digits, letters, `.`, `-`, `+`); semver itself checks it. */
const VERSION_TEXT = new RegExp(`^[0-9A-Za-z.+-]{1,${REGISTRY_LIMITS.versionLength}}$`);
/** The item name the index takes in the URL template: no item may have it. */
export const INDEX_NAME = "registry";

/** Is `item` a name a reference can hold (what `kiln add @ns/<item>` accepts)? */
export function isItemName(item: string): boolean {
  return ITEM_NAME.test(item);
}

/** Is `version` a version a reference can hold (`@ns/item@<version>`)? */
export function isVersionText(version: string): boolean {
  return VERSION_TEXT.test(version);
}

/** Is `namespace` `@` followed by 1 to 63 lowercase letters, digits and `-` (not first)? */
export function isNamespace(namespace: string): boolean {
  return NAMESPACE.test(namespace);
}

/** A reference of the fourth kind, taken apart. */
export interface RegistryReference {
  namespace: string;
  item: string;
  /** The pinned version as typed, when there is one. */
  version?: string | undefined;
}

/**
 * `@ns/name` or `@ns/name@version`, or undefined when `reference` is not of that shape (it is
 * then one of the other kinds: built-in, URL, file). Only a reference that starts with `@` can
 * be one, so no built-in, URL or path is ever taken for a registry's item.
 */
export function parseRegistryReference(reference: string): RegistryReference | undefined {
  if (!reference.startsWith("@")) return undefined;
  const slash = reference.indexOf("/");
  if (slash < 0) return undefined;
  const namespace = reference.slice(0, slash);
  const rest = reference.slice(slash + 1);
  const at = rest.indexOf("@");
  const item = at < 0 ? rest : rest.slice(0, at);
  const version = at < 0 ? undefined : rest.slice(at + 1);
  if (!isNamespace(namespace) || !ITEM_NAME.test(item)) return undefined;
  if (version !== undefined && !VERSION_TEXT.test(version)) return undefined;
  return { namespace, item, version };
}

/** Does `reference` name a registry's item (`@ns/name[@version]`)? */
export function isRegistryReference(reference: string): boolean {
  return parseRegistryReference(reference) !== undefined;
}

/** `@ns/name@version` (or `@ns/name`): the reference that fetches exactly that. */
export function registryReferenceText(reference: RegistryReference): string {
  const base = `${reference.namespace}/${reference.item}`;
  return reference.version === undefined ? base : `${base}@${reference.version}`;
}

/**
 * The reference a component keeps after its registry item moved to `version` (update --to,
 * --latest): one typed with a version names the new one (`@acme/redis@1.2.0` ->
 * `@acme/redis@1.3.0`), so it never names a version the lock no longer pins; any other
 * reference stays as typed.
 */
export function referenceAtVersion(reference: string, version: string): string {
  const parsed = parseRegistryReference(reference);
  if (parsed?.version === undefined || parsed.version === version) return reference;
  return registryReferenceText({ ...parsed, version });
}

function configError(from: string, problem: string, detail?: string): KilnError {
  return new KilnError(
    "invalid_request",
    `${from}: ${problem}`,
    detail ?? "fix the [registries] table (docs/registries.md shows its form)",
  );
}

/**
 * The `[registries]` table of a parsed config file: each entry `"@ns" = "<url template>"` or a
 * table with `url`, optional `headers` (name = value) and `index`. `from` names the file in
 * errors. Unknown keys are refused by the caller (kiln-toml.ts) with a line and a did-you-mean;
 * here every value is checked.
 */
export function parseRegistriesTable(table: unknown, from: string): RegistryConfig[] {
  if (table === undefined) return [];
  if (!isPlainObject(table)) throw configError(from, "registries must be a table ([registries])");
  const entries = Object.entries(table);
  if (entries.length > REGISTRY_LIMITS.registries) {
    throw configError(
      from,
      `more than ${REGISTRY_LIMITS.registries} registries in [registries] - kiln reads at most that many`,
    );
  }
  return entries.map(([namespace, value]) => parseRegistryEntry(namespace, value, from));
}

function parseRegistryEntry(namespace: string, value: unknown, from: string): RegistryConfig {
  if (!isNamespace(namespace)) {
    throw configError(
      from,
      `\`${namespace.slice(0, 80)}\` in [registries] is not a namespace`,
      `a namespace is \`@\` followed by 1 to ${REGISTRY_LIMITS.namespaceLength} lowercase letters, digits and \`-\` (not first), e.g. "@acme"`,
    );
  }
  if (namespace === KILN_NAMESPACE) {
    throw configError(
      from,
      `${KILN_NAMESPACE} is kiln's own registry, shipped with it - configure your registry under another name`,
    );
  }
  if (typeof value === "string") {
    return { namespace, url: checkedTemplate(value, namespace, "url", from), headers: {}, from };
  }
  if (!isPlainObject(value)) {
    throw configError(
      from,
      `registries."${namespace}" must be a URL template or a table with url, headers, index`,
    );
  }
  if (typeof value.url !== "string") {
    throw configError(from, `registries."${namespace}".url must be a string (the URL template)`);
  }
  const index = value.index;
  if (index !== undefined && typeof index !== "string") {
    throw configError(from, `registries."${namespace}".index must be a string (the index's URL)`);
  }
  return {
    namespace,
    url: checkedTemplate(value.url, namespace, "url", from),
    index: index === undefined ? undefined : checkedTemplate(index, namespace, "index", from),
    headers: parseHeaders(value.headers, namespace, from),
    from,
  };
}

function checkedTemplate(template: string, namespace: string, key: string, from: string): string {
  if (template.length > REGISTRY_LIMITS.urlLength) {
    throw configError(
      from,
      `registries."${namespace}".${key} is longer than ${REGISTRY_LIMITS.urlLength} characters`,
    );
  }
  if (!/^https?:\/\//.test(template)) {
    throw configError(
      from,
      `registries."${namespace}".${key} must be an http:// or https:// URL`,
      'e.g. "https://registry.acme.dev/r/{name}.json"',
    );
  }
  if (key === "url" && !template.includes("{name}")) {
    throw configError(
      from,
      `registries."${namespace}".url has no {name} - kiln puts the item's name there`,
      'e.g. "https://registry.acme.dev/r/{name}.json"',
    );
  }
  variablesIn(template, `registries."${namespace}".${key}`, from);
  return template;
}

/** HTTP's token characters: what a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function parseHeaders(value: unknown, namespace: string, from: string): Record<string, string> {
  if (value === undefined) return {};
  const where = `registries."${namespace}".headers`;
  if (!isPlainObject(value)) {
    throw configError(
      from,
      `${where} must be a table, e.g. { Authorization = "Bearer \${TOKEN}" }`,
    );
  }
  const entries = Object.entries(value);
  if (entries.length > REGISTRY_LIMITS.headers) {
    throw configError(from, `${where} has more than ${REGISTRY_LIMITS.headers} headers`);
  }
  const headers: Record<string, string> = {};
  for (const [name, text] of entries) {
    if (name.length > REGISTRY_LIMITS.headerNameLength || !HEADER_NAME.test(name)) {
      throw configError(
        from,
        `${where}: \`${name.slice(0, 80)}\` is not a header name`,
        `a header name is 1 to ${REGISTRY_LIMITS.headerNameLength} of HTTP's token characters (letters, digits, !#$%&'*+.^_\`|~-)`,
      );
    }
    if (typeof text !== "string") throw configError(from, `${where}.${name} must be a string`);
    checkHeaderValue(text, `${where}.${name}`, from);
    variablesIn(text, `${where}.${name}`, from);
    headers[name] = text;
  }
  return headers;
}

function checkHeaderValue(text: string, where: string, from: string): void {
  if (text.length > REGISTRY_LIMITS.headerValueLength) {
    throw configError(
      from,
      `${where} is longer than ${REGISTRY_LIMITS.headerValueLength} characters`,
    );
  }
  // a line break would start another header (or the body) of the request
  if (/[\r\n\0]/.test(text)) throw configError(from, `${where} holds a line break or NUL`);
}

/** `${NAME}`: a letter or `_`, then letters, digits and `_`, as shells name variables. */
const VARIABLE = /\$\{([^}]*)\}/g;
const VARIABLE_NAME = new RegExp(
  `^[A-Za-z_][A-Za-z0-9_]{0,${REGISTRY_LIMITS.variableNameLength - 1}}$`,
);

/** The variables `text` names; a `${...}` that is no variable name is an error. */
export function variablesIn(text: string, where: string, from: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(VARIABLE)) {
    const name = match[1] ?? "";
    if (!VARIABLE_NAME.test(name)) {
      throw configError(
        from,
        `${where}: \`\${${name.slice(0, 80)}}\` is not a variable`,
        `a variable is \${NAME}: a letter or _, then up to ${REGISTRY_LIMITS.variableNameLength - 1} letters, digits and _`,
      );
    }
    names.push(name);
  }
  if (text.replace(VARIABLE, "").includes("${")) {
    throw configError(from, `${where}: a \`\${\` is not closed with \`}\``);
  }
  return names;
}

/** The variables a registry's configuration uses (URL, index, headers), each once. */
export function registryVariables(registry: RegistryConfig): string[] {
  const texts = [registry.url, registry.index ?? "", ...Object.values(registry.headers)];
  return [
    ...new Set(texts.flatMap((text) => variablesIn(text, registry.namespace, registry.from))),
  ];
}

/**
 * The registries in effect: the user file's, with the project's on top (the project's entry
 * for a namespace wins).
 */
export function mergeRegistries(
  user: readonly RegistryConfig[],
  project: readonly RegistryConfig[],
): Map<string, RegistryConfig> {
  const merged = new Map<string, RegistryConfig>();
  for (const registry of [...user, ...project]) merged.set(registry.namespace, registry);
  return merged;
}

/**
 * The error of a reference to a namespace nobody configured, with the namespaces there are as a
 * value of their own: a front words its advice from them (the service names no kiln.toml),
 * never from the message's words.
 */
export class UnknownNamespaceError extends KilnError {
  /** Every namespace that is configured, `@kiln` among them, sorted. */
  readonly configured: readonly string[];

  constructor(message: string, detail: string, configured: readonly string[]) {
    super("invalid_request", message, detail);
    this.configured = configured;
  }
}

/** A reference to a namespace nobody configured: the ones there are, and how to add one. */
export function unknownNamespaceError(
  reference: string,
  namespace: string,
  known: string[],
): UnknownNamespaceError {
  const all = [KILN_NAMESPACE, ...known.filter((name) => name !== KILN_NAMESPACE)].sort();
  return new UnknownNamespaceError(
    `\`${reference}\` names the registry ${namespace}, which is not configured${didYouMean(namespace, all)}`,
    [
      `configured: ${all.join(", ")}`,
      `add it to kiln.toml (this project) or to $XDG_CONFIG_HOME/kiln/config.toml (every project):`,
      "  [registries]",
      `  "${namespace}" = "https://registry.example/r/{name}.json"`,
    ].join("\n"),
    all,
  );
}

/** An environment lookup: the variable's value, or undefined when it is not set. */
export type Environment = (name: string) => string | undefined;

/**
 * `text` with every `${VAR}` replaced by its value from `env`. A variable that is not set is
 * an error naming it and the registry. Each value used is added to `used` (for redaction).
 */
export function expandVariables(
  text: string,
  registry: RegistryConfig,
  env: Environment,
  used?: Set<string>,
): string {
  return text.replace(VARIABLE, (_whole, name: string) => {
    const value = env(name);
    if (value === undefined) {
      throw new KilnError(
        "invalid_request",
        `the registry ${registry.namespace} uses \${${name}}, which is not set`,
        `set ${name} in the environment (e.g. \`export ${name}=...\`), or change the registry's entry in ${registry.from}`,
      );
    }
    if (value !== "") used?.add(value);
    return value;
  });
}

/**
 * A header value after expansion: a variable may bring a line break (which would start another
 * header) or more than the bound. The error names the header and the registry, never the value.
 */
export function checkExpandedHeader(name: string, value: string, registry: RegistryConfig): void {
  const problem = /[\r\n\0]/.test(value)
    ? "holds a line break or NUL"
    : value.length > REGISTRY_LIMITS.headerValueLength
      ? `is longer than ${REGISTRY_LIMITS.headerValueLength} characters`
      : undefined;
  if (problem === undefined) return;
  throw new KilnError(
    "invalid_request",
    `the header ${name} of the registry ${registry.namespace} ${problem} once its variables are expanded - kiln does not send it`,
    `check the variables it uses in ${registry.from}`,
  );
}

/** `{name}` and `{version}` of a URL template filled in. */
export function fillTemplate(template: string, item: string, version: string | undefined): string {
  const name =
    version !== undefined && !template.includes("{version}") ? `${item}@${version}` : item;
  return template.replaceAll("{name}", name).replaceAll("{version}", version ?? "");
}

/** The index's URL template: `index`, or the item template with `{name}` = `registry`. */
export function indexTemplate(registry: RegistryConfig): string {
  if (registry.index !== undefined) return registry.index;
  if (registry.url.includes("{version}")) {
    throw new KilnError(
      "invalid_request",
      `the registry ${registry.namespace} has {version} in its url, so kiln cannot tell where its index is`,
      `set its index in ${registry.from}: [registries."${registry.namespace}"] index = "https://.../registry.json", or pin a version (${registry.namespace}/<name>@<version>)`,
    );
  }
  return registry.url.replaceAll("{name}", INDEX_NAME);
}

const URL_PARTS = /^(https?:\/\/)(?:([^@/?#]*)@)?([^?#]*)(\?[^#]*)?(#.*)?$/;

/**
 * A URL template as messages show it: the user name and password replaced by `***`, and a
 * query value that comes from a variable too; the rest expanded (a host or path from a
 * variable is no secret). Never throws for a variable that is not set: it shows as `${NAME}`.
 */
export function displayUrl(template: string, env: Environment): string {
  const parts = URL_PARTS.exec(template);
  if (parts === null) return "***";
  const [, scheme, userinfo, hostPath, query, fragment] = parts;
  const plain = (text: string) =>
    text.replace(VARIABLE, (whole, name: string) => env(name) ?? whole);
  const masked = (text: string) =>
    text
      .split("&")
      .map((pair) => {
        const equals = pair.indexOf("=");
        if (equals < 0 || !/\$\{[^}]*\}/.test(pair.slice(equals + 1))) return plain(pair);
        return `${plain(pair.slice(0, equals))}=***`;
      })
      .join("&");
  return `${scheme}${userinfo === undefined ? "" : "***@"}${plain(hostPath ?? "")}${query === undefined ? "" : masked(query)}${fragment === undefined ? "" : plain(fragment)}`;
}

/** `text` with every secret in it replaced by `***` (the longest first, so none is left half). */
export function redactSecrets(text: string, secrets: Iterable<string>): string {
  let redacted = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    // a secret of one or two characters would blot out ordinary text; such a token is none
    if (secret.length < 3) continue;
    redacted = redacted.replaceAll(secret, "***");
  }
  return redacted;
}

/** A KilnError with the secrets taken out of its message and detail. */
export function redactError(error: KilnError, secrets: Iterable<string>): KilnError {
  const list = [...secrets];
  const message = redactSecrets(error.message, list);
  const detail = error.detail === undefined ? undefined : redactSecrets(error.detail, list);
  // an unknown namespace stays one, so a front can still tell it by its type
  if (error instanceof UnknownNamespaceError) {
    return new UnknownNamespaceError(message, detail ?? "", error.configured);
  }
  return new KilnError(error.kind, message, detail);
}
