// Every built-in preset rendered as `kiln setup` would write it, then every file checked by the
// real tool that will read it: YAML parses, Kubernetes manifests validate strictly, inventories
// pass ansible-inventory, every playbook and site passes ansible-playbook --syntax-check from
// the output folder with cm.cfg, every .tf parses with HashiCorp's HCL parser.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { TemplateEngine } from "../../src/core/engine.ts";
import { builtinPresets, type RenderedPresetFile, renderPreset } from "../../src/core/preset.ts";
import { ansibleInventoryGraph, ansibleSkip, ansibleSyntaxCheck } from "../tools/ansible.ts";
import { parseTerraform } from "../tools/hcl.ts";
import { validateK8sManifest } from "../tools/k8s-schema.ts";

const engine = new TemplateEngine();
const PLAYBOOK_COMPONENTS = ["automation/playbook", "automation/site", "automation/k8s-bootstrap"];

const EXPECTED_FILE_COUNTS: Record<string, number> = {
  "k8s-web-app": 7,
  "single-server": 10,
  "bootstrap-cluster": 20,
  "web-and-database": 25,
  "multi-tier-platform": 77,
};

function writeProject(files: RenderedPresetFile[]): string {
  const root = mkdtempSync(join(tmpdir(), "kiln-preset-"));
  for (const file of files) {
    mkdirSync(dirname(join(root, file.path)), { recursive: true });
    writeFileSync(join(root, file.path), file.content);
  }
  return root;
}

const referenceOf = (file: RenderedPresetFile) => file.component.split(" ")[0] as string;

for (const preset of builtinPresets()) {
  describe(`preset ${preset.name}`, async () => {
    const files = await renderPreset(preset, { engine });
    const root = writeProject(files);

    test("renders every component with no two files on one path", () => {
      assert.equal(files.length, EXPECTED_FILE_COUNTS[preset.name]);
    });

    test("every YAML file parses", () => {
      for (const file of files.filter((f) => /\.ya?ml$/.test(f.path))) {
        for (const document of parseAllDocuments(file.content, { version: "1.1" }) as ReturnType<
          typeof parseAllDocuments
        > &
          unknown[]) {
          assert.deepEqual(document.errors, [], `${file.path}: ${document.errors.join("; ")}`);
        }
      }
    });

    test("every Kubernetes manifest validates strictly", () => {
      const manifests = files.filter((f) => referenceOf(f).startsWith("k8s/"));
      for (const file of manifests) {
        for (const document of parseAllDocuments(file.content) as ReturnType<
          typeof parseAllDocuments
        > &
          unknown[]) {
          validateK8sManifest(document.toJS());
        }
      }
    });

    test("every .tf file parses as Terraform", async () => {
      for (const file of files.filter((f) => f.path.endsWith(".tf"))) {
        await parseTerraform(file.content, file.path);
      }
    });

    test("every inventory passes ansible-inventory --graph", { skip: ansibleSkip() }, () => {
      const inventories = files.filter((f) => f.path.endsWith(".ini"));
      for (const file of inventories) {
        const graph = ansibleInventoryGraph(join(root, file.path));
        assert.match(graph, /@all:/);
      }
    });

    test("every playbook and the site pass ansible-playbook --syntax-check with cm.cfg", {
      skip: ansibleSkip(),
    }, () => {
      const playbooks = files.filter((f) => PLAYBOOK_COMPONENTS.includes(referenceOf(f)));
      if (preset.components.some((c) => c.reference.startsWith("automation/"))) {
        assert.ok(playbooks.length > 0, "a preset with automation has playbooks");
      }
      for (const file of playbooks) ansibleSyntaxCheck(root, file.path);
    });
  });
}
