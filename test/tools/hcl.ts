// Parsing the HCL (Terraform) files kiln renders, for tests: tree-sitter's HCL grammar
// (`@tree-sitter-grammars/tree-sitter-hcl`, its WebAssembly build loaded by `web-tree-sitter`,
// so nothing is compiled on install) gives the syntax tree, and the converter below turns it
// into the JSON form `@cdktf/hcl2json` gave (HashiCorp's HCL library in WebAssembly, used here
// until its project, terraform-cdk, was deprecated): the form Terraform's JSON syntax writes.
// The converter is hand-written: no library turns tree-sitter's tree into that form. Before the
// switch, both gave the same JSON for every .tf kiln rendered in these tests.
//
// tree-sitter recovers from errors instead of failing, and this grammar is looser than HCL in a
// few places, so a file counts as valid HCL only when its tree has no ERROR or MISSING node AND
// it keeps HCL's rules the grammar does not check: an argument or block ends its line, a block
// header and `{` share a line, object items are split by a comma or a line break, a quoted string
// has no raw line break, escapes are HCL's, names are identifiers, no argument is set twice.
// What kiln never renders (heredocs, `%{` directives, `~` strip markers…) is refused with a
// message that says so, rather than converted by guesswork. One valid form the grammar cannot
// read: a number with an exponent but no fraction (`1e3`; `1.0e3` reads); kiln writes whole
// numbers in digits only.
//
// Where `terraform` is installed, `terraformFmt` also runs Terraform's own parser on a file
// (`terraform fmt -`: reads stdin, no init, no network), and `terraformInit` runs
// `terraform init -backend=false` on a folder, offline; tests skip them with a message
// elsewhere. `terraformFolderDuplicates` says with the HCL parser alone what Terraform would
// refuse when loading a folder's files as one configuration (a declaration made twice).
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { devNull, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { Language, type Node, Parser } from "web-tree-sitter";

/**
 * The JSON form of an HCL file, as hcl2json gave it: blocks become nested objects keyed by type
 * and labels, each block body in a list (`resource.hcloud_server.web[0].count`). Literal strings
 * come back evaluated but written the way Terraform's JSON syntax writes them, so a literal `${`
 * or `%{` reads `$${` or `%%{` (see `hclJsonLiteral`); expressions come back as `${expression}`.
 * Keys keep the file's order (hcl2json sorted them).
 */
export type HclJson = Record<string, unknown>;

/** Thrown by the converter at a node; `parseHcl` adds the file name and position. */
class HclProblem extends Error {
  constructor(
    readonly node: Node,
    message: string,
    /** True when the file may be valid HCL that this converter does not handle. */
    readonly unsupported = false,
  ) {
    super(message);
  }
}

function unsupported(node: Node, what: string): HclProblem {
  return new HclProblem(
    node,
    `${what} is not converted by test/tools/hcl.ts (kiln renders none; extend the converter)`,
    true,
  );
}

let parser: Promise<Parser> | undefined;

/**
 * One parser for the process. The package ships the grammar twice, as tree-sitter-hcl.wasm and
 * tree-sitter-terraform.wasm: the same rules under two names (its make_grammar(dialect) only
 * names the language), so the HCL one serves both `parseHcl` and `parseTerraform`.
 */
function hclParser(): Promise<Parser> {
  parser ??= (async () => {
    await Parser.init();
    const require = createRequire(import.meta.url);
    const language = await Language.load(
      require.resolve("@tree-sitter-grammars/tree-sitter-hcl/tree-sitter-hcl.wasm"),
    );
    return new Parser().setLanguage(language);
  })();
  return parser;
}

/**
 * Works around the grammar's scanner reading an odd run of `$` (or `%`) before `{` wrongly: for
 * `$$${x}` it reads `$$` then an interpolation `${x}`, where HCL reads `$` then the escape `$${`
 * (literal text), and `%%%{` makes it fail. HCL reads any run of two or more before `{` as
 * literal text, so all but the last two of a run are replaced by `_` before tree-sitter sees the
 * text: the structure is the same, the length too, and string contents are read from the
 * original text by offset. Outside strings a run stays invalid (`$$` and `%%` are never valid
 * there), so no invalid file becomes valid.
 */
function maskEscapedRuns(text: string): string {
  return text.replace(/(\$\$\$+|%%%+)(?=\{)/g, (run) => "_".repeat(run.length - 2) + run.slice(-2));
}

/** Parses HCL text; throws, naming the line and column, when it is not valid HCL. */
export async function parseHcl(text: string, filename = "main.tf"): Promise<HclJson> {
  const tree = (await hclParser()).parse(maskEscapedRuns(text));
  if (tree === null) throw new Error(`${filename}: tree-sitter returned no tree`);
  try {
    const root = tree.rootNode;
    const error = firstSyntaxError(root, text);
    if (error) throw error;
    return convertFile(root, text);
  } catch (error) {
    if (!(error instanceof HclProblem)) throw error;
    const { row, column } = error.node.startPosition;
    const where = `line ${row + 1}, column ${column + 1}`;
    throw new Error(
      error.unsupported
        ? `${filename}: ${where}: ${error.message}`
        : `${filename} is not valid HCL: ${where}: ${error.message}`,
    );
  } finally {
    tree.delete();
  }
}

/** What a MISSING node of the grammar's own token names stands for, in HCL's words. */
const MISSING_TOKENS: Record<string, string> = {
  quoted_template_end: 'the closing " of a string',
  template_interpolation_end: "the } closing ${",
  identifier: "an expression",
};

/** The first ERROR or MISSING node of the tree, in file order, as a problem to report. */
function firstSyntaxError(node: Node, text: string): HclProblem | undefined {
  if (!node.hasError) return undefined;
  if (node.isMissing) {
    return new HclProblem(
      node,
      `missing ${MISSING_TOKENS[node.type] ?? JSON.stringify(node.type)}`,
    );
  }
  for (const child of node.children) {
    const inner = firstSyntaxError(child, text);
    if (inner) return inner;
  }
  const found = source(node, text).split("\n")[0] as string;
  const snippet = found.length > 30 ? `${found.slice(0, 30)}…` : found;
  return new HclProblem(node, `unexpected ${JSON.stringify(snippet)}`);
}

/**
 * A node's text from the original file: tree-sitter read the text `maskEscapedRuns` gave it,
 * which differs inside strings.
 */
function source(node: Node, text: string): string {
  return text.slice(node.startIndex, node.endIndex);
}

/** Children that are not comments (tree-sitter's "extras"). */
function parts(node: Node): Node[] {
  return node.children.filter((child) => !child.isExtra);
}

function convertFile(root: Node, text: string): HclJson {
  const [content] = root.namedChildren.filter((child) => !child.isExtra);
  if (content === undefined) return {};
  if (content.type !== "body")
    throw unsupported(content, "a file that is one object (tfvars in JSON style)");
  return convertBody(content, text);
}

/** HCL's identifier rule; the grammar also lets `::` in (for provider functions). */
const IDENTIFIER = /^[\p{ID_Start}_][\p{ID_Continue}-]*$/u;

function identifier(node: Node): string {
  if (!IDENTIFIER.test(node.text)) {
    throw new HclProblem(node, `${JSON.stringify(node.text)} is not an identifier`);
  }
  return node.text;
}

/**
 * A body's arguments and blocks, each ending its line: `{ name: value, type: { label: [body] } }`.
 * Setting an argument twice, or using one name for an argument and a block, is refused.
 */
function convertBody(body: Node, text: string): HclJson {
  const json: HclJson = {};
  const attributes = new Set<string>();
  let previous: Node | undefined;
  for (const item of parts(body)) {
    if (previous && item.startPosition.row === previous.endPosition.row) {
      throw new HclProblem(
        item,
        `missing line break after the ${previous.type === "block" ? "block" : "argument"} before it`,
      );
    }
    previous = item;
    const name = identifier(item.children[0] as Node);
    if (item.type === "attribute") {
      if (name in json) throw new HclProblem(item, `${JSON.stringify(name)} is set twice`);
      assertOneLine(item);
      attributes.add(name);
      json[name] = convertExpression(item.children[2] as Node, text);
    } else {
      if (attributes.has(name))
        throw new HclProblem(item, `${JSON.stringify(name)} is both an argument and a block`);
      addBlock(json, name, item, text);
    }
  }
  return json;
}

/** Files a block under its type and labels; its body goes to the end of the list there. */
function addBlock(json: HclJson, type: string, block: Node, text: string): void {
  const children = parts(block);
  const open = children.find((child) => child.type === "block_start") as Node;
  const close = children[children.length - 1] as Node;
  const labels = children.slice(1, children.indexOf(open));
  assertOneLine(block, children.slice(0, children.indexOf(open) + 1));
  const inner = children.find((child) => child.type === "body");
  assertBlockLayout(open, inner, close);
  let slot = json;
  let key = type;
  for (const label of labels) {
    slot[key] ??= {};
    slot = slot[key] as HclJson;
    key = label.type === "identifier" ? identifier(label) : decodeLabel(label, text);
  }
  slot[key] ??= [];
  (slot[key] as unknown[]).push(inner ? convertBody(inner, text) : {});
}

/**
 * HCL's block layout: either `{`, a line break, items each on their own lines, and `}` on a line
 * after the last; or a one-line block `name { argument = value }` with at most one argument.
 */
function assertBlockLayout(open: Node, body: Node | undefined, close: Node): void {
  if (body === undefined) return;
  const items = parts(body);
  const first = items[0] as Node;
  const last = items[items.length - 1] as Node;
  if (first.startPosition.row === open.endPosition.row) {
    if (items.length > 1 || first.type !== "attribute") {
      throw new HclProblem(first, "a one-line block holds a single argument only");
    }
    if (close.startPosition.row !== first.endPosition.row) {
      throw new HclProblem(close, "a one-line block must close on its line");
    }
  } else if (close.startPosition.row === last.endPosition.row) {
    throw new HclProblem(close, `missing line break before the block's "}"`);
  }
}

const OPENERS = new Set(["(", "[", "tuple_start"]);
const CLOSERS = new Set([")", "]", "tuple_end"]);
/** Nodes whose line breaks their own rules govern: `assertOneLine` takes each as one token. */
const UNITS = new Set(["object", "tuple", "template_expr", "string_lit", "for_expr"]);

/**
 * HCL ends an argument (and an object item) at a line break, except inside `(…)` and `[…]`:
 * so each token of `node` outside brackets starts on the line the one before it ended on.
 * tree-sitter treats line breaks as blanks and would join `a = x` and `.y` on the next line.
 */
function assertOneLine(node: Node, tokens: Node[] = units(node)): void {
  let depth = 0;
  let row = node.startPosition.row;
  for (const token of tokens) {
    if (depth === 0 && token.startPosition.row !== row) {
      throw new HclProblem(
        token,
        `unexpected line break before ${JSON.stringify(token.text.split("\n")[0])}`,
      );
    }
    if (OPENERS.has(token.type)) depth++;
    else if (CLOSERS.has(token.type)) depth--;
    row = token.endPosition.row;
  }
}

function units(node: Node): Node[] {
  return parts(node).flatMap((child) =>
    child.childCount === 0 || UNITS.has(child.type) ? [child] : units(child),
  );
}

/** The only named child of `node` when it has no other child (but comments), else undefined. */
function sole(node: Node): Node | undefined {
  const children = parts(node);
  return children.length === 1 && children[0]?.isNamed ? children[0] : undefined;
}

/**
 * An expression as hcl2json wrote it: literals as JSON values, quoted templates as strings,
 * tuples as arrays, objects as objects, a unary `-` or `!` on a literal evaluated, and any
 * other expression (a reference, call, operation, condition, `for`, parentheses) as its source
 * text in `${…}`.
 */
function convertExpression(expression: Node, text: string): unknown {
  const inner = sole(expression);
  switch (inner?.type) {
    case "literal_value":
      return convertLiteral(inner, text);
    case "template_expr":
      return convertTemplateExpression(inner, text);
    case "collection_value": {
      const collection = inner.children[0] as Node;
      return collection.type === "tuple"
        ? convertTuple(collection, text)
        : convertObject(collection, text);
    }
    case "operation": {
      const unary = sole(inner);
      const operand = unary?.type === "unary_operation" ? parts(unary)[1] : undefined;
      if (unary && parts(unary).length === 2 && operand?.type === "literal_value") {
        return evaluateUnary(unary, operand);
      }
      return `\${${source(expression, text)}}`;
    }
    default:
      return `\${${source(expression, text)}}`;
  }
}

/** HCL's number syntax; the grammar also reads `0x…`, which HCL does not. */
const NUMBER = /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

function convertLiteral(literal: Node, text: string): unknown {
  const value = literal.children[0] as Node;
  switch (value.type) {
    case "numeric_lit":
      if (!NUMBER.test(value.text)) {
        throw new HclProblem(value, `${JSON.stringify(value.text)} is not an HCL number`);
      }
      return Number(value.text);
    case "bool_lit":
      return value.text === "true";
    case "null_lit":
      return null;
    default:
      return convertTemplate(value, text);
  }
}

/** `-1` and `!true` as values, as hcl2json evaluates a unary operator on a literal. */
function evaluateUnary(unary: Node, operand: Node): unknown {
  const operator = (unary.children[0] as Node).type;
  const kind = (operand.children[0] as Node).type;
  if (operator === "-" && kind === "numeric_lit") return -(convertLiteral(operand, "") as number);
  if (operator === "!" && kind === "bool_lit") return !(convertLiteral(operand, "") as boolean);
  throw new HclProblem(
    unary,
    `${JSON.stringify(unary.text)} applies ${operator} to the wrong kind of value`,
  );
}

function convertTemplateExpression(template: Node, text: string): unknown {
  const quoted = template.children[0] as Node;
  if (quoted.type !== "quoted_template") throw unsupported(quoted, "a heredoc");
  return convertTemplate(quoted, text);
}

/**
 * A quoted template (or plain string): literal text decoded, then written back with `${` and
 * `%{` doubled, and each interpolation as `${source}`. Literal text is read from the original
 * file between the template's tokens (the grammar's scanner skips blanks after some of them).
 * A template that is one interpolation and nothing else gives that expression's own value, as
 * in HCL (`"${var.x}"` is `var.x`).
 */
function convertTemplate(template: Node, text: string): unknown {
  const children = parts(template);
  const inside = children.slice(1, -1).filter((child) => child.type !== "template_literal");
  const [only] = inside;
  if (inside.length === 1 && only?.type === "template_interpolation") {
    const before = text.slice((children[0] as Node).endIndex, only.startIndex);
    const after = text.slice(only.endIndex, (children[children.length - 1] as Node).startIndex);
    if (before === "" && after === "") return convertExpression(interpolated(only), text);
  }
  let result = "";
  let from = (children[0] as Node).endIndex;
  for (const part of [...inside, children[children.length - 1] as Node]) {
    result += jsonEscaped(decodeQuoted(text.slice(from, part.startIndex), template));
    from = part.endIndex;
    if (part.type === "template_interpolation") result += `\${${source(interpolated(part), text)}}`;
    else if (part.type === "template_directive") throw unsupported(part, "a %{…} directive");
  }
  return result;
}

/** The expression of `${…}`; a strip marker `~` is refused, an empty `${}` is invalid. */
function interpolated(interpolation: Node): Node {
  const marker = interpolation.children.find((child) => child.type === "strip_marker");
  if (marker) throw unsupported(marker, "a ~ strip marker");
  const expression = interpolation.children.find((child) => child.type === "expression");
  if (!expression) throw new HclProblem(interpolation, "an interpolation needs an expression");
  const inner = sole(expression);
  if (
    inner?.type === "literal_value" ||
    inner?.type === "template_expr" ||
    inner?.type === "conditional"
  ) {
    throw unsupported(
      expression,
      `a ${inner.type.replace("_", " ")} inside \${…} in a longer string`,
    );
  }
  return expression;
}

/** A block label: a plain quoted string, fully decoded (no interpolation allowed). */
function decodeLabel(label: Node, text: string): string {
  const children = parts(label);
  const start = (children[0] as Node).endIndex;
  const end = (children[children.length - 1] as Node).startIndex;
  return decodeQuoted(text.slice(start, end), label);
}

/**
 * The value of literal text from a quoted string: HCL's escapes (`\n`, `\r`, `\t`, `\"`, `\\`,
 * `\uXXXX`, `\UXXXXXXXX`) decoded, and `$${` / `%%{` read as `${` / `%{` (a run of two or more
 * `$` or `%` before `{` is literal, one starts a template sequence, which is refused here). A
 * raw line break is refused: quoted strings are one line in HCL.
 */
function decodeQuoted(raw: string, at: Node): string {
  let value = "";
  let i = 0;
  while (i < raw.length) {
    const ch = raw[i] as string;
    if (ch === "\n" || ch === "\r") {
      throw new HclProblem(at, "a quoted string cannot span lines (write \\n)");
    }
    if (ch === "\\") {
      const [decoded, length] = decodeEscape(raw, i, at);
      value += decoded;
      i += length;
    } else if (ch === "$" || ch === "%") {
      let end = i;
      while (raw[end] === ch) end++;
      const run = end - i;
      if (raw[end] === "{") {
        if (run === 1)
          throw new HclProblem(at, `a template sequence ${ch}{ is not allowed in this string`);
        value += `${ch.repeat(run - 1)}{`;
        i = end + 1;
      } else {
        value += ch.repeat(run);
        i = end;
      }
    } else {
      value += ch;
      i++;
    }
  }
  return value;
}

const SIMPLE_ESCAPES: Record<string, string> = { n: "\n", r: "\r", t: "\t", '"': '"', "\\": "\\" };

/** The character a backslash escape at `raw[i]` stands for, and the escape's length. */
function decodeEscape(raw: string, i: number, at: Node): [string, number] {
  const selector = raw[i + 1] ?? "";
  const simple = SIMPLE_ESCAPES[selector];
  if (simple !== undefined) return [simple, 2];
  const digits = selector === "u" ? 4 : selector === "U" ? 8 : 0;
  const hex = raw.slice(i + 2, i + 2 + digits);
  if (digits === 0 || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== digits) {
    throw new HclProblem(
      at,
      `invalid escape sequence ${JSON.stringify(raw.slice(i, i + 2 + digits))}`,
    );
  }
  const code = Number.parseInt(hex, 16);
  if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
    throw new HclProblem(at, `escape ${raw.slice(i, i + 2 + digits)} is not a Unicode character`);
  }
  return [String.fromCodePoint(code), 2 + digits];
}

/** Terraform JSON syntax's way to write literal text: `${` and `%{` doubled. */
function jsonEscaped(value: string): string {
  return value.replace(/([$%])\{/g, (sequence) => `${sequence[0]}${sequence}`);
}

function convertTuple(tuple: Node, text: string): unknown[] {
  return parts(tuple)
    .filter((child) => child.type === "expression")
    .map((element) => convertExpression(element, text));
}

/**
 * An object constructor: items split by a comma or a line break (the grammar lets both go),
 * each on one line; keys are identifiers or quoted strings. A later key wins, as in hcl2json.
 */
function convertObject(object: Node, text: string): HclJson {
  const json: HclJson = {};
  let previous: Node | undefined;
  let comma = false;
  for (const child of parts(object)) {
    if (child.type === ",") comma = true;
    if (child.type !== "object_elem") continue;
    if (previous && !comma && child.startPosition.row === previous.endPosition.row) {
      throw new HclProblem(child, "missing comma or line break between object items");
    }
    assertOneLine(child);
    json[objectKey(child.childForFieldName("key") as Node, text)] = convertExpression(
      child.childForFieldName("val") as Node,
      text,
    );
    previous = child;
    comma = false;
  }
  return json;
}

function objectKey(key: Node, text: string): string {
  const inner = sole(key);
  if (inner?.type === "variable_expr") return identifier(inner.children[0] as Node);
  const literal = inner?.type === "literal_value" ? (inner.children[0] as Node) : undefined;
  const template = inner?.type === "template_expr" ? (inner.children[0] as Node) : undefined;
  const quoted = literal?.type === "string_lit" ? literal : template;
  if (quoted?.type === "string_lit" || quoted?.type === "quoted_template") {
    const value = convertTemplate(quoted, text);
    if (typeof value === "string") return value;
  }
  throw unsupported(key, "an object key that is not a name or a quoted string");
}

/** Terraform's rule for a block label that names something: resources, variables, outputs… */
const TERRAFORM_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const NAMED_BLOCKS: Record<string, number> = {
  resource: 2, // resource "type" "name"
  data: 2,
  variable: 1,
  output: 1,
  module: 1,
};

/**
 * Parses a Terraform file: `parseHcl`, then Terraform's naming rule on every resource, data,
 * variable, output and module name (letters, digits, `_`, `-`, starting with a letter or `_`),
 * which HCL alone does not check. Throws on either failure.
 */
export async function parseTerraform(text: string, filename = "main.tf"): Promise<HclJson> {
  const json = await parseHcl(text, filename);
  const bad: string[] = [];
  for (const [block, depth] of Object.entries(NAMED_BLOCKS)) {
    const body = json[block];
    if (typeof body !== "object" || body === null) continue;
    const names =
      depth === 1
        ? Object.keys(body)
        : Object.values(body).flatMap((byName) => Object.keys(byName as object));
    for (const name of names) {
      if (!TERRAFORM_NAME.test(name)) bad.push(`${block} name ${JSON.stringify(name)}`);
    }
  }
  if (bad.length > 0) {
    throw new Error(`${filename} has invalid Terraform names: ${bad.join(", ")}`);
  }
  return json;
}

/**
 * The string a literal in `parseHcl`'s output stands for: undoes Terraform JSON syntax's
 * doubling of `${` and `%{` (`"a$${b}"` → `a${b}`).
 */
export function hclJsonLiteral(value: string): string {
  return value.replace(/([$%])\1\{/g, "$1{");
}

// --- Terraform's own parser, where it is installed ------------------------------------------

let terraformMissingReason: string | null | undefined;

/** Why `terraform` cannot run here, or undefined when it can. Checked once per process. */
function terraformMissing(): string | undefined {
  if (terraformMissingReason === undefined) {
    const found = (process.env.PATH ?? "")
      .split(delimiter)
      .some((dir) => dir !== "" && existsSync(join(dir, "terraform")));
    terraformMissingReason = found
      ? null
      : "terraform is not installed (it is optional: HashiCorp's binary, not a Debian package; CI may lack it)";
  }
  return terraformMissingReason ?? undefined;
}

/**
 * The `skip` option for a test that runs `terraform`: a message when the binary is missing
 * (also when KILN_REQUIRE_TOOLS=1, since CI may not have it), otherwise false, and the test runs
 * and must pass. Use as `it("...", { skip: terraformSkip() }, () => ...)`.
 */
export function terraformSkip(): string | false {
  const reason = terraformMissing();
  return reason === undefined ? false : `skipped: ${reason}`;
}

let terraformScratch: string | undefined;

/**
 * Terraform's own parser on one file: `terraform fmt -` reads it from stdin and exits non-zero
 * with its diagnostics when the syntax is wrong. `-check` is not used: it also fails a file that
 * is valid but aligned differently from `terraform fmt`'s style, which is not a syntax error. No
 * init, no network (update checks off), no CLI config of the machine's. Throws on failure.
 */
export function terraformFmt(text: string, filename: string): void {
  const reason = terraformMissing();
  if (reason !== undefined) throw new Error(`cannot run terraform: ${reason}`);
  terraformScratch ??= mkdtempSync(join(tmpdir(), "kiln-terraform-"));
  const result = spawnSync("terraform", ["fmt", "-no-color", "-"], {
    cwd: terraformScratch,
    input: text,
    encoding: "utf8",
    timeout: 60_000,
    env: {
      ...process.env,
      CHECKPOINT_DISABLE: "1",
      TF_IN_AUTOMATION: "1",
      TF_CLI_CONFIG_FILE: devNull,
    },
  });
  if (result.error || result.status !== 0) {
    throw new Error(
      `terraform fmt rejects ${filename}: ${result.error?.message ?? `exit ${result.status}`}\n${result.stderr}`,
    );
  }
}

// --- A folder as Terraform loads it -----------------------------------------------------------

/** Block types whose labels name one thing per folder, and how many labels make the name. */
const DECLARATIONS: Record<string, number> = {
  resource: 2,
  data: 2,
  variable: 1,
  output: 1,
  module: 1,
};

/** Where each declaration of a folder's files is made: `variable "x"` → [file, file]. */
type Declarations = Map<string, string[]>;

function declare(declarations: Declarations, what: string, file: string): void {
  declarations.set(what, [...(declarations.get(what) ?? []), file]);
}

/** `resource "a" "b"` for the labels under one block type of the parsed JSON. */
function declarationsOf(json: HclJson, file: string, declarations: Declarations): void {
  for (const [type, depth] of Object.entries(DECLARATIONS)) {
    const byLabel = json[type] as Record<string, unknown> | undefined;
    if (byLabel === undefined) continue;
    const walk = (node: unknown, labels: string[]): void => {
      if (labels.length === depth) {
        for (const _body of node as unknown[]) {
          declare(declarations, `${type} ${labels.map((l) => JSON.stringify(l)).join(" ")}`, file);
        }
        return;
      }
      for (const [label, inner] of Object.entries(node as Record<string, unknown>)) {
        walk(inner, [...labels, label]);
      }
    };
    walk(byLabel, []);
  }
  for (const [name, bodies] of Object.entries((json.provider ?? {}) as Record<string, unknown>)) {
    for (const body of bodies as Record<string, unknown>[]) {
      const alias = typeof body.alias === "string" ? ` (alias ${body.alias})` : "";
      declare(declarations, `provider ${JSON.stringify(name)}${alias}`, file);
    }
  }
  for (const settings of (json.terraform ?? []) as Record<string, unknown>[]) {
    for (const _required of (settings.required_providers ?? []) as unknown[]) {
      declare(declarations, "terraform { required_providers }", file);
    }
  }
  for (const locals of (json.locals ?? []) as Record<string, unknown>[]) {
    for (const name of Object.keys(locals)) declare(declarations, `local ${name}`, file);
  }
}

/**
 * What Terraform would refuse when loading these files as one folder (one module), read with
 * the HCL parser: every declaration that Terraform allows once per module but the files make
 * more than once (a second `required_providers`, a variable, provider without alias, resource,
 * data source, output, module or local of a name already declared), each as
 * `variable "hcloud_token" in a.tf, b.tf`. Empty when the folder loads. Throws when a file does
 * not parse.
 */
export async function terraformFolderDuplicates(
  files: readonly { path: string; content: string }[],
): Promise<string[]> {
  const declarations: Declarations = new Map();
  for (const file of files) {
    declarationsOf(await parseTerraform(file.content, file.path), file.path, declarations);
  }
  return [...declarations]
    .filter(([, where]) => where.length > 1)
    .map(([what, where]) => `${what} in ${where.join(", ")}`);
}

/** Terraform's name for this machine's platform: `linux_amd64`, `darwin_arm64`. */
function terraformPlatform(): string {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const arch = { x64: "amd64", ia32: "386" }[process.arch as string] ?? process.arch;
  return `${os}_${arch}`;
}

/**
 * A version a constraint kiln writes accepts: its first version, padded to three parts
 * (`~> 1.49` → `1.49.0`). kiln's templates write `~> X.Y`; other forms are not needed here.
 */
function versionFor(constraint: string): string {
  const found = /\d+(\.\d+){0,2}/.exec(constraint)?.[0];
  if (found === undefined) throw new Error(`no version in the constraint ${constraint}`);
  const parts = found.split(".");
  while (parts.length < 3) parts.push("0");
  return parts.join(".");
}

/**
 * `terraform init -backend=false` in `folder`, offline: the CLI configuration points provider
 * installation at a local mirror holding a stand-in package (an executable that is never run:
 * init only installs and locks providers) for each provider the folder's files require, at a
 * version their constraint accepts. So init loads the folder's configuration, as it always does
 * first, resolves the providers and exits 0 without the network; a configuration Terraform
 * refuses fails with its diagnostics ("Duplicate required providers configuration", ...).
 * Returns init's output; throws with it on failure. Requires terraform (see `terraformSkip`).
 */
export async function terraformInit(folder: string): Promise<string> {
  const reason = terraformMissing();
  if (reason !== undefined) throw new Error(`cannot run terraform: ${reason}`);
  const scratch = mkdtempSync(join(tmpdir(), "kiln-terraform-init-"));
  const mirror = join(scratch, "mirror");
  mkdirSync(mirror);
  for (const name of readdirSync(folder).filter((entry) => entry.endsWith(".tf"))) {
    const json = await parseTerraform(readFileSync(join(folder, name), "utf8"), name);
    for (const settings of (json.terraform ?? []) as Record<string, unknown>[]) {
      for (const required of (settings.required_providers ?? []) as Record<string, unknown>[]) {
        for (const [type, requirement] of Object.entries(required)) {
          const { source, version } = requirement as { source: string; version: string };
          const release = versionFor(version);
          const packageDir = join(
            mirror,
            "registry.terraform.io",
            ...source.split("/"),
            release,
            terraformPlatform(),
          );
          mkdirSync(packageDir, { recursive: true });
          const executable = join(packageDir, `terraform-provider-${type}_v${release}`);
          writeFileSync(executable, "#!/bin/sh\nexit 1\n");
          chmodSync(executable, 0o755);
        }
      }
    }
  }
  const cliConfig = join(scratch, "terraform.rc");
  writeFileSync(
    cliConfig,
    `provider_installation {\n  filesystem_mirror {\n    path = ${JSON.stringify(mirror)}\n  }\n}\n`,
  );
  const result = spawnSync("terraform", ["init", "-backend=false", "-input=false", "-no-color"], {
    cwd: folder,
    encoding: "utf8",
    timeout: 120_000,
    env: {
      ...process.env,
      CHECKPOINT_DISABLE: "1",
      TF_IN_AUTOMATION: "1",
      TF_CLI_CONFIG_FILE: cliConfig,
      TF_DATA_DIR: join(scratch, "data"),
    },
  });
  rmSync(scratch, { recursive: true, force: true });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  if (result.error || result.status !== 0) {
    throw new Error(
      `terraform init -backend=false refuses ${folder}: ${result.error?.message ?? `exit ${result.status}`}\n${output}`,
    );
  }
  return output;
}
