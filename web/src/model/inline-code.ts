// Messages mark code the Markdown way, `like this` (the checks quote every name and value so).
// This splits such a message into plain and code parts, so the view can build <code> elements
// for them: never HTML from the text, which holds users' values. Pure.

export interface TextPart {
  text: string;
  code: boolean;
}

/**
 * `a \`b\` c` → a, b (code), c. A backtick without a partner stays plain text, as does an empty
 * pair; parts are never empty.
 */
export function inlineCodeParts(message: string): TextPart[] {
  const parts: TextPart[] = [];
  const plain = (text: string) => {
    if (text === "") return;
    const last = parts[parts.length - 1];
    if (last && !last.code) last.text += text;
    else parts.push({ text, code: false });
  };
  let rest = message;
  for (;;) {
    const match = /`([^`]+)`/.exec(rest);
    if (!match) break;
    plain(rest.slice(0, match.index));
    parts.push({ text: match[1] as string, code: true });
    rest = rest.slice(match.index + match[0].length);
  }
  plain(rest);
  return parts;
}
