// Compiles the built-in components' templates (file bodies and output paths) ahead of time into
// src/core/registry/compiled-templates.cjs: one plain JavaScript function per template over the
// render context, calling kiln's filters and src/core/template-runtime.ts directly, so a CLI run
// renders built-ins without loading the WASM engine. The items of `@kiln` (registries/kiln/,
// every item its registry.json lists, read as `kiln registry build` reads it) ship inside the
// package too and are compiled the same way, into compiled-kiln-templates.cjs beside it (a
// file of its own, so that a run of built-ins does not parse them); the digest of each one's
// published file goes into src/core/registry/packaged-kiln-digests.json, so that only those
// exact bytes, read from the package, are trusted to render on the compiled path
// (src/node/packaged-kiln.ts). The generator parses each template into a
// tree and writes code from it; every piece of template text reaches the code as a string
// literal written by JSON.stringify, so the generated code never evaluates template text or
// values. It supports what the catalogue uses and refuses anything else here, at build time,
// naming the template and line. `npm run templates` rewrites the file; a test fails when stale.
//
// Hand-written: no library parses Jinja into a tree that keeps MiniJinja's whitespace control
// and scoping (the engine parses inside WASM and exposes no tree).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RegistryItem, referenceOf } from "../src/core/item.ts";
import { BUILTIN_REGISTRY_DIR, builtinRegistry } from "../src/node/builtin-registry.ts";
import {
  COMPILED_KILN_TEMPLATES_FILE,
  COMPILED_TEMPLATES_FILE,
} from "../src/node/node-libraries.ts";
import { PACKAGED_KILN_DIGESTS_FILE } from "../src/node/packaged-kiln.ts";
import { itemDigest, readRegistrySource } from "../src/node/registry-build.ts";

/** Where the generated module lives (beside the catalogue it was compiled from). */
export const COMPILED_TEMPLATES_PATH = join(BUILTIN_REGISTRY_DIR, COMPILED_TEMPLATES_FILE);

/** Where `@kiln`'s compiled templates live, beside the built-ins'. */
export const COMPILED_KILN_TEMPLATES_PATH = join(
  BUILTIN_REGISTRY_DIR,
  COMPILED_KILN_TEMPLATES_FILE,
);

/** Where the digests of `@kiln`'s published item files go (beside the compiled templates). */
export const PACKAGED_KILN_DIGESTS_PATH = join(BUILTIN_REGISTRY_DIR, PACKAGED_KILN_DIGESTS_FILE);

/** The source folder of `@kiln`, kiln's own registry (built into dist/registries/kiln/). */
export const KILN_REGISTRY_SOURCE = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "registries",
  "kiln",
);

/** Rust's whitespace (MiniJinja's `-` whitespace control) at a text's end or start. */
const TRAILING_SPACE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: vertical tab is whitespace to Rust
  /[\t\n\u000b\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/;
const LEADING_SPACE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: vertical tab is whitespace to Rust
  /^[\t\n\u000b\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** A template the compiler does not support: what and where. */
class Unsupported extends Error {}

// ---- lexer -------------------------------------------------------------------------------

type Token =
  | { kind: "text"; value: string; line: number }
  | { kind: "open"; tag: "var" | "block"; line: number }
  | { kind: "close"; line: number }
  | { kind: "name" | "string" | "number" | "op"; value: string; line: number };

const OPERATORS = [
  "==",
  "!=",
  "<=",
  ">=",
  "//",
  "**",
  "~",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ".",
  ":",
  "|",
  "+",
  "-",
  "*",
  "/",
  "%",
  "<",
  ">",
  "=",
];

/** A string literal's value; only the escapes the catalogue uses. */
function unescapeString(body: string, where: () => string): string {
  return body.replace(/\\(.)/g, (_match, char: string) => {
    const known: Record<string, string> = {
      n: "\n",
      t: "\t",
      r: "\r",
      "\\": "\\",
      '"': '"',
      "'": "'",
    };
    if (!(char in known)) throw new Unsupported(`${where()}: the string escape \\${char}`);
    return known[char] as string;
  });
}

/** The template's tokens with MiniJinja's whitespace control applied to its text. */
function lex(source: string, name: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  let line = 1;
  let stripNext = false;
  const where = () => `${name} line ${line}`;
  const lineOf = (to: number) => {
    for (let i = at; i < to; i++) if (source[i] === "\n") line++;
  };
  const pushText = (value: string, stripEnd: boolean) => {
    let out = stripNext ? value.replace(LEADING_SPACE, "") : value;
    if (stripEnd) out = out.replace(TRAILING_SPACE, "");
    stripNext = false;
    if (out !== "") tokens.push({ kind: "text", value: out, line });
  };
  while (at < source.length) {
    const next = source.slice(at).search(/\{[{%#]/);
    if (next < 0) {
      pushText(source.slice(at), false);
      break;
    }
    const start = at + next;
    const opener = source.slice(start, start + 2);
    const trimBefore = source[start + 2] === "-";
    if (source[start + 2] === "+") throw new Unsupported(`${where()}: \`+\` whitespace control`);
    pushText(source.slice(at, start), trimBefore);
    lineOf(start);
    at = start;
    if (opener === "{#") {
      const end = source.indexOf("#}", start + 2);
      if (end < 0) throw new Unsupported(`${where()}: an unclosed comment`);
      stripNext = source[end - 1] === "-";
      lineOf(end + 2);
      at = end + 2;
      continue;
    }
    const raw = /^\{%-?\s*raw\s*(-?)%\}/.exec(source.slice(start));
    if (raw) {
      const after = start + raw[0].length;
      const endRaw = /\{%(-?)\s*endraw\s*(-?)%\}/g;
      endRaw.lastIndex = after;
      const closing = endRaw.exec(source);
      if (!closing) throw new Unsupported(`${where()}: an unclosed raw block`);
      let content = source.slice(after, closing.index);
      if (raw[1] === "-") content = content.replace(LEADING_SPACE, "");
      if (closing[1] === "-") content = content.replace(TRAILING_SPACE, "");
      // kept when empty: the engine runs one instruction for a raw block whatever it holds
      tokens.push({ kind: "text", value: content, line });
      lineOf(closing.index + closing[0].length);
      at = closing.index + closing[0].length;
      stripNext = closing[2] === "-";
      continue;
    }
    tokens.push({ kind: "open", tag: opener === "{{" ? "var" : "block", line });
    at = start + (trimBefore ? 3 : 2);
    const closer = opener === "{{" ? "}}" : "%}";
    for (;;) {
      while (/\s/.test(source[at] ?? "")) {
        if (source[at] === "\n") line++;
        at++;
      }
      if (at >= source.length) throw new Unsupported(`${where()}: an unclosed tag`);
      if (source.startsWith(`-${closer}`, at) || source.startsWith(closer, at)) {
        stripNext = source[at] === "-";
        at += stripNext ? 3 : 2;
        tokens.push({ kind: "close", line });
        break;
      }
      const rest = source.slice(at);
      const string = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')/s.exec(rest);
      const number = /^[0-9]+(?![0-9.eE_])/.exec(rest);
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
      if (string) {
        tokens.push({
          kind: "string",
          value: unescapeString(string[1] ?? string[2] ?? "", where),
          line,
        });
        at += string[0].length;
      } else if (number) {
        tokens.push({ kind: "number", value: number[0], line });
        at += number[0].length;
      } else if (word) {
        tokens.push({ kind: "name", value: word[0], line });
        at += word[0].length;
      } else {
        const op = OPERATORS.find((candidate) => rest.startsWith(candidate));
        if (op === undefined)
          throw new Unsupported(`${where()}: the character ${JSON.stringify(rest[0])}`);
        tokens.push({ kind: "op", value: op, line });
        at += op.length;
      }
    }
  }
  return tokens;
}

// ---- parser ------------------------------------------------------------------------------

type Expr =
  | { type: "literal"; value: string | number | boolean | null }
  | { type: "name"; name: string; line: number }
  | { type: "list"; items: Expr[] }
  | { type: "map"; entries: [string, Expr][] }
  | { type: "attr"; target: Expr; name: string; line: number }
  | { type: "slice"; target: Expr; start: number | undefined; stop: number | undefined }
  | { type: "index"; target: Expr; key: Expr; line: number }
  | { type: "call"; callee: string; args: Expr[]; line: number }
  | { type: "filter"; target: Expr; name: string; args: Expr[]; line: number }
  | { type: "test"; target: Expr; name: string; negated: boolean; line: number }
  | { type: "not"; operand: Expr }
  | { type: "and" | "or"; left: Expr; right: Expr }
  | { type: "compare"; op: "==" | "!=" | "in" | "not in"; left: Expr; right: Expr }
  | { type: "concat"; left: Expr; right: Expr }
  | { type: "cond"; test: Expr; whenTrue: Expr; otherwise: Expr };

type Node =
  | { type: "text"; value: string }
  | { type: "output"; expr: Expr }
  | { type: "if"; branches: { test: Expr; body: Node[] }[]; otherwise: Node[] }
  | {
      type: "for";
      targets: string[];
      iter: Expr;
      filter: Expr | undefined;
      body: Node[];
      line: number;
    }
  | { type: "set"; name: string; expr: Expr }
  | { type: "setBlock"; name: string; body: Node[] }
  | { type: "macro"; name: string; params: string[]; body: Node[] };

const KILN_TESTS = new Set(["defined", "none", "mapping", "sequence", "string"]);
const BUILTIN_FILTER_NAMES = new Set([
  "items",
  "trim",
  "tojson",
  "string",
  "lower",
  "split",
  "map",
  "select",
  "list",
]);

class Parser {
  private at = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly name: string,
    private readonly kilnFilters: ReadonlySet<string>,
  ) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.at + offset];
  }

  private where(): string {
    return `${this.name} line ${this.peek()?.line ?? this.tokens[this.tokens.length - 1]?.line ?? 1}`;
  }

  private fail(what: string): never {
    throw new Unsupported(`${this.where()}: ${what}`);
  }

  private isOp(value: string): boolean {
    const token = this.peek();
    return token?.kind === "op" && token.value === value;
  }

  private isName(value: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token?.kind === "name" && token.value === value;
  }

  private expectOp(value: string): void {
    if (!this.isOp(value)) this.fail(`expected \`${value}\``);
    this.at++;
  }

  private expectName(value?: string): string {
    const token = this.peek();
    if (token?.kind !== "name" || (value !== undefined && token.value !== value)) {
      this.fail(`expected ${value === undefined ? "a name" : `\`${value}\``}`);
    }
    this.at++;
    return token.value;
  }

  private expectClose(): void {
    if (this.peek()?.kind !== "close") this.fail("expected the end of the tag");
    this.at++;
  }

  /** Nodes until a block tag named in `ends` (left unread) or the end. */
  parseNodes(ends: readonly string[]): Node[] {
    const nodes: Node[] = [];
    for (;;) {
      const token = this.peek();
      if (token === undefined) {
        if (ends.length > 0)
          this.fail(`expected one of ${ends.map((end) => `{% ${end} %}`).join(", ")}`);
        return nodes;
      }
      if (token.kind === "text") {
        nodes.push({ type: "text", value: token.value });
        this.at++;
      } else if (token.kind === "open" && token.tag === "var") {
        this.at++;
        nodes.push({ type: "output", expr: this.expression() });
        this.expectClose();
      } else if (token.kind === "open") {
        const keyword = this.peek(1);
        if (keyword?.kind === "name" && ends.includes(keyword.value)) return nodes;
        this.at++;
        nodes.push(this.statement());
      } else {
        this.fail("unexpected token");
      }
    }
  }

  private endTag(name: string): void {
    this.at++; // the open token
    this.expectName(name);
    this.expectClose();
  }

  private statement(): Node {
    const line = this.peek()?.line ?? 0;
    const keyword = this.expectName();
    if (keyword === "if") {
      const branches = [{ test: this.expression(), body: [] as Node[] }];
      this.expectClose();
      let otherwise: Node[] = [];
      for (;;) {
        (branches[branches.length - 1] as { body: Node[] }).body = this.parseNodes([
          "elif",
          "else",
          "endif",
        ]);
        this.at++;
        const next = this.expectName();
        if (next === "elif") {
          branches.push({ test: this.expression(), body: [] });
          this.expectClose();
          continue;
        }
        this.expectClose();
        if (next === "else") {
          otherwise = this.parseNodes(["endif"]);
          this.endTag("endif");
        }
        return { type: "if", branches, otherwise };
      }
    }
    if (keyword === "for") {
      const targets = [this.expectName()];
      while (this.isOp(",")) {
        this.at++;
        targets.push(this.expectName());
      }
      this.expectName("in");
      const iter = this.expression(false);
      let filter: Expr | undefined;
      if (this.isName("if")) {
        this.at++;
        filter = this.expression();
      }
      if (this.isName("recursive")) this.fail("a recursive loop");
      this.expectClose();
      const body = this.parseNodes(["else", "endfor"]);
      if (this.isName("else", 1)) this.fail("`{% for %}` with `{% else %}`");
      this.endTag("endfor");
      return { type: "for", targets, iter, filter, body, line };
    }
    if (keyword === "set") {
      const name = this.expectName();
      if (this.isOp("=")) {
        this.at++;
        const expr = this.expression();
        this.expectClose();
        return { type: "set", name, expr };
      }
      this.expectClose();
      const body = this.parseNodes(["endset"]);
      this.endTag("endset");
      return { type: "setBlock", name, body };
    }
    if (keyword === "macro") {
      const name = this.expectName();
      this.expectOp("(");
      const params: string[] = [];
      while (!this.isOp(")")) {
        params.push(this.expectName());
        if (this.isOp("=")) this.fail("a macro parameter default");
        if (this.isOp(",")) this.at++;
      }
      this.expectOp(")");
      this.expectClose();
      const body = this.parseNodes(["endmacro"]);
      this.endTag("endmacro");
      return { type: "macro", name, params, body };
    }
    return this.fail(`the \`{% ${keyword} %}\` statement`);
  }

  /** An expression; `withCondition` false inside `for ... in` (its `if` filters the loop). */
  expression(withCondition = true): Expr {
    const value = this.or();
    if (withCondition && this.isName("if")) {
      this.at++;
      const test = this.or();
      if (!this.isName("else")) this.fail("a conditional expression without `else`");
      this.at++;
      return { type: "cond", test, whenTrue: value, otherwise: this.expression() };
    }
    return value;
  }

  private or(): Expr {
    let left = this.and();
    while (this.isName("or")) {
      this.at++;
      left = { type: "or", left, right: this.and() };
    }
    return left;
  }

  private and(): Expr {
    let left = this.not();
    while (this.isName("and")) {
      this.at++;
      left = { type: "and", left, right: this.not() };
    }
    return left;
  }

  private not(): Expr {
    if (this.isName("not")) {
      this.at++;
      return { type: "not", operand: this.not() };
    }
    return this.compare();
  }

  private compare(): Expr {
    let left = this.concat();
    for (;;) {
      if (this.isOp("==") || this.isOp("!=")) {
        const op = (this.peek() as { value: "==" | "!=" }).value;
        this.at++;
        left = { type: "compare", op, left, right: this.concat() };
      } else if (this.isName("in")) {
        this.at++;
        left = { type: "compare", op: "in", left, right: this.concat() };
      } else if (this.isName("not") && this.isName("in", 1)) {
        this.at += 2;
        left = { type: "compare", op: "not in", left, right: this.concat() };
      } else if (["<", ">", "<=", ">="].some((op) => this.isOp(op))) {
        this.fail("an ordering comparison");
      } else {
        return left;
      }
    }
  }

  private concat(): Expr {
    let left = this.unary();
    while (this.isOp("~")) {
      this.at++;
      left = { type: "concat", left, right: this.unary() };
    }
    if (["+", "-", "*", "/", "//", "%", "**"].some((op) => this.isOp(op))) this.fail("arithmetic");
    return left;
  }

  private unary(): Expr {
    if (this.isOp("-") || this.isOp("+")) this.fail("a unary sign");
    let value = this.postfix(this.primary());
    for (;;) {
      const line = this.peek()?.line ?? 0;
      if (this.isOp("|")) {
        this.at++;
        const name = this.expectName();
        if (!BUILTIN_FILTER_NAMES.has(name) && !this.kilnFilters.has(name))
          this.fail(`the filter \`${name}\``);
        const args = this.isOp("(") ? this.arguments() : [];
        value = { type: "filter", target: value, name, args, line };
      } else if (this.isName("is")) {
        this.at++;
        let negated = false;
        if (this.isName("not")) {
          this.at++;
          negated = true;
        }
        const name = this.expectName();
        if (!KILN_TESTS.has(name)) this.fail(`the test \`${name}\``);
        if (this.isOp("(")) this.fail("a test with arguments");
        value = { type: "test", target: value, name, negated, line };
      } else {
        return value;
      }
    }
  }

  private arguments(): Expr[] {
    this.expectOp("(");
    const args: Expr[] = [];
    while (!this.isOp(")")) {
      const after = this.peek(1);
      if (this.peek()?.kind === "name" && after?.kind === "op" && after.value === "=") {
        this.fail("a keyword argument");
      }
      args.push(this.expression());
      if (this.isOp(",")) this.at++;
      else if (!this.isOp(")")) this.fail("expected `,` or `)`");
    }
    this.at++;
    return args;
  }

  /** After `[`: a slice (`[:4]`, `[-3:]`, `[1:2]`) rather than an index (`[key]`, `[0]`)? */
  private isSliceAhead(): boolean {
    let offset = 0;
    if (this.isOp(":")) return true;
    const sign = this.peek(offset);
    if (sign?.kind === "op" && sign.value === "-") offset++;
    if (this.peek(offset)?.kind !== "number") return false;
    const after = this.peek(offset + 1);
    return after?.kind === "op" && after.value === ":";
  }

  private postfix(start: Expr): Expr {
    let value = start;
    for (;;) {
      const line = this.peek()?.line ?? 0;
      if (this.isOp(".")) {
        this.at++;
        value = { type: "attr", target: value, name: this.expectName(), line };
      } else if (this.isOp("[")) {
        this.at++;
        const bound = (): number | undefined => {
          if (this.isOp(":") || this.isOp("]")) return undefined;
          let sign = 1;
          if (this.isOp("-")) {
            this.at++;
            sign = -1;
          }
          const token = this.peek();
          if (token?.kind !== "number") this.fail("a subscript other than a constant slice");
          this.at++;
          return sign * Number(token.value);
        };
        if (!this.isSliceAhead()) {
          const key = this.expression();
          this.expectOp("]");
          value = { type: "index", target: value, key, line };
          continue;
        }
        const start = bound();
        if (!this.isOp(":")) this.fail("an index (only constant slices are supported)");
        this.at++;
        const stop = bound();
        if (this.isOp(":")) this.fail("a slice step");
        this.expectOp("]");
        value = { type: "slice", target: value, start, stop };
      } else if (this.isOp("(")) {
        if (value.type !== "name") this.fail("a call of something other than a macro");
        value = { type: "call", callee: value.name, args: this.arguments(), line };
      } else {
        return value;
      }
    }
  }

  private primary(): Expr {
    const token = this.peek();
    if (token === undefined) return this.fail("an expression");
    this.at++;
    if (token.kind === "string") {
      let value = token.value;
      // adjacent string literals join, as in Python
      while (this.peek()?.kind === "string")
        value += (this.tokens[this.at++] as { value: string }).value;
      return { type: "literal", value };
    }
    if (token.kind === "number") return { type: "literal", value: Number(token.value) };
    if (token.kind === "name") {
      const constants: Record<string, boolean | null> = {
        true: true,
        false: false,
        none: null,
        True: true,
        False: false,
        None: null,
      };
      if (Object.hasOwn(constants, token.value))
        return { type: "literal", value: constants[token.value] as boolean | null };
      return { type: "name", name: token.value, line: token.line };
    }
    if (token.kind === "op" && token.value === "(") {
      const inner = this.expression();
      if (this.isOp(",")) this.fail("a tuple");
      this.expectOp(")");
      return inner;
    }
    if (token.kind === "op" && token.value === "[") {
      const items: Expr[] = [];
      while (!this.isOp("]")) {
        items.push(this.expression());
        if (this.isOp(",")) this.at++;
        else if (!this.isOp("]")) this.fail("expected `,` or `]`");
      }
      this.at++;
      return { type: "list", items };
    }
    if (token.kind === "op" && token.value === "{") {
      const entries: [string, Expr][] = [];
      while (!this.isOp("}")) {
        const key = this.peek();
        if (key?.kind !== "string") this.fail("a map key other than a string literal");
        this.at++;
        this.expectOp(":");
        entries.push([key.value, this.expression()]);
        if (this.isOp(",")) this.at++;
        else if (!this.isOp("}")) this.fail("expected `,` or `}`");
      }
      this.at++;
      return { type: "map", entries };
    }
    this.at--;
    return this.fail(
      `unexpected ${JSON.stringify((token as { value?: string }).value ?? token.kind)}`,
    );
  }
}

// ---- fuel ---------------------------------------------------------------------------------
//
// The engine's fuel counts the instructions MiniJinja's VM runs (its src/vm/fuel.rs: one unit
// for every instruction but the few that only move frames - BeginCapture, PushLoop, PushWith,
// PopFrame, PopLoopFrame, DupTop, DiscardTop, BuildMacro, Return - which cost none), not
// characters or values: a context of any size costs nothing until a loop walks it. So the
// compiled code adds up, as it runs, the instructions the engine would run for the same path:
// each template, branch, loop turn and macro call adds its block's count when it starts
// (rt.work), counted here from the template's tree as MiniJinja 2.11's code generator
// (src/compiler/codegen.rs) compiles each construct. The counts are upper bounds: where the
// engine folds constants or short-circuits inside an expression it runs fewer, never more, and
// an expression counts its longest path. test/core/compiled-fuel.test.ts checks the bound
// against the engine's real fuel use.

/** Instructions the engine runs for `expr`, at most. */
function exprFuel(expr: Expr): number {
  switch (expr.type) {
    case "literal": // LoadConst
    case "name": // Lookup
      return 1;
    case "list": // the items, BuildList
      return expr.items.reduce((sum, item) => sum + exprFuel(item), 1);
    case "map": // each key's LoadConst and its value, BuildMap
      return expr.entries.reduce((sum, [, value]) => sum + 1 + exprFuel(value), 1);
    case "attr": // the target, GetAttr (`loop.first` too: Lookup loop, GetAttr)
      return exprFuel(expr.target) + 1;
    case "index": // the target, the key, GetItem
      return exprFuel(expr.target) + exprFuel(expr.key) + 1;
    case "slice": // the target, a LoadConst for start, stop and step each, Slice
      return exprFuel(expr.target) + 4;
    case "call": // the arguments, CallFunction (the macro's body counts itself)
      return expr.args.reduce((sum, arg) => sum + exprFuel(arg), 1);
    case "filter": // the value, the arguments, ApplyFilter
      return expr.args.reduce((sum, arg) => sum + exprFuel(arg), exprFuel(expr.target) + 1);
    case "test": // the value, PerformTest, and Not when negated
      return exprFuel(expr.target) + 1 + (expr.negated ? 1 : 0);
    case "not":
      return exprFuel(expr.operand) + 1;
    case "and":
    case "or": // the left, JumpIfFalseOrPop / JumpIfTrueOrPop, the right
      return exprFuel(expr.left) + 1 + exprFuel(expr.right);
    case "compare": // both sides, Eq / Ne / In, and Not for `not in`
      return exprFuel(expr.left) + exprFuel(expr.right) + (expr.op === "not in" ? 2 : 1);
    case "concat": // both sides, StringConcat
      return exprFuel(expr.left) + exprFuel(expr.right) + 1;
    case "cond": // the test, JumpIfFalse, then the value and a Jump, or the other value
      return (
        exprFuel(expr.test) + 1 + Math.max(exprFuel(expr.whenTrue) + 1, exprFuel(expr.otherwise))
      );
  }
}

/** The names a macro's body reads: at most the closure the engine builds for it (Enclose). */
function namesRead(nodes: Node[]): Set<string> {
  const names = new Set<string>();
  const visitExpr = (expr: Expr): void => {
    if (expr.type === "name") names.add(expr.name);
    if (expr.type === "call") names.add(expr.callee);
    for (const value of Object.values(expr)) {
      if (Array.isArray(value)) {
        for (const part of value) {
          if (Array.isArray(part)) visitExpr(part[1] as Expr);
          else if (typeof part === "object" && part !== null) visitExpr(part as Expr);
        }
      } else if (typeof value === "object" && value !== null && "type" in value) {
        visitExpr(value as Expr);
      }
    }
  };
  const visit = (list: Node[]): void => {
    for (const node of list) {
      if (node.type === "output" || node.type === "set") visitExpr(node.expr);
      if (node.type === "setBlock" || node.type === "macro") visit(node.body);
      if (node.type === "if") {
        for (const branch of node.branches) {
          visitExpr(branch.test);
          visit(branch.body);
        }
        visit(node.otherwise);
      }
      if (node.type === "for") {
        visitExpr(node.iter);
        if (node.filter) visitExpr(node.filter);
        visit(node.body);
      }
    }
  };
  visit(nodes);
  return names;
}

/**
 * Instructions a list of nodes runs itself, each time it runs: its text, outputs, sets and
 * tests, and the fixed part of its loops and macro definitions. The bodies of its branches,
 * loop turns and macro calls are not in it: each adds its own when it runs.
 */
function blockFuel(nodes: Node[]): number {
  let fuel = 0;
  for (const node of nodes) {
    switch (node.type) {
      case "text": // EmitRaw
        fuel += 1;
        break;
      case "output": // the value, Emit
      case "set": // the value, StoreLocal
        fuel += exprFuel(node.expr) + 1;
        break;
      case "setBlock": // BeginCapture (none), the body, EndCapture, StoreLocal
        fuel += blockFuel(node.body) + 2;
        break;
      case "if": // the first test and its JumpIfFalse (an `elif` counts in the branch before)
        fuel += exprFuel((node.branches[0] as { test: Expr }).test) + 1;
        break;
      case "for":
        // the iterable and the last Iterate; with a filter, the filtering loop first: a
        // LoadConst before it and its last Iterate, then BuildList
        fuel += exprFuel(node.iter) + (node.filter ? 4 : 1);
        break;
      case "macro": // Jump over the body, Enclose per name, GetClosure, LoadConst, StoreLocal
        fuel += 4 + namesRead(node.body).size;
        break;
    }
  }
  return fuel;
}

/** The fuel of one loop turn: before its filter, and after it (all of it without a filter). */
function loopTurnFuel(node: Extract<Node, { type: "for" }>): { before: number; after: number } {
  // StoreLocal for one target; UnpackList and a StoreLocal each for several
  const assign = node.targets.length === 1 ? 1 : 1 + node.targets.length;
  // Iterate, the assignment, the body, the Jump back
  const turn = 2 + assign + blockFuel(node.body);
  if (!node.filter) return { before: turn, after: 0 };
  // the filtering loop's turn: Iterate, the assignment, the filter, JumpIfFalse, the Jump back,
  // and for an item that passes Swap, LoadConst, Add and a Jump; then its turn of the loop
  return { before: 3 + assign + exprFuel(node.filter), after: 4 + turn };
}

/**
 * The characters a list of nodes writes itself as text, each time it runs (a `{% set %}` block's
 * too: the engine holds what it captures as well as what it writes). Values written by `{{ }}`
 * count as they are written (rt.emit).
 */
function blockText(nodes: Node[]): number {
  let units = 0;
  for (const node of nodes) {
    if (node.type === "text") units += node.value.length;
    if (node.type === "setBlock") units += blockText(node.body);
  }
  return units;
}

/** `rt.work(n, t);` for a block of `n` instructions writing `t` characters of text. */
function workCall(fuel: number, units = 0): string {
  if (units > 0) return `rt.work(${fuel}, ${units});\n`;
  return fuel > 0 ? `rt.work(${fuel});\n` : "";
}

/** The workCall of a list of nodes: its instructions (and `extraFuel` more) and its text. */
function blockWork(nodes: Node[], extraFuel = 0): string {
  return workCall(blockFuel(nodes) + extraFuel, blockText(nodes));
}

// ---- code generation ---------------------------------------------------------------------

/** A variable in scope: a JavaScript name, and whether a `{% set %}` may not have run yet. */
interface Binding {
  js: string;
  maybeUnset: boolean;
}

/** One frame of names (the template, a macro, a loop body). */
interface Frame {
  names: Map<string, Binding>;
  /** A macro's frame sees the context and macros, not the template's variables. */
  isolated: boolean;
  /** Inside a loop: the JavaScript name of its index, for `loop.first`. */
  loopIndex?: string;
}

class Generator {
  private counter = 0;
  /** The temporaries of the statement being written (see node). */
  private temps: string[] = [];
  private readonly macros = new Map<string, { js: string; params: number }>();

  constructor(private readonly name: string) {}

  private fresh(prefix: string): string {
    this.counter += 1;
    return `${prefix}${this.counter}`;
  }

  /** The template's function body. */
  template(nodes: Node[]): string {
    const frames: Frame[] = [{ names: new Map(), isolated: false }];
    const out = "o";
    return `${blockWork(nodes)}let ${out} = "";\nconst ${out}_done = [];\n${this.nodes(nodes, frames, out)}return rt.written(${out}_done, ${out});\n`;
  }

  /** Declarations for every `{% set %}` name of this frame (not nested frames). */
  private declare(nodes: Node[], frame: Frame): string {
    let code = "";
    const visit = (list: Node[]) => {
      for (const node of list) {
        if ((node.type === "set" || node.type === "setBlock") && !frame.names.has(node.name)) {
          const js = this.fresh(`v_${node.name}_`);
          frame.names.set(node.name, { js, maybeUnset: true });
          code += `let ${js} = rt.UNSET;\n`;
        }
        if (node.type === "if") {
          for (const branch of node.branches) visit(branch.body);
          visit(node.otherwise);
        }
        if (node.type === "setBlock") visit(node.body);
      }
    };
    visit(nodes);
    return code;
  }

  private nodes(nodes: Node[], frames: Frame[], out: string): string {
    const frame = frames[frames.length - 1] as Frame;
    let code =
      frames.length === 1 || frame.isolated || frame.loopIndex ? this.declare(nodes, frame) : "";
    // Consecutive text and `{{ }}` are appended together, in order: one string joined onto the
    // output, rather than one each (an inventory's host line was 20 appends, each a new rope
    // node of the whole output kept alive until the end: most of a large render's garbage).
    let run: string[] = [];
    const flush = () => {
      if (run.length > 0) code += `${out} += ${run.join(" + ")};\n`;
      run = [];
    };
    for (const node of nodes) {
      if (node.type === "text") {
        if (node.value !== "") run.push(JSON.stringify(node.value));
      } else if (node.type === "output") {
        const outer = this.temps;
        this.temps = [];
        const value = `rt.emit(${this.expr(node.expr, frames)})`;
        if (this.temps.length > 0) {
          flush();
          code += `let ${this.temps.join(", ")};\n`;
        }
        this.temps = outer;
        run.push(value);
      } else {
        flush();
        code += this.node(node, frames, out);
      }
    }
    flush();
    return code;
  }

  /**
   * A statement's code, after a declaration of the temporaries its expressions use (`and` and
   * `or` keep their left value in one): plain variables rather than a function per expression,
   * which would make every variable it reads live in a heap-allocated scope, one per loop turn.
   */
  private node(node: Node, frames: Frame[], out: string): string {
    const outer = this.temps;
    this.temps = [];
    const code = this.statement(node, frames, out);
    const temps = this.temps;
    this.temps = outer;
    return temps.length > 0 ? `let ${temps.join(", ")};\n${code}` : code;
  }

  private statement(node: Node, frames: Frame[], out: string): string {
    switch (node.type) {
      case "text":
        return node.value === "" ? "" : `${out} += ${JSON.stringify(node.value)};\n`;
      case "output":
        return `${out} += rt.emit(${this.expr(node.expr, frames)});\n`;
      case "if":
        return this.branches(node.branches, node.otherwise, frames, out);
      case "set":
        return `${this.binding(node.name, frames)} = ${this.expr(node.expr, frames)};\n`;
      case "setBlock": {
        const buffer = this.fresh("b");
        return `{\nlet ${buffer} = "";\nconst ${buffer}_done = [];\n${this.nodes(node.body, frames, buffer)}${this.binding(node.name, frames)} = rt.written(${buffer}_done, ${buffer});\n}\n`;
      }
      case "macro": {
        if (frames.length !== 1)
          throw new Unsupported(`${this.name}: a macro inside a block (${node.name})`);
        const js = this.fresh(`m_${node.name}_`);
        this.macros.set(node.name, { js, params: node.params.length });
        const frame: Frame = { names: new Map(), isolated: true };
        const params = node.params.map((param) => {
          const paramJs = this.fresh(`p_${param}_`);
          frame.names.set(param, { js: paramJs, maybeUnset: false });
          return paramJs;
        });
        const buffer = this.fresh("b");
        const body = this.nodes(node.body, [...frames, frame], buffer);
        // StoreLocal for each parameter, then the body
        const fuel = blockWork(node.body, node.params.length);
        return `function ${js}(${params.join(", ")}) {\n${fuel}let ${buffer} = "";\nconst ${buffer}_done = [];\n${body}return rt.written(${buffer}_done, ${buffer});\n}\n`;
      }
      case "for": {
        const iter = this.expr(node.iter, frames);
        const items = this.fresh("items");
        const item = this.fresh("item");
        const index = this.fresh("i");
        const frame: Frame = { names: new Map(), isolated: false, loopIndex: index };
        const targets = node.targets.map((target) => {
          const js = this.fresh(`l_${target}_`);
          frame.names.set(target, { js, maybeUnset: false });
          return js;
        });
        const inner = [...frames, frame];
        const assign =
          targets.length === 1
            ? `const ${targets[0]} = ${item};\n`
            : `const [${targets.join(", ")}] = rt.unpack(${item}, ${targets.length});\n`;
        const fuel = loopTurnFuel(node);
        const text = blockText(node.body);
        const filter = node.filter
          ? `if (!rt.truthy(${this.expr(node.filter, [...frames, { names: frame.names, isolated: false }])})) continue;\n${workCall(fuel.after, text)}`
          : "";
        const body = this.nodes(node.body, inner, out);
        return `{\nconst ${items} = rt.iterable(${iter});\nlet ${index} = -1;\nfor (const ${item} of ${items}) {\n${workCall(fuel.before, node.filter ? 0 : text)}${assign}${filter}${index} += 1;\n${body}${out} = rt.setAside(${out}_done, ${out});\n}\n}\n`;
      }
    }
  }

  /**
   * An `if` with its `elif`s and `else`, as the engine runs it: each `elif` is an `if` inside
   * the `else` of the branch before (its test counted when that `else` starts), and a branch
   * with anything after it ends with a Jump over the rest.
   */
  private branches(
    branches: { test: Expr; body: Node[] }[],
    otherwise: Node[],
    frames: Frame[],
    out: string,
  ): string {
    const [first, ...rest] = branches as [{ test: Expr; body: Node[] }, ...typeof branches];
    const jump = rest.length > 0 || otherwise.length > 0 ? 1 : 0;
    let code = `if (rt.truthy(${this.expr(first.test, frames)})) {\n${blockWork(first.body, jump)}${this.nodes(first.body, frames, out)}}`;
    if (rest.length > 0) {
      const next = (rest[0] as { test: Expr }).test;
      code += ` else {\n${workCall(exprFuel(next) + 1)}${this.branches(rest, otherwise, frames, out)}}`;
    } else if (otherwise.length > 0) {
      code += ` else {\n${blockWork(otherwise)}${this.nodes(otherwise, frames, out)}}`;
    }
    return `${code}\n`;
  }

  /** The JavaScript variable a `{% set %}` of `name` assigns in the innermost frame. */
  private binding(name: string, frames: Frame[]): string {
    for (let at = frames.length - 1; at >= 0; at--) {
      const frame = frames[at] as Frame;
      const found = frame.names.get(name);
      if (found) return found.js;
      if (frame.isolated || frame.loopIndex || at === 0) break;
    }
    throw new Unsupported(`${this.name}: a \`{% set ${name} %}\` the compiler did not declare`);
  }

  /** Reads `name`: the innermost binding that has been set, else the context. */
  private read(name: string, frames: Frame[], line: number): string {
    let fallback = `rt.lookup(ctx, ${JSON.stringify(name)})`;
    const chain: Binding[] = [];
    for (let at = frames.length - 1; at >= 0; at--) {
      const frame = frames[at] as Frame;
      const found = frame.names.get(name);
      if (found) chain.push(found);
      if (frame.isolated) {
        // a macro sees its own names and the context; the template's variables are not restated
        if (!found && frames.slice(0, at).some((outer) => outer.names.has(name))) {
          throw new Unsupported(
            `${this.name} line ${line}: a macro reading the template variable \`${name}\``,
          );
        }
        break;
      }
    }
    for (const binding of chain.reverse()) {
      fallback = binding.maybeUnset
        ? `(${binding.js} !== rt.UNSET ? ${binding.js} : ${fallback})`
        : binding.js;
    }
    return fallback;
  }

  private expr(expr: Expr, frames: Frame[]): string {
    switch (expr.type) {
      case "literal":
        return expr.value === null ? "null" : JSON.stringify(expr.value);
      case "name":
        if (expr.name === "loop")
          throw new Unsupported(
            `${this.name} line ${expr.line}: \`loop\` other than \`loop.first\``,
          );
        return this.read(expr.name, frames, expr.line);
      case "list":
        return `[${expr.items.map((item) => this.expr(item, frames)).join(", ")}]`;
      case "map": {
        // a map literal holds its keys in the engine's order (sorted), the last of a key winning
        const entries = new Map<string, Expr>();
        for (const [key, value] of expr.entries) entries.set(key, value);
        const keys = [...entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        if (keys.some((key) => /[\ud800-\udfff\ue000-\uffff]/.test(key))) {
          throw new Unsupported(
            `${this.name}: a map key beyond the Basic Multilingual Plane's ordinary range`,
          );
        }
        return `new Map([${keys.map((key) => `[${JSON.stringify(key)}, ${this.expr(entries.get(key) as Expr, frames)}]`).join(", ")}])`;
      }
      case "attr": {
        if (expr.target.type === "name" && expr.target.name === "loop") {
          const loop = [...frames]
            .reverse()
            .find((frame) => frame.loopIndex !== undefined || frame.isolated);
          if (expr.name !== "first" || loop?.loopIndex === undefined) {
            throw new Unsupported(`${this.name} line ${expr.line}: \`loop.${expr.name}\``);
          }
          return `(${loop.loopIndex} === 0)`;
        }
        return `rt.attribute(${this.expr(expr.target, frames)}, ${JSON.stringify(expr.name)})`;
      }
      case "index":
        return `rt.item(${this.expr(expr.target, frames)}, ${this.expr(expr.key, frames)})`;
      case "slice":
        return `rt.slice(${this.expr(expr.target, frames)}, ${expr.start ?? "undefined"}, ${expr.stop ?? "undefined"})`;
      case "call": {
        const macro = this.macros.get(expr.callee);
        if (!macro)
          throw new Unsupported(
            `${this.name} line ${expr.line}: a call of \`${expr.callee}\`, which is not a macro defined before it`,
          );
        if (expr.args.length > macro.params)
          throw new Unsupported(
            `${this.name} line ${expr.line}: too many arguments to \`${expr.callee}\``,
          );
        return `${macro.js}(${expr.args.map((arg) => this.expr(arg, frames)).join(", ")})`;
      }
      case "filter": {
        const args = [expr.target, ...expr.args].map((arg) => this.expr(arg, frames)).join(", ");
        return BUILTIN_FILTER_NAMES.has(expr.name)
          ? `rt.BUILTIN_FILTERS[${JSON.stringify(expr.name)}](${args})`
          : `rt.kilnFilter(${JSON.stringify(expr.name)}, ${args})`;
      }
      case "test":
        return `${expr.negated ? "!" : ""}rt.TESTS[${JSON.stringify(expr.name)}](${this.expr(expr.target, frames)})`;
      case "not":
        return `!rt.truthy(${this.expr(expr.operand, frames)})`;
      case "and":
      case "or": {
        const left = this.fresh("t");
        const test = expr.type === "or" ? `rt.truthy(${left})` : `!rt.truthy(${left})`;
        this.temps.push(left);
        return `((${left} = ${this.expr(expr.left, frames)}), ${test} ? ${left} : ${this.expr(expr.right, frames)})`;
      }
      case "compare": {
        const left = this.expr(expr.left, frames);
        const right = this.expr(expr.right, frames);
        if (expr.op === "==") return `rt.equal(${left}, ${right})`;
        if (expr.op === "!=") return `!rt.equal(${left}, ${right})`;
        return `${expr.op === "not in" ? "!" : ""}rt.contains(${right}, ${left})`;
      }
      case "concat":
        return `(rt.text(${this.expr(expr.left, frames)}) + rt.text(${this.expr(expr.right, frames)}))`;
      case "cond":
        return `(rt.truthy(${this.expr(expr.test, frames)}) ? ${this.expr(expr.whenTrue, frames)} : ${this.expr(expr.otherwise, frames)})`;
    }
  }
}

/**
 * One template's function source, `(ctx) => string`, or an Unsupported error naming the
 * template and line.
 */
export function compileTemplate(
  source: string,
  name: string,
  kilnFilters: ReadonlySet<string>,
): string {
  const parser = new Parser(lex(source, name), name, kilnFilters);
  const nodes = parser.parseNodes([]);
  return `function (ctx) {\n${new Generator(name).template(nodes)}}`;
}

/** `@kiln`'s items as its build publishes them: each with its pinned reference and digest. */
export function packagedKilnItems(): { pinned: string; digest: string; item: RegistryItem }[] {
  return readRegistrySource(KILN_REGISTRY_SOURCE, "registries/kiln").items.map(
    ({ item, version, text }) => ({
      pinned: `@kiln/${item.name}@${version}`,
      digest: itemDigest(text),
      item,
    }),
  );
}

/**
 * The text of packaged-kiln-digests.json: each `@kiln` item's pinned reference and the digest
 * of its published file, in reference order.
 */
export function packagedKilnDigestsText(): string {
  const entries = packagedKilnItems()
    .map(({ pinned, digest }) => [pinned, digest] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`;
}

/** The items whose templates one generated module holds, each with the name its errors use. */
type NamedItems = readonly { label: string; item: RegistryItem }[];

/** A generated module's text: every template of `named` (each distinct source once), by source. */
async function templatesModule(named: NamedItems, whose: string): Promise<string> {
  const { KILN_FILTERS } = await import("../src/core/filters.ts");
  const kilnFilters = new Set(Object.keys(KILN_FILTERS));
  const compiled = new Map<string, string>();
  for (const { label, item } of named) {
    item.files.forEach((file, index) => {
      for (const [part, source] of [
        ["path", file.path],
        ["template", file.template],
      ] as const) {
        if (compiled.has(source)) continue;
        compiled.set(
          source,
          compileTemplate(source, `${label} files[${index}].${part}`, kilnFilters),
        );
      }
    });
  }
  const entries = [...compiled].map(
    ([source, code]) => `templates.set(${JSON.stringify(source)}, ${code});`,
  );
  return `// Generated by scripts/compile-templates.ts (npm run templates) from ${whose}
// templates; do not edit. See src/core/template-runtime.ts. Exports a function of the runtime
// helpers that returns the compiled templates, keyed by their exact source text.
"use strict";
module.exports = function templatesWith(rt) {
const templates = new Map();
${entries.join("\n")}
return templates;
};
`;
}

/** The built-ins' module: every built-in template, keyed by source. */
export function compiledTemplatesModule(): Promise<string> {
  const named = builtinRegistry().items.map((item) => ({ label: referenceOf(item), item }));
  return templatesModule(named, "the built-in components'");
}

/** `@kiln`'s module: every template of its packaged items, keyed by source. */
export function compiledKilnTemplatesModule(): Promise<string> {
  const named = packagedKilnItems().map(({ pinned, item }) => ({ label: pinned, item }));
  return templatesModule(named, "@kiln's (registries/kiln/)");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(COMPILED_TEMPLATES_PATH, await compiledTemplatesModule());
  writeFileSync(COMPILED_KILN_TEMPLATES_PATH, await compiledKilnTemplatesModule());
  writeFileSync(PACKAGED_KILN_DIGESTS_PATH, packagedKilnDigestsText());
  console.log(
    `wrote ${COMPILED_TEMPLATES_PATH}, ${COMPILED_KILN_TEMPLATES_PATH} and ${PACKAGED_KILN_DIGESTS_PATH}`,
  );
}
