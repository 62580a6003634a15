// Reading a JSON request body: the content-type check (415) and a size cap (413), each answered
// with its fixed text/plain message (MESSAGES, src/core/wire-errors.ts); its UTF-8 and JSON
// syntax (400) are checked where it is parsed (src/sandbox/json-body.ts: here, or in a render
// worker for a large body).
import type { IncomingMessage } from "node:http";
import { FrameworkError, MESSAGES } from "../core/wire-errors.ts";

/** The largest request body read by default: 2 MiB (a larger one is 413). */
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;

/** `application/json` with or without parameters, or any `application/*+json`. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  if (header === "application/json") return true; // what nearly every client sends
  const mediaType = (header.split(";", 1)[0] as string).trim().toLowerCase();
  if (mediaType === "application/json") return true;
  return /^application\/[!#$&^_.+\-a-z0-9]+\+json$/.test(mediaType);
}

/**
 * Reads the whole body, refusing (413) as soon as it is known to exceed `maxBytes`. Plain
 * stream events rather than `for await`: the async iterator costs several microseconds per
 * request in the thread that serves HTTP.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new FrameworkError(413, MESSAGES.tooLarge, { close: true });
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > maxBytes) return Promise.reject(tooLarge());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const stop = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    function onData(chunk: Buffer): void {
      total += chunk.byteLength;
      if (total > maxBytes) {
        // Stop reading; the 413 goes out with `connection: close`, which ends the rest.
        stop();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    }
    function onEnd(): void {
      stop();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total));
    }
    function onError(error: Error): void {
      stop();
      reject(error);
    }
    function onClose(): void {
      // The client went away before the end of the body: nothing can be answered.
      stop();
      reject(
        new FrameworkError(
          400,
          MESSAGES.badJson("the connection closed before the end of the body"),
        ),
      );
    }
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}
