import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { KilnError } from "../../src/core/errors.ts";
import { parsePreset, presetSummary, presetView } from "../../src/core/project/preset-manifest.ts";
import { builtinPresets, loadPreset, unlistedPresetFiles } from "../../src/node/builtin-presets.ts";
import { kilnErrorFrom } from "../tools/spec.ts";

describe("preset manifest", () => {
  test("only components is required; unknown keys are ignored", () => {
    const preset = parsePreset(
      JSON.stringify({
        components: [{ reference: "k8s/service", name: "web", extra: 1 }],
        version: 2,
      }),
      "p.json",
    );
    assert.deepEqual(preset, {
      name: "",
      title: "",
      description: "",
      project: undefined,
      components: [{ reference: "k8s/service", name: "web", fields: {}, labels: {} }],
    });
  });

  test("a non-string field value fails with the spec's message and a serde-style parse message", () => {
    const error = kilnErrorFrom(() =>
      parsePreset(
        JSON.stringify({
          components: [{ reference: "k8s/deployment", name: "w", fields: { replicas: 3 } }],
        }),
        "my.preset.json",
      ),
    );
    assert.equal(error.message, "my.preset.json is not a valid preset manifest");
    assert.equal(
      error.detail,
      "components[0].fields.replicas: invalid type: integer `3`, expected a string",
    );
  });

  test("missing components, a component without name, and non-JSON are invalid", () => {
    assert.equal(kilnErrorFrom(() => parsePreset("{}", "a")).detail, "missing field `components`");
    assert.equal(
      kilnErrorFrom(() => parsePreset('{"components":[{"reference":"x"}]}', "a")).detail,
      "components[0]: missing field `name`",
    );
    assert.equal(
      kilnErrorFrom(() => parsePreset("{", "a")).message,
      "a is not a valid preset manifest",
    );
  });
});

describe("built-in preset templates", () => {
  const expected = [
    ["k8s-web-app", "Kubernetes-style web app", 7],
    ["single-server", "Single server with automation", 7],
    ["bootstrap-cluster", "Cluster bootstrapped with a bootstrap tool", 11],
    ["web-and-database", "Web servers and a database", 13],
    ["multi-tier-platform", "Multi-tier platform", 35],
  ] as const;

  test("five templates with the spec's names, titles and component counts, in order", () => {
    assert.deepEqual(
      builtinPresets().map((preset) => {
        const summary = presetSummary(preset);
        return [summary.name, summary.title, summary.componentCount];
      }),
      expected,
    );
    assert.deepEqual(unlistedPresetFiles(), []);
    for (const preset of builtinPresets()) assert.ok(preset.description.length > 20, preset.name);
  });

  test("k8s-web-app: project web-app, namespace web, output k8s", () => {
    const view = presetView(builtinPresets()[0] as never);
    assert.deepEqual(view.project, { name: "web-app", namespace: "web", outputDir: "k8s" });
  });

  test("the other four write to infra; multi-tier-platform uses namespace shop", () => {
    for (const preset of builtinPresets().slice(1)) {
      assert.equal(preset.project?.outputDir, "infra", preset.name);
      assert.equal(
        preset.project?.namespace,
        preset.name === "multi-tier-platform" ? "shop" : "default",
      );
    }
  });

  test("every template with automation components also has automation/config", () => {
    for (const preset of builtinPresets()) {
      const references = preset.components.map((component) => component.reference);
      if (references.some((reference) => reference.startsWith("automation/"))) {
        assert.ok(references.includes("automation/config"), preset.name);
      }
    }
  });

  test("every field value of a template is a string", () => {
    for (const preset of builtinPresets()) {
      for (const component of preset.components) {
        for (const value of Object.values(component.fields)) assert.equal(typeof value, "string");
      }
    }
  });

  test("the API view has every key, with {} for missing fields and labels and null project name", () => {
    const view = presetView(parsePreset('{"components":[{"reference":"r","name":"n"}]}', "x"));
    assert.deepEqual(view, {
      name: "",
      title: "",
      description: "",
      project: { name: null, namespace: "default", outputDir: "k8s" },
      components: [{ reference: "r", name: "n", fields: {}, labels: {} }],
    });
  });
});

describe("preset lookup order", () => {
  const dir = mkdtempSync(join(tmpdir(), "kiln-presets-"));
  const local = { name: "local", components: [{ reference: "k8s/service", name: "svc" }] };
  writeFileSync(join(dir, "k8s-web-app"), JSON.stringify(local));
  writeFileSync(join(dir, "mine.preset.json"), JSON.stringify(local));

  test("a template name wins over a local file of the same name; ./ loads the file", async () => {
    assert.equal((await loadPreset("k8s-web-app", { cwd: dir })).name, "k8s-web-app");
    assert.equal((await loadPreset("./k8s-web-app", { cwd: dir })).name, "local");
  });

  test("any local file name is accepted, relative to the working directory", async () => {
    assert.equal((await loadPreset("mine.preset.json", { cwd: dir })).name, "local");
  });

  test("an http(s) URL is fetched", async () => {
    const server = createServer((request, response) => {
      if (request.url === "/p.json") response.end(JSON.stringify(local));
      else {
        response.statusCode = 404;
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      assert.equal((await loadPreset(`${base}/p.json`)).name, "local");
      await assert.rejects(loadPreset(`${base}/gone.json`), {
        message: `failed to fetch preset from ${base}/gone.json`,
      });
    } finally {
      server.close();
    }
  });

  test("anything else is an error that says what to do", async () => {
    await assert.rejects(loadPreset("no-such-preset", { cwd: dir }), (error: unknown) => {
      assert.ok(error instanceof KilnError);
      assert.equal(
        error.message,
        "`no-such-preset` is not a preset template, a URL or an existing file - run `kiln presets` to see the templates, or pass a URL or path to a .preset.json file",
      );
      return true;
    });
  });
});
