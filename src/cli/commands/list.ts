// kiln list: the built-in components, for people or (--json) as GET /api/registry returns them.
import { toItemView } from "../../core/item.ts";
import { builtinRegistry } from "../../core/registry.ts";
import { flag, parse, positionals } from "../args.ts";
import type { Output } from "../output.ts";

export const help = `kiln list - show the built-in components

Usage: kiln list [--json]

Options:
  --json      print {"items": [...]} exactly as GET /api/registry returns it
  -h, --help  show this help

Examples:
  kiln list
  kiln list --json | jq -r '.items[].reference'
`;

export async function run(argv: string[], output: Output): Promise<number> {
  const parsed = parse(argv, { json: { type: "boolean" } });
  positionals(parsed, []);
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
  output.line("(image, replicas, port, target_port, namespace, host, path and service also have");
  output.line(" their own options, e.g. --image nginx:1.27 --target-port 8080)");
  return 0;
}
