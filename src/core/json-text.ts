// JSON text from files and URLs (registry items, presets), parsed with errors that never quote
// the text. Node's own JSON.parse messages do (`Unexpected token 'P', "PATH=/usr/"... is not
// valid JSON`), and the text may be any file a reference names - `/proc/self/environ`, a key -
// so an error that quoted it would print secrets to a terminal, a CI log or an HTTP caller.
// The error says only where (line and column) and what was expected there.

/** Text that is not JSON: where the first mistake is and what was expected there. */
export class JsonTextError extends Error {
  /** 1-based line (lines end at `\n`). */
  readonly line: number;
  /** 1-based column, in UTF-16 code units from the start of the line. */
  readonly column: number;
  /** What was expected there (or what is wrong), without the place. */
  readonly reason: string;

  constructor(line: number, column: number, reason: string) {
    super(`line ${line}, column ${column}: ${reason}`);
    this.name = "JsonTextError";
    this.line = line;
    this.column = column;
    this.reason = reason;
  }
}

/** JSON.parse, with a JsonTextError (position and expectation only) when the text is not JSON. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw locateJsonError(text);
  }
}

const VALUE = "a value (an object, array, string, number, true, false or null)";

/**
 * Finds the first syntax error of `text` by scanning it once more, without recursion (nesting
 * depth is not limited by the stack). Used only after JSON.parse failed, so speed matters less
 * than agreeing with JSON.parse on what is an error.
 */
export function locateJsonError(text: string): JsonTextError {
  const n = text.length;
  let i = 0;
  /** The open objects and arrays, innermost last. */
  const open: ("{" | "[")[] = [];
  const at = (position: number, reason: string): JsonTextError => {
    let line = 1;
    let lineStart = 0;
    for (let k = text.indexOf("\n"); k !== -1 && k < position; k = text.indexOf("\n", k + 1)) {
      line += 1;
      lineStart = k + 1;
    }
    return new JsonTextError(line, position - lineStart + 1, reason);
  };
  /** `what` was expected at i, and something else (or the end) is there. */
  const expected = (what: string): JsonTextError =>
    at(i, i >= n ? `unexpected end of the text, expected ${what}` : `expected ${what}`);
  const skipSpace = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      i += 1;
    }
  };
  const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
  const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
  /** A string from the `"` at i. */
  const string = () => {
    const start = i;
    i += 1;
    for (;;) {
      if (i >= n) throw at(start, 'a string that is not closed (no `"` before the end)');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i += 1;
        return;
      }
      if (c < 0x20) throw at(i, "a control character inside a string (write it as an escape)");
      if (c === 0x5c) {
        const next = text.charCodeAt(i + 1);
        if (next === 0x75) {
          for (let k = 2; k < 6; k++) {
            if (!isHex(text.charCodeAt(i + k))) {
              throw at(i, "a \\u escape needs four hexadecimal digits");
            }
          }
          i += 6;
        } else if (ESCAPES.has(next)) {
          i += 2;
        } else {
          throw at(i, 'an unknown escape (expected one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)');
        }
        continue;
      }
      i += 1;
    }
  };
  const digits = (where: string) => {
    if (!isDigit(text.charCodeAt(i))) throw expected(`a digit ${where}`);
    while (i < n && isDigit(text.charCodeAt(i))) i += 1;
  };
  const number = () => {
    if (text.charCodeAt(i) === 0x2d) i += 1;
    if (text.charCodeAt(i) === 0x30) i += 1;
    else digits("in the number");
    if (text.charCodeAt(i) === 0x2e) {
      i += 1;
      digits("after the decimal point");
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i += 1;
      const sign = text.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i += 1;
      digits("in the exponent");
    }
  };
  /** One value; an object or array that is not empty is left open (pushed on `open`). */
  const value = (): "done" | "opened" => {
    skipSpace();
    const c = text[i];
    if (c === "{" || c === "[") {
      i += 1;
      skipSpace();
      if (text[i] === (c === "{" ? "}" : "]")) {
        i += 1;
        return "done";
      }
      open.push(c);
      return "opened";
    }
    if (c === '"') string();
    else if (c === "-" || isDigit(text.charCodeAt(i))) number();
    else {
      const word = ["true", "false", "null"].find((literal) => text.startsWith(literal, i));
      if (!word) throw expected(VALUE);
      i += word.length;
    }
    return "done";
  };
  /** A property name and its `:`. */
  const key = () => {
    skipSpace();
    if (text[i] !== '"') throw expected("a property name in double quotes");
    string();
    skipSpace();
    if (text[i] !== ":") throw expected("`:` after the property name");
    i += 1;
  };
  try {
    // "value": a value must come next (at the start, after `[`, `,` in an array, or `:`);
    // "after": a value was read, and what may follow it comes next
    let state: "value" | "after" = "value";
    for (;;) {
      if (state === "value") {
        if (value() === "opened") {
          if (open.at(-1) === "{") key();
        } else {
          state = "after";
        }
        continue;
      }
      skipSpace();
      const inner = open.at(-1);
      if (inner === undefined) {
        if (i < n) throw at(i, "unexpected text after the end of the JSON value");
        // JSON.parse refused something this scan accepts; say so without quoting anything
        return at(0, "not valid JSON");
      }
      const close = inner === "{" ? "}" : "]";
      const c = text[i];
      if (c === ",") {
        i += 1;
        if (inner === "{") key();
        state = "value";
      } else if (c === close) {
        i += 1;
        open.pop();
      } else {
        throw expected(
          `\`,\` or \`${close}\` after ${inner === "{" ? "a property value" : "an array element"}`,
        );
      }
    }
  } catch (error) {
    if (error instanceof JsonTextError) return error;
    throw error;
  }
}

/** The characters after `\\` of the one-character escapes. */
const ESCAPES = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));
