// A command run in-process with everything it prints kept, not written: what another front
// (`kiln mcp`) answers with. The command is the CLI's own, with the same parsing, checks and
// all-or-nothing writes; only where its lines go differs. Besides the text, the run keeps what
// a command reported as data: each file of its run with its action and content, each file it
// removed, each warning it printed and its `--json` document, as the values themselves.
import type { CommandRun, RunFailure, RunFile } from "../core/command-run.ts";
import { errorMessage } from "../core/errors.ts";
import { resetNetworkMode } from "../node/network-mode.ts";
import { isUsageError } from "./args.ts";
import { exitCodeFor } from "./exit.ts";
import { Output } from "./output.ts";

/** What a command's `run` is: the arguments after its name, and where it prints. */
interface RunnableCommand {
  run(argv: string[], output: Output): Promise<number>;
}

/** The kind and words of a thrown error, as the CLI would print them. */
function failureOf(error: unknown): RunFailure {
  if (isUsageError(error)) return { kind: "usage", message: error.message };
  const { kind, detail } = error as { kind?: unknown; detail?: unknown };
  return {
    kind: typeof kind === "string" ? kind : "internal",
    message: errorMessage(error),
    ...(typeof detail === "string" && detail !== "" ? { detail } : {}),
  };
}

/** Runs `command` with `argv`, keeping its output; never throws what the command throws. */
export async function runCaptured(command: RunnableCommand, argv: string[]): Promise<CommandRun> {
  const printed = { 1: [] as string[], 2: [] as string[] };
  const output = new Output((fd, text) => printed[fd].push(text));
  const files: RunFile[] = [];
  const removed: string[] = [];
  const warnings: string[] = [];
  let document: unknown;
  output.recorder = {
    steps(steps) {
      for (const step of steps) {
        if (step.quiet === true) continue;
        files.push({ path: step.display, action: step.status, content: step.content });
      }
    },
    removed(paths) {
      removed.push(...paths);
    },
    warning(message) {
      warnings.push(message);
    },
    document(value) {
      document = value;
    },
  };
  let status: number;
  let failure: RunFailure | undefined;
  try {
    status = await command.run(argv, output);
    output.flush();
  } catch (error) {
    output.flush();
    failure = failureOf(error);
    status = exitCodeFor(error);
  } finally {
    // the next command run in this process starts from its own command line's network mode
    resetNetworkMode();
  }
  return {
    status,
    stdout: printed[1].join(""),
    stderr: printed[2].join(""),
    ...(failure ? { failure } : {}),
    files,
    removed,
    warnings,
    ...(document === undefined ? {} : { document }),
  };
}
