// Output for people: colour only when the stream is a terminal and NO_COLOR is unset or empty
// (https://no-color.org), so pipes, files and CI logs get plain text.

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

/** Where a command prints: stdout for results, stderr for errors, each with its own style. */
export class Output {
  readonly out: Style = styleFor(process.stdout);
  readonly err: Style = styleFor(process.stderr);
  private buffer: string[] = [];

  /** Lines are collected and written in one go: faster than a write per line for 77 files. */
  line(text = ""): void {
    this.buffer.push(text);
  }

  flush(): void {
    if (this.buffer.length === 0) return;
    process.stdout.write(`${this.buffer.join("\n")}\n`);
    this.buffer = [];
  }

  error(message: string, detail?: string): void {
    this.flush();
    const lines = [`${this.err.red("error:")} ${message}`];
    if (detail) for (const line of detail.split("\n")) lines.push(`  ${line}`);
    process.stderr.write(`${lines.join("\n")}\n`);
  }

  hint(text: string): void {
    process.stderr.write(`${text}\n`);
  }
}
