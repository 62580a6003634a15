// Rules about Terraform files. Terraform loads every `.tf` (and `.tf.json`) file of one folder
// as one configuration, and refuses it when a `required_providers` block, a variable, a
// provider, a resource or an output is declared twice there. Each component that writes
// Terraform writes a whole configuration (its provider requirements, token variable, provider
// block, resources and outputs), so two components writing Terraform into one folder make a
// folder Terraform refuses, although each file is valid alone.
import type { ProjectFacts } from "../facts.ts";
import { defineRule, type FindingParams, type Issue, quote, type RuleContext } from "./rule.ts";

/** A file Terraform loads as part of its folder's configuration. */
function isTerraformFile(path: string): boolean {
  return path.endsWith(".tf") || path.endsWith(".tf.json");
}

/** The folder part of a normalized path, with its trailing `/`; "" for the output folder. */
function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/") + 1);
}

/**
 * terraform-folder-shared's parts: the components and their folder; the variant
 * `outputFolder` when that is the output folder itself.
 */
function terraformFolderSharedParams(
  context: RuleContext,
  components: readonly number[],
  folder: string,
): FindingParams {
  const shared = { components: components.map(context.named), folder };
  return folder === "" ? { ...shared, variant: "outputFolder" } : shared;
}

/**
 * Components whose Terraform files share a folder: Terraform would refuse the folder for the
 * duplicate declarations (two components writing one path are the duplicate-path rule's).
 */
function terraformFolderShared(facts: ProjectFacts, context: RuleContext): Issue[] {
  const componentsByFolder = new Map<string, number[]>();
  for (const { path, components } of facts.written.values()) {
    if (!isTerraformFile(path)) continue;
    const folder = folderOf(path);
    const writers = componentsByFolder.get(folder) ?? [];
    for (const component of components) {
      if (!writers.includes(component)) writers.push(component);
    }
    componentsByFolder.set(folder, writers);
  }
  const issues: Issue[] = [];
  for (const [folder, components] of componentsByFolder) {
    if (components.length < 2) continue;
    const where = folder === "" ? "the output folder" : quote(folder);
    issues.push({
      message: `${components.map(context.who).join(" and ")} all write Terraform files into ${where}, which Terraform loads as one configuration: their provider requirements, token variables, providers, resources or outputs are declared twice there and \`terraform init\` refuses the folder - give each component its own folder`,
      components,
      params: terraformFolderSharedParams(context, components, folder),
    });
  }
  return issues;
}

export const TERRAFORM_FOLDER_SHARED = defineRule({
  id: "terraform-folder-shared",
  severity: "error",
  summary: "two components write Terraform files into one folder, which Terraform refuses",
  fix: "give each Terraform component its own folder, since Terraform reads every .tf file of a folder as one configuration",
  check: terraformFolderShared,
});
