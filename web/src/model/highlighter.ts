// The highlighter itself: shiki's TextMate grammars for YAML, INI, HCL and JSON, run by its
// JavaScript regular-expression engine (no WASM, nothing from the network), with a theme of CSS
// variables so that the colours are the dashboard's palette, in both themes. Chosen over the
// lezer parsers of CodeMirror 6 because it is smaller for these four languages (59 KB against
// 96 KB gzipped, measured with esbuild; lezer has no INI or HCL grammar of its own and needs
// CodeMirror's stream-language layer for them). Loaded lazily by highlight.ts.
import {
  createCssVariablesTheme,
  createHighlighterCore,
  type HighlighterCore,
} from "@shikijs/core";
import { createJavaScriptRegexEngine } from "@shikijs/engine-javascript";
import hcl from "@shikijs/langs/hcl";
import ini from "@shikijs/langs/ini";
import json from "@shikijs/langs/json";
import yaml from "@shikijs/langs/yaml";

/** The languages the preview highlights; any other file is shown as plain text. */
export type HighlightLanguage = "yaml" | "ini" | "hcl" | "json";

/** One piece of a line and its kind (`keyword`, `string`, ...; `plain` for the rest). */
export interface Token {
  text: string;
  kind: string;
}

const THEME = "kiln";
/** The theme names each token's colour `var(--hl-<kind>)`; the kind is the part kept. */
const VARIABLE_PREFIX = "--hl-";

let highlighter: Promise<HighlighterCore> | undefined;

/**
 * The theme of CSS variables, plus a colour for section and block names (`[web]` of an INI
 * inventory, `resource` blocks' labels in HCL), which the stock theme leaves plain.
 */
function kilnTheme() {
  const theme = createCssVariablesTheme({ name: THEME, variablePrefix: VARIABLE_PREFIX });
  return {
    ...theme,
    tokenColors: [
      ...(theme.tokenColors ?? []),
      {
        scope: ["entity.name.section", "entity.name.label"],
        settings: { foreground: `var(${VARIABLE_PREFIX}token-function)` },
      },
    ],
  };
}

function theHighlighter(): Promise<HighlighterCore> {
  highlighter ??= createHighlighterCore({
    themes: [kilnTheme()],
    langs: [yaml, ini, hcl, json],
    engine: createJavaScriptRegexEngine(),
  });
  return highlighter;
}

/** `var(--hl-token-keyword)` → `keyword`; the theme's foreground → `plain`. */
function kindOf(color: string | undefined): string {
  const match = /^var\(--hl-(?:token-)?([a-z-]+)\)$/.exec(color ?? "");
  const kind = match?.[1];
  return kind === undefined || kind === "foreground" ? "plain" : kind;
}

/** The lines of `content` as tokens of `language` (the last empty line dropped, as shown). */
export async function tokenLines(content: string, language: HighlightLanguage): Promise<Token[][]> {
  const lines = (await theHighlighter()).codeToTokensBase(content, {
    lang: language,
    theme: THEME,
  });
  if (lines.length > 0 && lines[lines.length - 1]?.length === 0 && content.endsWith("\n")) {
    lines.pop();
  }
  return lines.map((line) =>
    line.map((token) => ({ text: token.content, kind: kindOf(token.color) })),
  );
}
