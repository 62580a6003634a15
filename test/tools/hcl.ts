// Parsing HCL with a real HCL parser: `@cdktf/hcl2json` is HashiCorp's Go HCL v2 library
// compiled to WASM, so what parses here parses in Terraform, and a parse error is Terraform's.
import { parse } from "@cdktf/hcl2json";

/**
 * The JSON form of an HCL file, as hcl2json gives it: blocks become nested objects keyed by type
 * and labels, each block body in a list (`resource.hcloud_server.web[0].count`). Literal strings
 * come back evaluated but written the way Terraform's JSON syntax writes them, so a literal `${`
 * or `%{` reads `$${` or `%%{` (see `hclJsonLiteral`); expressions come back as `${expression}`.
 */
export type HclJson = Record<string, unknown>;

/** Parses HCL text; throws the parser's diagnostics when it is not valid HCL. */
export async function parseHcl(text: string, filename = "main.tf"): Promise<HclJson> {
  try {
    return await parse(filename, text);
  } catch (error) {
    throw new Error(`${filename} is not valid HCL: ${String(error)}`);
  }
}

/** Terraform's rule for a block label that names something: resources, variables, outputs… */
const TERRAFORM_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const NAMED_BLOCKS: Record<string, number> = {
  resource: 2, // resource "type" "name"
  data: 2,
  variable: 1,
  output: 1,
  module: 1,
};

/**
 * Parses a Terraform file: `parseHcl`, then Terraform's naming rule on every resource, data,
 * variable, output and module name (letters, digits, `_`, `-`, starting with a letter or `_`),
 * which HCL alone does not check. Throws on either failure.
 */
export async function parseTerraform(text: string, filename = "main.tf"): Promise<HclJson> {
  const json = await parseHcl(text, filename);
  const bad: string[] = [];
  for (const [block, depth] of Object.entries(NAMED_BLOCKS)) {
    const body = json[block];
    if (typeof body !== "object" || body === null) continue;
    const names =
      depth === 1
        ? Object.keys(body)
        : Object.values(body).flatMap((byName) => Object.keys(byName as object));
    for (const name of names) {
      if (!TERRAFORM_NAME.test(name)) bad.push(`${block} name ${JSON.stringify(name)}`);
    }
  }
  if (bad.length > 0) {
    throw new Error(`${filename} has invalid Terraform names: ${bad.join(", ")}`);
  }
  return json;
}

/**
 * The string a literal in `parseHcl`'s output stands for: undoes Terraform JSON syntax's
 * doubling of `${` and `%{` (`"a$${b}"` → `a${b}`).
 */
export function hclJsonLiteral(value: string): string {
  return value.replace(/([$%])\1\{/g, "$1{");
}
