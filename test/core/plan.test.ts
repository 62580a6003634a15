import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KilnError } from "../../src/core/errors.ts";
import {
  checkNoDuplicatePaths,
  checkPathStaysInside,
  escapesTarget,
  isAbsolutePath,
  normalizeRelativePath,
  planWrites,
} from "../../src/core/plan.ts";

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof KilnError);
    return error.message;
  }
  assert.fail("expected a KilnError");
}

const file = (path: string, content = "x") => ({ path, content });

describe("path spelling", () => {
  test("one spelling per path: ./, //, backslashes and inner .. collapse; a leading / stays", () => {
    assert.equal(normalizeRelativePath("a//b/./c"), "a/b/c");
    assert.equal(normalizeRelativePath("a/x/../b/c"), "a/b/c");
    assert.equal(normalizeRelativePath("a\\b\\c"), "a/b/c");
    assert.equal(normalizeRelativePath("a/../../b"), "../b");
    assert.equal(normalizeRelativePath("/etc/x"), "/etc/x");
  });

  test("absolute on POSIX or Windows", () => {
    for (const path of ["/x", "\\x", "C:\\x", "c:/x", "//server/share"])
      assert.equal(isAbsolutePath(path), true, path);
    for (const path of ["x", "./x", "C:x", "..\\x"])
      assert.equal(isAbsolutePath(path), false, path);
  });
});

describe("path rules", () => {
  test("an absolute rendered path is refused", () => {
    assert.equal(
      message(() => checkPathStaysInside("/etc/passwd")),
      "refusing to write `/etc/passwd` - absolute paths are not allowed",
    );
    assert.equal(
      message(() => checkPathStaysInside("C:\\x.yaml")),
      "refusing to write `C:\\x.yaml` - absolute paths are not allowed",
    );
  });

  test("a path that climbs above the target at any `..`, read left to right, is refused", () => {
    assert.equal(
      message(() => checkPathStaysInside("../x.yaml")),
      "refusing to write `../x.yaml` - it escapes the target directory",
    );
    assert.equal(escapesTarget("a/../../b"), true);
    assert.equal(escapesTarget("../a/b"), true);
    assert.equal(escapesTarget("a/../b"), false);
    assert.equal(escapesTarget("./a/./b/.."), false);
    assert.equal(escapesTarget("a\\..\\..\\b"), true);
  });

  test("two files of one run rendering to the same path are refused", () => {
    assert.equal(
      message(() => checkNoDuplicatePaths([file("a/b.yml"), file("c.yml"), file("a//b.yml")])),
      "two files rendered to the same path: `a//b.yml`",
    );
  });

  test("an existing target without force is refused, with the path as shown to people", () => {
    assert.equal(
      message(() =>
        planWrites([file("new.yml"), file("web.yaml")], {
          force: false,
          readExisting: (path) => (path === "web.yaml" ? "old" : undefined),
          display: (path) => `k8s/${path}`,
        }),
      ),
      "k8s/web.yaml already exists - pass --force to overwrite",
    );
  });

  test("with force, each file is new, an overwrite or unchanged", () => {
    const existing: Record<string, string> = { "same.yml": "x", "changed.yml": "old" };
    const plan = planWrites([file("same.yml"), file("changed.yml"), file("fresh.yml")], {
      force: true,
      readExisting: (path) => existing[path],
    });
    assert.deepEqual(
      plan.map((step) => [step.path, step.status]),
      [
        ["same.yml", "unchanged"],
        ["changed.yml", "overwrite"],
        ["fresh.yml", "new"],
      ],
    );
  });

  test("the plan checks every path before reporting an existing file", () => {
    assert.match(
      message(() =>
        planWrites([file("exists.yml"), file("../out.yml")], {
          force: false,
          readExisting: () => "x",
        }),
      ),
      /escapes the target directory/,
    );
  });
});
