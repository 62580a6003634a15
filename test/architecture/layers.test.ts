// The folders are the layers, and the imports keep them: dependency-cruiser reads the real
// import graph of src/ and web/src/ (TypeScript, type-only imports included) and every rule of
// layers.ts must hold. A second run over a small fixture tree that breaks each rule once shows
// that each rule does catch its break, so this test can fail.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cruise, type IViolation } from "dependency-cruiser";
import { REPO } from "../cli/helpers.ts";
import { layerRules } from "./layers.ts";

const FIXTURE = "test/architecture/fixtures";

async function violations(paths: string[], root: string, web: string): Promise<IViolation[]> {
  const previous = process.cwd();
  process.chdir(REPO);
  try {
    const result = await cruise(paths, {
      validate: true,
      ruleSet: { forbidden: layerRules(root, web) },
      tsPreCompilationDeps: true,
      tsConfig: { fileName: "tsconfig.json" },
      doNotFollow: { path: "node_modules" },
      exclude: { path: "\\.(json|css|j2|cjs)$" },
    });
    if (typeof result.output === "string") throw new Error(result.output);
    return result.output.summary.violations;
  } finally {
    process.chdir(previous);
  }
}

function shown(found: readonly IViolation[]): string {
  return found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).join("\n");
}

describe("the folders are the layers", () => {
  it("src/ and web/src/ keep every rule: arrows point down, core is browser-safe, no cycles", async () => {
    const found = await violations(["src", "web/src"], "src", "web/src");
    assert.deepEqual(found, [], shown(found));
  });

  it("each rule catches its break (a fixture tree breaks each once)", async () => {
    const found = await violations(
      [`${FIXTURE}/src`, `${FIXTURE}/web`],
      `${FIXTURE}/src`,
      `${FIXTURE}/web`,
    );
    const broken = [...new Set(found.map((violation) => violation.rule.name))].sort();
    const rules = layerRules("src", "web/src")
      .map((rule) => rule.name)
      .sort();
    assert.deepEqual(broken, rules, shown(found));
  });
});
