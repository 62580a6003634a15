// The bytes a render worker answers with: the response JSON, encoded as UTF-8, within a limit
// that counts what is really produced and moved. A template can make a few characters cost
// six bytes each (`\u0001` is written `\\u0001` in JSON), so the limit is checked while the
// JSON is built, piece by piece, and encoding stops as soon as it is exceeded: no answer,
// however shaped, builds a string or a buffer much larger than the limit.
import { KilnError } from "../core/errors.ts";
import type { RenderResult } from "../core/render-item.ts";

/** Long strings are escaped in slices of this many characters, so one slice stays small. */
const SLICE_CHARS = 1 << 20;

function tooLarge(maxBytes: number): KilnError {
  return new KilnError(
    "internal",
    `the rendered output is larger than ${maxBytes} bytes as JSON - kiln refuses it; render fewer or smaller files`,
  );
}

/** JSON text built piece by piece, with its UTF-8 size counted as it grows. */
class BoundedJson {
  private readonly parts: string[] = [];
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  push(text: string): void {
    this.bytes += Buffer.byteLength(text);
    if (this.bytes > this.maxBytes) throw tooLarge(this.maxBytes);
    this.parts.push(text);
  }

  /** A JSON string literal, escaped in slices (never splitting a surrogate pair). */
  pushString(value: string): void {
    if (value.length <= SLICE_CHARS) {
      this.push(JSON.stringify(value));
      return;
    }
    this.push('"');
    for (let start = 0; start < value.length; ) {
      let end = Math.min(start + SLICE_CHARS, value.length);
      const last = value.charCodeAt(end - 1);
      if (end < value.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
      this.push(JSON.stringify(value.slice(start, end)).slice(1, -1));
      start = end;
    }
    this.push('"');
  }

  /** One buffer of its own (transferable), exactly the bytes counted. */
  bytesOut(): Uint8Array {
    const out = new Uint8Array(this.bytes);
    const encoder = new TextEncoder();
    let at = 0;
    for (const part of this.parts) at += encoder.encodeInto(part, out.subarray(at)).written;
    return out;
  }
}

/** The most bytes one UTF-16 code unit takes as JSON in UTF-8 (`\u0001`: six). */
const MAX_BYTES_PER_UNIT = 6;

/** The answer with exactly its keys, in order, whatever else the result object holds. */
function plainAnswer(result: RenderResult): RenderResult {
  return {
    component: result.component,
    files: result.files.map((file) => ({ path: file.path, content: file.content })),
  };
}

/**
 * `{"component":…,"files":[{"path":…,"content":…}…]}` as UTF-8: the same bytes as
 * `JSON.stringify`, or the too-large error once they would exceed `maxBytes`.
 */
export function encodeRenderAnswer(result: RenderResult, maxBytes: number): Uint8Array {
  // Every character is at least one byte: a cheap first check before any escaping.
  let characters = result.component.length;
  for (const file of result.files) characters += file.path.length + file.content.length;
  if (characters > maxBytes) throw tooLarge(maxBytes);
  // No UTF-16 unit becomes more than 6 bytes of JSON as UTF-8 (`\u0001`; other characters 1
  // to 3 bytes, a surrogate pair 4, a lone surrogate `\udXXX` 6), and the fixed text adds a
  // few per file: an answer that cannot reach the limit is encoded in one go, as
  // JSON.stringify writes it, into a buffer of its own (transferable). Most answers do.
  const fixedBytes = 32 + 32 * result.files.length;
  if (characters * MAX_BYTES_PER_UNIT + fixedBytes <= maxBytes) {
    return new TextEncoder().encode(JSON.stringify(plainAnswer(result)));
  }
  const json = new BoundedJson(maxBytes);
  json.push('{"component":');
  json.pushString(result.component);
  json.push(',"files":[');
  result.files.forEach((file, index) => {
    json.push(index === 0 ? '{"path":' : ',{"path":');
    json.pushString(file.path);
    json.push(',"content":');
    json.pushString(file.content);
    json.push("}");
  });
  json.push("]}");
  return json.bytesOut();
}

/**
 * The same answer as `encodeRenderAnswer`, as text (the service sends it as UTF-8: the same
 * bytes), for a result whose files are already bounded by a few hundred thousand characters
 * (the renders on the service's HTTP thread, src/server/inline-render.ts): its JSON is at most
 * six times that, so it is built whole and then measured. Text, not bytes, because Node writes a
 * text body with the response's headers in one system call, where a buffer goes out as a
 * second piece beside them (and encoding it first is a copy of its own).
 */
export function renderAnswerText(result: RenderResult, maxBytes: number): string {
  const text = JSON.stringify(plainAnswer(result));
  // a UTF-16 unit is 1 to 3 bytes of UTF-8 (a surrogate pair 4 for two units; JSON escapes a
  // lone one), so only a text over a third of the limit needs counting
  if (text.length * 3 > maxBytes && Buffer.byteLength(text) > maxBytes) throw tooLarge(maxBytes);
  return text;
}

/** Any small JSON value (an item's view) as UTF-8 within the limit. */
export function encodeJson(value: unknown, maxBytes: number): Uint8Array {
  const json = new BoundedJson(maxBytes);
  json.push(JSON.stringify(value));
  return json.bytesOut();
}
