// Answers to POST /api/render that the service has already computed, by request body.
//
// A render of a built-in component is a pure function of the request body: the built-in
// registry does not change while the service runs, and resolution step 1 (a built-in by name)
// does not look at the network or the disk. So the same body always gets the same answer, and
// repeating it need not cost a trip to a render worker (the engine's context conversion and
// filter calls are most of a render's cost, see docs/http-api.md). Clients do repeat bodies:
// the dashboard's preview of every component of a project, scripts and CI jobs that render the
// same components over and over.
//
// What is kept: only successful renders of built-in components (URLs and files can change
// between two requests; failures are cheap to recompute and must stay visible as they happen),
// and only from the second time a body is seen: the first time, its key is only noted (see
// SeenOnce). A stream of bodies that never repeat (every request naming a new component) would
// otherwise fill the cache with answers nobody asks for again, evicting one for every one kept:
// measured under unique deployment renders (perf samples of the service process over 60,000
// requests), keeping every answer cost about 6% more CPU per request: lookups in a full Map,
// eviction, and the collector moving kept answers to the old generation and marking them there.
// Bounded by bytes (keys plus bodies), least recently used first out (roughly: an entry moves
// to the young end when it is used after aging into the older half). Identical requests that
// arrive while the first is still rendering wait for that render instead of starting their own.
//
// Hand-written rather than a library: an LRU over a Map is a dozen lines, and the byte
// accounting and the in-flight sharing are the parts that matter here.
import { createHash } from "node:crypto";
import { DEFAULT_RENDER_CACHE_BYTES } from "../core/service-settings.ts";
import { constant, JSON_TYPE, type Reply } from "./reply.ts";

export interface RenderCacheOptions {
  /** Upper bound of the cache in bytes (keys plus bodies); 0 turns the cache off. */
  maxBytes: number;
}

/** No single answer may take more than this share of the cache. */
const MAX_ENTRY_SHARE = 8;

/** Bodies up to this size are their own cache key; larger ones are hashed (see `key`). */
const SMALL_BODY_BYTES = 1024;

/**
 * What a kept answer costs besides its key and body: the Map entry, the entry and reply
 * objects, the header list, the Buffer and its ArrayBuffer, and the backing store's own
 * bookkeeping outside the heap. Measured: 930 bytes of V8 heap an entry with a
 * 70-character key (20,000 answers of 1,500 bytes); this was 200, so a full cache held about
 * 1.5 times the memory its bound said.
 */
const ENTRY_OVERHEAD_BYTES = 1024;

/**
 * Characters of keys noted as seen once before the note is started again (about 14,000 keys of
 * small bodies; a hashed key is 45 characters). A key forgotten that way is only noted again:
 * its next answer is kept at the time after.
 */
export const SEEN_ONCE_CHARACTERS = 1024 * 1024;

/**
 * The keys of bodies seen once and not yet kept: a body whose key is here when its answer comes
 * is kept. Bounded by characters; when full it starts again empty (the doorkeeper of admission
 * policies such as TinyLFU's, a set where they use a Bloom filter: the keys are strings V8 has
 * already hashed for the cache's own Map, so a set costs no hashing of its own). It fills only
 * under a stream of bodies that do not repeat, when a repeat would have been evicted anyway.
 */
class SeenOnce {
  private readonly keys = new Set<string>();
  private characters = 0;

  constructor(private readonly maxCharacters: number) {}

  /** Whether `key` was noted; notes it when it was not (and forgets it when it was). */
  seenBefore(key: string): boolean {
    if (this.keys.delete(key)) {
      this.characters -= key.length;
      return true;
    }
    if (this.characters + key.length > this.maxCharacters) this.clear();
    this.keys.add(key);
    this.characters += key.length;
    return false;
  }

  clear(): void {
    this.keys.clear();
    this.characters = 0;
  }
}

/**
 * The renders under way, by key: a dictionary object rather than a Map. Each render's promise
 * (and, through it, its request: body, fields, context) is set here and deleted a moment later,
 * thousands of times a second under load; a Map that lives in the old generation rehashes into
 * new tables as its deleted entries pile up, and the tables it leaves behind still name the
 * renders that were under way then, so the young-generation collections kept those alive and
 * promoted them until the next full collection. Measured under unique deployment renders
 * (`--trace-gc-nvp`, 60,000 requests): 458 KB promoted per scavenge with a Map, 125 KB with this
 * (the same as with no sharing at all), and fewer full collections. Keys start with `b` or `h`
 * (see RenderCache.key), never `__proto__`, and the object has no prototype anyway.
 */
class RendersUnderWay {
  private readonly byKey: Record<string, Promise<Reply>> = Object.create(null);
  size = 0;

  get(key: string): Promise<Reply> | undefined {
    return this.byKey[key];
  }

  set(key: string, rendering: Promise<Reply>): void {
    if (this.byKey[key] === undefined) this.size += 1;
    this.byKey[key] = rendering;
  }

  delete(key: string): void {
    if (this.byKey[key] === undefined) return;
    delete this.byKey[key];
    this.size -= 1;
  }
}

interface Entry {
  reply: Reply;
  bytes: number;
  /** When it was last put at the young end of `entries` (a count of such moves). */
  stamp: number;
}

export class RenderCache {
  readonly maxBytes: number;
  /** Least recently used first (roughly: see `lookup`). */
  private readonly entries = new Map<string, Entry>();
  private stamp = 0;
  /** Renders under way, by key: identical requests share them. */
  private readonly pending = new RendersUnderWay();
  /** Keys of answers not kept the first time (see SeenOnce). */
  private readonly seenOnce = new SeenOnce(SEEN_ONCE_CHARACTERS);
  private bytes = 0;
  /** Walks `entries` oldest first, for eviction (see evictOldest). */
  private oldest: MapIterator<string> = this.entries.keys();
  /** Answers served from the cache or from a render under way (for tests and diagnostics). */
  hits = 0;
  /** Lookups that found no answer kept or under way, whatever the body names (for the metrics). */
  misses = 0;

  constructor(options: RenderCacheOptions = { maxBytes: DEFAULT_RENDER_CACHE_BYTES }) {
    if (!(Number.isInteger(options.maxBytes) && options.maxBytes >= 0)) {
      throw new RangeError("render cache size must be a whole number of bytes, 0 or more");
    }
    this.maxBytes = options.maxBytes;
  }

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  stats(): { entries: number; bytes: number; hits: number; pending: number } {
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      hits: this.hits,
      pending: this.pending.size,
    };
  }

  /**
   * The key of a request body. A small body is its own key (latin1 maps bytes to characters one
   * to one), marked `b`. A larger one is keyed by its SHA-256 digest, marked `h`: V8 hashes a
   * string key character by character, about 25 us for a 15 KB body against 11 us for the
   * digest, and a collision-resistant digest means no body can be crafted to be answered with
   * another's files. (The marks keep the two kinds of key apart.)
   */
  static key(body: Buffer): string {
    if (body.byteLength <= SMALL_BODY_BYTES) return `b${body.toString("latin1")}`;
    return `h${createHash("sha256").update(body).digest("base64")}`;
  }

  /** The answer for this key, if it is kept or being rendered. */
  lookup(key: string): Reply | Promise<Reply> | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Moved to the young end only once it has aged into the older half: a hit on a young
      // entry costs no Map delete and insert (about 1.5 us of a 60 us request, measured).
      if (entry.stamp < this.stamp - this.entries.size / 2) {
        this.entries.delete(key);
        entry.stamp = ++this.stamp;
        this.entries.set(key, entry);
      }
      this.hits += 1;
      return entry.reply;
    }
    const rendering = this.pending.get(key);
    if (rendering) this.hits += 1;
    else this.misses += 1;
    return rendering;
  }

  /**
   * Runs `render` (which resolves with the response JSON) for this key and keeps its answer if
   * the key was seen before (else notes it: see SeenOnce); requests with the same key that
   * arrive meanwhile get the same promise. A failed render is neither kept nor noted.
   */
  remember(key: string, render: () => Promise<AnswerBody>): Promise<Reply> {
    const promise = render().then(
      (body) => {
        this.pending.delete(key);
        return this.seenOnce.seenBefore(key) ? this.keep(key, body) : renderReply(body);
      },
      (error: unknown) => {
        this.pending.delete(key);
        throw error;
      },
    );
    this.pending.set(key, promise);
    return promise;
  }

  /**
   * Drops every kept answer and every key seen once (renders under way stay shared) and says how many bytes they held.
   * Called once the service has been quiet for a while (see IdleCollector): kept answers are
   * the larger part of what a full collection must mark (measured: 29,000 kept deployments,
   * 25 MiB of heap beside their bytes, made the idle collection take 36-41 ms instead of 8-12),
   * and a quiet service has no repeats to answer.
   */
  clear(): number {
    const released = this.bytes;
    this.seenOnce.clear();
    this.entries.clear();
    this.bytes = 0;
    return released;
  }

  /**
   * Keeps a rendered answer for this key (when it fits the cache's share for one entry) and
   * returns its reply, kept or not.
   */
  private keep(key: string, answer: AnswerBody): Reply {
    // kept as UTF-8 bytes: the count below is then what it holds (V8 keeps a text with any
    // character past U+00FF at two bytes a character), and a hit sends it without encoding it
    const body = typeof answer === "string" ? Buffer.from(answer, "utf8") : answer;
    const reply = renderReply(body);
    const bytes = ENTRY_OVERHEAD_BYTES + key.length + body.byteLength;
    if (bytes > this.maxBytes / MAX_ENTRY_SHARE) return reply;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.bytes;
    }
    this.entries.set(key, { reply, bytes, stamp: ++this.stamp });
    this.bytes += bytes;
    this.evictOldest();
    return reply;
  }

  /**
   * Drops the oldest entries until the cache is within its bound. Through one iterator that
   * lives as long as it has entries to give: V8 leaves a deleted entry's slot in a Map until
   * the Map is rebuilt, and a new iteration walks every such slot from the start, so evicting
   * with a fresh `for...of` each time cost a full cache about 35 us per answer kept (measured:
   * 6% of the HTTP thread's time under unique renders). A live iterator moves past deletions
   * and rebuilds, and sees the entries set after it was made.
   */
  private evictOldest(): void {
    while (this.bytes > this.maxBytes) {
      let next = this.oldest.next();
      if (next.done) {
        this.oldest = this.entries.keys();
        next = this.oldest.next();
        if (next.done) return;
      }
      const entry = this.entries.get(next.value) as Entry;
      this.entries.delete(next.value);
      this.bytes -= entry.bytes;
    }
  }
}

/**
 * A render answer's JSON: bytes when a worker encoded it, text when the HTTP thread rendered it
 * (see renderAnswerText in src/sandbox/render-answer.ts).
 */
export type AnswerBody = Buffer | string;

/** The 200 answer of POST /api/render: a constant reply, so every hit writes it as it is. */
export function renderReply(body: AnswerBody): Reply {
  return constant({ status: 200, headers: { "content-type": JSON_TYPE }, body });
}
