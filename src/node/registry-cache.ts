// kiln's cache of what registries served, under `$XDG_CACHE_HOME/kiln` (`~/.cache/kiln` when
// it is not set or not absolute, as the XDG base directory rules say), so a pinned project can
// be added to, updated, diffed and checked with the network down, and `--offline` can work at all.
//
//   blobs/sha256/<hex>                          the bytes of an item or an index, named by their sha256
//   registries/<key>/items/<item>@<version>     `sha256:<hex>`: which blob that version is
//   registries/<key>/index                      `{"digest": "sha256:<hex>", "fetchedAt": <ms>}`
//
// `<key>` names one registry as configured: the sha256 of its namespace and URL templates as
// written in kiln.toml (`${VAR}`s not expanded), so two projects' `@acme` that point at
// different places never share entries, and no secret is in a name or a file. Nothing here
// holds a header, a credential or a URL. A blob is content-addressed: it is hashed when read
// and one whose bytes are not its name (corrupt, or planted by someone else) is deleted and
// never used; every file is read as a stranger's (regular files only, no links, at most
// 10 MiB). Writes go to a temporary file beside the target and are renamed over it
// (atomic-write.ts), so two kiln processes at once each see a whole file or none. The cache is
// bounded: past MAX_CACHE_BYTES of blobs, the ones used longest ago are removed, once per
// command, after its first new blob; so are temporary files of kiln's older than an hour, left
// by a run killed between its write and its rename. A cache that cannot be written (a read-only
// home) is no cache: nothing fails because of it.
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, rmSync, utimesSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { isKilnError } from "../core/errors.ts";
import type { RegistryConfig } from "../core/registry-config.ts";
import { isTemporaryName, writeAtomically } from "./atomic-write.ts";
import { readRegularFileBytes } from "./read-regular-file.ts";

/** The most blob bytes the cache keeps; past it the blobs used longest ago go. */
export const MAX_CACHE_BYTES = 256 * 1024 * 1024;

/** The largest blob read back: a registry's item or index is at most this when fetched. */
const MAX_BLOB_BYTES = 10 * 1024 * 1024;

/**
 * The age past which a temporary file of kiln's in the cache is a crashed run's leftover: a
 * running writer's file is at most seconds old (it writes at most 10 MiB, then renames).
 */
const LEFTOVER_AGE_MS = 60 * 60 * 1000;

/** How long an index from the cache is taken as the registry's current one (online). */
export const INDEX_FRESH_MS = 10 * 60 * 1000;

const DIGEST = /^sha256:([0-9a-f]{64})$/;

/** The name of a blob: its sha256 in hex. Anything else in the folder is not a blob. */
const BLOB_NAME = /^[0-9a-f]{64}$/;

/** kiln's cache folder: `$XDG_CACHE_HOME/kiln`, `~/.cache/kiln` by default. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME?.startsWith("/") ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "kiln");
}

/** The cache folder as messages show it: `~/.cache/kiln` under the home folder. */
export function shownCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = cacheDir(env);
  const home = homedir();
  return dir.startsWith(`${home}/`) ? `~${dir.slice(home.length)}` : dir;
}

/** The sha256 digest of `bytes`: `sha256:<hex>`. */
export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** A registry's cache key: its namespace and URL templates as written, hashed. */
function registryKey(registry: RegistryConfig): string {
  const written = [registry.namespace, registry.url, registry.index ?? ""].join("\n");
  return createHash("sha256").update(written).digest("hex").slice(0, 32);
}

/** The index of a registry kiln fetched last: which blob holds it, and when it was fetched. */
export interface CachedIndex {
  digest: string;
  fetchedAt: number;
}

/** Bytes read from the cache, with the digest they were verified against. */
export interface CachedBytes {
  bytes: Uint8Array;
  digest: string;
}

/**
 * The cache of one command: reads never throw, writes are best effort. It keeps what it verified,
 * so no blob is hashed twice in a command, and evicts at most once.
 */
export class RegistryCache {
  private readonly dir: string;
  private usable: boolean | undefined;
  /** The digests of the blobs this command read whole and found to be their name's bytes. */
  private readonly verified = new Set<string>();
  private evicted = false;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.dir = cacheDir(env);
  }

  /** The bytes whose digest is `digest`, verified; undefined when not cached (or not intact). */
  blob(digest: string): Uint8Array | undefined {
    const hex = DIGEST.exec(digest)?.[1];
    if (hex === undefined || !this.ready(false)) return undefined;
    const path = join(this.dir, "blobs", "sha256", hex);
    const bytes = this.readSmall(path, MAX_BLOB_BYTES);
    if (bytes === undefined) return undefined;
    if (sha256Digest(bytes) !== digest) {
      // not the bytes its name says: corrupt or planted - never used, fetched again
      rmSync(path, { force: true });
      return undefined;
    }
    this.verified.add(digest);
    this.touch(path);
    return bytes;
  }

  /** The item `item@version` of `registry`, when the cache knows which blob it is. */
  item(registry: RegistryConfig, item: string, version: string): CachedBytes | undefined {
    const digest = this.readText(this.entryPath(registry, "items", `${item}@${version}`))?.trim();
    if (digest === undefined) return undefined;
    const bytes = this.blob(digest);
    return bytes === undefined ? undefined : { bytes, digest };
  }

  /**
   * Which blob holds the index of `registry` kiln fetched last, and when. The blob itself is
   * read (and hashed) only by the caller that uses it: an index too old to use is not read.
   */
  index(registry: RegistryConfig): CachedIndex | undefined {
    const text = this.readText(this.entryPath(registry, "index"));
    if (text === undefined) return undefined;
    let entry: { digest?: unknown; fetchedAt?: unknown };
    try {
      entry = JSON.parse(text) as typeof entry;
    } catch {
      return undefined;
    }
    if (typeof entry.digest !== "string" || typeof entry.fetchedAt !== "number") return undefined;
    return { digest: entry.digest, fetchedAt: entry.fetchedAt };
  }

  /** Keeps the bytes of `item@version`, verified by the caller, whose sha256 is `digest`. */
  putItem(registry: RegistryConfig, item: string, version: string, fetched: CachedBytes): void {
    if (!this.putBlob(fetched)) return;
    this.writeFile(this.entryPath(registry, "items", `${item}@${version}`), `${fetched.digest}\n`);
  }

  /** Keeps an index just fetched, with the time it was fetched. */
  putIndex(registry: RegistryConfig, bytes: Uint8Array, fetchedAt = Date.now()): void {
    const digest = sha256Digest(bytes);
    if (!this.putBlob({ bytes, digest })) return;
    this.writeFile(this.entryPath(registry, "index"), JSON.stringify({ digest, fetchedAt }));
  }

  /**
   * Keeps a blob; false when the cache cannot be written. A blob this command already read and
   * verified, or whose file holds exactly these bytes (read back and compared), is only marked as
   * used - unless another kiln evicted it since, when it is written again (an entry must never
   * name a blob that is gone). Any other is written, even when a file of its name is there:
   * corrupt or planted. Reading back costs far less than writing again: a registry's index
   * fetched again with `--refresh` is most often the same bytes, and renaming a new file over an
   * identical one made the file system write the new file's blocks first (ext4 does so for a
   * rename over an existing file): 1-7 ms of `kiln search --refresh` over a 1,000-item index,
   * against about 0.1 ms to read and compare it.
   */
  private putBlob({ bytes, digest }: CachedBytes): boolean {
    if (!this.ready(true)) return false;
    const path = join(this.dir, "blobs", "sha256", digest.slice("sha256:".length));
    if (this.verified.has(digest) && this.touch(path)) return true;
    if (this.holds(path, bytes) && this.touch(path)) {
      this.verified.add(digest);
      return true;
    }
    if (!this.writeFile(path, bytes)) return false;
    this.verified.add(digest);
    if (!this.evicted) {
      this.evicted = true;
      this.evictOldest();
    }
    return true;
  }

  private entryPath(registry: RegistryConfig, ...parts: string[]): string {
    return join(this.dir, "registries", registryKey(registry), ...parts);
  }

  /**
   * Is the cache folder there and ours (`create`: make it, 0700)? A folder that is a link or
   * belongs to another user is not used: someone else could put files in it.
   */
  private ready(create: boolean): boolean {
    if (this.usable === true) return true;
    try {
      if (create) mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const stats = lstatSync(this.dir);
      const uid = process.getuid?.();
      this.usable = stats.isDirectory() && (uid === undefined || stats.uid === uid);
    } catch {
      this.usable = false;
    }
    return this.usable;
  }

  /**
   * Whether the file at `path` is a regular file holding exactly `bytes`; false when it cannot
   * be looked at (a `blobs` that is a file, a folder kiln may not search): the blob is then
   * written, or the write fails quietly, as any cache write may.
   */
  private holds(path: string, bytes: Uint8Array): boolean {
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(path, { throwIfNoEntry: false });
    } catch {
      return false;
    }
    if (!stats?.isFile() || stats.size !== bytes.byteLength) return false;
    const held = this.readSmall(path, MAX_BLOB_BYTES);
    return held?.equals(bytes) === true;
  }

  /** A small file's bytes, read as a stranger's file; undefined when absent or refused. */
  private readSmall(path: string, maxBytes: number): Buffer | undefined {
    try {
      return readRegularFileBytes(path, "a file of kiln's cache", maxBytes, { followLinks: false });
    } catch (error) {
      if (isKilnError(error)) return undefined;
      throw error;
    }
  }

  private readText(path: string): string | undefined {
    if (!this.ready(false)) return undefined;
    return this.readSmall(path, 4096)?.toString("utf8");
  }

  /** Writes a cache file atomically, readable by its owner only; false when it cannot. */
  private writeFile(path: string, data: Uint8Array | string): boolean {
    try {
      mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
      writeAtomically(path, data, 0o600);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Marks a blob as just used (eviction takes the ones used longest ago); false when it is not
   * there (another kiln evicted it since it was read).
   */
  private touch(path: string): boolean {
    try {
      const now = new Date();
      utimesSync(path, now, now);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Removes the blobs used longest ago while the blobs take more than MAX_CACHE_BYTES. Only
   * blobs count: a file of another name may be another kiln's temporary file, being written.
   * kiln's temporary files older than LEFTOVER_AGE_MS go too (removeLeftover).
   */
  private evictOldest(): void {
    const folder = join(this.dir, "blobs", "sha256");
    let blobs: { path: string; size: number; used: number }[];
    try {
      blobs = readdirSync(folder).flatMap((name) => {
        const path = join(folder, name);
        if (!BLOB_NAME.test(name)) {
          removeLeftover(path, name);
          return [];
        }
        const stats = lstatSync(path, { throwIfNoEntry: false });
        return stats?.isFile() ? [{ path, size: stats.size, used: stats.mtimeMs }] : [];
      });
    } catch {
      return;
    }
    let total = blobs.reduce((sum, blob) => sum + blob.size, 0);
    if (total <= MAX_CACHE_BYTES) return;
    blobs.sort((a, b) => a.used - b.used);
    for (const blob of blobs) {
      if (total <= MAX_CACHE_BYTES) break;
      rmSync(blob.path, { force: true });
      total -= blob.size;
    }
  }
}

/**
 * Removes `path` when it is a temporary file of kiln's (by its name) not written for
 * LEFTOVER_AGE_MS: the run writing it was killed before its rename, and nothing else would ever
 * remove it (it is outside the blobs' bound). A fresh one is a running writer's, left to it.
 */
function removeLeftover(path: string, name: string): void {
  if (!isTemporaryName(name)) return;
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats?.isFile() && Date.now() - stats.mtimeMs > LEFTOVER_AGE_MS)
      rmSync(path, { force: true });
  } catch {
    // one that cannot be removed now stops nothing: the next eviction tries again
  }
}
