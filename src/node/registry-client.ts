// The client of namespaced registries: `@acme/redis` and `@acme/redis@1.2.0` resolved through
// the registries configured in the project's kiln.toml and the user's
// `$XDG_CONFIG_HOME/kiln/config.toml` (the project's entry for a namespace wins), and `@kiln`,
// kiln's own registry, read from the package's folder with no configuration and no network.
//
// A registry serves static files: `registry.json` (the index: each item's newest version and
// the sha256 of that version's file), `<name>.json` and `<name>@<version>.json`. A reference
// without a version takes the newest from the index. Every fetched file is hashed: bytes that
// differ from the digest recorded for the same version (in kiln.lock, or in the index for the
// version it names) are refused. `${VAR}`s in a registry's URL and headers come from the
// environment; their values, the headers and a URL's user name and password are secrets: they
// go only into the request (never to another origin: src/node/fetch-url.ts), and every message
// built here passes through the redaction of src/core/registry-config.ts.
//
// What a configured registry served is kept in kiln's cache (src/node/registry-cache.ts): an
// item whose digest kiln.lock or the index gives is read from there by that digest, and an index
// fetched less than 10 minutes ago is used as it is, so a warm, pinned add asks the network
// nothing. An offline run (src/node/network-mode.ts) takes everything from the cache, at any age,
// or stops naming what is not cached.
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PROJECT_FILE } from "../core/config.ts";
import { isKilnError, KilnError } from "../core/errors.ts";
import { parseRegistryItemText, type RegistryItem } from "../core/item.ts";
import { parseConfigRegistries } from "../core/project/kiln-toml.ts";
import type { Lock, RegistryLockSource } from "../core/project/lock-format.ts";
import {
  checkExpandedHeader,
  displayUrl,
  type Environment,
  expandVariables,
  fillTemplate,
  INDEX_NAME,
  indexTemplate,
  KILN_NAMESPACE,
  mergeRegistries,
  parseRegistryReference,
  type RegistryConfig,
  type RegistryReference,
  redactError,
  registryReferenceText,
  registryVariables,
  unknownNamespaceError,
} from "../core/registry-config.ts";
import {
  changedWithoutNewVersionError,
  indexEntry,
  parseRegistryIndex,
  type RegistryIndex,
} from "../core/registry-index.ts";
import { FetchFailure, type FetchOptions, fetchBytes } from "./fetch-url.ts";
import { isOffline, refreshIndexes } from "./network-mode.ts";
import {
  MAX_PROJECT_FILE_BYTES,
  readRegularFile,
  readRegularFileBytes,
} from "./read-regular-file.ts";
import {
  type CachedBytes,
  INDEX_FRESH_MS,
  RegistryCache,
  sha256Digest,
  shownCacheDir,
} from "./registry-cache.ts";
import { MAX_LOCAL_FILE_BYTES } from "./resolve-reference.ts";

/**
 * Where `@kiln`'s built files are: `registries/kiln/` beside the core in the package (every
 * JavaScript file of kiln is one folder below src/ or dist/, as builtin-registry.ts explains).
 */
export const KILN_REGISTRY_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "registries",
  "kiln",
);

/** The user's registries file: `$XDG_CONFIG_HOME/kiln/config.toml`, `~/.config/...` by default. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.startsWith("/")
    ? env.XDG_CONFIG_HOME
    : join(homedir(), ".config");
  return join(base, "kiln", "config.toml");
}

/** The user file's registries (none when there is no file), its errors naming its path. */
function readUserRegistries(env: NodeJS.ProcessEnv): RegistryConfig[] {
  return readRegistriesFileAt(userConfigPath(env)) ?? [];
}

/**
 * The `[registries]` of the TOML file at `path` (the user's file, or the HTTP service's
 * `--config`), undefined when there is no such file; its errors name its path.
 */
function readRegistriesFileAt(path: string): RegistryConfig[] | undefined {
  const text = readRegularFile(path, path, MAX_PROJECT_FILE_BYTES);
  if (text === undefined) return undefined;
  try {
    return parseConfigRegistries(text, path);
  } catch (error) {
    // the shared checker words its errors for kiln.toml: this is another file
    if (isKilnError(error) && error.message.startsWith(PROJECT_FILE)) {
      const problem = error.message.slice(PROJECT_FILE.length).replace(/ - fix it or run .*$/, "");
      throw new KilnError(error.kind, `${path}${problem} - fix it`, error.detail);
    }
    throw error;
  }
}

/** The registries of the file `kiln serve --config <path>` names: it must exist. */
export function readRegistriesFile(path: string): Map<string, RegistryConfig> {
  const registries = readRegistriesFileAt(path);
  if (registries === undefined) {
    throw new KilnError(
      "invalid_request",
      `the configuration file ${path} does not exist (or is not a regular file)`,
      'give --config a TOML file with a [registries] table, as in kiln.toml: "@acme" = "https://registry.acme.dev/r/{name}.json"',
    );
  }
  return mergeRegistries([], registries);
}

/** kiln.toml's registries in `cwd` (none without the file). */
function readProjectRegistries(cwd: string): RegistryConfig[] {
  const text = readRegularFile(join(cwd, PROJECT_FILE), PROJECT_FILE, MAX_PROJECT_FILE_BYTES);
  return text === undefined ? [] : parseConfigRegistries(text);
}

/** The registries in effect in `cwd`: the user's, the project's on top. */
export function readRegistries(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Map<string, RegistryConfig> {
  return mergeRegistries(readUserRegistries(env), readProjectRegistries(cwd));
}

interface SemverFunctions {
  valid: typeof import("semver/functions/valid.js");
  gt: typeof import("semver/functions/gt.js");
}
let semverFunctions: Promise<SemverFunctions> | undefined;

/**
 * semver, loaded on first use (its start-up cost is for registries). Imported, not required
 * from node_modules: the CLI's bundle then carries it in the command's file, compiled from
 * that file's code cache and run only when first imported, where a require read and compiled
 * its seven files on every `kiln add @acme/redis` (5-20 ms in profiles).
 */
function semver(): Promise<SemverFunctions> {
  semverFunctions ??= Promise.all([
    import("semver/functions/valid.js"),
    import("semver/functions/gt.js"),
  ]).then(([valid, gt]) => ({ valid: valid.default, gt: gt.default }));
  return semverFunctions;
}

/** A version as kiln takes it: exactly a semver version (`1.2.0`, not `v1.2.0`). */
async function checkedVersion(version: string, what: string): Promise<string> {
  if ((await semver()).valid(version) !== version) {
    throw new KilnError(
      "invalid_request",
      `\`${version.slice(0, 80)}\` in ${what} is not a version`,
      "a version is semver: MAJOR.MINOR.PATCH, e.g. 1.2.0 or 2.0.0-rc.1",
    );
  }
  return version;
}

/** Is version `a` newer than `b` (semver order)? */
export async function isNewerVersion(a: string, b: string): Promise<boolean> {
  const { valid, gt } = await semver();
  return valid(a) !== null && valid(b) !== null && gt(a, b);
}

/** `@acme/redis@1.2.0` -> its digest, for every registry item kiln.lock records. */
export function recordedDigests(lock: Lock | undefined): Map<string, string> {
  const digests = new Map<string, string>();
  for (const entry of lock?.components ?? []) {
    const source = entry.source;
    if (source.type !== "registry") continue;
    digests.set(`${source.registry}/${source.item}@${source.version}`, source.digest);
  }
  return digests;
}

/** What a registry reference resolved to: the item and what the lock records of it. */
export interface RegistryResolution {
  item: RegistryItem;
  source: RegistryLockSource;
}

/** Reads one of a registry's files: by URL from a configured one, from the folder for @kiln. */
interface RegistryFiles {
  /** The index's bytes. */
  index(): Promise<Uint8Array>;
  /** The file of `item` at `version`. */
  item(item: string, version: string): Promise<Uint8Array>;
}

/** kiln's own registry: files of the package's folder, read as a stranger's would be. */
function kilnRegistryFiles(dir: string): RegistryFiles {
  const read = (name: string, what: string): Uint8Array => {
    const path = join(dir, `${name}.json`);
    const bytes = readRegularFileBytes(path, `${KILN_NAMESPACE}'s ${what}`, MAX_LOCAL_FILE_BYTES);
    if (bytes === undefined) {
      throw new KilnError(
        "invalid_request",
        name === INDEX_NAME
          ? `kiln's own registry ${KILN_NAMESPACE} is not in this installation (${dir} has no ${INDEX_NAME}.json)`
          : `the registry ${KILN_NAMESPACE} has no ${what}`,
        name === INDEX_NAME
          ? "reinstall kiln, or in a clone run `npm run build`"
          : `its items are listed by its index, ${join(dir, `${INDEX_NAME}.json`)}`,
      );
    }
    return bytes;
  };
  return {
    index: async () => read(INDEX_NAME, "index"),
    item: async (item, version) =>
      read(`${item}@${version}`, `item \`${item}\` at version ${version}`),
  };
}

/**
 * The bounds of one run's requests to registries, as a run's URL references have theirs
 * (src/cli/url-fetches.ts): a cloned repository's kiln.lock may name any number of registry
 * items and versions, and each is a request to a configured registry. 64 is far more than a
 * project's registry components and their indexes; 30 s is three times one request's deadline.
 */
export const RUN_REGISTRY_LIMITS = { maxRequests: 64, deadlineMs: 30_000 } as const;

/** What one run may still ask of registries: a count of requests and one deadline for all. */
class RequestBudget {
  private made = 0;
  private deadline: AbortController | undefined;

  /** A place for one more request, with the run's deadline; or why there is none. */
  take(): { signal: AbortSignal } | { refused: string } {
    if (this.made >= RUN_REGISTRY_LIMITS.maxRequests) {
      return {
        refused: `not fetched: a run of kiln makes at most ${RUN_REGISTRY_LIMITS.maxRequests} requests to registries, and this one needs more`,
      };
    }
    this.made += 1;
    if (this.deadline === undefined) {
      const deadline = new AbortController();
      this.deadline = deadline;
      setTimeout(
        () =>
          deadline.abort(
            new FetchFailure(
              `stopped: the run's requests to registries took ${RUN_REGISTRY_LIMITS.deadlineMs / 1000} s in all, the most kiln allows`,
            ),
          ),
        RUN_REGISTRY_LIMITS.deadlineMs,
      ).unref();
    }
    return { signal: this.deadline.signal };
  }
}

/**
 * What the HTTP service adds to every request to a registry: its own-address refusal, its
 * bound on fetches under way, its limits, and the caller's going away.
 */
export type ServiceFetchOptions = Pick<
  FetchOptions,
  "checkTarget" | "acquire" | "limits" | "signal"
>;

/**
 * A request to a registry that got no answer at all (the connection refused, the name not
 * resolved, the deadline passed): the network or the registry is down. An answer that is an
 * error (401, 404, 500) is not one: the registry is there and said no.
 */
class NoAnswer extends KilnError {}

/** A registry configured by URL: its requests, with the headers and credentials it sends. */
class RemoteRegistryFiles implements RegistryFiles {
  readonly registry: RegistryConfig;
  private readonly env: Environment;
  private readonly budget: RequestBudget;
  private readonly fetchOptions: ServiceFetchOptions;
  /** Everything that came from a variable or a header: never in a message. */
  readonly secrets = new Set<string>();

  constructor(
    registry: RegistryConfig,
    env: Environment,
    budget: RequestBudget,
    fetchOptions: ServiceFetchOptions = {},
  ) {
    this.registry = registry;
    this.env = env;
    this.budget = budget;
    this.fetchOptions = fetchOptions;
  }

  index(): Promise<Uint8Array> {
    return this.get(fillTemplate(indexTemplate(this.registry), INDEX_NAME, undefined), "its index");
  }

  /**
   * The index's URL as requested, variables expanded: what a kept index is known by, so an
   * index is never taken for another registry's. It may hold a secret (a password from a
   * variable): a key in memory only, never shown.
   */
  indexUrl(): string {
    const filled = fillTemplate(indexTemplate(this.registry), INDEX_NAME, undefined);
    return expandVariables(filled, this.registry, this.env, this.secrets);
  }

  item(item: string, version: string): Promise<Uint8Array> {
    return this.get(
      fillTemplate(this.registry.url, item, version),
      `the item ${this.registry.namespace}/${item}@${version}`,
    );
  }

  /** GETs the template filled in (`filled`), within fetch-url.ts's limits. */
  private async get(filled: string, what: string): Promise<Uint8Array> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.registry.headers)) {
      const expanded = expandVariables(value, this.registry, this.env, this.secrets);
      this.secrets.add(expanded);
      checkExpandedHeader(name, expanded, this.registry);
      headers[name] = expanded;
    }
    const url = this.withoutCredentials(
      expandVariables(filled, this.registry, this.env, this.secrets),
      headers,
    );
    const shown = displayUrl(filled, this.env);
    const failed = (why: string, answered = true) =>
      new (answered ? KilnError : NoAnswer)(
        "invalid_request",
        `failed to fetch ${what} from ${this.registry.namespace} at ${shown}`,
        why,
      );
    const place = this.budget.take();
    if ("refused" in place) throw failed(place.refused);
    try {
      const signal = this.fetchOptions.signal
        ? AbortSignal.any([place.signal, this.fetchOptions.signal])
        : place.signal;
      return await fetchBytes(url, { ...this.fetchOptions, headers, signal });
    } catch (error) {
      if (!(error instanceof FetchFailure)) throw error;
      if (error.status === 401 || error.status === 403)
        throw this.refusedError(error.status, shown);
      throw failed(error.message, error.status !== undefined);
    }
  }

  /**
   * The URL without its user name and password (fetch refuses a URL that holds them): they
   * go as Basic authorization instead, unless the registry sends an Authorization of its own.
   */
  private withoutCredentials(url: string, headers: Record<string, string>): string {
    const parsed = new URL(url);
    if (parsed.username === "" && parsed.password === "") return url;
    const user = decodeURIComponent(parsed.username);
    const password = decodeURIComponent(parsed.password);
    // the password is a secret wherever it came from; a user name typed into the file is not
    // (the URL as shown has neither: displayUrl)
    for (const secret of [password, parsed.password]) if (secret !== "") this.secrets.add(secret);
    const hasAuthorization = Object.keys(headers).some(
      (name) => name.toLowerCase() === "authorization",
    );
    if (!hasAuthorization) {
      headers.Authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
      this.secrets.add(headers.Authorization);
    }
    parsed.username = "";
    parsed.password = "";
    return parsed.href;
  }

  /** A 401 or 403: which registry, and what to set (the variables its configuration uses). */
  private refusedError(status: number, shown: string): KilnError {
    const variables = registryVariables(this.registry);
    const namespace = this.registry.namespace;
    return new KilnError(
      "invalid_request",
      `the registry ${namespace} refused kiln's request (HTTP ${status}${status === 401 ? " unauthorized" : " forbidden"}) at ${shown}`,
      variables.length > 0
        ? `set ${variables.join(", ")} to credentials it accepts (its entry in ${this.registry.from} uses ${variables.map((name) => `\${${name}}`).join(", ")})`
        : `its entry in ${this.registry.from} sends no credentials: add headers = { Authorization = "Bearer \${TOKEN}" } under [registries."${namespace}"] and set TOKEN`,
    );
  }
}

/**
 * Registry indexes kept beyond one client, by namespace and index URL: the HTTP service's,
 * shared by all its requests (src/server/index-cache.ts bounds their number and age).
 */
export interface SharedIndexes {
  /** The index under `key`, or the fetch of it under way (one fetch for every caller). */
  get(key: string): Promise<RegistryIndex> | undefined;
  set(key: string, index: Promise<RegistryIndex>): void;
  delete(key: string): void;
}

/**
 * The registry items of one run: each reference resolved once, each index read once. `digests`
 * are the ones kiln.lock records (`recordedDigests`): a version's bytes must match them.
 */
export class RegistryClient {
  private readonly cwd: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly digests: ReadonlyMap<string, string>;
  private readonly kilnDir: string;
  private registries: Map<string, RegistryConfig> | undefined;
  private readonly files = new Map<string, RegistryFiles>();
  private readonly indexes = new Map<string, Promise<RegistryIndex>>();
  private readonly resolved = new Map<string, Promise<RegistryResolution>>();
  private readonly budget = new RequestBudget();
  private readonly cache: RegistryCache | undefined;
  private readonly fetchOptions: ServiceFetchOptions;
  private readonly sharedIndexes: SharedIndexes | undefined;
  private readonly localIndexes: Map<string, Promise<RegistryIndex>> | undefined;
  private readonly warn: ((message: string) => void) | undefined;

  constructor(
    cwd: string,
    options: {
      digests?: ReadonlyMap<string, string>;
      env?: NodeJS.ProcessEnv;
      kilnDir?: string;
      /** The registries to use instead of the files in `cwd` (the HTTP service's own). */
      registries?: Map<string, RegistryConfig>;
      fetchOptions?: ServiceFetchOptions;
      /** false: no cache (the HTTP service, which writes no file). Default true. */
      cache?: boolean;
      /** Indexes kept in memory across clients (the HTTP service's); none by default. */
      sharedIndexes?: SharedIndexes;
      /**
       * Indexes of registries read from a folder (`@kiln`'s, part of the installed package), kept
       * across clients for as long as the map lives (the HTTP service's life); none by default.
       */
      localIndexes?: Map<string, Promise<RegistryIndex>>;
      /**
       * Where a warning goes. With it, a registry that does not answer has its index taken
       * from kiln's cache at any age, with a warning saying so; without it, that is an error.
       */
      warn?: (message: string) => void;
    } = {},
  ) {
    this.cwd = cwd;
    this.env = options.env ?? process.env;
    this.digests = options.digests ?? new Map();
    this.kilnDir = options.kilnDir ?? KILN_REGISTRY_DIR;
    this.cache = options.cache === false ? undefined : new RegistryCache(this.env);
    this.registries = options.registries;
    this.fetchOptions = options.fetchOptions ?? {};
    this.sharedIndexes = options.sharedIndexes;
    this.localIndexes = options.localIndexes;
    this.warn = options.warn;
  }

  /** Every registry this client can read: `@kiln`, then the configured ones by namespace. */
  namespaces(): string[] {
    this.registries ??= readRegistries(this.cwd, this.env);
    const configured = [...this.registries.keys()].filter((name) => name !== KILN_NAMESPACE);
    return [KILN_NAMESPACE, ...configured.sort()];
  }

  /** The index of the registry `namespace` (`kiln search`, `kiln list @acme`), read once. */
  readIndex(namespace: string): Promise<RegistryIndex> {
    return this.redacted(() => this.index(namespace));
  }

  /** The item `reference` (`@ns/name[@version]`) names, fetched and verified once per run. */
  resolve(reference: string): Promise<RegistryResolution> {
    let resolution = this.resolved.get(reference);
    if (resolution === undefined) {
      resolution = this.redacted(() => this.fetchItem(reference));
      this.resolved.set(reference, resolution);
    }
    return resolution;
  }

  /** The newest version the registry's index lists for `item` (status's "newer" line). */
  newestVersion(namespace: string, item: string): Promise<string> {
    return this.redacted(async () => {
      const index = await this.index(namespace);
      return indexEntry(index, namespace, item).version;
    });
  }

  /**
   * The verified bytes of the item `reference` names, not parsed: the HTTP service parses a
   * stranger's item in a render worker, never on its own thread.
   */
  itemBytes(reference: string): Promise<{ bytes: Uint8Array; source: RegistryLockSource }> {
    return this.redacted(() => this.fetchVerified(reference));
  }

  private async fetchItem(reference: string): Promise<RegistryResolution> {
    const { bytes, source } = await this.fetchVerified(reference);
    const pinned = registryReferenceText({
      namespace: source.registry,
      item: source.item,
      version: source.version,
    });
    const item = parseRegistryItemText(new TextDecoder().decode(bytes), pinned);
    return { item, source };
  }

  private async fetchVerified(
    reference: string,
  ): Promise<{ bytes: Uint8Array; source: RegistryLockSource }> {
    const parsed = parseRegistryReference(reference) as RegistryReference;
    if (parsed.item === INDEX_NAME) {
      throw new KilnError(
        "invalid_request",
        `\`${reference}\` names no item - \`${INDEX_NAME}\` is the name of a registry's index, which no item may have`,
        `run \`kiln add ${parsed.namespace}/<name>\` with the name of one of its items`,
      );
    }
    const files = this.filesOf(reference, parsed.namespace);
    let version = parsed.version;
    let expected: { digest: string; where: string } | undefined;
    if (version === undefined) {
      const entry = indexEntry(await this.index(parsed.namespace), parsed.namespace, parsed.item);
      version = await checkedVersion(entry.version, `the index of ${parsed.namespace}`);
      expected = { digest: entry.digest, where: `the index of ${parsed.namespace}` };
    } else {
      await checkedVersion(version, `\`${reference}\``);
    }
    const pinned = registryReferenceText({ ...parsed, version });
    const recorded = this.digests.get(pinned);
    if (recorded !== undefined) expected = { digest: recorded, where: "kiln.lock" };
    const cached = this.cachedItem(files, parsed.item, version, expected?.digest);
    if (cached === undefined && files instanceof RemoteRegistryFiles && isOffline(this.env)) {
      throw notCachedError(pinned, this.env);
    }
    // bytes from the cache were hashed when read: their digest is the one they were checked by
    let read = cached;
    if (read === undefined) {
      const bytes = await files.item(parsed.item, version);
      read = { bytes, digest: sha256Digest(bytes) };
    }
    const { bytes, digest } = read;
    if (expected !== undefined && expected.digest !== digest) {
      throw changedWithoutNewVersionError(pinned, expected.digest, digest, expected.where);
    }
    if (cached === undefined && files instanceof RemoteRegistryFiles) {
      this.cache?.putItem(files.registry, parsed.item, version, read);
    }
    return {
      bytes,
      source: {
        type: "registry",
        registry: parsed.namespace,
        item: parsed.item,
        version,
        digest,
      },
    };
  }

  /**
   * A registry's item from kiln's cache: by the digest kiln.lock or the index expects, when one
   * does (content-addressed: the bytes are those), else by what the cache recorded for that
   * version. @kiln's files are on the disk already: never cached.
   */
  private cachedItem(
    files: RegistryFiles,
    item: string,
    version: string,
    digest: string | undefined,
  ): CachedBytes | undefined {
    if (!(files instanceof RemoteRegistryFiles)) return undefined;
    if (digest === undefined) return this.cache?.item(files.registry, item, version);
    const bytes = this.cache?.blob(digest);
    return bytes === undefined ? undefined : { bytes, digest };
  }

  private index(namespace: string): Promise<RegistryIndex> {
    let index = this.indexes.get(namespace);
    if (index === undefined) {
      index = this.loadIndex(namespace);
      index.catch(() => undefined);
      this.indexes.set(namespace, index);
    }
    return index;
  }

  /**
   * A registry's index: from the shared indexes when they hold it, or from kiln's cache when it
   * was fetched less than INDEX_FRESH_MS ago (any age offline; never with --refresh), else
   * fetched, parsed and then kept.
   */
  private async loadIndex(namespace: string): Promise<RegistryIndex> {
    const files = this.filesOf(namespace, namespace);
    const parse = (bytes: Uint8Array) =>
      parseRegistryIndex(new TextDecoder().decode(bytes), namespace);
    if (!(files instanceof RemoteRegistryFiles)) {
      return this.localIndex(namespace, () => files.index().then(parse));
    }
    if (this.sharedIndexes !== undefined) return this.sharedIndex(namespace, files, parse);
    const offline = isOffline(this.env);
    const cached = this.cache?.index(files.registry);
    if (cached !== undefined && (offline || isFresh(cached.fetchedAt))) {
      const kept = this.cache?.blob(cached.digest);
      if (kept !== undefined) return parse(kept);
    }
    if (offline) throw notCachedError(`the index of ${namespace}`, this.env);
    let bytes: Uint8Array;
    try {
      bytes = await files.index();
    } catch (error) {
      if (!(error instanceof NoAnswer) || cached === undefined || this.warn === undefined) {
        throw error;
      }
      const kept = this.cache?.blob(cached.digest);
      if (kept === undefined) throw error;
      this.warn(staleIndexWarning(error, cached.fetchedAt, files.secrets));
      return parse(kept);
    }
    const index = parse(bytes);
    this.cache?.putIndex(files.registry, bytes);
    return index;
  }

  /**
   * A folder registry's index: from the kept local indexes when there are some (the files are
   * the installed package's, the same for as long as it runs), else read; a failure is not kept.
   */
  private localIndex(
    namespace: string,
    read: () => Promise<RegistryIndex>,
  ): Promise<RegistryIndex> {
    const kept = this.localIndexes;
    if (kept === undefined) return read();
    const key = `${namespace} ${this.kilnDir}`;
    let index = kept.get(key);
    if (index === undefined) {
      const reading = read();
      kept.set(key, reading);
      reading.catch(() => {
        if (kept.get(key) === reading) kept.delete(key);
      });
      index = reading;
    }
    return index;
  }

  /** The index from the shared ones, else fetched and kept there (a failure is never kept). */
  private async sharedIndex(
    namespace: string,
    files: RemoteRegistryFiles,
    parse: (bytes: Uint8Array) => RegistryIndex,
  ): Promise<RegistryIndex> {
    const shared = this.sharedIndexes as SharedIndexes;
    const key = `${namespace} ${files.indexUrl()}`;
    const kept = shared.get(key);
    if (kept !== undefined) return kept;
    // the fetch itself is kept, so requests arriving while it runs wait for it instead of each
    // fetching the same index; a failed one is dropped at once for the next request to retry
    const loading = files.index().then(parse);
    shared.set(key, loading);
    loading.catch(() => {
      if (shared.get(key) === loading) shared.delete(key);
    });
    return loading;
  }

  private filesOf(reference: string, namespace: string): RegistryFiles {
    let files = this.files.get(namespace);
    if (files !== undefined) return files;
    if (namespace === KILN_NAMESPACE) {
      files = kilnRegistryFiles(this.kilnDir);
    } else {
      this.registries ??= readRegistries(this.cwd, this.env);
      const registry = this.registries.get(namespace);
      if (registry === undefined) {
        throw unknownNamespaceError(reference, namespace, [...this.registries.keys()]);
      }
      files = new RemoteRegistryFiles(
        registry,
        (name) => this.env[name],
        this.budget,
        this.fetchOptions,
      );
    }
    this.files.set(namespace, files);
    return files;
  }

  /** Runs `work`; an error it throws has every secret this run has seen taken out. */
  private async redacted<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!isKilnError(error)) throw error;
      const secrets = [...this.files.values()].flatMap((files) =>
        files instanceof RemoteRegistryFiles ? [...files.secrets] : [],
      );
      return Promise.reject(redactError(error, secrets));
    }
  }
}

/**
 * The warning of a run that could not reach a registry and took the index kiln's cache holds,
 * older than INDEX_FRESH_MS: which registry, why, and how old the index is (what it lists may
 * have changed since; a pinned version's digest is checked as always).
 */
function staleIndexWarning(
  error: KilnError,
  fetchedAt: number,
  secrets: ReadonlySet<string>,
): string {
  const shown = redactError(error, [...secrets]);
  const minutes = Math.max(0, Math.round((Date.now() - fetchedAt) / 60_000));
  const age = minutes < 120 ? `${minutes} minutes` : `${Math.round(minutes / 60)} hours`;
  return `${shown.message} (${shown.detail ?? "no answer"}) - using its index from kiln's cache, fetched ${age} ago; its newest versions may have changed since`;
}

/** Is an index fetched at `fetchedAt` recent enough to use without asking the registry? */
function isFresh(fetchedAt: number): boolean {
  const age = Date.now() - fetchedAt;
  return !refreshIndexes() && age >= 0 && age < INDEX_FRESH_MS;
}

/** An offline run needs `what` (`@acme/redis@1.3.0`, `the index of @acme`), which is not cached. */
function notCachedError(what: string, env: NodeJS.ProcessEnv): KilnError {
  return new KilnError(
    "invalid_request",
    `${what} is not in kiln's cache (${shownCacheDir(env)}) - run without --offline once to fetch it`,
  );
}
