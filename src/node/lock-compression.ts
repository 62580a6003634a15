// kiln.lock's codec in Node, for the CLI and the service alike: sha256 of the files and the
// items, and each file's `base` - raw DEFLATE (Node's zlib, level 9), base64. The service
// encodes the bases of the dashboard's zip with this same code (POST /api/lock/bases), so the
// zip's kiln.lock is byte for byte the one `kiln setup` writes with the same kiln: zlib's
// output is Node's own (it differs from any JavaScript deflate, and may between builds), and a
// JavaScript deflate in the CLI costs a cold start far more (fflate: ~75 ms of CPU for the 77
// small files of multi-tier-platform, against ~5 ms for zlib).
//
// zlib is required on first use: the render workers load this module for their lock bases jobs
// and their hashes, and a worker that never compresses (every CLI render of a registry item)
// would pay for loading zlib at its start, about 5 ms of CPU.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { MAX_VENDORED_FILE_BYTES } from "../core/project/file-outcomes.ts";
import type { LockCodec } from "../core/project/lock-entry.ts";

/** Hex sha256 of a text's UTF-8 bytes (or of bytes). */
export function sha256Hex(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

const LEVEL = { level: 9 };

const requireHere = createRequire(import.meta.url);

/** node:zlib, loaded when first needed. */
function zlib(): typeof import("node:zlib") {
  return requireHere("node:zlib") as typeof import("node:zlib");
}

/** A file's content as kiln.lock keeps it: raw DEFLATE (level 9), base64. */
export function encodeBase(content: string): string {
  const bytes = Buffer.from(content, "utf8");
  return (
    reusedCompressor()?.base64(bytes) ?? zlib().deflateRawSync(bytes, LEVEL).toString("base64")
  );
}

/**
 * encodeBase's answer from the process's reused compressor alone: undefined where that cannot
 * answer (another Node's handle, a content over REUSED_UP_TO_BYTES), where encodeBase makes a
 * stream of its own instead.
 */
export function encodeBaseReused(content: string): string | undefined {
  return reusedCompressor()?.base64(Buffer.from(content, "utf8"));
}

/**
 * The native half of a zlib stream object (`_handle`, with `_writeState` beside it on the
 * stream): zlib's deflate() into a caller's buffer, and deflateReset().
 */
interface DeflateHandle {
  reset(): void;
  writeSync(
    flush: number,
    input: Uint8Array,
    inputOffset: number,
    inputLength: number,
    output: Uint8Array,
    outputOffset: number,
    outputLength: number,
  ): void;
}

/**
 * Contents up to this size go through the one reused compressor. Such a content fits in the
 * first half of zlib's window (32 KiB at the default windowBits), where zlib puts its input
 * without sliding it, so the pass of zeros below covers exactly the bytes it wrote there. Larger
 * ones (rare: a vendored file is usually a few KiB) get a stream of their own, where zlib's
 * set-up is small beside the compression itself.
 */
const REUSED_UP_TO_BYTES = 16 * 1024;

/** zlib's own bound for one deflate call's output (its compressBound), so one call finishes. */
function deflateBound(length: number): number {
  return length + (length >> 12) + (length >> 14) + (length >> 25) + 13;
}

/**
 * One level-9 raw DEFLATE compressor for every base a process encodes, reset between contents.
 * Hand-written because Node's zlib has no public synchronous call that keeps a compressor:
 * deflateRawSync builds a stream object and zlib's state (about 270 KiB, allocated, touched and
 * freed) for each call, about 80 us of CPU against 10 us for compressing a small file itself -
 * and `kiln setup multi-tier-platform` compresses 41 distinct texts.
 *
 * Each base must be byte for byte a fresh compressor's (kiln.lock is stable, and the service
 * makes the dashboard zip's bases with a fresh stream each, encodeBaseAsync). zlib's
 * deflateReset (the handle's reset) starts a new stream, but keeps the window's bytes, and the
 * match search compares up to 258 bytes past the input's end ("ignoring lookahead", in zlib's
 * words), where a fresh compressor has zeros: a longer content before could change which
 * match is taken (seen: 133 of 2,000 random texts after another came out different). So after
 * each content the compressor takes as many zeros, which puts zeros back over every byte the
 * content wrote, and the next content meets the window a fresh compressor has.
 * test/node/lock-compression.test.ts holds the two together over generated sequences of texts.
 *
 * The handle is Node's internal object: where it is not the shape this expects (another Node),
 * or a call fails, `base64` answers undefined and encodeBase falls back to deflateRawSync.
 */
class ReusedCompressor {
  readonly #output = Buffer.allocUnsafe(deflateBound(REUSED_UP_TO_BYTES));
  readonly #zeros = Buffer.alloc(REUSED_UP_TO_BYTES);
  #failed = false;
  readonly #stream: import("node:zlib").DeflateRaw;
  readonly #handle: DeflateHandle;
  /** What the handle's last call left: [output bytes unused, input bytes not taken]. */
  readonly #state: Uint32Array;
  readonly #finish: number;

  constructor(
    stream: import("node:zlib").DeflateRaw,
    handle: DeflateHandle,
    state: Uint32Array,
    finish: number,
  ) {
    this.#stream = stream;
    this.#handle = handle;
    this.#state = state;
    this.#finish = finish;
    // zlib reports a failed call by destroying the stream there and then (checked below) and
    // an error event on the next tick, which must find a listener or it ends the process
    stream.on("error", () => {
      this.#failed = true;
    });
  }

  /** `bytes` compressed and in base64, or undefined when this compressor cannot answer. */
  base64(bytes: Buffer): string | undefined {
    if (this.#failed || bytes.length > REUSED_UP_TO_BYTES) return undefined;
    const compressed = this.#deflate(bytes, bytes.length);
    // the window as a fresh compressor has it, for the next content (see the class comment)
    const base =
      compressed === undefined ? undefined : this.#output.toString("base64", 0, compressed);
    if (base !== undefined && this.#deflate(this.#zeros, bytes.length) === undefined)
      return undefined;
    return base;
  }

  /** The first `length` bytes of `input` as one raw DEFLATE stream in #output: its length. */
  #deflate(input: Buffer, length: number): number | undefined {
    try {
      this.#handle.reset();
      this.#handle.writeSync(this.#finish, input, 0, length, this.#output, 0, this.#output.length);
    } catch {
      this.#failed = true;
    }
    const [outputLeft, inputLeft] = this.#state;
    // all input taken and room left over: zlib ended the stream (Z_STREAM_END)
    const ended = inputLeft === 0 && outputLeft !== undefined && outputLeft > 0;
    if (this.#failed || this.#stream.destroyed || !ended) {
      this.#failed = true;
      this.#stream.destroy();
      return undefined;
    }
    return this.#output.length - outputLeft;
  }
}

let compressor: ReusedCompressor | undefined | null;

/**
 * The process's reused compressor, made on first use; none where Node's handle is not as
 * expected.
 */
function reusedCompressor(): ReusedCompressor | undefined {
  if (compressor === undefined) compressor = newReusedCompressor();
  return compressor ?? undefined;
}

function newReusedCompressor(): ReusedCompressor | null {
  const { createDeflateRaw, constants } = zlib();
  const stream = createDeflateRaw(LEVEL);
  const inside = stream as unknown as { _handle?: Partial<DeflateHandle>; _writeState?: unknown };
  const handle = inside._handle;
  const state = inside._writeState;
  if (
    typeof handle?.reset !== "function" ||
    typeof handle.writeSync !== "function" ||
    !(state instanceof Uint32Array) ||
    state.length !== 2
  ) {
    stream.destroy();
    return null;
  }
  return new ReusedCompressor(stream, handle as DeflateHandle, state, constants.Z_FINISH);
}

/** The same bytes as encodeBase, compressed on libuv's thread pool (the service's thread stays free). */
export function encodeBaseAsync(content: string): Promise<string> {
  return new Promise((resolve, reject) => {
    zlib().deflateRaw(Buffer.from(content, "utf8"), LEVEL, (error, bytes) =>
      error ? reject(error) : resolve(bytes.toString("base64")),
    );
  });
}

/**
 * A base's content (any raw DEFLATE stream: every kiln's bases read); undefined when it inflates
 * to more than MAX_VENDORED_FILE_BYTES - zlib stops there, so a small stream that would inflate to
 * gigabytes (a DEFLATE bomb in a lock from elsewhere) costs that much memory at most. Throws when
 * it is not raw DEFLATE.
 */
export function decodeBaseText(base: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = zlib().inflateRawSync(Buffer.from(base, "base64"), {
      maxOutputLength: MAX_VENDORED_FILE_BYTES,
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") return undefined;
    throw error;
  }
  return bytes.toString("utf8");
}

export const NODE_LOCK_CODEC: LockCodec = { sha256: sha256Hex, encodeBase };
