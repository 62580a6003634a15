// The tools about items, which need no project: list, search and view the items of the
// built-ins and the registries, render one (nothing written), and explain a check rule. Each
// is the command of the same name run with --json (docs/mcp.md shows every answer).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { KilnError } from "../../core/errors.ts";
import { CHECK_RULES } from "../../core/project/checks/check-project.ts";
import {
  EXPLAIN_ANSWER,
  LIST_ANSWER,
  RENDER_ANSWER,
  SEARCH_ANSWER,
  VIEW_ANSWER,
} from "../answer-schemas.ts";
import type { McpHost } from "../command-host.ts";
import {
  dataAnswer,
  failureAnswer,
  jsonAnswer,
  positionals,
  stringOption,
  valueOptions,
} from "../tool-answer.ts";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: true } as const;

/** A field's values, `{"image": "nginx:1.27"}`: what `--set field=value` is on the command line. */
export const FIELD_VALUES = z
  .record(z.string(), z.string())
  .optional()
  .describe('field values, e.g. {"image": "nginx:1.27", "replicas": "2"}');

export const LABELS = z
  .record(z.string(), z.string())
  .optional()
  .describe('labels, e.g. {"tier": "backend"} (`app` defaults to the name)');

export const REFERENCE = z
  .string()
  .min(1)
  .describe("a built-in (k8s/deployment), a registry's item (@kiln/aws-server), a URL or a file");

export function registerCatalogueTools(server: McpServer, host: McpHost): void {
  server.registerTool(
    "list_components",
    {
      title: "List components",
      description:
        "The built-in components with their fields (as `kiln list --json`), or with `registry` (@kiln, or a namespace configured in kiln.toml) that registry's items.",
      inputSchema: { registry: z.string().optional().describe("a registry namespace, e.g. @kiln") },
      outputSchema: LIST_ANSWER,
      annotations: READ_ONLY,
    },
    async ({ registry }) =>
      jsonAnswer(await host.runCommand("list", ["--json", ...positionals(registry)]), "items"),
  );

  server.registerTool(
    "search_items",
    {
      title: "Search items",
      description:
        "Finds items by name, title, description or category in the built-ins, @kiln and every configured registry, best matches first (as `kiln search --json`). A registry that cannot be read is a warning in the answer.",
      inputSchema: {
        query: z.string().optional().describe("what to look for; every item when left out"),
        registry: z.string().optional().describe("search only this registry, e.g. @kiln"),
      },
      outputSchema: SEARCH_ANSWER,
      annotations: READ_ONLY,
    },
    async ({ query, registry }) =>
      jsonAnswer(
        await host.runCommand("search", [
          "--json",
          ...stringOption("registry", registry),
          ...positionals(query),
        ]),
      ),
  );

  server.registerTool(
    "view_item",
    {
      title: "View an item",
      description:
        "An item's fields (format, required, default, description, example), the files it writes and those files rendered with its own examples and defaults (as `kiln view --json`). Writes nothing.",
      inputSchema: { reference: REFERENCE },
      outputSchema: VIEW_ANSWER,
      annotations: READ_ONLY,
    },
    async ({ reference }) =>
      jsonAnswer(await host.runCommand("view", ["--json", ...positionals(reference)])),
  );

  server.registerTool(
    "render_component",
    {
      title: "Render a component",
      description:
        "The files a component renders to for a name and field values, or a preset's files (as `kiln render --json`). Writes nothing and needs no project.",
      inputSchema: {
        reference: REFERENCE.describe("a component's reference, or a preset"),
        name: z.string().optional().describe("the component's name"),
        set: FIELD_VALUES,
        labels: LABELS,
      },
      outputSchema: RENDER_ANSWER,
      annotations: READ_ONLY,
    },
    async ({ reference, name, set, labels }) =>
      jsonAnswer(
        await host.runCommand("render", [
          "--json",
          ...stringOption("name", name),
          ...valueOptions("set", set),
          ...valueOptions("label", labels),
          ...positionals(reference),
        ]),
      ),
  );

  server.registerTool(
    "explain_check",
    {
      title: "Explain a check rule",
      description:
        "What a rule of `kiln check` (the id in a finding, e.g. role-not-vendored) means, its severity, and how to fix what it finds.",
      inputSchema: { rule: z.string().min(1).describe("a rule id, e.g. role-not-vendored") },
      outputSchema: EXPLAIN_ANSWER,
      annotations: { ...READ_ONLY, openWorldHint: false },
    },
    async ({ rule }) => explainRule(rule),
  );
}

/** A rule's id, severity, meaning and fix; an unknown id is an error naming the known ones. */
function explainRule(id: string) {
  const rule = CHECK_RULES.find((known) => known.id === id);
  if (rule === undefined) {
    const error = new KilnError(
      "not_found",
      `no check rule \`${id}\``,
      `the rules: ${CHECK_RULES.map((known) => known.id).join(", ")}`,
    );
    return failureAnswer({ kind: error.kind, message: error.message, detail: error.detail ?? "" });
  }
  return dataAnswer({
    rule: rule.id,
    severity: rule.severity,
    meaning: rule.summary,
    fix: rule.fix,
  });
}
