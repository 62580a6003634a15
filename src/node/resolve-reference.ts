// Component reference → registry item, tried in this order, the first match winning: built-in
// name (the part after the last `/`), URL, existing local file; anything else is an error.
// A reference of the fourth kind, `@ns/name[@version]` (src/core/registry-config.ts), is a
// namespaced registry's item and never one of these three (src/node/registry-client.ts).
//
// Local files are read only when they are regular files: the path is looked at with stat first,
// so a device, FIFO or socket is never opened (opening some devices does something: /dev/ptmx
// makes a terminal, a tape rewinds, a FIFO wakes its writer); then read through one descriptor,
// checked again with fstat after a non-blocking open (a FIFO or device swapped in meanwhile
// cannot block or feed kiln without end), and at most the size cap plus one byte is read,
// whatever size the file claims (/proc files claim 0). The HTTP service reads asynchronously and parses in its render workers: it asks for
// the bytes (`locateReference`) and never parses a stranger's item on its own thread.
// node:fs's `promises`, not node:fs/promises: the promise API is loaded when a local file is
// read, not by every command that bundles this module (a dozen of Node's internal modules, about 1 ms of a
// `kiln setup` that reads no file of its own)
import { constants, promises as fsPromises } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { closest } from "../core/did-you-mean.ts";
import { KilnError } from "../core/errors.ts";
import { parseRegistryItemText, type RegistryItem } from "../core/item.ts";
import type { Registry } from "../core/registry.ts";
import { isRegistryReference } from "../core/registry-config.ts";
import { builtinRegistry } from "./builtin-registry.ts";
import {
  DEFAULT_FETCH_LIMITS,
  type FetchOptions,
  fetchBytes,
  fetchFailed,
  isUrl,
} from "./fetch-url.ts";

export interface ResolveOptions {
  /** Directory that relative file references resolve against (the process's working dir). */
  cwd?: string;
  registry?: Registry;
  fetchLimits?: FetchOptions["limits"];
  /** Stops a fetch early (the client that asked has gone). */
  signal?: AbortSignal | undefined;
  /** Checks every address a fetch goes to (see FetchOptions.checkTarget). */
  checkTarget?: FetchOptions["checkTarget"];
  /** Bounds concurrent fetches (see FetchOptions.acquire). */
  acquire?: FetchOptions["acquire"];
}

/** Files larger than this are not read as registry items or presets. */
export const MAX_LOCAL_FILE_BYTES = DEFAULT_FETCH_LIMITS.maxBytes;

/**
 * What a reference names: a built-in item, or the bytes of an item file or URL to parse. A
 * local file also gives its identity (device, inode, size, change times): the same identity
 * means the same bytes, so what was derived from them may be kept.
 */
export type Located =
  | { item: RegistryItem; bytes?: undefined }
  | { item?: undefined; bytes: Uint8Array; origin: string; identity?: string | undefined };

export function builtinFor(reference: string, registry: Registry): RegistryItem | undefined {
  // `@acme/deployment` is @acme's deployment, not the built-in of that name
  if (isRegistryReference(reference)) return undefined;
  const lastSegment = reference.slice(reference.lastIndexOf("/") + 1);
  return registry.byComponentName(lastSegment);
}

export function unknownReferenceError(reference: string, registry?: Registry): KilnError {
  const guess = registry === undefined ? undefined : nearestBuiltin(reference, registry);
  return new KilnError(
    "invalid_request",
    `\`${reference}\` is not a built-in component and not a URL or existing local file - run \`kiln list\` to see the built-ins, or pass a URL or path to a registry-item JSON file`,
    guess === undefined ? undefined : `did you mean \`${guess}\`?`,
  );
}

/**
 * The built-in a mistyped reference most likely meant: `k8s/deploymnet` -> `k8s/deployment`,
 * compared with the full references; a bare `deploymnet` -> `deployment`, with the last segments
 * (which `kiln add` takes alone too).
 */
function nearestBuiltin(reference: string, registry: Registry): string | undefined {
  const references = registry.references();
  if (reference.includes("/")) return closest(reference, references);
  return closest(
    reference,
    references.map((full) => full.slice(full.lastIndexOf("/") + 1)),
  );
}

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** Open errors that mean "no such file here": the reference is then not a local file. */
const NOT_A_FILE = new Set(["ENOENT", "ENOTDIR", "EISDIR", "ENAMETOOLONG", "ELOOP", "ENXIO"]);

function readError(reference: string, error: unknown): KilnError {
  const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
  return new KilnError(
    "invalid_request",
    `could not read \`${reference}\` (${code}) - kiln reads registry items and presets only from regular files it may read`,
  );
}

function notRegularError(reference: string): KilnError {
  return new KilnError(
    "invalid_request",
    `\`${reference}\` is not a regular file - kiln reads registry items and presets only from regular files (not devices, pipes or sockets)`,
  );
}

function tooLargeError(reference: string, maxBytes: number): KilnError {
  return new KilnError(
    "invalid_request",
    `${reference} is larger than ${maxBytes} bytes - kiln reads files up to that size`,
  );
}

/** Opening failed because there is no file by that name (the reference is something else). */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code !== undefined && NOT_A_FILE.has(code);
}

/** Where a read starts: the size the file claims (plus one, to see it grow), within the cap. */
function firstBufferSize(claimed: number, maxBytes: number): number {
  return Math.min(maxBytes + 1, Math.max(claimed + 1, 64 * 1024));
}

/**
 * Reads a local file if `reference` names one (not a directory); undefined otherwise. Throws a
 * clear error for a file that is not regular, cannot be read, or is larger than `maxBytes`.
 * Reads through one descriptor, without blocking the thread.
 */
export async function readLocalFileBytes(
  reference: string,
  cwd: string,
  maxBytes = MAX_LOCAL_FILE_BYTES,
): Promise<Uint8Array | undefined> {
  return (await readRegularFile(reference, cwd, maxBytes))?.bytes;
}

/** `readLocalFileBytes` with the file's identity (see Located). */
async function readRegularFile(
  reference: string,
  cwd: string,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; identity: string } | undefined> {
  const path = resolvePath(cwd, reference);
  if (path.includes("\u0000")) return undefined;
  // by path first, links followed: anything but a regular file is refused unopened
  let claimed: Awaited<ReturnType<typeof fsPromises.stat>>;
  try {
    claimed = await fsPromises.stat(path);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw readError(reference, error);
  }
  if (claimed.isDirectory()) return undefined;
  if (!claimed.isFile()) throw notRegularError(reference);
  let handle: Awaited<ReturnType<typeof fsPromises.open>>;
  try {
    handle = await fsPromises.open(path, READ_FLAGS);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw readError(reference, error);
  }
  try {
    // the descriptor is what is read: check it, not the path (it may have been swapped)
    const stats = await handle.stat({ bigint: true });
    if (stats.isDirectory()) return undefined;
    if (!stats.isFile()) throw notRegularError(reference);
    if (stats.size > BigInt(maxBytes)) throw tooLargeError(reference, maxBytes);
    // Its own buffer, not a slice of Node's pool: the service hands it to a render worker.
    let buffer = new Uint8Array(firstBufferSize(Number(stats.size), maxBytes));
    let total = 0;
    for (;;) {
      if (total === buffer.byteLength) {
        if (total > maxBytes) throw tooLargeError(reference, maxBytes);
        const larger = new Uint8Array(Math.min(maxBytes + 1, buffer.byteLength * 2));
        larger.set(buffer);
        buffer = larger;
      }
      const { bytesRead } = await handle.read(buffer, total, buffer.byteLength - total, null);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    if (total > maxBytes) throw tooLargeError(reference, maxBytes);
    const bytes = total === buffer.byteLength ? buffer : buffer.slice(0, total);
    const { dev, ino, size, mtimeNs, ctimeNs } = stats;
    return { bytes, identity: `${dev}:${ino}:${size}:${mtimeNs}:${ctimeNs}:${total}` };
  } catch (error) {
    if (error instanceof KilnError) throw error;
    throw readError(reference, error);
  } finally {
    await handle.close();
  }
}

/** `readLocalFileBytes` as text. */
export async function readLocalFile(reference: string, cwd: string): Promise<string | undefined> {
  const bytes = await readLocalFileBytes(reference, cwd);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}

/**
 * What `reference` names, without parsing it: the built-in item, or the bytes of the URL or
 * local file (read without blocking). Throws the unknown-reference error for anything else.
 */
export async function locateReference(
  reference: string,
  options: ResolveOptions = {},
): Promise<Located> {
  const registry = options.registry ?? builtinRegistry();
  const builtin = builtinFor(reference, registry);
  if (builtin) return { item: builtin };
  if (isUrl(reference)) {
    try {
      const bytes = await fetchBytes(reference, {
        limits: options.fetchLimits,
        signal: options.signal,
        checkTarget: options.checkTarget,
        acquire: options.acquire,
      });
      return { bytes, origin: reference };
    } catch (error) {
      throw fetchFailed("registry item", reference, error);
    }
  }
  const file = await readRegularFile(reference, options.cwd ?? process.cwd(), MAX_LOCAL_FILE_BYTES);
  if (file !== undefined) return { bytes: file.bytes, origin: reference, identity: file.identity };
  throw unknownReferenceError(reference, registry);
}

/** Parses the bytes of an item file or URL (as `locateReference` returned them). */
export function parseLocatedItem(bytes: Uint8Array, origin: string): RegistryItem {
  return parseRegistryItemText(new TextDecoder().decode(bytes), origin);
}

export async function resolveReference(
  reference: string,
  options: ResolveOptions = {},
): Promise<RegistryItem> {
  const located = await locateReference(reference, options);
  return located.item ?? parseLocatedItem(located.bytes, located.origin);
}
