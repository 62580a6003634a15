// Which highlighting a rendered file gets, by its name, and the highlighted lines themselves,
// from the highlighter (shiki's grammars, highlighter.ts) loaded on first use: the dashboard's
// first load stays as small as before, and a file shows as plain text until the grammars are in.
// (Only types come from highlighter.ts statically; they leave no import in the build.)

import type { HighlightLanguage, Token } from "./highlighter.ts";

export type { Token };

const LANGUAGE_BY_EXTENSION: Record<string, HighlightLanguage> = {
  yaml: "yaml",
  yml: "yaml",
  ini: "ini",
  // cm.cfg and ansible.cfg are INI files
  cfg: "ini",
  tf: "hcl",
  tfvars: "hcl",
  hcl: "hcl",
  json: "json",
};

/** The language of a file by its extension, or undefined for plain text. */
export function languageOf(path: string): HighlightLanguage | undefined {
  const name = path.split("/").pop() ?? path;
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const extension = name.slice(dot + 1).toLowerCase();
  return Object.hasOwn(LANGUAGE_BY_EXTENSION, extension)
    ? LANGUAGE_BY_EXTENSION[extension]
    : undefined;
}

/**
 * Files longer than this show as plain text: the grammars take about 50-70 µs a line on this
 * project's machine (measured: 1 s for 20,000 lines of YAML), on the page's own thread, again
 * after every edit; 2,000 lines stay near a tenth of a second.
 */
export const MAX_HIGHLIGHTED_LINES = 2000;

/** Whether `content` has more lines than the highlighter is given. */
function tooLongToHighlight(content: string): boolean {
  let lines = 1;
  for (let at = content.indexOf("\n"); at !== -1; at = content.indexOf("\n", at + 1)) {
    lines += 1;
    if (lines > MAX_HIGHLIGHTED_LINES + 1) return true;
  }
  // a last newline ends the last line rather than starting one
  return lines - (content.endsWith("\n") ? 1 : 0) > MAX_HIGHLIGHTED_LINES;
}

/**
 * The file's lines as tokens, or undefined for a file of no highlighted language or too long to
 * highlight. The first call loads the grammars (a separate chunk of the build).
 */
export async function highlightedLines(
  content: string,
  path: string,
): Promise<Token[][] | undefined> {
  const language = languageOf(path);
  if (language === undefined || tooLongToHighlight(content)) return undefined;
  const { tokenLines } = await import("./highlighter.ts");
  return tokenLines(content, language);
}
