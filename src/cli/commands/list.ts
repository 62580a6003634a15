// kiln list: the built-in components, for people or (--json) as GET /api/registry returns them;
// `kiln list @acme`: one registry's items, as `kiln search --registry @acme` prints them.
import { toItemView } from "../../core/item.ts";
import { isNamespace } from "../../core/registry-config.ts";
import { searchResult } from "../../core/registry-search.ts";
import { FIELD_SHORTCUTS } from "../../core/shortcuts.ts";
import { builtinRegistry } from "../../node/builtin-registry.ts";
import { flag, UsageError } from "../args.ts";
import { LIST } from "../command-list.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";

export function help(): string {
  return commandHelp(LIST, {
    title: "show the built-in components",
    about: `With <registry> (\`@kiln\`, or a namespace configured in kiln.toml or the user's
config.toml), lists that registry's items from its index instead, one line each: reference,
version, title (--json: {"items": [...]}, each item as \`kiln search --json\` prints it).`,
    examples: ["kiln list", "kiln list --json | jq -r '.items[].reference'", "kiln list @kiln"],
  });
}

/** `kiln list @acme`: the registry's index, in its order. */
async function listRegistry(namespace: string, json: boolean, output: Output): Promise<number> {
  const { RegistryClient } = await import("../../node/registry-client.ts");
  const { registryResults } = await import("../../node/registry-search.ts");
  const { findProjectRoot } = await import("../project-root.ts");
  const { printResults } = await import("./search.ts");
  const cwd = process.cwd();
  const client = new RegistryClient(findProjectRoot(cwd) ?? cwd, {
    warn: (message) => output.warning(message),
  });
  const results = await registryResults(client, namespace);
  if (json) output.json({ items: results.map(searchResult) });
  else printResults(results, output);
  return 0;
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, LIST);
  const [registry] = args;
  if (registry !== undefined) {
    // anything that is not `@...` is the argument `kiln list` has always refused, as it was
    if (!registry.startsWith("@")) throw new UsageError(`unexpected argument \`${registry}\``);
    if (!isNamespace(registry)) {
      throw new UsageError(
        `\`${registry}\` is not a registry - kiln list takes a namespace such as @kiln, or nothing for the built-ins`,
      );
    }
    return listRegistry(registry, flag(parsed, "json"), output);
  }
  const items = builtinRegistry().items.map(toItemView);
  if (flag(parsed, "json")) {
    output.json({ items });
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
