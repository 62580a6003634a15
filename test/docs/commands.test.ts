// The README and the docs pages work when typed: every shell block (```sh, ```bash, ```shell,
// ```console) of README.md and docs/*.md runs, in order, one document at a time, in one bash
// session in a fresh temporary folder, as a reader would type them into one terminal, with
// `kiln` on PATH running the built CLI (dist/cli/main.js, through a shim in a temporary bin
// folder). Each command must succeed, except one the document shows failing: a command whose
// next line is a comment starting `# error:` (in a console block: output starting `error:`)
// must exit non-zero.
//
// The service: a document whose commands talk to http://127.0.0.1:4000 gets a `kiln serve`
// started in its folder on a free port, and `127.0.0.1:4000` in its commands is rewritten to
// that port (4000 may be taken on a shared machine; a fixed port would make the test flaky).
//
// A block that cannot run as typed anywhere (installing from the public registry, commands for
// a clone of this repository, a server in the foreground, a placeholder URL) carries a visible
// marker right before it: `<!-- docs-test: skip - <reason> -->`. The test prints each skipped
// block with its reason; any other marker is an error.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import { BIN, cleanEnv, ensureBuilt, kilnBackground } from "../cli/helpers.ts";
import { type CodeBlock, codeBlocks, documents } from "./markdown.ts";

const SHELL_LANGUAGES = new Set(["sh", "bash", "shell", "console"]);
const SKIP = /^skip\s*(?:-|—|:)\s*(\S.*)$/;
const SERVICE = "127.0.0.1:4000";

/** One command as typed: its text (continuation lines joined), line, and expected outcome. */
interface Command {
  text: string;
  line: number;
  expectFailure: boolean;
}

/**
 * The commands of a shell block: lines joined where they end in `\` or open a here-document;
 * comments dropped. A `console` block's commands are its `$ ` lines; the rest is output.
 */
function commandsOf(block: CodeBlock): Command[] {
  const lines = block.text.replace(/\n$/, "").split("\n");
  const commands: Command[] = [];
  for (let index = 0; index < lines.length; index++) {
    let line = lines[index] as string;
    const trimmed = line.trim();
    if (trimmed.startsWith("#")) {
      if (/^#\s*error:/.test(trimmed) && commands.length > 0) {
        (commands.at(-1) as Command).expectFailure = true;
      }
      continue;
    }
    if (block.language === "console") {
      if (!trimmed.startsWith("$ ")) {
        // the output a console block shows: a command whose output starts `error:` fails
        const previous = commands.at(-1);
        if (previous && previous.line === block.line + index && trimmed.startsWith("error:")) {
          previous.expectFailure = true;
        }
        continue;
      }
      line = trimmed.slice(2);
    }
    if (trimmed === "") continue;
    const start = index;
    const text = [line];
    while (/\\$/.test(text.at(-1) as string) && index + 1 < lines.length) {
      index++;
      text.push(lines[index] as string);
    }
    const heredoc = /<<-?\s*['"]?(\w+)['"]?/.exec(text.join("\n"));
    if (heredoc) {
      while (index + 1 < lines.length && (lines[index] as string).trim() !== heredoc[1]) {
        index++;
        text.push(lines[index] as string);
      }
    }
    commands.push({ text: text.join("\n"), line: block.line + 1 + start, expectFailure: false });
  }
  return commands;
}

interface DocumentPlan {
  document: string;
  commands: Command[];
  skipped: { line: number; reason: string }[];
}

function planOf(document: string): DocumentPlan {
  const plan: DocumentPlan = { document, commands: [], skipped: [] };
  for (const block of codeBlocks(document)) {
    if (!SHELL_LANGUAGES.has(block.language)) continue;
    if (block.marker !== undefined) {
      const reason = SKIP.exec(block.marker)?.[1];
      assert.ok(
        reason,
        `${document}:${block.line}: unknown marker "${block.marker}" (only "skip - <reason>")`,
      );
      plan.skipped.push({ line: block.line, reason });
      continue;
    }
    plan.commands.push(...commandsOf(block));
  }
  return plan;
}

/**
 * One bash script for a document: each command as typed, then a check of its exit status
 * that stops the script and names the command's line when it is not the expected one.
 */
function scriptOf(commands: Command[], port: number | undefined): string {
  const body = commands.map((command) => {
    const text =
      port === undefined ? command.text : command.text.replaceAll(SERVICE, `127.0.0.1:${port}`);
    const wrong = command.expectFailure ? '[ "$status" -eq 0 ]' : '[ "$status" -ne 0 ]';
    const expected = command.expectFailure ? "a failure" : "success";
    return `${text}\nstatus=$?\nif ${wrong}; then echo "docs-test: line ${command.line} exited with $status, expected ${expected}" >&2; exit 99; fi\n`;
  });
  return `set -o pipefail\n${body.join("")}`;
}

let scratch: string;
let binDir: string;

/** `kiln serve --port 0` in `cwd`; resolves with its port once it listens. */
async function startService(cwd: string): Promise<{ child: ChildProcess; port: number }> {
  // one render worker (and the spare): each is about 0.4 s of CPU to start, and the documents'
  // requests come one at a time
  const child = kilnBackground(["serve", "--port", "0", "--drain-delay", "0"], cwd, {
    SERVICE_WORKERS: "1",
  });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      const match = /kiln listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      if (match) resolve(Number(match[1]));
    });
    child.on("exit", (code) => reject(new Error(`kiln serve exited with ${code}`)));
  });
  return { child, port };
}

/** Runs a document's commands; the output of the whole session when one did not do as shown. */
async function runDocument(plan: DocumentPlan): Promise<void> {
  const dir = mkdtempSync(join(scratch, `${plan.document.replaceAll("/", "-")}-`));
  const needsService = plan.commands.some((command) => command.text.includes(SERVICE));
  const service = needsService ? await startService(dir) : undefined;
  try {
    const child = spawn("bash", ["--noprofile", "--norc"], {
      cwd: dir,
      env: cleanEnv({ PATH: `${binDir}:${process.env.PATH}`, HOME: join(dir, ".home") }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stdin.end(scriptOf(plan.commands, service?.port));
    const status = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    const failure = /docs-test: (line \d+ .*)/.exec(output)?.[1];
    assert.equal(
      status,
      0,
      `${plan.document}: ${failure ?? `the session exited with ${status}`}\n--- output ---\n${output.slice(-4000)}`,
    );
  } finally {
    if (service) {
      service.child.kill("SIGTERM");
      await new Promise((resolve) => service.child.once("exit", resolve));
    }
  }
}

const plans = documents().map(planOf);

describe("every command block of the README and the docs runs as typed", () => {
  before(() => {
    ensureBuilt();
    scratch = mkdtempSync(join(tmpdir(), "kiln-docs-"));
    binDir = join(scratch, "bin");
    mkdirSync(binDir);
    const shim = join(binDir, "kiln");
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(shim, 0o755);
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  for (const plan of plans) {
    if (plan.commands.length === 0) continue;
    it(`${plan.document}: its ${plan.commands.length} commands, in order`, () => runDocument(plan));
  }

  it("blocks that cannot run as typed are marked with a reason, and listed here", (t) => {
    const skipped = plans.flatMap((plan) =>
      plan.skipped.map((skip) => `${plan.document}:${skip.line}: ${skip.reason}`),
    );
    t.diagnostic(`${skipped.length} blocks skipped:\n${skipped.join("\n")}`);
    const run = plans.reduce((sum, plan) => sum + plan.commands.length, 0);
    assert.ok(run > skipped.length, `${run} commands run, ${skipped.length} blocks skipped`);
  });
});
