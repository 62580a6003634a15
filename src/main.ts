#!/usr/bin/env node
// The kiln command-line tool. This file only dispatches: each command lives in its own module,
// loaded with a dynamic import, so the bundle starts by reading just the code that one command
// needs (the template engine only for add/setup/apply, the HTTP server only for serve).
import { isUsageError } from "./cli/args.ts";
import { COMMAND_LIST } from "./cli/command-list.ts";
import { exitCodeFor } from "./cli/exit.ts";
import { guardInterruptions } from "./cli/interruption.ts";
import { noteInterruptedRun } from "./cli/journal-notice.ts";
import { quietRequested } from "./cli/options.ts";
import { Output, pendingStreams, writeFd } from "./cli/output.ts";
import { enterProjectRoot } from "./cli/project-root.ts";
import { didYouMean } from "./core/did-you-mean.ts";
import { errorMessage, KilnError } from "./core/errors.ts";
import type { ServiceSettings } from "./core/service-settings.ts";
import { readVersion } from "./node/version.ts";

export interface Command {
  /** Runs the command with the arguments after its name; resolves to the exit status. */
  run(argv: string[], output: Output): Promise<number>;
  /** The --help text. */
  help(): string | Promise<string>;
}

/**
 * `kiln serve`: the command line reads the options (cli/commands/serve.ts) and the service runs
 * them (server/serve-command.ts) - composed here, at the top, so the command line never imports
 * the server. The server code is loaded only for serve; the bundle keeps it outside, as the
 * compiled dist/server (its render pool starts worker threads from their own files).
 */
async function serveCommand(): Promise<Command> {
  const options = await import("./cli/commands/serve.ts");
  return {
    help: options.help,
    run: async (argv, output) => {
      const settings = options.settingsFrom(argv);
      const service = await loadService();
      return service.runService(settings, output);
    },
  };
}

interface ServiceModule {
  runService(settings: ServiceSettings, output: Output): Promise<number>;
}

async function loadService(): Promise<ServiceModule> {
  try {
    return (await import("./server/serve-command.ts")) as ServiceModule;
  } catch (error) {
    const missing =
      (error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" &&
      errorMessage(error).includes("serve-command");
    if (!missing) throw error;
    throw new KilnError(
      "internal",
      "the HTTP service is not part of this build - run `npm run build` to build it",
    );
  }
}

/**
 * `kiln mcp`: the command line reads the options (cli/commands/mcp.ts) and the MCP server
 * (mcp/mcp-server.ts) runs every tool as one of the commands below, in-process with its output
 * kept (cli/captured-run.ts) - composed here, so the two fronts never import each other. The
 * server and the MCP SDK are loaded only for `kiln mcp` serving, not for --print-config.
 */
async function mcpCommand(): Promise<Command> {
  const options = await import("./cli/commands/mcp.ts");
  return {
    help: options.help,
    run: async (argv, output) => {
      const settings = options.settingsFrom(argv);
      if (settings.printConfig !== undefined) {
        return options.printConfig(settings.printConfig, output);
      }
      const { runCaptured } = await import("./cli/captured-run.ts");
      const { runMcpServer } = await import("./mcp/mcp-server.ts");
      return runMcpServer(settings, {
        runCommand: async (name, commandArgv) => {
          const load = LOADERS[name];
          if (load === undefined || name === "mcp") throw new Error(`no command \`${name}\``);
          return runCaptured(await load(), commandArgv);
        },
      });
    },
  };
}

/** Each command's module, loaded when it runs; its summary and options are in command-list.ts. */
const LOADERS: Record<string, () => Promise<Command>> = {
  init: () => import("./cli/commands/init.ts"),
  add: () => import("./cli/commands/add.ts"),
  list: () => import("./cli/commands/list.ts"),
  search: () => import("./cli/commands/search.ts"),
  view: () => import("./cli/commands/view.ts"),
  presets: () => import("./cli/commands/presets.ts"),
  setup: () => import("./cli/commands/setup.ts"),
  apply: () => import("./cli/commands/apply.ts"),
  check: () => import("./cli/commands/check.ts"),
  render: () => import("./cli/commands/render.ts"),
  status: () => import("./cli/commands/status.ts"),
  diff: () => import("./cli/commands/diff.ts"),
  update: () => import("./cli/commands/update.ts"),
  remove: () => import("./cli/commands/remove.ts"),
  preset: () => import("./cli/commands/preset.ts"),
  registry: () => import("./cli/commands/registry.ts"),
  serve: serveCommand,
  mcp: mcpCommand,
  completion: () => import("./cli/commands/completion.ts"),
};

/**
 * Commands that only read the project, and print a note when a run was interrupted there (the
 * files may be half-written). Never --version, --help, completion or serve: they do not look
 * at the folder. `preset` notes it itself (with --output it writes, and rolls back instead).
 */
const NOTES_INTERRUPTED_RUN = new Set(["list", "presets", "render", "check", "status", "diff"]);

/**
 * Commands that work on the project: from any folder inside it they run in the nearest folder
 * up that holds kiln.toml (cli/project-root.ts); search and view read its registries. Not init (it makes a project where it is told),
 * nor apply (it writes a preset's files into the folder it runs in, no project needed), nor the
 * commands that never read one.
 */
const PROJECT_COMMANDS = new Set([
  "add",
  "search",
  "view",
  "setup",
  "check",
  "status",
  "diff",
  "update",
  "remove",
  "preset",
  "mcp",
]);

/**
 * Commands that write files, whose Ctrl-C and SIGTERM are held and reported as what the run
 * left (cli/interruption.ts): `interrupted - nothing was written` or `... all N files were
 * written`. `preset` writes with --output.
 */
const WRITING_COMMANDS = new Set(["init", "add", "setup", "apply", "update", "remove", "preset"]);

/**
 * `-C <dir>` before the command, as git has it: kiln runs as if started in <dir> (each one
 * relative to the one before). Returns the arguments after them, or the exit status of a
 * folder that cannot be entered.
 */
function enterFolders(argv: string[], output: Output): string[] | number {
  let rest = argv;
  while (rest[0] === "-C") {
    const dir = rest[1];
    if (dir === undefined || dir === "") {
      output.error("-C needs a folder: kiln -C <dir> <command>");
      return 2;
    }
    try {
      process.chdir(dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === "ENOENT" ? "no such folder" : code === "ENOTDIR" ? "not a folder" : code;
      output.error(`cannot run in \`${dir}\` (-C): ${why}`);
      output.hint("pass a folder that exists: kiln -C <dir> <command>");
      return 2;
    }
    rest = rest.slice(2);
  }
  return rest;
}

const HELP = `kiln - render infrastructure files from templates into your project

Usage: kiln <command> [options]

Commands:
${COMMAND_LIST.map((command) => `  ${command.name.padEnd(12)}${command.summary}`).join("\n")}

Options:
  -C <dir>       run as if kiln was started in <dir> (before the command)
  -h, --help     show help (also: kiln <command> --help)
  --version      print the version

Examples:
  kiln init --name shop
  kiln add k8s/deployment --name web --image nginx:1.27
  kiln setup k8s-web-app
  kiln check ./shop.preset.json
  kiln render k8s/service --name web --port 80 | kubectl apply -f -
  source <(kiln completion bash)

Run \`kiln <command> --help\` for a command's options and examples.
`;

async function main(argv: string[]): Promise<number> {
  const output = new Output();
  const entered = enterFolders(argv, output);
  if (typeof entered === "number") return entered;
  const [name, ...rest] = entered;
  if (name === undefined) {
    // no command is a usage error: the help goes to stderr so scripts see the failure
    writeFd(2, HELP);
    return 2;
  }
  if (name === "--help" || name === "-h") {
    writeFd(1, HELP);
    return 0;
  }
  if (name === "--version" || name === "-V") {
    writeFd(1, `kiln ${readVersion()}\n`);
    return 0;
  }
  // `kiln help <command>` reads like `kiln <command> --help`
  if (name === "help") {
    const topic = rest[0];
    if (topic === undefined) {
      writeFd(1, HELP);
      return 0;
    }
    return main([topic, "--help"]);
  }
  const load = Object.hasOwn(LOADERS, name) ? LOADERS[name] : undefined;
  if (!load) {
    output.error(`unknown command \`${name}\`${didYouMean(name, Object.keys(LOADERS))}`);
    output.hint(`run \`kiln --help\` to see the commands`);
    return 2;
  }
  if (name === "serve" || name === "mcp") usesStreams = true;
  const command = await load();
  const options = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  // -q before anything is printed: errors only (output.ts)
  const declared = COMMAND_LIST.find((decl) => decl.name === name);
  if (declared !== undefined) output.quiet = quietRequested(options, declared);
  if (options.includes("--help") || options.includes("-h")) {
    try {
      writeFd(1, await command.help());
    } catch (error) {
      output.error(errorMessage(error));
      return exitCodeFor(error);
    }
    return 0;
  }
  // A run killed part-way in this folder is rolled back by the next command that writes,
  // first thing in its run (src/node/journal.ts); commands that only read say it is there
  try {
    // from a subfolder of a project, the command runs at its root; paths print from here
    if (PROJECT_COMMANDS.has(name)) output.place = enterProjectRoot();
  } catch (error) {
    output.error(errorMessage(error), (error as { detail?: string }).detail);
    return exitCodeFor(error);
  }
  if (NOTES_INTERRUPTED_RUN.has(name)) noteInterruptedRun(process.cwd(), output);
  const interruptions = WRITING_COMMANDS.has(name) ? guardInterruptions() : undefined;
  const status = await runCommand(name, command, rest, output);
  return interruptions ? interruptions.finish(status, () => output.flush()) : status;
}

/** Runs the command; its exit status, after its output or its error. */
async function runCommand(
  name: string,
  command: Command,
  argv: string[],
  output: Output,
): Promise<number> {
  try {
    const status = await command.run(argv, output);
    output.flush();
    return status;
  } catch (error) {
    if (isUsageError(error)) {
      output.error(error.message);
      output.hint(`run \`kiln ${name} --help\` for usage`);
      return 2;
    }
    const detail = (error as { detail?: unknown }).detail;
    output.error(errorMessage(error), typeof detail === "string" ? detail : undefined);
    return exitCodeFor(error);
  }
}

/**
 * `kiln serve` writes through process.stdout and process.stderr (the server's log), `kiln mcp`
 * the protocol through process.stdout.
 */
let usesStreams = false;

/**
 * Exits as soon as the output is out, instead of letting the event loop drain: V8 keeps
 * optimising the template engine's code on background threads after the work is done, and a
 * natural exit waits for that (tens of milliseconds). Output is written synchronously
 * (output.ts), so this is usually at once; what had to go through a stream (a full
 * non-blocking pipe, or the server's log) is drained first, so no output is cut off.
 */
function exitWhenFlushed(code: number): void {
  const pending = usesStreams
    ? [process.stdout, process.stderr].filter((stream) => stream.writableLength > 0)
    : pendingStreams();
  if (pending.length === 0) process.exit(code);
  process.exitCode = code;
  let left = pending.length;
  for (const stream of pending) {
    stream.once("drain", () => {
      left -= 1;
      if (left === 0) process.exit(code);
    });
  }
}

void main(process.argv.slice(2)).then(exitWhenFlushed);
