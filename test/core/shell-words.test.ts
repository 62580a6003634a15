// The words kiln writes into command lines for people to paste into a shell come back from a
// real shell exactly: each hostile value is quoted, the whole line is run by `sh -c` (and by
// bash and zsh, which people paste into too), and the argument vector a program receives is
// compared.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { shellOption, shellWord, singleQuoted } from "../../src/core/shell-words.ts";
import { cleanUp, tempDir } from "../cli/helpers.ts";

after(() => cleanUp());

const HOSTILE = [
  "",
  " ",
  "plain-word_1.2:3=4@5%6+7,8/9",
  "it's",
  "''",
  "'",
  '"double" quotes',
  "$(touch pwned)",
  "`touch pwned`",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable a shell would expand is the test
  "$HOME and ${PATH}",
  "line one\nline two",
  "trailing newline\n",
  "\ttab",
  "-rf",
  "--name=x",
  "-",
  "ünïcødé 日本語 🚀",
  "*",
  "~",
  "~/x",
  "#not a comment",
  "a;b|c&d",
  "a\\b\\",
  "!history",
  "{a,b}",
  "x=y",
  "=leading",
  "=ls",
  "<in >out",
];

/** The arguments a program gets when a shell runs `line` (after the program's own path). */
function argumentsFromShell(shell: string, words: string): string[] {
  const dump = join(tempDir(), "dump-arguments.cjs");
  writeFileSync(dump, "process.stdout.write(JSON.stringify(process.argv.slice(2)));\n");
  const line = `${singleQuoted(process.execPath)} ${singleQuoted(dump)} ${words}`;
  const run = spawnSync(shell, ["-c", line], { encoding: "utf8", cwd: tempDir() });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as string[];
}

const SHELLS = ["sh", "bash", "zsh"].filter(
  (shell) => spawnSync(shell, ["-c", "true"]).status === 0,
);

describe("shell words", () => {
  for (const shell of SHELLS) {
    it(`every hostile value, quoted by shellWord, reaches a program exactly through ${shell} -c`, () => {
      const line = HOSTILE.map(shellWord).join(" ");
      assert.deepEqual(argumentsFromShell(shell, line), HOSTILE);
    });
  }

  it("a plain value stays bare; any other is single-quoted with ' written as '\\''", () => {
    assert.equal(shellWord("nginx:1.27"), "nginx:1.27");
    assert.equal(shellWord("port=80"), "port=80");
    assert.equal(shellWord("=leading"), "'=leading'"); // zsh's `=cmd` is the command's path
    assert.equal(shellWord(""), "''");
    assert.equal(shellWord("it's"), "'it'\\''s'");
    assert.equal(singleQuoted("plain"), "'plain'");
  });

  it("an option's value starting with `-` is joined to it with `=`, so it is never read as an option", () => {
    const values = ["-rf", "--help", "web", "a b", ""];
    const line = values.map((value) => shellOption("--name", value)).join(" ");
    assert.equal(shellOption("--name", "-rf"), "--name=-rf");
    assert.deepEqual(argumentsFromShell("sh", line), [
      "--name=-rf",
      "--name=--help",
      "--name",
      "web",
      "--name",
      "a b",
      "--name",
      "",
    ]);
  });
});
