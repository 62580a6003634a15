// Parsing a JSON request body: UTF-8 and JSON syntax, each failure a 400 with the fixed
// text/plain message clients match (`Failed to parse the request body as JSON: ...`) and
// serde's `line L column C`. Runs on the thread that serves HTTP for a small body and in a
// render worker for a large one (src/sandbox/render-worker.ts), with the same texts either way.
import { isUtf8 } from "node:buffer";
import { FrameworkError, MESSAGES } from "../core/wire-errors.ts";

/** `line L column C` (1-based, as serde counts) of a byte offset. */
function position(bytes: Buffer, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset; index++) {
    if (bytes[index] === 0x0a) {
      line += 1;
      lineStart = index + 1;
    }
  }
  return `line ${line} column ${offset - lineStart + 1}`;
}

/** Offset of the first byte that is not part of a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Buffer): number {
  let index = 0;
  while (index < bytes.length) {
    const byte = bytes[index] as number;
    const length =
      byte < 0x80 ? 1 : byte >= 0xc2 && byte <= 0xf4 ? (byte < 0xe0 ? 2 : byte < 0xf0 ? 3 : 4) : 0;
    if (length === 0 || !isUtf8(bytes.subarray(index, index + length))) return index;
    index += length;
  }
  return index;
}

/** Parses a JSON body; invalid UTF-8 and bad syntax are 400 "Failed to parse …". */
export function parseJsonBody(bytes: Buffer): unknown {
  if (!isUtf8(bytes)) {
    const offset = firstInvalidUtf8(bytes);
    throw new FrameworkError(
      400,
      MESSAGES.badJson(`invalid UTF-8 in the request body at ${position(bytes, offset)}`),
    );
  }
  const source = bytes.toString("utf8");
  try {
    return JSON.parse(source);
  } catch (error) {
    throw new FrameworkError(400, MESSAGES.badJson(jsonDetail(source, error as Error)));
  }
}

/** V8's message, with the position turned into serde's `line L column C` when it names one. */
function jsonDetail(source: string, error: Error): string {
  if (source.trim() === "") return "EOF while parsing a value at line 1 column 0";
  const message = error.message.replace(/\s*\(line \d+ column \d+\)$/, "");
  const match = / in JSON at position (\d+)$/.exec(message);
  if (!match) return message;
  const bytes = Buffer.from(source.slice(0, Number(match[1])), "utf8");
  return `${message.slice(0, match.index)} at ${position(bytes, bytes.length)}`;
}
