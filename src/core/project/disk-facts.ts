// The facts of a component read from its files as they are on disk, for `kiln check` of a
// project: what a hand edit changed (a host added to the inventory, a play aimed elsewhere, a
// manifest's labels) is what the checks then see, instead of the values kiln.lock records.
// Each reader turns one file's text into the facts of its component's kind, in the shapes
// facts.ts builds from fields; a file that does not read gives a reason instead, and the
// caller checks that component with its recorded values. Also here: the conflict markers a
// tracked file still holds. Pure (the CLI reads the files), so the same readers can run
// anywhere the checks run.
//
// Every text here is a stranger's: a cloned project's files may be huge, nested without end
// or full of aliases. So each reader is bounded before the library it uses sees the text (the
// size, the YAML nesting depth, the aliases a value may expand, the hosts an inventory may
// list), and a text past a bound is "not read", with the bound named.
import type { Document, LineCounter } from "yaml";
import { errorMessage } from "../errors.ts";
import {
  decodePythonString,
  expandHostRange,
  type InventoryGroup,
  type InventoryHost,
  importIniInventory,
  tokenizeIniLine,
} from "../ini-import.ts";
import type { ItemMeta } from "../item.ts";
import { lazyLibraries } from "../lazy-libraries.ts";
import type { AutomationProfile, FactKind } from "../vocabulary.ts";
import { roleNames } from "./play-roles.ts";

/** Larger files are not read for facts (a tracked file may be up to 64 MiB; no fact file is). */
export const MAX_FACT_FILE_CHARS = 1024 * 1024;
/**
 * YAML nested deeper than this is not read. The yaml library parses and composes nested
 * collections recursively and catches the stack overflow of a deep one - but the overflow may
 * strike inside V8's regular-expression compiler, which ends the process instead of throwing
 * (80,000 nested `- ` then 100,000 nested `[` did; a few hundred levels overflow already). So the nesting is
 * bounded twice: by a scan of the text before the library sees it, and on the parser's token
 * tree before nodes are composed. Manifests and playbooks nest about 10 deep.
 */
export const MAX_YAML_DEPTH = 100;
/** Aliases one file may expand while it is read (a billion-laughs file expands millions). */
export const MAX_YAML_ALIASES = 100;
/** Host entries an inventory may hold, ranges expanded (the reader's lists grow quadratically). */
export const MAX_INVENTORY_HOSTS = 10_000;

/** What a component's main file says, in the shape of its kind's facts. */
export type DiskRead =
  | { kind: "inventory"; groups: InventoryGroup[] }
  | { kind: "group-vars"; group: string | undefined; keys: string[] }
  | { kind: "playbook"; plays: { name: string; hosts: string | undefined; roles: string[] }[] }
  | { kind: "site"; imports: string[] }
  | { kind: "config"; inventory: string | undefined; rolesPath: string | undefined }
  | {
      kind: "deployment";
      name: string | undefined;
      namespace: string | undefined;
      podLabels: Record<string, string>;
      port: string | undefined;
      portNames: string[];
    }
  | {
      kind: "service";
      name: string | undefined;
      namespace: string | undefined;
      selector: Record<string, string>;
      port: string | undefined;
      targetPort: string | undefined;
    }
  | {
      kind: "ingress";
      namespace: string | undefined;
      service: string | undefined;
      port: string | undefined;
      host: string | undefined;
    }
  | { kind: "servers"; count: string | undefined };

/** A tracked file, named both ways: as the facts key it and as messages show it. */
export interface DiskFile {
  /** Relative to the output folder, as the component's `files` are. */
  path: string;
  /** From the project root, as kiln.lock records it and people see it. */
  shown: string;
}

/** What the check found on disk for one component. */
export interface ComponentOnDisk {
  /** Its tracked files that are not there. */
  missing: DiskFile[];
  /** Its tracked files holding unresolved conflict markers, with the line of each `<<<<<<<`. */
  conflicts: (DiskFile & { lines: number[] })[];
  /** The facts its main file gives; absent when it has none or it did not read. */
  read?: DiskRead | undefined;
}

/** A reader's answer: the facts, or why the file was not read. */
export type ReadOutcome = { read: DiskRead } | { problem: string };

/** The extensions of the file each kind's facts are read from. */
const FACT_FILES: Partial<Record<FactKind, RegExp>> = {
  inventory: /\.ini$|(^|\/)[^./]+$/,
  "group-vars": /\.ya?ml$/,
  playbook: /\.ya?ml$/,
  site: /\.ya?ml$/,
  config: /\.cfg$/,
  deployment: /\.ya?ml$/,
  service: /\.ya?ml$/,
  ingress: /\.ya?ml$/,
  servers: /\.tf$/,
};

/** The file a component's facts are read from: the first of its kind's format; none for roles. */
export function factFileOf(kind: FactKind | null, paths: readonly string[]): string | undefined {
  const pattern = kind === null ? undefined : FACT_FILES[kind];
  return pattern === undefined ? undefined : paths.find((path) => pattern.test(path));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

function textMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(value)) return out;
  for (const [key, entry] of Object.entries(value)) {
    const written = text(entry);
    if (written !== undefined) out[key] = written;
  }
  return out;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

// ---------------------------------------------------------------------------------------------
// YAML, bounded

/** A block indicator (`- `, `? `, `: `) at the start of what is left of a line. */
const LEADING_INDICATORS = /^(?:[-?:](?:[ \t]+|$))*/;

/**
 * Whether a YAML text may nest deeper than `limit`, read before any parser sees it: per line,
 * the indentation levels open (a stack of columns, as Python's tokenizer keeps), the block
 * indicators that start it (`- - - x` nests three deep on one line) and the flow brackets open
 * (quoted text and comments left out). An estimate of the nesting, never a parse - but no text
 * the library could nest deeply passes it, and every file kiln writes does.
 */
function mayNestDeeper(source: string, limit: number): boolean {
  const columns: number[] = [];
  let flow = 0;
  for (const line of source.split("\n")) {
    const indent = line.length - line.trimStart().length;
    const rest = line.slice(indent);
    if (rest === "" || rest.startsWith("#")) continue;
    while (columns.length > 0 && (columns.at(-1) as number) > indent) columns.pop();
    if (columns.length === 0 || (columns.at(-1) as number) < indent) columns.push(indent);
    const indicators = (LEADING_INDICATORS.exec(rest)?.[0] ?? "").replace(/[ \t]/g, "").length;
    let quote: string | undefined;
    for (let at = 0; at < rest.length; at++) {
      const char = rest[at] as string;
      if (quote !== undefined) {
        if (char === quote) quote = undefined;
      } else if (char === "'" || char === '"') quote = char;
      else if (char === "#" && (at === 0 || /\s/.test(rest[at - 1] as string))) break;
      else if (char === "[" || char === "{") flow += 1;
      else if ((char === "]" || char === "}") && flow > 0) flow -= 1;
      if (columns.length + indicators + flow > limit) return true;
    }
    if (columns.length + indicators + flow > limit) return true;
  }
  return false;
}

/** The deepest nesting of the parser's token tree, walked with a stack of its own. */
function tokenDepth(tokens: readonly unknown[]): number {
  let deepest = 0;
  const pending: [unknown, number][] = tokens.map((token) => [token, 0]);
  while (pending.length > 0) {
    const [token, depth] = pending.pop() as [unknown, number];
    if (!isRecord(token)) continue;
    deepest = Math.max(deepest, depth);
    if (depth > MAX_YAML_DEPTH) return depth;
    if (token.type === "document") pending.push([token.value, depth]);
    for (const item of list(token.items)) {
      if (isRecord(item)) pending.push([item.key, depth + 1], [item.value, depth + 1]);
    }
  }
  return deepest;
}

/**
 * Where a YAML error is and what the library says, `line 3, column 5: ...`. The message is the
 * library's own without the excerpt of the file it adds when asked to (never shown here).
 */
function yamlErrorAt(doc: Document, lines: LineCounter): string {
  const [error] = doc.errors;
  if (error === undefined) return "";
  const at = lines.linePos(error.pos[0]);
  const message = (error.message.split("\n")[0] as string).slice(0, 200);
  return `line ${at.line}, column ${at.col}: ${message}`;
}

/**
 * Every document of a YAML text as plain values, within the bounds; a problem when it does not
 * parse or passes one. Duplicate keys are left to the tool that reads the file (the automation
 * tool's reader keeps the last), and the library's check of them is quadratic.
 */
export function readYamlDocuments(source: string): { values: unknown[] } | { problem: string } {
  if (source.length > MAX_FACT_FILE_CHARS) {
    return { problem: `it is larger than ${MAX_FACT_FILE_CHARS} characters` };
  }
  if (mayNestDeeper(source, MAX_YAML_DEPTH)) {
    return { problem: `it nests deeper than ${MAX_YAML_DEPTH} levels` };
  }
  // loaded on first use (lazy-libraries.ts): a check of a preset never reads a file
  const { Composer, LineCounter, Parser } = lazyLibraries().yaml();
  const lines = new LineCounter();
  const tokens = [...new Parser(lines.addNewLine).parse(source)];
  if (tokenDepth(tokens) > MAX_YAML_DEPTH) {
    return { problem: `it nests deeper than ${MAX_YAML_DEPTH} levels` };
  }
  const docs = [...new Composer({ uniqueKeys: false }).compose(tokens)];
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      return { problem: `it is not valid YAML (${yamlErrorAt(doc, lines)})` };
    }
  }
  try {
    return { values: docs.map((doc) => doc.toJS({ maxAliasCount: MAX_YAML_ALIASES })) };
  } catch (error) {
    return { problem: `it could not be read (${errorMessage(error)})` };
  }
}

// ---------------------------------------------------------------------------------------------
// The readers, one per kind

/** `hosts: web` or `hosts: [web, db]`, as one host pattern. */
function hostPattern(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    const names = value.map(text).filter((name): name is string => name !== undefined);
    return names.length === 0 ? undefined : names.join(",");
  }
  return text(value);
}

/** A playbook: its plays (documents that are lists of mappings), `import_playbook` entries left out. */
function readPlaybook(values: unknown[], fallbackName: string): ReadOutcome {
  const plays: { name: string; hosts: string | undefined; roles: string[] }[] = [];
  for (const value of values) {
    if (value === null || value === undefined) continue;
    if (!Array.isArray(value)) return { problem: "it is not a list of plays" };
    for (const play of value) {
      if (!isRecord(play) || importedPlaybook(play) !== undefined) continue;
      plays.push({
        name: text(play.name) ?? fallbackName,
        hosts: hostPattern(play.hosts),
        roles: roleNames(play.roles),
      });
    }
  }
  return { read: { kind: "playbook", plays } };
}

/** The path an `import_playbook` entry names (also by its full module name). */
function importedPlaybook(entry: Record<string, unknown>): string | undefined {
  return text(entry.import_playbook) ?? text(entry["ansible.builtin.import_playbook"]);
}

function readSite(values: unknown[]): ReadOutcome {
  const imports: string[] = [];
  for (const value of values) {
    if (value === null || value === undefined) continue;
    if (!Array.isArray(value)) return { problem: "it is not a list of plays" };
    for (const entry of value) {
      const path = isRecord(entry) ? importedPlaybook(entry) : undefined;
      if (path !== undefined) imports.push(path);
    }
  }
  return { read: { kind: "site", imports } };
}

/** Group vars: the top-level keys; the group is the file's name under `group_vars`. */
function readGroupVars(values: unknown[], group: string | undefined): ReadOutcome {
  const keys: string[] = [];
  for (const value of values) {
    if (value === null || value === undefined) continue;
    if (!isRecord(value)) return { problem: "it is not a mapping of variables" };
    keys.push(...Object.keys(value));
  }
  return { read: { kind: "group-vars", group, keys } };
}

/** The first document of a Kubernetes kind, or a problem naming the kind. */
function manifestOf(
  values: unknown[],
  kind: string,
): { manifest: Record<string, unknown> } | { problem: string } {
  const manifest = values.find((value) => isRecord(value) && value.kind === kind);
  return isRecord(manifest) ? { manifest } : { problem: `it holds no ${kind}` };
}

function metadataOf(manifest: Record<string, unknown>): Record<string, unknown> {
  return isRecord(manifest.metadata) ? manifest.metadata : {};
}

function readDeployment(values: unknown[]): ReadOutcome {
  const found = manifestOf(values, "Deployment");
  if ("problem" in found) return found;
  const { manifest } = found;
  const spec = isRecord(manifest.spec) ? manifest.spec : {};
  const template = isRecord(spec.template) ? spec.template : {};
  const podSpec = isRecord(template.spec) ? template.spec : {};
  const ports = list(podSpec.containers)
    .filter(isRecord)
    .flatMap((container) => list(container.ports).filter(isRecord));
  return {
    read: {
      kind: "deployment",
      name: text(metadataOf(manifest).name),
      namespace: text(metadataOf(manifest).namespace),
      podLabels: textMap(isRecord(template.metadata) ? template.metadata.labels : undefined),
      port: text(ports[0]?.containerPort),
      portNames: ports.map((port) => text(port.name)).filter((name) => name !== undefined),
    },
  };
}

function readService(values: unknown[]): ReadOutcome {
  const found = manifestOf(values, "Service");
  if ("problem" in found) return found;
  const { manifest } = found;
  const spec = isRecord(manifest.spec) ? manifest.spec : {};
  const [port] = list(spec.ports).filter(isRecord);
  return {
    read: {
      kind: "service",
      name: text(metadataOf(manifest).name),
      namespace: text(metadataOf(manifest).namespace),
      selector: textMap(spec.selector),
      port: text(port?.port),
      targetPort: text(port?.targetPort) ?? text(port?.port),
    },
  };
}

function readIngress(values: unknown[]): ReadOutcome {
  const found = manifestOf(values, "Ingress");
  if ("problem" in found) return found;
  const { manifest } = found;
  const spec = isRecord(manifest.spec) ? manifest.spec : {};
  const rules = list(spec.rules).filter(isRecord);
  const backends = [
    ...rules.flatMap((rule) =>
      list(isRecord(rule.http) ? rule.http.paths : undefined)
        .filter(isRecord)
        .map((path) => path.backend),
    ),
    spec.defaultBackend,
  ].filter(isRecord);
  const service = backends.map((backend) => backend.service).find(isRecord);
  const port = isRecord(service?.port) ? service.port : {};
  return {
    read: {
      kind: "ingress",
      namespace: text(metadataOf(manifest).namespace),
      service: text(service?.name),
      port: text(port.number) ?? text(port.name),
      host: text(rules[0]?.host),
    },
  };
}

/**
 * Host entries of an INI inventory, ranges expanded, counted before the reader expands them
 * (`web[0:9999]-[0:9999]` is a hundred million names) - past the bound, a problem.
 */
function inventoryTooLarge(source: string): string | undefined {
  let entries = 0;
  for (const line of source.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "" || /^[#;[]/.test(trimmed)) continue;
    let names = 1;
    for (const range of (tokenizeIniLine(trimmed)[0] ?? "").matchAll(/\[[^\]]*\]/g)) {
      // each range on its own: the reader expands at most 10,001 names per range
      names *= Math.max(1, expandHostRange(`h${range[0]}`).length);
      if (names > MAX_INVENTORY_HOSTS) break;
    }
    entries += names;
    if (entries > MAX_INVENTORY_HOSTS) {
      return `it lists more than ${MAX_INVENTORY_HOSTS} hosts and entries`;
    }
  }
  return undefined;
}

/** The connection variables under the `ansible` profile's names, and what the facts read them as. */
const ANSIBLE_HOST_KEYS = {
  ansible_host: "cm_host",
  ansible_user: "cm_user",
  ansible_port: "cm_port",
} as const;

/**
 * A group of an inventory written under the `ansible` profile, its hosts' connection variables
 * moved to the keys the reader gives the `cm_` names (which the facts read).
 */
function withCmNames(group: InventoryGroup): InventoryGroup {
  if (group.members === undefined) return group;
  const members = group.members.map((host) => {
    const vars = { ...host.vars };
    const moved: InventoryHost = { ...host, vars };
    for (const [name, key] of Object.entries(ANSIBLE_HOST_KEYS)) {
      if (!Object.hasOwn(vars, name)) continue;
      moved[key] = vars[name] as string;
      delete vars[name];
    }
    return moved;
  });
  return { ...group, members };
}

/**
 * An INI inventory, with the reader the dashboard's import uses. A line that reader skips (a
 * host variable that is not `key=value`) is one the automation tool refuses the inventory for,
 * so the file does not read.
 */
function readInventory(source: string, profile: AutomationProfile): ReadOutcome {
  if (source.length > MAX_FACT_FILE_CHARS) {
    return { problem: `it is larger than ${MAX_FACT_FILE_CHARS} characters` };
  }
  const tooLarge = inventoryTooLarge(source);
  if (tooLarge !== undefined) return { problem: tooLarge };
  const imported = importIniInventory(source);
  // the reader's warning quotes the line; the problem names its number only (a line may hold
  // a password variable)
  const skipped = imported.warnings
    .map((warning) => /^line (\d+): /.exec(warning)?.[1])
    .find((line) => line !== undefined);
  if (skipped !== undefined) {
    return {
      problem: `it is not a valid INI inventory (line ${skipped}: a host's variables must be \`key=value\`)`,
    };
  }
  const merged = profile === "ansible" ? imported.groups.map(withCmNames) : imported.groups;
  const written = addressesAsWritten(source, profile === "ansible" ? "ansible_host" : "cm_host");
  // each group's hosts with the address its own line gives: the reader merges a host's lines
  // (as the tool does, the later winning), which would hide a host given two addresses
  const groups = merged.map((group) =>
    group.members === undefined
      ? group
      : {
          ...group,
          members: group.members.map((host) => {
            const own = written.get(`${group.group}\u0000${host.name}`);
            return own === undefined ? host : { ...host, cm_host: own };
          }),
        },
  );
  return { read: { kind: "inventory", groups } };
}

/**
 * The address each host line gives its host, by group and host name: the host lines of the
 * inventory read with the import's own tokenizer, range expansion and value decoding, one
 * address per line (the file was counted by inventoryTooLarge first).
 */
function addressesAsWritten(source: string, addressKey: string): Map<string, string> {
  const addresses = new Map<string, string>();
  let group = "ungrouped";
  let hostLines = true;
  for (const raw of source.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[([^\]]+)\]\s*(?:[#;].*)?$/.exec(line);
    if (section) {
      const header = (section[1] as string).trim();
      const colon = header.lastIndexOf(":");
      const suffix = colon > 0 ? header.slice(colon + 1) : "";
      hostLines = suffix !== "children" && suffix !== "vars";
      group = hostLines ? header : group;
      continue;
    }
    if (!hostLines) continue;
    const [pattern, ...assignments] = tokenizeIniLine(line);
    const address = assignments
      .map((token) => [
        token.slice(0, token.indexOf("=")).trim(),
        token.slice(token.indexOf("=") + 1),
      ])
      .find(([key]) => key === addressKey)?.[1];
    if (pattern === undefined || address === undefined) continue;
    for (const host of expandHostRange(pattern)) {
      addresses.set(`${group}\u0000${host}`, decodePythonString(address.trim()));
    }
  }
  return addresses;
}

/**
 * The `[defaults]` settings of the automation tool's config that the checks use. Hand-written:
 * the format is Python's configparser, and no library of the field reads it the way that does;
 * the checks need two keys of one section, read line by line (`key = value` or `key: value`,
 * `#` and `;` comment lines).
 */
function readConfig(source: string): ReadOutcome {
  if (source.length > MAX_FACT_FILE_CHARS) {
    return { problem: `it is larger than ${MAX_FACT_FILE_CHARS} characters` };
  }
  let section = "";
  const settings = new Map<string, string>();
  for (const line of source.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith(";")) continue;
    const header = /^\[([^\]]*)\]$/.exec(trimmed);
    if (header) {
      section = (header[1] as string).trim();
      continue;
    }
    const pair = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(trimmed);
    if (pair && section === "defaults") settings.set(pair[1] as string, pair[2] as string);
  }
  return {
    read: {
      kind: "config",
      inventory: settings.get("inventory") || undefined,
      rolesPath: settings.get("roles_path"),
    },
  };
}

/**
 * The server count of a Terraform file: the first `count = <digits>` argument. Hand-written
 * and small on purpose: kiln has no HCL parser at run time (the tests' parser is a WebAssembly
 * grammar, a development dependency only), and no check rule reads more of a Terraform file
 * than this - which folders hold `.tf` files comes from the paths. One line pattern, anchored,
 * over a bounded text.
 */
function readServers(source: string): ReadOutcome {
  if (source.length > MAX_FACT_FILE_CHARS) {
    return { problem: `it is larger than ${MAX_FACT_FILE_CHARS} characters` };
  }
  const count = /^[ \t]*count[ \t]*=[ \t]*(\d{1,9})[ \t]*(?:#.*)?$/m.exec(source)?.[1];
  return { read: { kind: "servers", count } };
}

/** Reads a YAML file, then its kind's facts from the documents. */
function readYamlFacts(source: string, interpret: (values: unknown[]) => ReadOutcome): ReadOutcome {
  const parsed = readYamlDocuments(source);
  return "problem" in parsed ? parsed : interpret(parsed.values);
}

/** The group a `group_vars/<group>.yml` (or `group_vars/<group>/<file>`) path is for. */
function groupOfPath(path: string): string | undefined {
  const segments = path.split("/");
  const at = segments.lastIndexOf("group_vars");
  if (at < 0 || at + 1 >= segments.length) return undefined;
  const name = segments[at + 1] as string;
  return at + 2 === segments.length ? name.replace(/\.(ya?ml|json)$/, "") : name;
}

/**
 * The facts of a component of `kind` from its file at `path` (relative to the output folder)
 * holding `source`; undefined for a kind whose facts no file gives.
 */
export function readFactFile(
  kind: FactKind | null,
  meta: ItemMeta | undefined,
  component: {
    name: string;
    fields: Record<string, string>;
    /** The profile its files were written under (the connection variables' names); `cm` when absent. */
    automationProfile?: AutomationProfile | undefined;
  },
  path: string,
  source: string,
): ReadOutcome | undefined {
  switch (kind) {
    case "inventory":
      return readInventory(source, component.automationProfile ?? "cm");
    case "group-vars": {
      const field = meta?.facts.group;
      const group =
        groupOfPath(path) ?? (field === undefined ? undefined : component.fields[field]);
      return readYamlFacts(source, (values) => readGroupVars(values, group));
    }
    case "playbook":
      return readYamlFacts(source, (values) => readPlaybook(values, component.name));
    case "site":
      return readYamlFacts(source, readSite);
    case "config":
      return readConfig(source);
    case "deployment":
      return readYamlFacts(source, readDeployment);
    case "service":
      return readYamlFacts(source, readService);
    case "ingress":
      return readYamlFacts(source, readIngress);
    case "servers":
      return readServers(source);
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Conflict markers

const OPENING = /^<{7}(?:[ \t]|$)/;
const SPLIT = /^={7}$/;
const CLOSING = /^>{7}(?:[ \t]|$)/;

/**
 * The line (1-based) of each `<<<<<<<` that opens a conflict: followed by a `=======` line and
 * then a `>>>>>>>` line, as `kiln update --conflicts=markers` and git write them. A lone
 * `=======` (a heading's underline) is not one.
 */
export function conflictMarkerLines(source: string): number[] {
  const openings: number[] = [];
  let open: number | undefined;
  let split = false;
  const lines = source.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] as string).replace(/\r$/, "");
    if (OPENING.test(line)) {
      open = index + 1;
      split = false;
    } else if (open !== undefined && SPLIT.test(line)) {
      split = true;
    } else if (open !== undefined && split && CLOSING.test(line)) {
      openings.push(open);
      open = undefined;
      split = false;
    }
  }
  return openings;
}
