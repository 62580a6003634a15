// The JSON Schema of each tool's structured answer (its `outputSchema`), as zod shapes the SDK
// publishes in tools/list and checks every answer against. An answer is either the data or, when
// the tool failed, `error` (kind, message, detail) - a failed update may carry both - so the
// data's keys are optional here and `error` is declared beside them. Objects are open: the
// documents are those of the commands' --json output (docs/cli.md), which may gain keys.
import { z } from "zod";

const ERROR = z
  .object({
    kind: z
      .string()
      .describe("invalid_request, not_found, not_initialized, already_exists, internal, or usage"),
    message: z.string(),
    detail: z.string().optional(),
  })
  .describe("why the tool failed (the answer is then a tool error)");

/** Warnings the command printed (a registry that could not be read), without `warning: `. */
const NOTES = z.array(z.string()).describe("the command's warnings");

/** An answer's shape: the data's keys (all optional), `error` and `notes`. */
function answer(shape: Record<string, z.ZodType>) {
  const optional = Object.fromEntries(
    Object.entries(shape).map(([key, schema]) => [key, schema.optional()]),
  );
  return z.looseObject({ ...optional, error: ERROR.optional(), notes: NOTES.optional() });
}

const STRINGS = z.array(z.string());
const ACTION = z.enum(["new", "overwrite", "unchanged"]);

const ITEM = z.looseObject({
  reference: z.string().describe("what add, view_item and render_component take"),
  name: z.string(),
  title: z.string(),
  description: z.string(),
});

const RENDERED_FILE = z.looseObject({ path: z.string(), content: z.string() });

export const LIST_ANSWER = answer({ items: z.array(ITEM) });

export const SEARCH_ANSWER = answer({
  results: z.array(ITEM.extend({ version: z.string().nullable() })),
});

export const VIEW_ANSWER = answer({
  reference: z.string(),
  name: z.string(),
  version: z.string().nullable(),
  category: z.string(),
  title: z.string(),
  description: z.string(),
  fields: z.array(z.looseObject({ name: z.string(), required: z.boolean() })),
  files: STRINGS.describe("the path templates of the files the item writes"),
  example: z.looseObject({ values: z.record(z.string(), z.string()) }),
});

export const RENDER_ANSWER = answer({ files: z.array(RENDERED_FILE) });

export const EXPLAIN_ANSWER = answer({
  rule: z.string(),
  severity: z.enum(["error", "warning"]),
  meaning: z.string(),
  fix: z.string(),
});

export const CHECK_ANSWER = answer({
  passed: z.boolean().describe("false when a finding is an error"),
  findings: z.array(
    z.looseObject({
      rule: z.string().describe("explain_check tells what it means"),
      severity: z.enum(["error", "warning"]),
      message: z.string(),
    }),
  ),
  errors: z.number(),
  warnings: z.number(),
});

export const STATUS_ANSWER = answer({
  components: z.array(
    z.looseObject({
      name: z.string(),
      component: z.string(),
      files: z.array(z.looseObject({ path: z.string() })),
    }),
  ),
  unowned: z.array(z.unknown()),
});

export const DIFF_ANSWER = answer({
  differs: z.boolean(),
  files: z.array(z.looseObject({ path: z.string(), action: z.string() })),
});

export const PLAN_ANSWER = answer({
  files: z.array(z.object({ path: z.string(), action: ACTION, content: z.string().optional() })),
  report: STRINGS.describe("the command's lines"),
});

export const WRITE_ANSWER = answer({
  files: z.array(z.object({ path: z.string(), action: ACTION })),
  report: STRINGS.describe("the command's lines"),
});

export const UPDATE_ANSWER = answer({
  files: z.array(
    z.looseObject({
      path: z.string(),
      action: z.string(),
      conflicts: z.array(z.looseObject({ keyPath: z.string().optional() })),
    }),
  ),
});

export const REMOVE_ANSWER = answer({
  removed: STRINGS.describe("each file deleted"),
  report: STRINGS.describe("the command's lines"),
});
