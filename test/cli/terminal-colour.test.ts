// Colour on a real terminal: every command that colours, run under a pseudo-terminal (util-linux
// `script`), writes ANSI colour sequences and never kiln's internal colour marks (NUL-delimited
// `kiln<id>:<code>` text) - raw or escaped. Piped output is plain (the other CLI tests).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { BIN, cleanEnv, cleanUp, ensureBuilt, kiln, tempDir } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

const hasScript = spawnSync("script", ["--version"]).status === 0;

/** A line printed between the commands of one terminal session, to split what each wrote. */
const SEPARATOR = "=====kiln-next=====";

/**
 * What a terminal shows for each `kiln <args>` of `runs`, all run in `dir` in one pseudo-terminal
 * session (one `script`, so the suite starts one terminal, not one per command).
 */
function onTerminal(dir: string, runs: string[][]): string[] {
  const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
  const commands = runs.map((args) =>
    [process.execPath, BIN, ...args].map(quote).join(" ").concat(`; echo ${SEPARATOR}`),
  );
  const shown = execFileSync("script", ["-qc", commands.join("; "), "/dev/null"], {
    cwd: dir,
    env: cleanEnv({ TERM: "xterm" }),
    encoding: "utf8",
  });
  return shown.split(`${SEPARATOR}\r\n`).slice(0, runs.length);
}

const ESC = "\u001b";
/** ESC [ <digits> m: a colour or weight change. */
const SGR = new RegExp(`${ESC}\\[\\d+m`);
/** kiln's colour mark, as sent raw or as escaped text. */
const MARK_TEXT = /kiln[a-z0-9]+:\d+/;

describe("colour on a terminal", () => {
  it("diff (both forms), status, list, add, check, update, remove and errors write ANSI colours, no marks", (t) => {
    if (!hasScript) {
      t.skip("no `script` command (util-linux)");
      return;
    }
    const dir = tempDir();
    assert.equal(kiln(["setup", "k8s-web-app"], dir).status, 0);
    // a deleted file makes a project diff, an edited one a diff against the preset
    rmSync(join(dir, "k8s", "api-service.yaml"));
    const deployment = join(dir, "k8s", "api-deployment.yaml");
    writeFileSync(deployment, `${readFileSync(deployment, "utf8")}# edited\n`);
    const runs = [
      ["diff"],
      ["diff", "k8s-web-app"],
      ["status"],
      ["list"],
      ["add", "k8s/service", "--name", "lonely", "--port", "80"],
      ["check"],
      ["update", "api"],
      ["remove", "lonely"],
      ["status", "no-such-component"],
    ];
    const shown = onTerminal(dir, runs);
    assert.equal(shown.length, runs.length, shown.join("\n"));
    for (const [index, text] of shown.entries()) {
      const what = `kiln ${runs[index]?.join(" ")}:\n${text}`;
      assert.match(text, SGR, what);
      assert.ok(!text.includes("\u0000"), what);
      assert.ok(!text.includes("\\x00"), what);
      assert.doesNotMatch(text, MARK_TEXT, what);
    }
    // the patch lines themselves are coloured: headers bold, additions green
    assert.ok(shown[0]?.includes(`${ESC}[1m+++ b/k8s/api-service.yaml${ESC}[22m`), shown[0]);
    assert.ok(shown[1]?.includes(`${ESC}[31m-# edited${ESC}[39m`), shown[1]);
  });
});
