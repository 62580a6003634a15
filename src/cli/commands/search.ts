// kiln search: finds items by name, title, description or category in the built-ins, @kiln and
// every configured registry's index (the matching rule: src/core/registry-search.ts), so you
// can find an item before you add it. A registry that cannot be read is a warning naming it;
// the others are still searched, and only when every source failed is it an error.
import { KilnError } from "../../core/errors.ts";
import { type SearchResult, searchResult } from "../../core/registry-search.ts";
import { RegistryClient } from "../../node/registry-client.ts";
import { type SearchAnswer, searchSources } from "../../node/registry-search.ts";
import { flag, stringOption } from "../args.ts";
import { SEARCH } from "../command-list.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";

export function help(): string {
  return commandHelp(SEARCH, {
    title: "find items in the built-ins and every registry",
    about: `Matches <query>, ignoring case, against each item's name, title, description and category,
in the built-in components, kiln's own registry @kiln and every registry configured in kiln.toml
and $XDG_CONFIG_HOME/kiln/config.toml. Best matches first: the exact name, then names that
start with the query, then names that contain it, then the other fields; ties keep the order of
the sources (built-ins, @kiln, then the registries by namespace). Without <query>, every item.
One line per item: its reference (what \`kiln add\` takes), its version and its title. A
registry that cannot be read is a warning; the search goes on with the others.`,
    examples: [
      "kiln search redis",
      "kiln search server --registry @kiln",
      "kiln search --json | jq -r '.[].reference'",
    ],
  });
}

/** `warning: ...` for each registry that could not be read; an error when nothing could be. */
export function reportFailures(answer: SearchAnswer, output: Output): void {
  if (answer.failures.length > 0 && answer.failures.length === answer.sources) {
    const names = answer.failures.map((failure) => failure.registry).join(", ");
    throw new KilnError(
      "invalid_request",
      `no registry could be searched (${names})`,
      answer.failures.map((failure) => failure.message).join("\n"),
    );
  }
  for (const failure of answer.failures) {
    output.warning(`${failure.registry} was not searched: ${failure.message}`);
  }
}

/** Each result on a line, in columns: reference, version (`built-in` for one), title. */
export function printResults(results: readonly SearchResult[], output: Output): void {
  const version = (result: SearchResult) => result.version ?? "built-in";
  const referenceWidth = Math.max(0, ...results.map((result) => result.reference.length));
  const versionWidth = Math.max(0, ...results.map((result) => version(result).length));
  const style = output.out;
  for (const result of results) {
    const title = result.title || result.description;
    output.line(
      `${style.bold(result.reference.padEnd(referenceWidth))}  ${version(result).padEnd(versionWidth)}  ${title}`.trimEnd(),
    );
  }
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, SEARCH);
  const query = args[0] ?? "";
  const registry = stringOption(parsed, "registry");
  // a registry that does not answer is searched in the index kiln's cache holds, with a warning
  const client = new RegistryClient(process.cwd(), {
    warn: (message) => output.warning(message),
  });
  const answer = await searchSources(client, query, registry);
  reportFailures(answer, output);
  if (flag(parsed, "json")) {
    output.json(answer.results.map(searchResult));
    return 0;
  }
  if (answer.results.length === 0) {
    output.line(`no item matches \`${query}\``);
    return 0;
  }
  printResults(answer.results, output);
  return 0;
}
