// Output for people: colour only when the stream is a terminal and NO_COLOR is unset or empty
// (https://no-color.org), so pipes, files and CI logs get plain text.
//
// Written to file descriptors 1 and 2 directly, not through process.stdout and process.stderr:
// the first touch of either builds a stream object and loads Node's stream code, about 3 ms of a
// one-shot run into a file or /dev/null and 6 ms into a pipe (measured in-process on Node 20),
// and a terminal check through node:tty loads the same code again (4 ms).
import { fstatSync, statSync, writeSync } from "node:fs";
import { createRequire } from "node:module";

export interface Style {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

function wrap(open: number, close: number): (text: string) => string {
  return (text) => `\x1b[${open}m${text}\x1b[${close}m`;
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

/** Where a command prints: stdout for results, stderr for errors, each with its own style. */
export class Output {
  readonly out: Style = styleFor({ isTTY: isTerminal(1) });
  readonly err: Style = styleFor({ isTTY: isTerminal(2) });
  private buffer: string[] = [];

  /** Lines are collected and written in one go: faster than a write per line for 77 files. */
  line(text = ""): void {
    this.buffer.push(text);
  }

  flush(): void {
    if (this.buffer.length === 0) return;
    writeFd(1, `${this.buffer.join("\n")}\n`);
    this.buffer = [];
  }

  error(message: string, detail?: string): void {
    this.flush();
    const lines = [`${this.err.red("error:")} ${message}`];
    if (detail) for (const line of detail.split("\n")) lines.push(`  ${line}`);
    writeFd(2, `${lines.join("\n")}\n`);
  }

  hint(text: string): void {
    writeFd(2, `${text}\n`);
  }
}
