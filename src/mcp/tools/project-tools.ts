// The tools that read the project the server runs in and write nothing: its checks, status and
// diff, and the plans of add and setup - exactly the files those commands would write, each
// new, overwrite or unchanged (the command run with --dry-run, which plans with the same path
// rules and refusals as the real write and stops before it).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { CommandRun } from "../../core/command-run.ts";
import { CHECK_ANSWER, DIFF_ANSWER, PLAN_ANSWER, STATUS_ANSWER } from "../answer-schemas.ts";
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

const READS_PROJECT = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;

export const COMPONENTS = z
  .array(z.string().min(1))
  .optional()
  .describe(
    "components of kiln.lock: `api`, `deployment/api` or `k8s/deployment/api`; all when left out",
  );

const INCLUDE_CONTENTS = z
  .boolean()
  .optional()
  .describe("also answer each file's content (left out by default: plans can be long)");

/**
 * A plan's answer: each file with what the run would do to it (`new`, `overwrite`,
 * `unchanged`), its content on request, and the command's own lines (the dry-run summary,
 * what a real run would refuse).
 */
function planAnswer(run: CommandRun, includeContents: boolean | undefined) {
  if (run.failure) return failureAnswer(run.failure);
  const files = run.files.map((file) =>
    includeContents === true ? file : { path: file.path, action: file.action },
  );
  return dataAnswer({
    files,
    report: linesOf(run.stdout),
    ...(run.warnings.length > 0 ? { notes: run.warnings } : {}),
  });
}

export function registerProjectTools(server: McpServer, host: McpHost): void {
  server.registerTool(
    "check_project",
    {
      title: "Check the project",
      description:
        "The cross-component checks on the project's files as they are on disk (as `kiln check --json`): each finding's rule, severity, message and the components involved. `passed` is false when a finding is an error. explain_check tells what a rule means and how to fix it.",
      inputSchema: { components: COMPONENTS },
      outputSchema: CHECK_ANSWER,
      annotations: READS_PROJECT,
    },
    async ({ components }) => {
      const run = await host.runCommand("check", ["--json", ...positionals(...(components ?? []))]);
      if (run.failure) return failureAnswer(run.failure);
      const answer = jsonAnswer(run);
      return dataAnswer({ passed: run.status === 0, ...answer.structuredContent });
    },
  );

  server.registerTool(
    "project_status",
    {
      title: "Project status",
      description:
        "Every file of every component against kiln.lock (as `kiln status --all --json`): unchanged, modified, missing, conflicted, refused, changed upstream; files no component owns; the automation profile.",
      inputSchema: { components: COMPONENTS },
      outputSchema: STATUS_ANSWER,
      annotations: READS_PROJECT,
    },
    async ({ components }) =>
      jsonAnswer(
        await host.runCommand("status", ["--all", "--json", ...positionals(...(components ?? []))]),
      ),
  );

  server.registerTool(
    "diff",
    {
      title: "Diff of an update",
      description:
        "The unified diff of what `update` would change in each file, merged with your edits (as `kiln diff --json`). Writes nothing.",
      inputSchema: { components: COMPONENTS },
      outputSchema: DIFF_ANSWER,
      annotations: READS_PROJECT,
    },
    async ({ components }) =>
      jsonAnswer(await host.runCommand("diff", ["--json", ...positionals(...(components ?? []))])),
  );

  server.registerTool(
    "plan_add",
    {
      title: "Plan an add",
      description:
        "Exactly what `add` would write for a component (as `kiln add --dry-run`): each file new, overwrite or unchanged, the components it depends on, and whether the real run would be refused. Writes nothing.",
      inputSchema: {
        reference: REFERENCE,
        name: z.string().min(1).describe("the component's name"),
        set: FIELD_VALUES,
        labels: LABELS,
        force: z.boolean().optional().describe("plan as with --force (overwrite files in the way)"),
        include_contents: INCLUDE_CONTENTS,
      },
      outputSchema: PLAN_ANSWER,
      annotations: { ...READS_PROJECT, openWorldHint: true },
    },
    async ({ reference, name, set, labels, force, include_contents }) =>
      planAnswer(
        await host.runCommand("add", [
          "--dry-run",
          "--verbose",
          ...stringOption("name", name),
          ...valueOptions("set", set),
          ...valueOptions("label", labels),
          ...flagOption("force", force),
          ...positionals(reference),
        ]),
        include_contents,
      ),
  );

  server.registerTool(
    "plan_setup",
    {
      title: "Plan a setup",
      description:
        "Exactly what `setup` of a preset would write here (as `kiln setup --dry-run`): each file new, overwrite or unchanged, tracked files merged with your edits. Writes nothing.",
      inputSchema: {
        preset: z
          .string()
          .min(1)
          .describe("a built-in preset (k8s-web-app), a URL or a .preset.json file"),
        force: z
          .boolean()
          .optional()
          .describe("plan as with --force (merge into tracked files, overwrite others)"),
        include_contents: INCLUDE_CONTENTS,
      },
      outputSchema: PLAN_ANSWER,
      annotations: { ...READS_PROJECT, openWorldHint: true },
    },
    async ({ preset, force, include_contents }) =>
      planAnswer(
        await host.runCommand("setup", [
          "--dry-run",
          "--verbose",
          ...flagOption("force", force),
          ...positionals(preset),
        ]),
        include_contents,
      ),
  );
}
