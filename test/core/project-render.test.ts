// The project pipeline's rendering (src/core/project/render-components.ts): every component
// through one injected renderer, stopping at the first error (setup, apply) or keeping each
// error with its component (check, the dashboard).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RenderInput } from "../../src/core/context.ts";
import { KilnError } from "../../src/core/errors.ts";
import type { PresetComponent } from "../../src/core/project/preset-manifest.ts";
import {
  componentInput,
  firstFailure,
  isRendered,
  renderCollectingErrors,
  renderUntilError,
  runFiles,
  withRenderedPaths,
} from "../../src/core/project/render-components.ts";

const component = (name: string, fields: Record<string, string> = {}): PresetComponent => ({
  reference: "test/note",
  name,
  fields,
  labels: {},
});

const COMPONENTS = [component("a"), component("b", { fail: "yes" }), component("c")];

/** A renderer that writes `<name>.md`, fails when the field `fail` is set, and logs each call. */
function fakeRenderer(
  log: string[],
  error: (name: string) => Error = (name) => new KilnError("invalid_request", `${name} broke`),
) {
  return async (c: PresetComponent, input: RenderInput) => {
    log.push(`${c.name}@${input.defaultNamespace}`);
    if (c.fields.fail) throw error(c.name);
    return { files: [{ path: `${input.name}.md`, content: `# ${input.name}\n` }] };
  };
}

describe("the render input of a component", () => {
  test("its name, fields and labels, with the project's namespace as the default", () => {
    const c = { ...component("web", { image: "nginx" }), labels: { tier: "front" } };
    assert.deepEqual(componentInput(c, "shop"), {
      name: "web",
      fields: { image: "nginx" },
      labels: { tier: "front" },
      defaultNamespace: "shop",
    });
  });
});

describe("stop at the first error (setup, apply)", () => {
  test("renders in order and returns each component's files with its index", async () => {
    const log: string[] = [];
    const ok = [component("a"), component("c")];
    const rendered = await renderUntilError(ok, {
      defaultNamespace: "ns",
      render: fakeRenderer(log),
    });
    assert.deepEqual(log, ["a@ns", "c@ns"]);
    assert.deepEqual(
      rendered.map((r) => [r.index, r.component.name, r.files.map((f) => f.path)]),
      [
        [0, "a", ["a.md"]],
        [1, "c", ["c.md"]],
      ],
    );
  });

  test("keeps all the renderer returned beside the files (what a lock entry will record)", async () => {
    const rendered = await renderUntilError([component("a")], {
      defaultNamespace: "ns",
      render: () => ({ files: [], origin: "https://example.com/a.json" }),
    });
    assert.equal(rendered[0]?.output.origin, "https://example.com/a.json");
    const collected = await renderCollectingErrors([component("a")], {
      defaultNamespace: "ns",
      render: () => ({ files: [], origin: "built-in" }),
    });
    assert.equal(collected.filter(isRendered)[0]?.output.origin, "built-in");
  });

  test("throws the renderer's own error, unchanged, and renders nothing after it", async () => {
    const log: string[] = [];
    const thrown = new KilnError("not_found", "`b` is not a built-in component", "detail");
    await assert.rejects(
      renderUntilError(COMPONENTS, {
        defaultNamespace: "ns",
        render: fakeRenderer(log, () => thrown),
      }),
      (error) => error === thrown,
    );
    assert.deepEqual(log, ["a@ns", "b@ns"]);
  });

  test("one after the other: a render starts when the one before has finished", async () => {
    let running = 0;
    let most = 0;
    await renderUntilError([component("a"), component("c")], {
      defaultNamespace: "ns",
      render: async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        return { files: [] };
      },
    });
    assert.equal(most, 1);
  });
});

describe("collect every error (check, the dashboard)", () => {
  for (const concurrent of [false, true]) {
    test(`keeps each failure with its component and goes on (concurrent: ${concurrent})`, async () => {
      const log: string[] = [];
      const results = await renderCollectingErrors(COMPONENTS, {
        defaultNamespace: "ns",
        render: fakeRenderer(log),
        concurrent,
      });
      assert.deepEqual(log, ["a@ns", "b@ns", "c@ns"]);
      assert.deepEqual(
        results.map((r) => [r.index, r.component.name, r.ok]),
        [
          [0, "a", true],
          [1, "b", false],
          [2, "c", true],
        ],
      );
      const failed = firstFailure(results);
      assert.equal(failed?.index, 1);
      assert.equal(failed?.component.reference, "test/note");
      assert.equal(failed?.error, "b broke");
      assert.ok(failed?.cause instanceof KilnError);
      assert.deepEqual(
        results.filter(isRendered).map((r) => r.files[0]?.path),
        ["a.md", "c.md"],
      );
    });
  }

  test("results keep component order when later renders finish first", async () => {
    const results = await renderCollectingErrors(COMPONENTS.slice(0, 2), {
      defaultNamespace: "ns",
      concurrent: true,
      render: async (c) => {
        await new Promise((resolve) => setTimeout(resolve, c.name === "a" ? 20 : 1));
        return { files: [{ path: c.name, content: "" }] };
      },
    });
    assert.deepEqual(
      results.map((r) => r.component.name),
      ["a", "b"],
    );
  });

  test("a fatal error ends the run with that error; nothing after it is rendered", async () => {
    const log: string[] = [];
    const fatal = new Error("stopped after 10 s");
    await assert.rejects(
      renderCollectingErrors(COMPONENTS, {
        defaultNamespace: "ns",
        render: fakeRenderer(log, () => fatal),
        isFatal: (error) => error === fatal,
      }),
      (error) => error === fatal,
    );
    assert.deepEqual(log, ["a@ns", "b@ns"]);
  });

  test("no failure: firstFailure is undefined", async () => {
    const results = await renderCollectingErrors([component("a")], {
      defaultNamespace: "ns",
      render: fakeRenderer([]),
    });
    assert.equal(firstFailure(results), undefined);
  });
});

describe("the files of one run", () => {
  test("all files, component by component", () => {
    const files = runFiles([
      { files: [{ path: "a.yaml", content: "a" }] },
      { files: [] },
      { files: [{ path: "b/c.yaml", content: "c" }] },
    ]);
    assert.deepEqual(
      files.map((f) => f.path),
      ["a.yaml", "b/c.yaml"],
    );
  });

  test("two components writing one path, in any spelling one file system reads as one, are refused", () => {
    for (const other of ["./a.yaml", "A.yaml", "x/../a.yaml"]) {
      assert.throws(
        () =>
          runFiles([
            { files: [{ path: "a.yaml", content: "" }] },
            { files: [{ path: other, content: "" }] },
          ]),
        { message: `two files rendered to the same path: \`${other}\`` },
      );
    }
  });
});

describe("what the checks read of a render", () => {
  const c = { ...component("web"), id: "c1" };

  test("the paths a component writes, without anything but the manifest's keys", () => {
    assert.deepEqual(
      withRenderedPaths(c, { ok: true, files: [{ path: "web.md", content: "x" }] }),
      {
        reference: "test/note",
        name: "web",
        fields: {},
        labels: {},
        files: ["web.md"],
        renderError: undefined,
      },
    );
  });

  test("why it did not render, or neither while its render is still to come", () => {
    assert.equal(withRenderedPaths(c, { ok: false, error: "boom" }).renderError, "boom");
    assert.equal(withRenderedPaths(c, { ok: false, error: "boom" }).files, undefined);
    const pending = withRenderedPaths(c, undefined);
    assert.equal(pending.files, undefined);
    assert.equal(pending.renderError, undefined);
  });
});
