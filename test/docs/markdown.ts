// The fenced code blocks of the README and the docs pages, for the tests that run or check them
// (test/docs/commands.test.ts, test/core/schemas.test.ts): each block's language, text, line
// and the `<!-- docs-test: ... -->` marker right before it, if any.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../..", import.meta.url));

export interface CodeBlock {
  /** The document, relative to the repository (`README.md`, `docs/cli.md`). */
  document: string;
  /** The fence's info string's first word (`sh`, `json`), empty when it has none. */
  language: string;
  /** The block's text, the fence's indentation removed, ending in a newline. */
  text: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** What a `<!-- docs-test: <marker> -->` comment right before the fence says, if any. */
  marker: string | undefined;
}

/** README.md and every docs/*.md, in that order. */
export function documents(): string[] {
  const pages = readdirSync(join(REPO, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...pages];
}

const FENCE = /^(\s*)(`{3,})\s*([^\s`]*)/;
const MARKER = /^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$/;

/** The marker comment on the last non-blank line before `index`, if that line is one. */
function markerBefore(lines: string[], index: number): string | undefined {
  for (let at = index - 1; at >= 0; at--) {
    const line = lines[at] as string;
    if (line.trim() === "") continue;
    return MARKER.exec(line)?.[1];
  }
  return undefined;
}

/** Every fenced block of one document, in order. */
export function codeBlocks(document: string): CodeBlock[] {
  const lines = readFileSync(join(REPO, document), "utf8").split("\n");
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index] as string);
    if (!open) continue;
    const indent = (open[1] as string).length;
    const fence = open[2] as string;
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !(lines[end] as string).trim().startsWith(fence)) {
      body.push((lines[end] as string).slice(indent));
      end++;
    }
    blocks.push({
      document,
      language: open[3] as string,
      text: body.length > 0 ? `${body.join("\n")}\n` : "",
      line: index + 1,
      marker: markerBefore(lines, index),
    });
    index = end;
  }
  return blocks;
}
