// Every command's declaration (src/cli/options.ts): its summary, positional arguments and
// options. Each command parses its arguments and builds its help from its entry here, main.ts
// lists the commands from it, and `kiln completion` generates the shell scripts from it - so
// the parser, the help and the completions cannot disagree. Data only: main.js loads this for
// the command list, so nothing heavy may be imported here.
import { DEFAULT_NAMESPACE, DEFAULT_OUTPUT_DIR, PROJECT_FILE } from "../core/config.ts";
import {
  DEFAULT_BIND,
  DEFAULT_DRAIN_DELAY_MS,
  DEFAULT_ENGINE_MEMORY_BYTES,
  DEFAULT_INDEX_FRESHNESS_S,
  DEFAULT_PORT,
  DEFAULT_RENDER_CACHE_BYTES,
  DEFAULT_RENDER_DEADLINE_MS,
  DEFAULT_RENDER_FUEL,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  LOG_FORMATS,
} from "../core/service-settings.ts";
import { FIELD_SHORTCUTS } from "../core/shortcuts.ts";
import { AUTOMATION_PROFILES } from "../core/vocabulary.ts";
import type { CommandDecl, Completion, OptionDecl } from "./options.ts";

const COMPONENTS: Completion = { builtins: ["components"], paths: "json" };
const PRESETS: Completion = { builtins: ["presets"], paths: "json" };
/** The project's components (`api`, `deployment/api`), read from kiln.lock as you type. */
const LOCKED: Completion = { locked: true };
/** One preset, or the project's components (`kiln diff`, `kiln check`). */
const PRESETS_OR_LOCKED: Completion = { ...PRESETS, locked: true };
const FOLDERS: Completion = { paths: "folders" };

export const SHELLS = ["bash", "zsh", "fish"] as const;

function flag(name: string, description: string): OptionDecl {
  return { name, type: "boolean", description };
}

/** `-f, --force`: every command's `--force` takes kikx's short flag, whatever it overwrites. */
function force(description: string): OptionDecl {
  return { ...flag("force", description), short: "f" };
}

const FORCE = force("overwrite files that already exist");
const DRY_RUN = flag("dry-run", "show each file as new, overwrite or unchanged; write nothing");
const ALLOW_EXEC_PATHS = flag(
  "allow-exec-paths",
  "also write files other tools run or load as code (each is named)",
);

/**
 * `-v, --verbose`: the writing commands list only the files they change by default; this
 * lists the unchanged ones too (and, for update, the edited files it keeps as they are).
 */
const VERBOSE: OptionDecl = {
  ...flag("verbose", "also list the files left unchanged"),
  short: "v",
};

const ALLOW_OLDER_KILN = flag(
  "allow-older-kiln",
  "write kiln.lock even when a newer kiln wrote it (its built-ins become this kiln's)",
);

/**
 * The network of a command that resolves references: `--offline` takes registries' items and
 * indexes from kiln's cache only and fetches nothing; `--refresh` asks every registry for its
 * index again (the cache's is used for 10 minutes).
 */
const NETWORK = [
  flag("offline", "use the network for nothing: registries' items only from kiln's cache"),
  flag("refresh", "fetch the registries' indexes again, not from kiln's cache"),
];

/** setup's and apply's sides, for conflicts in the files kiln.lock tracks that --force merges. */
const SIDE_TAKEN = [
  flag("ours", "with --force: in each conflict in a file kiln.lock tracks, keep your lines"),
  flag(
    "theirs",
    "with --force: in each conflict in a file kiln.lock tracks, take the new render's",
  ),
];

const SET: OptionDecl = {
  name: "set",
  type: "string",
  short: "s",
  multiple: true,
  value: "<field>=<value>",
  description: "set any field; repeatable; split on the first `=`",
};

const LABEL: OptionDecl = {
  name: "label",
  type: "string",
  short: "l",
  multiple: true,
  value: "<key>=<value>",
  description: "add a label (`app` defaults to the name); repeatable",
};

/**
 * The field shortcuts as options, one per row of the core's table (shared with the HTTP API's
 * request keys): `--target-port <port>` sets `target_port`. `namespaceDefault` is what the
 * command renders in when no namespace is given.
 */
export function shortcutOptions(namespaceDefault: string): OptionDecl[] {
  return FIELD_SHORTCUTS.map((shortcut): OptionDecl => {
    const value = `<${shortcut.option.slice(shortcut.option.lastIndexOf("-") + 1)}>`;
    return {
      name: shortcut.option,
      type: "string",
      short: shortcut.short,
      value,
      description: `shortcut for --set ${shortcut.field}=${value}`,
      ...(shortcut.field === "namespace" ? { default: namespaceDefault } : {}),
    };
  });
}

export const INIT: CommandDecl = {
  name: "init",
  summary: "create kiln.toml and the output folder",
  positionals: [],
  options: [
    {
      name: "name",
      type: "string",
      short: "n",
      value: "<name>",
      description: "project name",
      default: "the current folder's name",
    },
    {
      name: "dir",
      type: "string",
      short: "d",
      value: "<folder>",
      description: "where `kiln add` writes files",
      default: DEFAULT_OUTPUT_DIR,
      complete: FOLDERS,
    },
    {
      name: "namespace",
      type: "string",
      short: "N",
      value: "<namespace>",
      description: "namespace for components that set none",
      default: DEFAULT_NAMESPACE,
    },
    force(`overwrite an existing ${PROJECT_FILE}`),
    flag("nested", "create a project inside the project found in a folder above"),
  ],
};

export const ADD: CommandDecl = {
  name: "add",
  summary: "render one component into the output folder",
  positionals: [{ name: "reference", complete: COMPONENTS }],
  options: [
    {
      name: "name",
      type: "string",
      short: "n",
      value: "<name>",
      required: true,
      description: "the component's name (used in file names and manifests)",
    },
    SET,
    LABEL,
    ...shortcutOptions(`default_namespace of ${PROJECT_FILE}`),
    FORCE,
    DRY_RUN,
    VERBOSE,
    ALLOW_EXEC_PATHS,
    ALLOW_OLDER_KILN,
    ...NETWORK,
  ],
};

export const LIST: CommandDecl = {
  name: "list",
  summary: "show the built-in components (or one registry's items: kiln list @acme)",
  positionals: [{ name: "registry", count: "optional" }],
  options: [
    flag(
      "json",
      'print {"items": [...]} exactly as GET /api/registry returns it (a registry: as kiln search --json)',
    ),
    ...NETWORK,
  ],
};

export const SEARCH: CommandDecl = {
  name: "search",
  summary: "find items in the built-ins and every registry",
  positionals: [{ name: "query", count: "optional" }],
  options: [
    {
      name: "registry",
      type: "string",
      value: "<@namespace>",
      description: "search only this registry (`builtin` for the built-ins)",
      default: "every registry",
    },
    flag(
      "json",
      "print an array of {registry, reference, name, version, title, description, category}",
    ),
    ...NETWORK,
  ],
};

export const VIEW: CommandDecl = {
  name: "view",
  summary: "show an item's fields, files and an example render; write nothing",
  positionals: [{ name: "reference", complete: COMPONENTS }],
  options: [flag("json", "print the item, its fields, files and example as JSON"), ...NETWORK],
};

export const PRESETS_COMMAND: CommandDecl = {
  name: "presets",
  summary: "show the built-in preset templates",
  positionals: [],
  options: [flag("json", 'print {"presets": [...]} exactly as GET /api/presets returns it')],
};

export const SETUP: CommandDecl = {
  name: "setup",
  summary: "start a project from a preset (files + kiln.toml)",
  positionals: [{ name: "preset", complete: PRESETS }],
  options: [
    force(
      `overwrite ${PROJECT_FILE} and files that already exist; merge into those kiln.lock tracks, keeping your edits`,
    ),
    DRY_RUN,
    VERBOSE,
    ...SIDE_TAKEN,
    ALLOW_EXEC_PATHS,
    ALLOW_OLDER_KILN,
    ...NETWORK,
  ],
};

export const APPLY: CommandDecl = {
  name: "apply",
  summary: "render a preset's files into a folder",
  positionals: [{ name: "preset", complete: PRESETS }],
  options: [
    {
      name: "into",
      type: "string",
      short: "i",
      value: "<folder>",
      description: "write into this folder, created if missing",
      default: "the current folder",
      complete: FOLDERS,
    },
    force(
      "overwrite files that already exist; merge into those ./kiln.lock tracks, keeping your edits",
    ),
    DRY_RUN,
    VERBOSE,
    ...SIDE_TAKEN,
    ALLOW_EXEC_PATHS,
    ...NETWORK,
  ],
};

export const CHECK: CommandDecl = {
  name: "check",
  summary: "check a preset's components against each other",
  // one preset, or components of the project's kiln.lock (`kiln check deployment/api`): the
  // command tells them apart as `kiln diff` does
  positionals: [{ name: "preset|component", count: "any", complete: PRESETS_OR_LOCKED }],
  options: [
    flag(
      "json",
      'print {"findings": [...], "errors": <n>, "warnings": <n>} (a project adds "files", "edited", "unread")',
    ),
    ...NETWORK,
  ],
};

export const RENDER: CommandDecl = {
  name: "render",
  summary: "print a component's or a preset's files; write nothing",
  positionals: [
    { name: "reference|preset", complete: { builtins: ["components", "presets"], paths: "json" } },
  ],
  options: [
    {
      name: "name",
      type: "string",
      short: "n",
      value: "<name>",
      description: "the component's name (a component needs one)",
    },
    SET,
    LABEL,
    ...shortcutOptions(DEFAULT_NAMESPACE),
    flag("preset", "read <reference|preset> as a preset, whatever its name"),
    flag("json", 'print {"component": ..., "files": [...]} (a preset: {"files": [...]})'),
    ...NETWORK,
  ],
};

export const STATUS: CommandDecl = {
  name: "status",
  summary: "show what changed in the vendored files, here and upstream",
  positionals: [{ name: "component", count: "any", complete: LOCKED }],
  options: [
    flag("all", "list every file, the unchanged ones too (by default only the others)"),
    flag("json", 'print {"components": [...], "unowned": [...]}, every file (see docs/cli.md)'),
    ...NETWORK,
  ],
};

export const DIFF: CommandDecl = {
  name: "diff",
  summary: "show what kiln update (or a preset) would change, as a unified diff",
  // component names, or one preset (`kiln diff k8s-web-app`): the command tells them apart
  positionals: [{ name: "component", count: "any", complete: PRESETS_OR_LOCKED }],
  options: [
    flag("preset", "read the argument as a preset, whatever its name"),
    flag("json", 'print {"differs": <bool>, "files": [...]} (see docs/cli.md)'),
    flag("exit-code", "exit 1 when anything differs (for CI drift checks)"),
    ...NETWORK,
  ],
};

export const UPDATE: CommandDecl = {
  name: "update",
  summary: "merge upstream changes and new values into the vendored files",
  positionals: [{ name: "component", count: "any", complete: LOCKED }],
  options: [
    {
      name: "name",
      type: "string",
      short: "n",
      value: "<new-name>",
      description: "rename the component: its files move, your edits with them",
    },
    flag(
      "no-follow",
      "with --name: refuse, listing them, rather than change the components that point at it",
    ),
    SET,
    LABEL,
    ...shortcutOptions("the recorded namespace"),
    {
      name: "profile",
      type: "string",
      value: "<profile>",
      description:
        "render every component under this automation tool profile (cm, ansible): files renamed, edits kept, kiln.toml and kiln.lock record it",
      complete: { words: AUTOMATION_PROFILES },
    },
    {
      name: "to",
      type: "string",
      value: "<version>",
      description:
        "a registry's item (@acme/redis): render this version instead of the one kiln.lock pins",
    },
    flag("latest", "a registry's item: render the newest version its index lists"),
    {
      name: "conflicts",
      type: "string",
      value: "<how>",
      description: "markers: write git-style conflict markers instead of stopping",
      default: "stop",
      complete: { words: ["markers", "stop"] },
    },
    flag("ours", "in each conflicting region, keep your lines"),
    flag("theirs", "in each conflicting region, take the new render's lines"),
    force("overwrite files in the way that kiln.lock does not record"),
    flag(
      "json",
      'print {"files": [...]}: each file\'s action, conflicts and what a side taken dropped',
    ),
    { ...VERBOSE, description: "also list the files left unchanged and the edited files kept" },
    ALLOW_EXEC_PATHS,
    ALLOW_OLDER_KILN,
    ...NETWORK,
  ],
};

export const REMOVE: CommandDecl = {
  name: "remove",
  summary: "delete a component's files and its kiln.lock entry",
  positionals: [{ name: "component", complete: LOCKED }],
  options: [force("also remove files edited since kiln wrote them"), ALLOW_OLDER_KILN],
};

export const PRESET: CommandDecl = {
  name: "preset",
  summary: "preset export: write the project back as a preset manifest",
  positionals: [{ name: "action", complete: { words: ["export"] } }],
  options: [
    {
      name: "output",
      type: "string",
      value: "<file>",
      description: "write the manifest to this file inside the project",
      default: "stdout",
      complete: { paths: "json" },
    },
    force("overwrite the --output file when it exists"),
  ],
};

export const REGISTRY: CommandDecl = {
  name: "registry",
  summary: "registry build|validate: publish a registry of your own components",
  positionals: [
    { name: "action", complete: { words: ["build", "validate"] } },
    { name: "dir", count: "optional", complete: FOLDERS },
  ],
  options: [
    {
      name: "output",
      type: "string",
      value: "<folder>",
      description: "build: where the built files go",
      default: "<dir>/public/r",
      complete: FOLDERS,
    },
  ],
};

export const SERVE: CommandDecl = {
  name: "serve",
  summary: "start the HTTP API",
  positionals: [],
  // each setting also reads its environment variable when the option is not given; the
  // command (commands/serve.ts) checks the values and hands them to the server
  options: [
    {
      name: "bind",
      type: "string",
      value: "<address>",
      description: "address to listen on",
      env: "SERVICE_BIND",
      default: DEFAULT_BIND,
    },
    {
      name: "port",
      type: "string",
      short: "p",
      value: "<port>",
      description: "port, 0 for any free one",
      env: "SERVICE_PORT",
      default: String(DEFAULT_PORT),
    },
    {
      name: "allow-origin",
      type: "string",
      multiple: true,
      value: "<origin>",
      description: "allowed CORS origin, repeatable or comma-separated",
      env: "SERVICE_ALLOWED_ORIGINS",
      default: "any loopback origin",
    },
    {
      name: "allowed-host",
      type: "string",
      multiple: true,
      value: "<name>",
      description:
        "extra Host name accepted while bound to loopback, repeatable or comma-separated",
      env: "SERVICE_ALLOWED_HOSTS",
    },
    flag("ui", "also serve the dashboard from dist/web at /"),
    {
      name: "config",
      type: "string",
      value: "<file>",
      description:
        "a TOML file whose [registries] table (as in kiln.toml) names the registries the service resolves @namespace/item through",
      default: "only @kiln",
    },
    {
      name: "render-timeout",
      type: "string",
      value: "<ms>",
      description: "wall-clock deadline of one render",
      env: "SERVICE_RENDER_TIMEOUT_MS",
      default: String(DEFAULT_RENDER_DEADLINE_MS),
    },
    {
      name: "render-fuel",
      type: "string",
      value: "<n>",
      description: "template engine fuel per render",
      env: "SERVICE_RENDER_FUEL",
      default: String(DEFAULT_RENDER_FUEL),
    },
    {
      name: "render-memory",
      type: "string",
      value: "<MiB>",
      description: "template engine memory cap per worker",
      env: "SERVICE_RENDER_MEMORY_MB",
      default: String(DEFAULT_ENGINE_MEMORY_BYTES / 1024 / 1024),
    },
    {
      name: "render-cache",
      type: "string",
      value: "<MiB>",
      description:
        "memory kept for answers to repeated render requests of built-in components, 0 to turn it off",
      env: "SERVICE_RENDER_CACHE_MB",
      default: String(DEFAULT_RENDER_CACHE_BYTES / 1024 / 1024),
    },
    {
      name: "index-freshness",
      type: "string",
      value: "<s>",
      description:
        "seconds a registry's fetched index is used before it is fetched again, 0 to fetch it for every request",
      env: "SERVICE_INDEX_FRESHNESS_S",
      default: String(DEFAULT_INDEX_FRESHNESS_S),
    },
    {
      name: "workers",
      type: "string",
      value: "<n>",
      description: "render worker threads",
      env: "SERVICE_WORKERS",
      default: "cores",
    },
    {
      name: "drain-delay",
      type: "string",
      value: "<s>",
      description:
        "after SIGTERM/SIGINT, seconds the listener stays open while GET /api/ready answers 503",
      env: "SERVICE_DRAIN_DELAY_SECONDS",
      default: String(DEFAULT_DRAIN_DELAY_MS / 1000),
    },
    {
      name: "shutdown-timeout",
      type: "string",
      value: "<s>",
      description:
        "after SIGTERM/SIGINT, the most seconds until exit; requests still running then are cut",
      env: "SERVICE_SHUTDOWN_TIMEOUT_SECONDS",
      default: String(DEFAULT_SHUTDOWN_TIMEOUT_MS / 1000),
    },
    {
      name: "metrics",
      type: "string",
      value: "on|off",
      description:
        "serve Prometheus metrics at GET /metrics (behind the same Host guard as the API)",
      env: "SERVICE_METRICS",
      default: "on",
      complete: { words: ["on", "off"] },
    },
    {
      name: "log-format",
      type: "string",
      value: "json|text",
      description: "the format of the one log line per request on stdout",
      env: "SERVICE_LOG_FORMAT",
      default: "json, text when stdout is a terminal",
      complete: { words: LOG_FORMATS },
    },
  ],
};

/** The coding agents `kiln mcp --print-config` writes a configuration snippet for. */
export const MCP_CLIENTS = ["claude", "cursor", "vscode", "codex", "opencode"] as const;

export const MCP: CommandDecl = {
  name: "mcp",
  summary: "serve kiln's tools to coding agents (Model Context Protocol, stdio)",
  positionals: [],
  options: [
    flag("allow-writes", "also offer the tools that write: add, update, remove"),
    {
      name: "print-config",
      type: "string",
      value: "<client>",
      description: `print the snippet for a client's MCP configuration (${MCP_CLIENTS.join(", ")}) and exit`,
      complete: { words: MCP_CLIENTS },
    },
  ],
};

export const COMPLETION: CommandDecl = {
  name: "completion",
  summary: "print a shell completion script (bash, zsh, fish)",
  positionals: [{ name: "shell", complete: { words: SHELLS } }],
  options: [],
};

/** Every command, in the order `kiln --help` lists them. */
export const COMMAND_LIST: readonly CommandDecl[] = [
  INIT,
  ADD,
  LIST,
  SEARCH,
  VIEW,
  PRESETS_COMMAND,
  SETUP,
  APPLY,
  CHECK,
  RENDER,
  STATUS,
  DIFF,
  UPDATE,
  REMOVE,
  PRESET,
  REGISTRY,
  SERVE,
  MCP,
  COMPLETION,
];
