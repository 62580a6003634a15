// One log line per answered request, on stdout: its request id, method, route pattern, status
// and duration, as a JSON line in the format of pino (the structured logger of the Node world;
// its destination writes the lines) or as a line of text for a person at a terminal. What a line never holds: the raw URL (a path segment or a query
// value may be a field value or a token), a header (an Authorization or a registry secret), a
// body. A route is the route table's pattern, `/api/presets/{name}`, not the name asked for.
//
// The request id is the caller's `X-Request-Id` when it is a plain token (so a load balancer's
// or a client's id ties its own logs to ours), else one made here; either way it is echoed in
// the answer's `x-request-id`. A caller's id is checked before it reaches a log: a bounded
// length and characters that cannot break a line or a log reader (no newlines, quotes, spaces
// or control characters), so a hostile id cannot forge or flood log lines.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { pino } from "pino";
import type { LogFormat } from "../core/service-settings.ts";
import type { AnsweredRequest } from "./metrics.ts";

/** The longest caller's request id kept (a UUID is 36 characters, a W3C trace id 32). */
export const MAX_REQUEST_ID_LENGTH = 128;

/** Letters, digits and `-_.:/+=`: UUIDs, hex and base64 trace ids, `host:seq` counters. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:/+=-]+$/;

/**
 * The request id: the caller's `X-Request-Id` when it is at most MAX_REQUEST_ID_LENGTH safe
 * characters, else a new random UUID (a header sent twice arrives joined by `, `: replaced).
 */
export function requestId(header: string | string[] | undefined): string {
  if (
    typeof header === "string" &&
    header.length > 0 &&
    header.length <= MAX_REQUEST_ID_LENGTH &&
    SAFE_REQUEST_ID.test(header)
  ) {
    return header;
  }
  return randomUUID();
}

export interface RequestLog {
  /** The id of a request with this `X-Request-Id` header (see requestId). */
  id(header: string | string[] | undefined): string;
  /** Writes the line of one answered request (out by the end of this turn of the event loop). */
  request(id: string, answered: AnsweredRequest): void;
  /** Writes out the lines not written yet, at once (when the service stops). */
  flush(): void;
}

/**
 * Characters of lines held before they are written without waiting for the end of the turn:
 * below sonic-boom's largest single write (16 KiB), about 40 lines.
 */
const BATCH_CHARACTERS = 8 * 1024;

/** Milliseconds to the microsecond, as a log line shows a duration. */
function milliseconds(seconds: number): number {
  return Math.round(seconds * 1_000_000) / 1000;
}

/**
 * The request log in `format`, written to `fd` (stdout unless told). Writes are synchronous, as
 * pino's own default (lines keep their order, and none is left behind at exit), but batched: the
 * lines of one turn of the event loop are joined and go out in one write at its end, so a busy
 * service does not make a system call per request (measured: 3,662 writes for 20,000 requests
 * from 10 connections), and a quiet one still writes each line at once. Joined here, not in the
 * destination's own buffer: a write to it cost about 0.8 us a line (measured).
 */
export function requestLog(format: LogFormat, fd = 1): RequestLog {
  const destination = pino.destination({ dest: fd, sync: true });
  let held = "";
  let flushScheduled = false;
  const flush = (): void => {
    flushScheduled = false;
    if (held === "") return;
    const lines = held;
    held = "";
    destination.write(lines);
  };
  const line = format === "json" ? jsonLine(isoTimeOncePerMillisecond()) : textLine;
  return {
    id: requestId,
    request(id, answered) {
      held += line(id, answered);
      if (held.length >= BATCH_CHARACTERS) flush();
      else if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

type LineOf = (id: string, answered: AnsweredRequest) => string;

/**
 * The ISO 8601 time (`2026-11-25T21:47:09.986Z`), made once per millisecond: a busy service logs
 * several lines in one, and formatting the date was a fifth of a line's cost (measured: 1.5% of
 * the HTTP thread's time under unique renders).
 */
function isoTimeOncePerMillisecond(): () => string {
  let madeAtMs = Number.NaN;
  let made = "";
  return () => {
    const now = Date.now();
    if (now !== madeAtMs) {
      madeAtMs = now;
      made = new Date(now).toISOString();
    }
    return made;
  };
}

/**
 * One JSON object a line, byte for byte the line pino writes with `level` as its label and an
 * ISO time (test/server/request-log.test.ts compares the two): `level`, `time`, `pid`,
 * `hostname`, then the request's `requestId`, `method`, `route`, `status`, `durationMs` and
 * `rejected` when known, then `msg`. Written here rather than by pino's logger: the line's keys
 * are fixed, and its serializer (a formatter call and an object to read per line) cost about
 * 2.5 us a request, some 5% of a unique render's time on the HTTP thread (measured). Every
 * string goes through JSON.stringify, so no value can break out of its quotes.
 */
export function jsonLine(time: () => string, pid = process.pid, host = hostname()): LineOf {
  const prefix = `{"level":"info","time":"`;
  const afterTime = `","pid":${pid},"hostname":${JSON.stringify(host)},"requestId":`;
  return (id, answered) => {
    const duration =
      answered.seconds === undefined ? "" : `,"durationMs":${milliseconds(answered.seconds)}`;
    const rejected =
      answered.rejected === undefined ? "" : `,"rejected":${JSON.stringify(answered.rejected)}`;
    return `${prefix}${time()}${afterTime}${JSON.stringify(id)},"method":${JSON.stringify(answered.method)},"route":${JSON.stringify(answered.route)},"status":${answered.status}${duration}${rejected},"msg":"request"}\n`;
  };
}

/**
 * `<time> <method> <route> <status> <ms>ms id=<id>` (and `rejected=<reason>`): written by hand
 * rather than through pino-pretty, a development tool with a dozen dependencies of its own, for
 * five fields that are never more than plain tokens.
 */
function textLine(id: string, answered: AnsweredRequest): string {
  const rejected = answered.rejected === undefined ? "" : ` rejected=${answered.rejected}`;
  const duration = answered.seconds === undefined ? "-" : `${milliseconds(answered.seconds)}ms`;
  return `${new Date().toISOString()} ${answered.method} ${answered.route} ${answered.status} ${duration} id=${id}${rejected}\n`;
}
