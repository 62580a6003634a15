// kiln render: prints the files a component or a preset renders to, like `helm template`, for
// pipes, CI and review. Writes nothing and needs no kiln.toml. A component renders as `add`
// renders it (built-ins here, other items in the sandboxed worker); a preset goes through the
// project pipeline as `apply` does (preset-run.ts), stopping at the first component that fails.
import { DEFAULT_NAMESPACE, PRESET_SUFFIX } from "../../core/config.ts";
import { isKilnError, reworded } from "../../core/errors.ts";
import type { PlannedFile } from "../../core/plan.ts";
import { FIELD_SHORTCUTS } from "../../core/shortcuts.ts";
import { builtinRegistry } from "../../node/builtin-registry.ts";
import { builtinFor } from "../../node/resolve-reference.ts";
import { flag, listOption, type Parsed, stringOption, UsageError } from "../args.ts";
import { RENDER } from "../command-list.ts";
import { fieldValues, labelValues } from "../fields.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { namesAPreset, renderWholePreset } from "../preset-run.ts";
import { renderComponent } from "../render-component.ts";

export function help(): string {
  return commandHelp(RENDER, {
    title: "print the files a component or a preset renders to",
    about: `Prints every rendered file to stdout, for pipes, CI and review; writes nothing and needs no
kiln.toml. Each file is \`# Source: <path>\` and its content; a YAML file is preceded by \`---\`
(unless it starts with one), so a run of YAML files is one YAML stream for \`kubectl apply -f -\`.

<reference|preset> is read as a preset when --preset is given, when it is not a built-in
component but is a built-in template name (\`kiln presets\`), or when it ends in .preset.json
(a file or URL); otherwise as a component: a built-in (\`kiln list\`), a URL or a registry-item
JSON file. A component needs --name and renders in namespace \`${DEFAULT_NAMESPACE}\` unless
--namespace or --set namespace=... says otherwise; a preset's components carry their own names
and values, so --name, --set, --label and the shortcut options are for components only.`,
    examples: [
      "kiln render k8s/deployment --name web --image nginx:1.27",
      "kiln render k8s-web-app | kubectl apply --dry-run=client -f -",
      "kiln render ./shop.preset.json --json | jq -r '.files[].path'",
      "kiln render ./platform.json --preset",
    ],
  });
}

/**
 * Is `reference` a preset (rather than a component)? --preset says so; otherwise a built-in
 * component comes first (any reference's last segment is first looked up as a built-in name),
 * then a built-in template name, then a file or URL whose name ends in `.preset.json`.
 */
export function isPresetReference(reference: string, forced: boolean): boolean {
  if (forced) return true;
  if (builtinFor(reference, builtinRegistry())) return false;
  return namesAPreset(reference);
}

/** The options that give one component its values, as typed (for the preset's refusal). */
function componentOptionsIn(parsed: Parsed): string[] {
  const given: string[] = [];
  if (stringOption(parsed, "name") !== undefined) given.push("--name");
  for (const name of ["set", "label"])
    if (listOption(parsed, name).length > 0) given.push(`--${name}`);
  for (const { option } of FIELD_SHORTCUTS) {
    if (stringOption(parsed, option) !== undefined) given.push(`--${option}`);
  }
  return given;
}

/** A component reference that did not resolve may have been meant as a preset: say how. */
function withPresetHint(error: unknown, reference: string): unknown {
  if (!isKilnError(error)) return error;
  const unresolved =
    error.message.startsWith(`\`${reference}\` is not a built-in component`) ||
    error.message.startsWith(`${reference} is not a valid registry item`);
  if (!unresolved) return error;
  const hint = `kiln render read it as a component; for a preset, pass --preset (built-in template names and names ending in ${PRESET_SUFFIX} are read as presets without it)`;
  return reworded(error, error.message, error.detail ? `${error.detail}\n${hint}` : hint);
}

/** A YAML file by its name: one that `---` may separate from the file before it. */
function isYaml(path: string): boolean {
  return /\.ya?ml$/i.test(path);
}

/** Starts with a document marker of its own (`---` alone or before content on its line). */
function startsWithDocumentMarker(content: string): boolean {
  return /^---(?:[ \t\r\n]|$)/.test(content);
}

/**
 * Each file as `# Source: <path>` then its content, exactly as rendered (a line break is added
 * after content that lacks a final one, so the next header starts a line). A YAML file gets
 * `---` before its header, unless its content begins with `---` itself. The header's path goes
 * through the output's escaping like any path kiln prints; the content is the user's file,
 * written as it is into pipes and files and with its control sequences escaped on a terminal.
 */
export function printFiles(output: Output, files: readonly PlannedFile[]): void {
  for (const file of files) {
    const ownMarker = startsWithDocumentMarker(file.content);
    if (isYaml(file.path) && !ownMarker) output.line("---");
    output.line(`# Source: ${file.path}`);
    if (file.content === "") continue;
    output.content(file.content.endsWith("\n") ? file.content : `${file.content}\n`);
  }
}

/** `{path, content}` of each file: the API's file shape, nothing else. */
function fileViews(files: readonly PlannedFile[]): PlannedFile[] {
  return files.map((file) => ({ path: file.path, content: file.content }));
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, RENDER);
  const [reference] = args as [string];
  const json = flag(parsed, "json");
  const cwd = process.cwd();

  if (isPresetReference(reference, flag(parsed, "preset"))) {
    const given = componentOptionsIn(parsed);
    if (given.length > 0) {
      throw new UsageError(
        `${given.join(", ")} ${given.length === 1 ? "is" : "are"} for a component - a preset's components carry their own names and values`,
      );
    }
    const { files } = await renderWholePreset(reference, cwd);
    if (json) output.json({ files: fileViews(files) });
    else printFiles(output, files);
    return 0;
  }

  const name = stringOption(parsed, "name");
  if (name === undefined || name === "") {
    throw new UsageError(`missing --name <name> - e.g. kiln render ${reference} --name web`);
  }
  const fields = fieldValues(parsed);
  const labels = labelValues(parsed);
  let result: Awaited<ReturnType<typeof renderComponent>>;
  try {
    // built-ins render here; items from files and URLs in a worker, within time and memory limits
    result = await renderComponent(
      cwd,
      reference,
      { name, fields, labels, defaultNamespace: DEFAULT_NAMESPACE },
      (message) => output.warning(message),
    );
  } catch (error) {
    throw withPresetHint(error, reference);
  }
  if (json) {
    // POST /api/render's answer: the component's name and its files
    output.json({ component: result.component, files: fileViews(result.files) });
  } else {
    printFiles(output, result.files);
  }
  return 0;
}
