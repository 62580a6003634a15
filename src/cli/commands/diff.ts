// kiln diff: the unified diff between the files on disk and what `kiln update` would write,
// for the named components or the whole project. Writes nothing. --exit-code exits 1 when
// anything differs (a CI drift check). A conflict is shown as `--conflicts=markers` would
// write it, and said to be one: plain `kiln update` stops there.
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import type { FileOutcome } from "../../core/project/lifecycle.ts";
import { LOCK_FILE } from "../../core/project/lock.ts";
import { flag, parse } from "../args.ts";
import { DIFF } from "../command-list.ts";
import { EXIT_FAILED, EXIT_OK } from "../exit.ts";
import { planUpdates, readLockedProject } from "../lifecycle.ts";
import { commandHelp, parseConfig } from "../options.ts";
import { forTerminal, type Output } from "../output.ts";
import { plural } from "../report.ts";

export function help(): string {
  return commandHelp(DIFF, {
    title: "show what `kiln update` would change in the vendored files",
    about: `Usage with names: kiln diff [<name>...] [--json] [--exit-code] - the components of ${LOCK_FILE}
with those names (all of them when none is given). Prints a unified diff between each file on
disk and what \`kiln update\` would write: the newest item rendered with the recorded values,
merged with your edits. Writes nothing. A conflict is shown with the markers
\`kiln update --conflicts=markers\` would write. Colour only on a terminal, never with NO_COLOR.`,
    examples: ["kiln diff", "kiln diff api web", "kiln diff --exit-code  # in CI: fails on drift"],
  });
}

interface FileDiff {
  component: string;
  name: string;
  path: string;
  from?: string | undefined;
  action: FileOutcome["action"];
  conflicts: number;
  patch: string;
}

/** The unified diff of one file: `a/` the file on disk, `b/` what the update writes. */
function patchOf(outcome: FileOutcome): string {
  const oldPath = outcome.from ?? outcome.path;
  const before = outcome.before;
  const after = outcome.action === "released" ? outcome.before : outcome.content;
  if (before === after) return "";
  return createTwoFilesPatch(
    before === undefined ? "/dev/null" : `a/${oldPath}`,
    after === undefined ? "/dev/null" : `b/${outcome.path}`,
    before ?? "",
    after ?? "",
    undefined,
    undefined,
    { headerOptions: FILE_HEADERS_ONLY },
  );
}

/** A line for the terminal: control characters escaped, kiln's colours applied, tabs kept. */
function shown(line: string): string {
  return line.split("\t").map(forTerminal).join("\t");
}

export async function run(argv: string[], output: Output): Promise<number> {
  const parsed = parse(argv, parseConfig(DIFF));
  const names = parsed.positionals;
  const project = readLockedProject(process.cwd());
  const updates = await planUpdates(project, names, { resolution: "markers" });
  const files: FileDiff[] = updates.flatMap((update) =>
    update.outcomes.flatMap((outcome) => {
      const patch = patchOf(outcome);
      if (patch === "") return [];
      return [
        {
          component: update.entry.component,
          name: update.entry.name,
          path: outcome.path,
          from: outcome.from,
          action: outcome.action,
          conflicts: outcome.conflicts.length,
          patch,
        },
      ];
    }),
  );
  const status = flag(parsed, "exit-code") && files.length > 0 ? EXIT_FAILED : EXIT_OK;
  if (flag(parsed, "json")) {
    output.line(JSON.stringify({ differs: files.length > 0, files }, null, 2));
    return status;
  }
  const style = output.out;
  const lines: string[] = [];
  for (const file of files) {
    if (file.conflicts > 0) {
      lines.push(
        style.red(
          `# ${file.path}: ${plural(file.conflicts, "conflict")} - \`kiln update\` stops here; --conflicts=markers writes this`,
        ),
      );
    }
    for (const line of file.patch.replace(/\n$/, "").split("\n")) {
      if (line.startsWith("---") || line.startsWith("+++")) lines.push(style.bold(line));
      else if (line.startsWith("@@")) lines.push(style.yellow(line));
      else if (line.startsWith("+")) lines.push(style.green(line));
      else if (line.startsWith("-")) lines.push(style.red(line));
      else lines.push(line);
    }
  }
  if (lines.length > 0) output.verbatim(`${lines.map(shown).join("\n")}\n`);
  return status;
}
