// The automation tool profile in the core: the spec's names by default, the real tool's under
// `ansible`, read by templates as `automation_profile` and by an item's `kiln.profilePaths`.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseRegistryItem } from "../../src/core/item.ts";
import { parsePreset } from "../../src/core/project/preset-manifest.ts";
import { renderItem } from "../../src/core/render-item.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { TemplateEngine } from "../../src/node/template-engine.ts";

const engine = new TemplateEngine();
const hosts = JSON.stringify([
  {
    group: "web",
    members: [{ name: "w1", cm_host: "10.0.0.1", cm_port: 2222, ssh_key_file: "k" }],
  },
]);

function render(reference: string, fields: Record<string, string>, profile?: "cm" | "ansible") {
  const item = builtinRegistry().byComponentName(reference) as Parameters<typeof renderItem>[1];
  return renderItem(engine, item, {
    name: "p",
    fields,
    defaultNamespace: "default",
    automationProfile: profile,
  }).files;
}

describe("automation tool profile", () => {
  test("by default (and with `cm`) the inventory and config use the spec's names, byte for byte", () => {
    for (const profile of [undefined, "cm"] as const) {
      assert.deepEqual(render("inventory", { hosts }, profile), [
        {
          path: "p-inventory.ini",
          content:
            "[web]\nw1 cm_host=10.0.0.1 cm_user=root cm_port=2222 cm_ssh_private_key_file=k\n",
        },
      ]);
      assert.deepEqual(render("config", { inventory: "p-inventory.ini" }, profile), [
        {
          path: "cm.cfg",
          content: "[defaults]\ninventory = p-inventory.ini\nroles_path = roles\n",
        },
      ]);
    }
  });

  test("`ansible` writes the names the real tool reads: ansible_* and ansible.cfg", () => {
    assert.deepEqual(render("inventory", { hosts }, "ansible"), [
      {
        path: "p-inventory.ini",
        content:
          "[web]\nw1 ansible_host=10.0.0.1 ansible_user=root ansible_port=2222 ansible_ssh_private_key_file=k\n",
      },
    ]);
    assert.equal(render("config", {}, "ansible")[0]?.path, "ansible.cfg");
  });

  test("any template reads it as `automation_profile`; a field of that name wins", () => {
    const item = parseRegistryItem(
      {
        name: "x",
        category: "c",
        files: [{ path: "{{ automation_profile }}.txt", template: "{{ automation_profile }}" }],
        kiln: { profilePaths: { ansible: { __proto__: "evil", "ansible.txt": "renamed.txt" } } },
      },
      "x",
    );
    const files = (profile: "cm" | "ansible", fields: Record<string, string> = {}) =>
      renderItem(engine, item, {
        name: "n",
        fields,
        defaultNamespace: "d",
        automationProfile: profile,
      }).files;
    assert.deepEqual(files("cm"), [{ path: "cm.txt", content: "cm" }]);
    assert.deepEqual(files("ansible"), [{ path: "renamed.txt", content: "ansible" }]);
    assert.deepEqual(files("ansible", { automation_profile: "own" }), [
      { path: "own.txt", content: "own" },
    ]);
  });

  test("a preset's project may set it; an unknown value is an invalid preset", () => {
    const preset = (project: unknown) => JSON.stringify({ name: "p", project, components: [] });
    assert.equal(
      parsePreset(preset({ automationProfile: "ansible" }), "p").project?.automationProfile,
      "ansible",
    );
    assert.throws(
      () => parsePreset(preset({ automationProfile: "chef" }), "p.json"),
      (error: Error & { detail?: string }) =>
        /is not a valid preset manifest/.test(error.message) &&
        /project\.automationProfile: unknown variant, expected `cm` or `ansible`/.test(
          error.detail ?? "",
        ),
    );
  });
});
