import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parse } from "smol-toml";
import { KilnError } from "../../src/core/errors.ts";
import { parseProjectConfig, serializeProjectConfig } from "../../src/core/project/kiln-toml.ts";

describe("kiln.toml", () => {
  test("one [project] table with name, default_namespace, output_dir", () => {
    const text = serializeProjectConfig({
      name: "web-app",
      defaultNamespace: "web",
      outputDir: "k8s",
    });
    assert.deepEqual(JSON.parse(JSON.stringify(parse(text))), {
      project: { name: "web-app", default_namespace: "web", output_dir: "k8s" },
    });
    assert.ok(text.startsWith("[project]\n"));
    assert.ok(text.endsWith("\n"));
  });

  test("round-trips awkward values", () => {
    const config = {
      name: 'my "app" # 1',
      defaultNamespace: "ns",
      outputDir: "deploy/k8s files",
      automationProfile: "cm" as const,
    };
    assert.deepEqual(parseProjectConfig(serializeProjectConfig(config)), config);
  });

  test("missing keys take the compiled-in defaults", () => {
    assert.deepEqual(parseProjectConfig("[project]\n"), {
      name: "kiln-project",
      defaultNamespace: "default",
      outputDir: "k8s",
      automationProfile: "cm",
    });
  });

  test("automation_profile: written only when it is not the spec's `cm`, read back, and checked", () => {
    const base = { name: "p", defaultNamespace: "d", outputDir: "o" };
    assert.doesNotMatch(serializeProjectConfig({ ...base, automationProfile: "cm" }), /automation/);
    const ansible = serializeProjectConfig({ ...base, automationProfile: "ansible" });
    assert.match(ansible, /^automation_profile = "ansible"$/m);
    assert.equal(parseProjectConfig(ansible).automationProfile, "ansible");
    assert.throws(
      () => parseProjectConfig('[project]\nautomation_profile = "chef"\n'),
      /project\.automation_profile must be one of `cm`, `ansible`, got "chef"/,
    );
  });

  test("invalid TOML says what to do", () => {
    assert.throws(
      () => parseProjectConfig("[project\n"),
      (error: unknown) => error instanceof KilnError && /kiln init --force/.test(error.message),
    );
  });
});
