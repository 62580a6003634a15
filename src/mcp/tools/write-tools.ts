// The tools that write, offered only when the server was started with --allow-writes: add,
// update and remove. Each is the command itself, so it writes all or nothing, only inside the
// project, never in `.git` or over kiln's own files, never to places other tools run as code
// (the tools have no way to pass --allow-exec-paths), and answers with what it wrote. update
// never settles a conflict on its own: it stops and answers the conflicts, unless the agent
// asks for markers or names the side to take.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { CommandRun } from "../../core/command-run.ts";
import { REMOVE_ANSWER, UPDATE_ANSWER, WRITE_ANSWER } from "../answer-schemas.ts";
import type { McpHost } from "../command-host.ts";
import {
  dataAnswer,
  failureAnswer,
  flagOption,
  jsonAnswer,
  linesOf,
  positionals,
  stringOption,
  valueOptions,
} from "../tool-answer.ts";
import { FIELD_VALUES, LABELS, REFERENCE } from "./catalogue-tools.ts";
import { COMPONENTS } from "./project-tools.ts";

/** The answer of a write: each file and what was done to it, and the command's lines. */
function writeAnswer(run: CommandRun, what: "files" | "removed") {
  if (run.failure) return failureAnswer(run.failure);
  return dataAnswer({
    ...(what === "removed"
      ? { removed: run.removed }
      : { files: run.files.map(({ path, action }) => ({ path, action })) }),
    report: linesOf(run.stdout),
    ...(run.warnings.length > 0 ? { notes: run.warnings } : {}),
  });
}

export function registerWriteTools(server: McpServer, host: McpHost): void {
  server.registerTool(
    "add",
    {
      title: "Add a component",
      description:
        "Renders one component into the project's output folder and records it in kiln.lock (as `kiln add`): all or nothing, never over an existing file unless `force`. Answers each file written. plan_add shows the same without writing.",
      inputSchema: {
        reference: REFERENCE,
        name: z.string().min(1).describe("the component's name"),
        set: FIELD_VALUES,
        labels: LABELS,
        force: z.boolean().optional().describe("overwrite files that already exist"),
      },
      outputSchema: WRITE_ANSWER,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    async ({ reference, name, set, labels, force }) =>
      writeAnswer(
        await host.runCommand("add", [
          "--verbose",
          ...stringOption("name", name),
          ...valueOptions("set", set),
          ...valueOptions("label", labels),
          ...flagOption("force", force),
          ...positionals(reference),
        ]),
        "files",
      ),
  );

  server.registerTool(
    "update",
    {
      title: "Update components",
      description:
        'Renders components again with the newest item and the recorded values (changed by `set` and `labels`) and merges three ways into the edited files (as `kiln update --json`). When your edits and the new render change the same lines nothing is written and the conflicts are answered as an error; `conflicts: "markers"` writes git-style markers instead, `take` settles each conflict for one side. diff shows the same without writing.',
      inputSchema: {
        components: COMPONENTS,
        set: FIELD_VALUES,
        labels: LABELS,
        conflicts: z
          .enum(["stop", "markers"])
          .optional()
          .describe(
            "stop (the default): write nothing when a conflict remains; markers: write conflict markers",
          ),
        take: z
          .enum(["ours", "theirs"])
          .optional()
          .describe("settle each conflict with your lines (ours) or the new render's (theirs)"),
      },
      outputSchema: UPDATE_ANSWER,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    async ({ components, set, labels, conflicts, take }) =>
      jsonAnswer(
        await host.runCommand("update", [
          "--json",
          ...valueOptions("set", set),
          ...valueOptions("label", labels),
          ...stringOption("conflicts", conflicts),
          ...flagOption("ours", take === "ours"),
          ...flagOption("theirs", take === "theirs"),
          ...positionals(...(components ?? [])),
        ]),
      ),
  );

  server.registerTool(
    "remove",
    {
      title: "Remove a component",
      description:
        "Deletes a component's files and its kiln.lock entry (as `kiln remove`); files edited since kiln wrote them only with `force`. Answers each file removed.",
      inputSchema: {
        component: z
          .string()
          .min(1)
          .describe("a component of kiln.lock: `api` or `deployment/api`"),
        force: z.boolean().optional().describe("also remove files edited since kiln wrote them"),
      },
      outputSchema: REMOVE_ANSWER,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
    async ({ component, force }) =>
      writeAnswer(
        await host.runCommand("remove", [...flagOption("force", force), ...positionals(component)]),
        "removed",
      ),
  );
}
