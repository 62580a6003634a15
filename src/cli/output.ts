// Output for people: colour only when the stream is a terminal and NO_COLOR is unset or empty
// (https://no-color.org), so pipes, files and CI logs get plain text. Every line goes through
// `forTerminal`: control characters in it are shown escaped, so a path or a name from a stranger
// cannot move the cursor, clear the screen, set the title or reorder the text.
//
// Written to file descriptors 1 and 2 directly, not through process.stdout and process.stderr:
// the first touch of either builds a stream object and loads Node's stream code, about 3 ms of a
// one-shot run into a file or /dev/null and 6 ms into a pipe (measured in-process on Node 20),
// and a terminal check through node:tty loads the same code again (4 ms).
import { fstatSync, statSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import type { Step } from "../node/write-plan.ts";
import { type ProjectPlace, pathFromRoot, pathFromUser } from "./project-root.ts";

export interface Style {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

/**
 * Everything kiln prints may hold text from strangers (rendered paths, names, references, error
 * details), so every control character is shown escaped, never sent to the terminal: C0 (ESC,
 * BEL, CR, newline inside a line...) as `\x1b`, DEL, C1 and the Unicode bidi overrides and
 * isolates (which reorder what people read) as `\u009b`, `\u202e` - in that form they are also
 * valid escapes inside a JSON string, so `--json` output stays JSON.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x20
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with every control character (see CONTROL) escaped. */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, escapeChar);
}

/**
 * The control characters of a file's content that a terminal acts on: CONTROL less the layout a
 * file needs - line feed, tab, and a carriage return right before a line feed (CRLF files). A
 * lone `\r` stays escaped: it returns to the start of the line, so the text after it hides the
 * text before (as ESC [2K, the line erase, does).
 */
const CONTENT_CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A file's content as a terminal shows it: its lines and tabs as they are, every other control
 * character escaped as `escapeControl` does (`\x1b]52;c;...` instead of a clipboard write).
 */
export function contentForTerminal(text: string): string {
  return text.replace(CONTENT_CONTROL, escapeChar);
}

/**
 * kiln's own colour codes are marked, not written, until the line is printed: a mark carries a
 * number chosen at random per process, which text from strangers cannot know, so `forTerminal`
 * turns only kiln's marks into escape sequences and escapes everything else.
 *
 * The number is the process's, kept on globalThis, not this module's: the bundle holds a copy of
 * this module in main.js and in each command's file, and a line coloured by the Output that
 * main.js made is often printed by a command's own `forTerminal` (kiln diff). Two numbers would
 * leave each copy's marks unknown to the other, printed as raw `\x00kiln...` text.
 */
const MARK_ID_KEY = Symbol.for("kiln.colour-mark-id");

function processMarkId(): string {
  const shared = globalThis as { [MARK_ID_KEY]?: string };
  shared[MARK_ID_KEY] ??= Math.random().toString(36).slice(2, 12);
  return shared[MARK_ID_KEY];
}

const MARK_ID = processMarkId();
const MARK = new RegExp(`\\u0000kiln${MARK_ID}:(\\d+)\\u0000`, "g");

function wrap(open: number, close: number): (text: string) => string {
  return (text) => `\u0000kiln${MARK_ID}:${open}\u0000${text}\u0000kiln${MARK_ID}:${close}\u0000`;
}

/** A line as it goes to the terminal: control characters escaped, then kiln's colours applied. */
export function forTerminal(text: string): string {
  if (!text.includes("\u0000")) return escapeControl(text);
  let result = "";
  let from = 0;
  for (const match of text.matchAll(MARK)) {
    result += `${escapeControl(text.slice(from, match.index))}\x1b[${match[1]}m`;
    from = (match.index as number) + match[0].length;
  }
  return result + escapeControl(text.slice(from));
}

/**
 * A printed block that is one JSON document (`--json`) keeps its line breaks: JSON cannot hold
 * a raw line break inside a string, so each is whitespace between tokens. Any other text is
 * one line, and a line break in it (from a path or a name) is shown as `\x0a`.
 */
function linesOf(text: string): string[] {
  if (text.includes("\n") && (text.startsWith("{") || text.startsWith("["))) {
    try {
      JSON.parse(text);
      return text.split("\n");
    } catch {
      // not JSON: one line
    }
  }
  return [text];
}

const COLOUR: Style = {
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  bold: wrap(1, 22),
  dim: wrap(2, 22),
};

const PLAIN: Style = {
  red: (text) => text,
  green: (text) => text,
  yellow: (text) => text,
  bold: (text) => text,
  dim: (text) => text,
};

export function styleFor(stream: { isTTY?: boolean }, env = process.env): Style {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  return stream.isTTY === true && !noColor ? COLOUR : PLAIN;
}

/**
 * Whether `fd` is a terminal. Files, pipes and /dev/null are told apart with one fstat; only a
 * character device other than /dev/null asks node:tty.
 */
export function isTerminal(fd: number): boolean {
  let stats: ReturnType<typeof fstatSync>;
  try {
    stats = fstatSync(fd);
  } catch {
    return false;
  }
  if (!stats.isCharacterDevice()) return false;
  try {
    if (stats.rdev === statSync("/dev/null").rdev) return false;
  } catch {
    // no /dev/null here: ask node:tty
  }
  const tty = createRequire(import.meta.url)("node:tty") as typeof import("node:tty");
  return tty.isatty(fd);
}

/** The streams a write had to fall back to; main waits for them to drain before exiting. */
const fellBack = new Set<NodeJS.WriteStream>();

export function pendingStreams(): NodeJS.WriteStream[] {
  return [...fellBack].filter((stream) => stream.writableLength > 0);
}

/**
 * Writes all of `text` to stdout (1) or stderr (2) now. A non-blocking pipe that is full
 * (EAGAIN) gets the rest through Node's stream, which main lets drain before exiting; a reader
 * that has gone away (EPIPE, as in `kiln list | head -1`) ends the writing quietly.
 */
export function writeFd(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EPIPE") return;
      if (code !== "EAGAIN") throw error;
      const stream = fd === 1 ? process.stdout : process.stderr;
      fellBack.add(stream);
      stream.write(bytes.subarray(offset));
      return;
    }
  }
}

/** Where an Output's text goes: file descriptor 1 (results) or 2 (errors, warnings, notes). */
export type OutputSink = (fd: 1 | 2, text: string) => void;

/**
 * What a command did, told as it reports it, for a front that runs the command and answers with
 * data rather than lines (`kiln mcp`): the files of the run (with `dryRun`, what it would
 * write), the files it removed, each warning it printed and the `--json` document it printed.
 */
export interface RunRecorder {
  steps(steps: readonly Step[], dryRun: boolean): void;
  removed(paths: readonly string[]): void;
  warning(message: string): void;
  document(value: unknown): void;
}

/** Where a command prints: stdout for results, stderr for errors, each with its own style. */
export class Output {
  /**
   * `sink`: where the text goes (the process's stdout and stderr for the CLI; a buffer for a
   * front that runs a command in-process, which is never a terminal).
   */
  constructor(private readonly sink: OutputSink = writeFd) {
    this.stdoutIsTerminal = sink === writeFd && isTerminal(1);
    this.out = styleFor({ isTTY: this.stdoutIsTerminal });
    this.err = styleFor({ isTTY: sink === writeFd && isTerminal(2) });
  }
  /** Is stdout a terminal (not a pipe, a file or /dev/null)? */
  private readonly stdoutIsTerminal: boolean;
  readonly out: Style;
  readonly err: Style;
  /** Told what a writing command wrote or removed, when a front asks (RunRecorder). */
  recorder: RunRecorder | undefined;
  /**
   * The project the command runs in and the folder the user started it from, when they differ
   * (main.ts sets it): paths are printed from the user's folder, typed paths read from it.
   */
  place: ProjectPlace | undefined;
  /**
   * `-q`/`--quiet`: errors only. Nothing goes to stdout (reports, summaries, documents a command
   * prints) and no warning or note to stderr; `error` and the hints under it still print, and
   * the exit status says the rest. Warnings are dropped too: none changes the exit status, and
   * a run without -q (or `kiln check`) shows them.
   */
  quiet = false;
  /** What is still to be written to stdout, each line with its line break. */
  private buffer: string[] = [];

  /** A path from the project root as the user, in their folder, names it. */
  path(fromRoot: string): string {
    return pathFromUser(this.place, fromRoot);
  }

  /** A path the user typed (from their folder) as the command, at the project root, names it. */
  typed(path: string): string {
    return pathFromRoot(this.place, path);
  }

  /** Lines are collected and written in one go: faster than a write per line for 77 files. */
  line(text = ""): void {
    if (this.quiet) return;
    for (const line of linesOf(text)) this.buffer.push(`${forTerminal(line)}\n`);
  }

  /**
   * kiln's own text written to stdout exactly as it is, after the lines before it: a completion
   * script, or lines already escaped for the terminal (diff). Never for text kiln only shows
   * (paths, names, messages): that goes through `line`; nor for a file's content: `content`.
   */
  verbatim(text: string): void {
    if (this.quiet) return;
    this.buffer.push(text);
  }

  /**
   * A file's content from a stranger (`kiln render`'s files, `kiln preset export`'s manifest),
   * after the lines before it. Into a pipe or a file it is the user's to use, byte for byte; on
   * a terminal, where people read it, its control sequences are shown escaped
   * (`contentForTerminal`): a line erase cannot hide a line from the reviewer, an OSC 52 cannot
   * write the clipboard.
   */
  content(text: string): void {
    if (this.quiet) return;
    this.buffer.push(this.stdoutIsTerminal ? contentForTerminal(text) : text);
  }

  /**
   * A command's `--json` document on stdout (two-space JSON), after the lines before it; a
   * recorder is given the value itself, so a front that answers with data never parses it back.
   */
  json(document: unknown): void {
    if (this.quiet) return;
    this.recorder?.document(document);
    this.line(JSON.stringify(document, null, 2));
  }

  flush(): void {
    if (this.buffer.length === 0) return;
    this.sink(1, this.buffer.join(""));
    this.buffer = [];
  }

  /** `warning: <message>` on stderr, after the lines before it; changes no exit status. */
  warning(message: string): void {
    if (this.quiet) return;
    this.recorder?.warning(message);
    this.flush();
    this.sink(2, `${forTerminal(`${this.err.yellow("warning:")} ${message}`)}\n`);
  }

  /** `error: <message>` on stderr, then each line of `detail` indented. */
  error(message: string, detail?: string): void {
    this.flush();
    const lines = [forTerminal(`${this.err.red("error:")} ${message}`)];
    if (detail) for (const line of detail.split("\n")) lines.push(`  ${forTerminal(line)}`);
    this.sink(2, `${lines.join("\n")}\n`);
  }

  /** A line on stderr that belongs to an error (what to do about it): printed even when quiet. */
  hint(text: string): void {
    this.sink(2, `${forTerminal(text)}\n`);
  }

  /**
   * A line on stderr that tells, not asks (a note on an interrupted run, the URLs a diff
   * fetched): kept off stdout, which is the command's result, and dropped when quiet.
   */
  note(text: string): void {
    if (this.quiet) return;
    this.sink(2, `${forTerminal(text)}\n`);
  }
}
