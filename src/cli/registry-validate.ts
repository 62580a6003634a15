// `kiln registry validate`: every item of a registry's source folder checked as a client will
// meet it, so a registry can be checked in its own CI before it is published. Per item:
//
// 1. it reads as a registry item (the schema and kiln's reading of it, as `build` publishes it:
//    component.json, template files, version, name);
// 2. it renders, in the sandboxed worker that renders every item that is not built in (a
//    stranger's template never runs anywhere else), twice: with every field that has an example
//    or a default set to it (the example first), and with only the required fields set - so
//    both branches of an optional field are rendered. A required field with neither is a
//    problem: nobody could try the item. Values are checked against the fields' formats as
//    `kiln add` checks them, and the rendered paths against the rules of every write;
// 3. each rendered file goes through the real tools of src/node/registry-tool-checks.ts.
//
// Every problem is one line naming the item, the file and what is wrong; the last line sums up.

import { DEFAULT_NAMESPACE } from "../core/config.ts";
import type { RenderInput } from "../core/context.ts";
import type { DependencyRequest } from "../core/dependencies.ts";
import { errorMessage, KilnError } from "../core/errors.ts";
import { exampleValues, type RegistryItem } from "../core/item.ts";
import { checkPlannedPaths } from "../core/plan.ts";
import { plural } from "../core/plural.ts";
import { readRegistrySource, type SourceItem } from "../node/registry-build.ts";
import {
  checkRenderedFiles,
  TOOL_NOTES,
  type ToolName,
  type ToolProblem,
} from "../node/registry-tool-checks.ts";
import { dependencyReferenceProblem } from "./add-dependencies.ts";
import type { Output } from "./output.ts";
import { ComponentRenderer } from "./render-component.ts";

/** One item's outcome. */
interface ItemReport {
  /** `<name> <version>` (and its folder when named otherwise), or the folder when the item did not read. */
  label: string;
  problems: string[];
  checks: Set<string>;
  files: number;
}

/** Required fields nobody could fill from the item itself. */
function unfillable(item: RegistryItem): string[] {
  return item.fields
    .filter((field) => field.required && field.example === undefined && field.default === undefined)
    .map((field) => field.name);
}

/** An error's message, and the first line of its detail when it has one. */
function detailed(error: unknown): string {
  const detail =
    error instanceof KilnError && error.detail ? ` (${error.detail.split("\n")[0]})` : "";
  return `${errorMessage(error)}${detail}`;
}

async function validateItem(
  renderer: ComponentRenderer,
  source: SourceItem,
  missing: Set<ToolName>,
): Promise<ItemReport> {
  const { item } = source;
  const report: ItemReport = {
    label: `${item.name} ${source.version}${source.folder === item.name ? "" : ` (${source.folder})`}`,
    problems: [],
    checks: new Set(["schema"]),
    files: 0,
  };
  const lacking = unfillable(item);
  if (lacking.length > 0) {
    report.problems.push(
      `component.json: ${lacking.length === 1 ? "a required field" : "required fields"} without an example or default: ${lacking.join(", ")} - give ${lacking.length === 1 ? "it" : "each"} an \`example\` so the item can be tried`,
    );
    return report;
  }
  const seen = new Set<string>();
  for (const all of [true, false]) {
    const fields = exampleValues(item, all);
    const key = JSON.stringify(fields);
    if (seen.has(key)) continue;
    seen.add(key);
    const input: RenderInput = { name: item.name, fields, defaultNamespace: DEFAULT_NAMESPACE };
    const how = all ? "with its examples and defaults" : "with its required fields only";
    let files: { path: string; content: string }[];
    try {
      files = (await renderer.renderIsolated(item, input, item.name)).files;
      checkPlannedPaths(files);
    } catch (error) {
      report.problems.push(`rendered ${how}: ${detailed(error)}`);
      continue;
    }
    report.checks.add("render");
    // once, with the examples: the other render's values would give the same problems again
    const dependencyProblems = all ? await checkDependencies(renderer, item, input) : [];
    report.problems.push(...dependencyProblems.map((problem) => `${problem} (rendered ${how})`));
    if (item.dependencies?.length && dependencyProblems.length === 0) {
      report.checks.add("dependencies");
    }
    report.files = Math.max(report.files, files.length);
    const checked = checkRenderedFiles(files);
    for (const name of checked.missing) missing.add(name);
    for (const name of checked.ran) report.checks.add(name);
    for (const problem of checked.problems) report.problems.push(problemLine(problem, how));
  }
  return report;
}

/**
 * What `kiln add` would refuse in the item's dependencies before fetching any: a template that
 * does not render, an empty name, a reference that is not a built-in, a registry's item or a
 * URL. (The dependencies themselves are not fetched: they may live in registries the author's
 * CI does not configure.)
 */
async function checkDependencies(
  renderer: ComponentRenderer,
  item: RegistryItem,
  input: RenderInput,
): Promise<string[]> {
  if (!item.dependencies?.length) return [];
  let rendered: DependencyRequest[];
  try {
    rendered = await renderer.dependenciesOf(item, input, false, item.name);
  } catch (error) {
    return [`dependencies: ${detailed(error)}`];
  }
  const problems: string[] = [];
  for (const [index, dependency] of rendered.entries()) {
    const refused = dependencyReferenceProblem(renderer, dependency.reference);
    if (refused !== undefined) problems.push(`dependencies[${index}]: ${refused}`);
    if (dependency.name.trim() === "") {
      problems.push(`dependencies[${index}].name renders empty: a dependency needs a name`);
    }
  }
  return problems;
}

function problemLine(problem: ToolProblem, how: string): string {
  return `${problem.path} (rendered ${how}): ${problem.problem}`;
}

/**
 * Validates the registry source folder `dir` (`shown` as typed) and prints one line per item,
 * one per problem, the tools that were not installed, and a summary. True when every item
 * passed.
 */
export async function validateRegistry(
  dir: string,
  shown: string,
  output: Output,
): Promise<boolean> {
  const byFolder = new Map<string, ItemReport>();
  const source = readRegistrySource(dir, shown, (folder, error) => {
    byFolder.set(folder, {
      label: folder,
      problems: [detailed(error)],
      checks: new Set(),
      files: 0,
    });
  });
  const missing = new Set<ToolName>();
  const renderer = new ComponentRenderer(process.cwd());
  try {
    for (const item of source.items) {
      byFolder.set(item.folder, await validateItem(renderer, item, missing));
    }
  } finally {
    await renderer.close();
  }
  // in the manifest's order, whichever way each was found
  const reports = source.manifest.items.flatMap((folder) => byFolder.get(folder) ?? []);
  const style = output.out;
  for (const report of reports) {
    if (report.problems.length === 0) {
      const files = plural(report.files, "file");
      output.line(
        `${style.green("ok".padEnd(6))} ${report.label}: ${files}, checked: ${[...report.checks].join(", ")}`,
      );
      continue;
    }
    output.line(`${style.red("error".padEnd(6))} ${report.label}`);
    for (const problem of report.problems)
      output.line(`  ${report.label.split(" ")[0]}: ${problem}`);
  }
  for (const name of missing) output.line(`${style.yellow("skipped:")} ${TOOL_NOTES[name]}`);
  const failed = reports.filter((report) => report.problems.length > 0).length;
  const items = plural(reports.length, "item");
  output.line(
    failed === 0
      ? `validated registry ${source.manifest.name}: ${items}, all passed`
      : `validated registry ${source.manifest.name}: ${items}, ${failed} failed`,
  );
  return failed === 0;
}
