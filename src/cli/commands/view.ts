// kiln view: what an item is before you add it - its fields (format, required, default,
// description, example), the files it writes, and the files it renders with its own examples
// and defaults. Writes nothing. Any reference `kiln add` takes: a built-in, @kiln, a
// registry's item, a URL or a file; an item that is neither built-in nor one of `@kiln`'s
// packaged items renders in the sandboxed worker, as every stranger's item does
// (src/cli/render-component.ts).
import { DEFAULT_NAMESPACE } from "../../core/config.ts";
import { errorMessage } from "../../core/errors.ts";
import { exampleValues, type RegistryItem, referenceOf } from "../../core/item.ts";
import type { PlannedFile } from "../../core/plan.ts";
import { isRegistryReference } from "../../core/registry-config.ts";
import { flag } from "../args.ts";
import { VIEW } from "../command-list.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { ComponentRenderer } from "../render-component.ts";
import { printFiles } from "./render.ts";

export function help(): string {
  return commandHelp(VIEW, {
    title: "show an item's fields, files and an example render; write nothing",
    about: `<reference> is anything \`kiln add\` takes: a built-in (\`kiln list\`), a registry's item
(@kiln/aws-server, @acme/redis, @acme/redis@1.2.0), a URL or a registry-item JSON file. Prints
the item's fields, the paths of the files it writes, and those files rendered with the item's
own examples and defaults, named after the item, in namespace \`${DEFAULT_NAMESPACE}\`. An item
that is neither built-in nor one of @kiln's as the package ships it renders in kiln's sandbox,
as \`kiln add\` renders it.`,
    examples: [
      "kiln view k8s/deployment",
      "kiln view @kiln/aws-server",
      "kiln view @acme/redis --json",
    ],
  });
}

/** One field as view shows it; the keys in this order in `--json`. */
interface FieldView {
  name: string;
  format: string | null;
  required: boolean;
  default: string | null;
  description: string | null;
  example: string | null;
}

/** The example render: the values it used and its files, or why it did not render. */
type ExampleView =
  | { values: Record<string, string>; files: PlannedFile[] }
  | { values: Record<string, string>; error: string };

function fieldViews(item: RegistryItem): FieldView[] {
  const formats = item.checks?.fields ?? {};
  return item.fields.map((field) => ({
    name: field.name,
    format: (Object.hasOwn(formats, field.name) ? formats[field.name]?.format : undefined) ?? null,
    required: field.required,
    default: field.default ?? null,
    description: field.description ?? null,
    example: field.example ?? null,
  }));
}

/**
 * Renders `item` with its examples and defaults: here for a built-in or a packaged `@kiln` item,
 * else in the worker.
 */
async function renderExample(
  renderer: ComponentRenderer,
  item: RegistryItem,
  label: string,
): Promise<ExampleView> {
  const values = exampleValues(item, true);
  const input = { name: item.name, fields: values, defaultNamespace: DEFAULT_NAMESPACE };
  try {
    const rendered = await renderer.renderResolved(item, input, label);
    return { values, files: rendered.files.map(({ path, content }) => ({ path, content })) };
  } catch (error) {
    return { values, error: errorMessage(error) };
  }
}

function printField(field: FieldView, width: number, output: Output): void {
  const facts = [
    field.required ? "required" : undefined,
    field.format === null ? undefined : `format ${field.format}`,
    field.default === null || field.default === "" ? undefined : `default ${field.default}`,
    field.example === null ? undefined : `example ${field.example}`,
  ].filter((fact) => fact !== undefined);
  const about = [field.description ?? "", facts.length > 0 ? `(${facts.join(", ")})` : ""]
    .filter((part) => part !== "")
    .join(" ");
  output.line(`  ${field.name.padEnd(width)}  ${about}`.trimEnd());
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, VIEW);
  const [typed] = args as [string];
  const reference = output.typed(typed);
  const renderer = new ComponentRenderer(process.cwd());
  try {
    const builtinItem = renderer.builtin(reference);
    const item = builtinItem ?? (await renderer.item(reference));
    const version = isRegistryReference(reference)
      ? (await renderer.resolveRegistryItem(reference)).source.version
      : null;
    const fields = fieldViews(item);
    const files = item.files.map((file) => file.path);
    const example = await renderExample(renderer, item, typed);
    if (flag(parsed, "json")) {
      const view = {
        reference: builtinItem ? referenceOf(item) : typed,
        name: item.name,
        version,
        category: item.category,
        title: item.title,
        description: item.description,
        fields,
        files,
        example,
      };
      output.json(view);
      return 0;
    }
    const style = output.out;
    const head = builtinItem ? referenceOf(item) : typed;
    output.line(
      `${style.bold(head)}${version === null ? "" : ` ${version}`}${item.title ? ` - ${item.title}` : ""}`,
    );
    if (item.description) output.line(item.description);
    output.line(`category: ${item.category}`);
    output.line();
    output.line("fields:");
    if (fields.length === 0) output.line("  (none)");
    const width = Math.max(0, ...fields.map((field) => field.name.length));
    for (const field of fields) printField(field, width, output);
    output.line();
    output.line("files:");
    for (const path of files) output.line(`  ${path}`);
    output.line();
    const given = Object.entries(example.values).map(([name, value]) => `${name}=${value}`);
    const how = `--name ${item.name}${given.length > 0 ? `, ${given.join(", ")}` : ""}`;
    if ("error" in example) {
      output.line(`example: not rendered (${how}): ${example.error}`);
      return 0;
    }
    output.line(`example (${how}):`);
    printFiles(output, example.files);
    return 0;
  } finally {
    await renderer.close();
  }
}
