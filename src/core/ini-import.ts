// INI inventory → the `hosts` JSON of automation/inventory (an array of group objects). Used by
// the dashboard's "import an existing inventory" and usable by the CLI. Pure: no I/O.
//
// What it reads: `[group]` host lines, `[group:children]` child group names, `[group:vars]`
// `key=value` lines, hosts before any section (group `ungrouped`), `#`/`;` comments, quoted
// values, and numeric or alphabetic host ranges (`web[01:03]`, `db-[a:c]`). The host variables
// `cm_host`, `cm_user`, `cm_port` and `cm_ssh_private_key_file` become the host keys `cm_host`,
// `cm_user`, `cm_port` and `ssh_key_file`; every other `key=value` stays in the host's `vars`.
//
// A host listed in several groups is one host: its variables from every line are merged (a later
// line wins on a clash, and the clash is reported), and the merged host is a member of each
// group, so rendering the result gives each line the same complete definition.
//
// A host line without `cm_user` (or `cm_port`) gets `null`, so rendering writes no user (port)
// token, exactly as the imported file had it, instead of the inventory's `default_user`.

export interface InventoryHost {
  name: string;
  cm_host?: string;
  cm_user?: string | null;
  cm_port?: number | string | null;
  ssh_key_file?: string;
  vars?: Record<string, string>;
}

export interface InventoryGroup {
  group: string;
  members?: InventoryHost[];
  children?: string[];
  vars?: Record<string, string>;
}

export interface IniImportResult {
  groups: InventoryGroup[];
  /** The `hosts` field value: `JSON.stringify(groups)`. */
  json: string;
  /** Things a person should know: clashing host variables, lines that were skipped. */
  warnings: string[];
}

type SectionKind = "hosts" | "children" | "vars";

interface HostRecord {
  name: string;
  values: Map<string, string>;
}

/**
 * Splits a host line into tokens the way the automation tool does (Python's shlex in POSIX
 * mode): whitespace separates, quotes group and are removed, a backslash inside double quotes
 * escapes `"` and `\\`, nothing is escaped inside single quotes, and `#` at the start of a
 * token starts a comment.
 */
export function tokenizeIniLine(line: string): string[] {
  const tokens: string[] = [];
  let current = "";
  let quote: string | null = null;
  let started = false;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index] as string;
    if (quote) {
      const next = line[index + 1];
      if (quote === '"' && char === "\\" && (next === '"' || next === "\\")) {
        current += next;
        index += 1;
      } else if (char === quote) {
        quote = null;
      } else {
        current += char;
      }
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (char === "#" && !started) {
      break; // a comment to the end of the line
    } else if (/\s/.test(char)) {
      if (started) tokens.push(current);
      current = "";
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (started) tokens.push(current);
  return tokens;
}

const PYTHON_ESCAPES: Record<string, string> = {
  "\n": "", // backslash-newline: a line continuation
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\u0007",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/**
 * The tool reads every value with Python's `ast.literal_eval` and keeps the text when that
 * fails; kiln's inventory template writes awkward strings as Python string literals
 * (`'a b'`, `'it\\'s'`). This decodes a whole single- or double-quoted Python string literal
 * back to its string, and returns any other text unchanged.
 */
export function decodePythonString(text: string): string {
  const quote = text[0];
  if (text.length < 2 || (quote !== "'" && quote !== '"') || text[text.length - 1] !== quote) {
    return text;
  }
  let out = "";
  for (let index = 1; index < text.length - 1; index += 1) {
    const char = text[index] as string;
    if (char === quote) return text; // an unescaped quote inside: not one literal
    if (char !== "\\") {
      out += char;
      continue;
    }
    const next = text[index + 1];
    if (next === undefined || index + 1 === text.length - 1) return text;
    const hex = { x: 2, u: 4, U: 8 }[next as "x" | "u" | "U"];
    if (hex) {
      const digits = text.slice(index + 2, index + 2 + hex);
      if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== hex) return text;
      out += String.fromCodePoint(Number.parseInt(digits, 16));
      index += 1 + hex;
    } else if (/[0-7]/.test(next)) {
      const digits = /^[0-7]{1,3}/.exec(text.slice(index + 1))?.[0] as string;
      out += String.fromCodePoint(Number.parseInt(digits, 8));
      index += digits.length;
    } else if (next in PYTHON_ESCAPES) {
      out += PYTHON_ESCAPES[next];
      index += 1;
    } else {
      out += `\\${next}`; // Python keeps unknown escapes as they are
      index += 1;
    }
  }
  return out;
}

/** `web[01:03].example.com` → web01…web03; `db-[a:c]` → db-a…db-c; other names as they are. */
export function expandHostRange(pattern: string): string[] {
  const match = /^(.*?)\[([0-9a-zA-Z]+):([0-9a-zA-Z]+)(?::(\d+))?\](.*)$/.exec(pattern);
  if (!match) return [pattern];
  const [, head = "", from = "", to = "", stepText, tail = ""] = match;
  const step = stepText ? Math.max(1, Number(stepText)) : 1;
  const rest = expandHostRange(tail);
  const names: string[] = [];
  if (/^\d+$/.test(from) && /^\d+$/.test(to)) {
    const width = from.length > 1 && from.startsWith("0") ? from.length : 0;
    const start = Number(from);
    const end = Number(to);
    if (end < start || end - start > 10000) return [pattern];
    for (let value = start; value <= end; value += step) {
      const text = width ? String(value).padStart(width, "0") : String(value);
      for (const suffix of rest) names.push(`${head}${text}${suffix}`);
    }
    return names;
  }
  if (/^[a-zA-Z]$/.test(from) && /^[a-zA-Z]$/.test(to)) {
    const start = from.charCodeAt(0);
    const end = to.charCodeAt(0);
    if (end < start) return [pattern];
    for (let code = start; code <= end; code += step) {
      for (const suffix of rest) names.push(`${head}${String.fromCharCode(code)}${suffix}`);
    }
    return names;
  }
  return [pattern];
}

function splitAssignment(token: string): [string, string] | undefined {
  const index = token.indexOf("=");
  if (index <= 0) return undefined;
  return [token.slice(0, index).trim(), decodePythonString(token.slice(index + 1).trim())];
}

/**
 * Reads a `[group:vars]` line as the tool does: split at the first `=`, both sides trimmed, the
 * value read as a Python literal when it is one (no shell-style splitting on these lines).
 */
function parseVarsLine(line: string): [string, string] | undefined {
  const index = line.indexOf("=");
  if (index <= 0) return undefined;
  return [line.slice(0, index).trim(), decodePythonString(line.slice(index + 1).trim())];
}

const HOST_KEYS: Record<string, keyof InventoryHost> = {
  cm_host: "cm_host",
  cm_user: "cm_user",
  cm_port: "cm_port",
  cm_ssh_private_key_file: "ssh_key_file",
};

function toHostObject(record: HostRecord): InventoryHost {
  const host: InventoryHost = { name: record.name };
  const cmHost = record.values.get("cm_host");
  if (cmHost !== undefined) host.cm_host = cmHost;
  const user = record.values.get("cm_user");
  host.cm_user = user === undefined || user === "" ? null : user;
  const port = record.values.get("cm_port");
  host.cm_port =
    port === undefined || port === "" ? null : /^\d{1,5}$/.test(port) ? Number(port) : port;
  const key = record.values.get("cm_ssh_private_key_file");
  if (key !== undefined) host.ssh_key_file = key;
  const vars: Record<string, string> = {};
  for (const name of [...record.values.keys()].sort()) {
    if (name in HOST_KEYS) continue;
    vars[name] = record.values.get(name) as string;
  }
  if (Object.keys(vars).length > 0) host.vars = vars;
  return host;
}

/** Parses an INI inventory into the `hosts` JSON of automation/inventory. */
export function importIniInventory(text: string): IniImportResult {
  const warnings: string[] = [];
  const order: string[] = [];
  const groups = new Map<
    string,
    { members: string[]; children: string[]; vars: [string, string][] }
  >();
  const hosts = new Map<string, HostRecord>();

  const group = (name: string) => {
    let entry = groups.get(name);
    if (!entry) {
      entry = { members: [], children: [], vars: [] };
      groups.set(name, entry);
      order.push(name);
    }
    return entry;
  };

  let current = "ungrouped";
  let kind: SectionKind = "hosts";
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) return;
    const section = /^\[([^\]]+)\]\s*(?:[#;].*)?$/.exec(line);
    if (section) {
      const header = (section[1] as string).trim();
      const colon = header.lastIndexOf(":");
      const suffix = colon > 0 ? header.slice(colon + 1) : "";
      if (suffix === "children" || suffix === "vars") {
        current = header.slice(0, colon);
        kind = suffix;
      } else {
        current = header;
        kind = "hosts";
      }
      group(current);
      return;
    }
    const entry = group(current);
    if (kind === "children") {
      const child = tokenizeIniLine(line)[0];
      if (child && !entry.children.includes(child)) entry.children.push(child);
      if (child) group(child);
      return;
    }
    if (kind === "vars") {
      const pair = parseVarsLine(line);
      if (!pair) {
        warnings.push(`line ${index + 1}: \`${line}\` is not \`key=value\` - skipped`);
        return;
      }
      entry.vars.push(pair);
      return;
    }
    const [pattern, ...rest] = tokenizeIniLine(line);
    if (!pattern) return;
    const assignments: [string, string][] = [];
    for (const token of rest) {
      const pair = splitAssignment(token);
      if (pair) assignments.push(pair);
      else warnings.push(`line ${index + 1}: \`${token}\` is not \`key=value\` - skipped`);
    }
    for (const name of expandHostRange(pattern)) {
      let record = hosts.get(name);
      if (!record) {
        record = { name, values: new Map() };
        hosts.set(name, record);
      }
      for (const [key, value] of assignments) {
        const before = record.values.get(key);
        if (before !== undefined && before !== value) {
          warnings.push(
            `host ${name}: ${key} is \`${before}\` in one group and \`${value}\` in another - kept \`${value}\``,
          );
        }
        record.values.set(key, value);
      }
      if (!entry.members.includes(name)) entry.members.push(name);
    }
  });

  const hostObjects = new Map([...hosts].map(([name, record]) => [name, toHostObject(record)]));
  const result: InventoryGroup[] = [];
  for (const name of order) {
    const entry = groups.get(name);
    if (!entry) continue;
    const empty = entry.members.length === 0 && entry.children.length === 0;
    if (empty && entry.vars.length === 0 && name === "ungrouped") continue;
    const out: InventoryGroup = { group: name };
    if (entry.members.length > 0) {
      out.members = entry.members.map((host) => ({ ...(hostObjects.get(host) as InventoryHost) }));
    }
    if (entry.children.length > 0) out.children = [...entry.children];
    if (entry.vars.length > 0) out.vars = Object.fromEntries(entry.vars);
    result.push(out);
  }
  return { groups: result, json: JSON.stringify(result), warnings };
}
