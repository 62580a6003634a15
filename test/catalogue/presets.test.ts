// Every built-in preset rendered as `kiln setup` would write it, then every file checked by the
// real tool that will read it: YAML parses, Kubernetes manifests validate strictly, inventories
// pass ansible-inventory, every playbook and site passes ansible-playbook --syntax-check from
// the output folder with cm.cfg, every .tf parses as HCL and Terraform (test/tools/hcl.ts).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { after, describe, test } from "node:test";
import { parseAllDocuments } from "yaml";
import {
  builtinPresets,
  type RenderedPresetFile,
  renderPreset,
} from "../../src/node/builtin-presets.ts";
import { builtinRenderer } from "../../src/node/builtin-renderer.ts";
import { ansibleInventoryGraph, ansibleSkip, ansibleSyntaxCheckAll } from "../tools/ansible.ts";
import {
  parseTerraform,
  terraformFolderDuplicates,
  terraformInit,
  terraformSkip,
} from "../tools/hcl.ts";
import { validateK8sManifest } from "../tools/k8s-schema.ts";

// the renderer kiln itself renders built-ins with: the compiled templates, or the sandboxed
// engine under KILN_ENGINE=sandbox (CI runs these suites both ways)
const engine = builtinRenderer();
const PLAYBOOK_COMPONENTS = ["automation/playbook", "automation/site", "automation/k8s-bootstrap"];

/**
 * What each preset renders, by the tool that reads it: every test below first checks its
 * preset's count, so a test over "every manifest" cannot pass by finding none (a preset that
 * lost its Kubernetes files fails here), and a preset without a kind says so in the test's name.
 */
interface FileCounts {
  files: number;
  yaml: number;
  manifests: number;
  terraform: number;
  inventories: number;
  playbooks: number;
}

const EXPECTED: Record<string, FileCounts> = {
  "k8s-web-app": { files: 7, yaml: 7, manifests: 7, terraform: 0, inventories: 0, playbooks: 0 },
  "single-server": { files: 10, yaml: 6, manifests: 0, terraform: 1, inventories: 1, playbooks: 2 },
  "bootstrap-cluster": {
    files: 20,
    yaml: 16,
    manifests: 0,
    terraform: 2,
    inventories: 1,
    playbooks: 3,
  },
  "web-and-database": {
    files: 25,
    yaml: 22,
    manifests: 0,
    terraform: 0,
    inventories: 1,
    playbooks: 4,
  },
  "multi-tier-platform": {
    files: 77,
    yaml: 73,
    manifests: 7,
    terraform: 1,
    inventories: 1,
    playbooks: 7,
  },
};

/** `every Kubernetes manifest (7) validates strictly`, or `has no Kubernetes manifest`. */
function title(count: number, what: string, check: string): string {
  return count === 0 ? `has no ${what}` : `every ${what} (${count}) ${check}`;
}

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
  const expected = EXPECTED[preset.name];
  describe(`preset ${preset.name}`, async () => {
    test("is listed in this test's table of file counts", () => assert.ok(expected));
    if (!expected) return;
    const files = await renderPreset(preset, { engine });
    const root = writeProject(files);
    after(() => rmSync(root, { recursive: true, force: true }));
    const yamlFiles = files.filter((f) => /\.ya?ml$/.test(f.path));
    const manifests = files.filter((f) => referenceOf(f).startsWith("k8s/"));
    const terraform = files.filter((f) => f.path.endsWith(".tf"));
    const inventories = files.filter((f) => f.path.endsWith(".ini"));
    const playbooks = files.filter((f) => PLAYBOOK_COMPONENTS.includes(referenceOf(f)));

    test("renders every component with no two files on one path", () => {
      assert.equal(files.length, expected.files);
    });

    test(title(expected.yaml, "YAML file", "parses"), () => {
      assert.equal(yamlFiles.length, expected.yaml);
      for (const file of yamlFiles) {
        for (const document of parseAllDocuments(file.content, { version: "1.1" }) as ReturnType<
          typeof parseAllDocuments
        > &
          unknown[]) {
          assert.deepEqual(document.errors, [], `${file.path}: ${document.errors.join("; ")}`);
        }
      }
    });

    test(title(expected.manifests, "Kubernetes manifest", "validates strictly"), () => {
      assert.equal(manifests.length, expected.manifests);
      for (const file of manifests) {
        for (const document of parseAllDocuments(file.content) as ReturnType<
          typeof parseAllDocuments
        > &
          unknown[]) {
          validateK8sManifest(document.toJS());
        }
      }
    });

    test(title(expected.terraform, ".tf file", "parses as Terraform"), async () => {
      assert.equal(terraform.length, expected.terraform);
      for (const file of terraform) await parseTerraform(file.content, file.path);
    });

    // Terraform loads a folder, not a file: every .tf of one folder is one configuration
    // (by hand: Map.groupBy is not in Node 20)
    const terraformFolders = new Map<string, RenderedPresetFile[]>();
    for (const file of terraform) {
      const folder = posix.dirname(file.path);
      terraformFolders.set(folder, [...(terraformFolders.get(folder) ?? []), file]);
    }

    test(title(expected.terraform, "Terraform folder", "declares everything once"), async () => {
      assert.equal(terraformFolders.size, expected.terraform, "one folder per server component");
      for (const [folder, folderFiles] of terraformFolders) {
        assert.deepEqual(await terraformFolderDuplicates(folderFiles), [], folder);
      }
    });

    if (expected.terraform > 0) {
      test(`every Terraform folder (${expected.terraform}) passes terraform init -backend=false`, {
        skip: terraformSkip(),
      }, async () => {
        assert.equal(terraformFolders.size, expected.terraform);
        for (const folder of terraformFolders.keys()) {
          assert.match(await terraformInit(join(root, folder)), /successfully initialized/);
        }
      });
    }

    test(title(expected.inventories, "inventory", "passes ansible-inventory --graph"), {
      skip: ansibleSkip(),
    }, () => {
      assert.equal(inventories.length, expected.inventories);
      for (const file of inventories) {
        const graph = ansibleInventoryGraph(join(root, file.path));
        assert.match(graph, /@all:/);
      }
    });

    test(title(
      expected.playbooks,
      "playbook and site",
      "passes ansible-playbook --syntax-check with cm.cfg",
    ), { skip: ansibleSkip() }, () => {
      assert.equal(playbooks.length, expected.playbooks);
      if (playbooks.length > 0)
        ansibleSyntaxCheckAll(
          root,
          playbooks.map((file) => file.path),
        );
    });
  });
}
