// The project's file layout (src/core/project/layout.ts), which both `kiln setup` and the
// dashboard's zip write: rendered files under the output folder, kiln.toml at the root last,
// refused with setup's messages where setup refuses.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { serializeProjectConfig } from "../../src/core/project/kiln-toml.ts";
import { layoutEntries, layoutProject } from "../../src/core/project/layout.ts";
import { presetConfig } from "../../src/core/project/preset-manifest.ts";

const config = { name: "shop", defaultNamespace: "web", outputDir: "deploy/k8s" };
const file = (path: string, content = "") => ({ path, content });

describe("the project layout", () => {
  test("rendered files under the output folder, kiln.toml at the root, written last", () => {
    const layout = layoutProject(config, [file("a.yaml", "a"), file("./b/c.yml", "c")]);
    assert.equal(layout.outputDir, "deploy/k8s");
    assert.deepEqual(layout.files, [file("a.yaml", "a"), file("./b/c.yml", "c")]);
    assert.deepEqual(layout.rootFiles, [file("kiln.toml", serializeProjectConfig(config))]);
    assert.deepEqual(layoutEntries(layout), [
      file("deploy/k8s/a.yaml", "a"),
      file("deploy/k8s/b/c.yml", "c"),
      file("kiln.toml", serializeProjectConfig(config)),
    ]);
  });

  test("kiln.toml is the exact text setup has always written", () => {
    const [toml] = layoutProject(config, []).rootFiles;
    assert.equal(
      toml?.content,
      '[project]\nname = "shop"\ndefault_namespace = "web"\noutput_dir = "deploy/k8s"\n',
    );
  });

  test("an output folder of `.`, `` or with a trailing slash joins as one clean path", () => {
    for (const [outputDir, expected] of [
      [".", "a.yaml"],
      ["", "a.yaml"],
      ["out/", "out/a.yaml"],
      ["./out/./x", "out/x/a.yaml"],
    ] as const) {
      const entries = layoutEntries(layoutProject({ ...config, outputDir }, [file("a.yaml")]));
      assert.equal(entries[0]?.path, expected, outputDir);
    }
  });

  test("an output folder setup refuses is refused, with setup's message", () => {
    for (const [outputDir, message] of [
      ["/etc", /refusing to write `\/etc` - absolute paths are not allowed/],
      ["../elsewhere", /refusing to write `\.\.\/elsewhere` - it escapes the target directory/],
      [".git", /refusing to write into `\.git` - kiln never writes to `\.git`/],
      ["k8s/.GIT", /refusing to write into `k8s\/\.GIT`/],
    ] as const) {
      assert.throws(() => layoutProject({ ...config, outputDir }, [file("a.yaml")]), message);
    }
  });

  test("a rendered path setup refuses is refused, with setup's message", () => {
    for (const [path, message] of [
      ["/etc/passwd", /absolute paths are not allowed/],
      ["../../x", /it escapes the target directory/],
      [".git/config", /kiln never writes to `\.git`/],
      ["dir/", /names a folder, not a file/],
      ["", /whose path is empty/],
    ] as const) {
      assert.throws(() => layoutProject(config, [file(path)]), message, path);
    }
  });

  test("two files on one path are reported before a bad output folder, as setup always did", () => {
    assert.throws(
      () => layoutProject({ ...config, outputDir: "/abs" }, [file("a"), file("A")]),
      /two files rendered to the same path: `A`/,
    );
  });

  test("a rendered file on kiln.toml's place is refused (as one of kiln's own files)", () => {
    assert.throws(
      () => layoutProject({ ...config, outputDir: "." }, [file("kiln.toml", "x")]),
      /^KilnError: refusing to write `kiln\.toml` - `kiln\.toml` is a file kiln keeps for itself \(kiln\.toml\)/,
    );
  });
});

describe("a preset's project settings", () => {
  test("the preset's own, else the defaults and the front's fallback name", () => {
    assert.deepEqual(
      presetConfig(
        { project: { name: "p", namespace: "n", outputDir: "o", automationProfile: "ansible" } },
        "dir",
      ),
      {
        name: "p",
        defaultNamespace: "n",
        outputDir: "o",
        automationProfile: "ansible",
      },
    );
    assert.deepEqual(presetConfig({}, "dir"), {
      name: "dir",
      defaultNamespace: "default",
      outputDir: "k8s",
      automationProfile: "cm",
    });
  });
});

describe("kiln's own files in the layout (setup and the dashboard's zip)", () => {
  test("a rendered kiln.lock or journal is refused at any depth, whatever the output folder", () => {
    for (const [outputDir, path] of [
      [".", "kiln.lock"],
      [".", ".kiln-journal.json"],
      ["deploy", "sub/.KILN-JOURNAL.JSON"],
      ["k8s", "kiln.toml"],
    ] as const) {
      assert.throws(
        () => layoutProject({ ...config, outputDir }, [file("a.yaml"), file(path)]),
        /is a file kiln keeps for itself/,
        `${outputDir} ${path}`,
      );
    }
  });

  test("an output folder named as one of them is refused", () => {
    assert.throws(
      () => layoutProject({ ...config, outputDir: "kiln.lock" }, [file("a.yaml")]),
      /^KilnError: refusing to write into `kiln\.lock` - `kiln\.lock` is a file kiln keeps for itself/,
    );
  });
});
