// kiln list: the built-in components, for people or (--json) as GET /api/registry returns them.
import { toItemView } from "../../core/item.ts";
import { FIELD_SHORTCUTS } from "../../core/shortcuts.ts";
import { builtinRegistry } from "../../node/builtin-registry.ts";
import { flag } from "../args.ts";
import { LIST } from "../command-list.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";

export function help(): string {
  return commandHelp(LIST, {
    title: "show the built-in components",
    examples: ["kiln list", "kiln list --json | jq -r '.items[].reference'"],
  });
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed } = parseCommand(argv, LIST);
  const items = builtinRegistry().items.map(toItemView);
  if (flag(parsed, "json")) {
    output.line(JSON.stringify({ items }, null, 2));
    return 0;
  }
  const style = output.out;
  const width = Math.max(...items.map((item) => item.reference.length));
  for (const item of items) {
    output.line(`${style.bold(item.reference.padEnd(width))}  ${item.description || item.title}`);
    const fields = item.fields.map((field) => {
      if (field.required) return `${field.name} (required)`;
      if (field.default !== null && field.default !== "") return `${field.name}=${field.default}`;
      return field.name;
    });
    if (fields.length > 0) {
      output.line(`${" ".repeat(width)}  ${style.dim(`fields: ${fields.join(", ")}`)}`);
    }
  }
  output.line();
  output.line("add one: kiln add <reference> --name <name> [--set <field>=<value>]...");
  // the shortcut options, from the table `kiln add` parses them by
  const fields = FIELD_SHORTCUTS.map((shortcut) => shortcut.field);
  output.line(`(${fields.slice(0, -1).join(", ")} and ${fields.at(-1)} also have their own`);
  output.line(` options: ${FIELD_SHORTCUTS.map((shortcut) => `--${shortcut.option}`).join(", ")})`);
  return 0;
}
