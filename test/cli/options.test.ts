// Each option declared once (src/cli/options.ts, src/cli/command-list.ts): the parser, the help
// and the field shortcuts all come from the declarations, so they cannot drift apart.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { parse } from "../../src/cli/args.ts";
import { ADD, COMMAND_LIST, INIT, RENDER, SERVE } from "../../src/cli/command-list.ts";
import {
  type CommandDecl,
  optionLines,
  parseCommand,
  parseConfig,
  quietRequested,
  usageLine,
} from "../../src/cli/options.ts";
import { FIELD_SHORTCUTS } from "../../src/core/shortcuts.ts";
import { cleanUp, ensureBuilt, kiln, tempDir } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

/** Arguments that give every declared option once (a value for those that take one). */
function everyOption(command: CommandDecl): string[] {
  return command.options.flatMap((option) =>
    option.type === "string" ? [`--${option.name}`, "1"] : [`--${option.name}`],
  );
}

describe("option declarations", () => {
  it("the parser takes exactly the declared options (and --quiet and --help)", () => {
    for (const command of COMMAND_LIST) {
      const config = parseConfig(command);
      assert.deepEqual(Object.keys(config), [
        ...command.options.map((option) => option.name),
        "quiet",
      ]);
      const positionals = command.positionals.map(() => "x");
      const { parsed } = parseCommand([...positionals, ...everyOption(command)], command);
      for (const option of command.options) {
        const value = parsed.values[option.name];
        assert.deepEqual(
          value,
          option.type === "boolean" ? true : option.multiple ? ["1"] : "1",
          `${command.name} --${option.name}`,
        );
      }
      assert.throws(() => parseCommand(["--no-such-option"], command), {
        message: "unknown option `--no-such-option`",
      });
    }
  });

  it("add's and render's shortcut options are the core's FIELD_SHORTCUTS, in order", () => {
    const names = new Set<string>(FIELD_SHORTCUTS.map((shortcut) => shortcut.option));
    for (const command of [ADD, RENDER]) {
      assert.deepEqual(
        command.options.filter((option) => names.has(option.name)).map((option) => option.name),
        FIELD_SHORTCUTS.map((shortcut) => shortcut.option),
      );
    }
    const port = ADD.options.find((option) => option.name === "target-port");
    assert.equal(port?.description, "shortcut for --set target_port=<port>");
    assert.equal(port?.short, "t");
  });

  it("every command's --help shows its usage line and one line per declared option", () => {
    for (const command of COMMAND_LIST) {
      if (command === SERVE) continue; // the server's own usage text
      const run = kiln([command.name, "--help"], tempDir());
      assert.equal(run.status, 0, run.stderr);
      assert.ok(run.stdout.includes(`\nUsage: ${usageLine(command)}\n`), command.name);
      assert.ok(run.stdout.includes(`\nOptions:\n${optionLines(command).join("\n")}\n`));
      for (const option of command.options) {
        const long = `--${option.name}${option.value ? ` ${option.value}` : ""}`;
        const label = option.short ? `-${option.short}, ${long}` : long;
        assert.match(
          run.stdout,
          new RegExp(`\\n {2}${label.replace(/[[\]{}().*+?|^$\\]/g, "\\$&")} `),
        );
      }
    }
  });

  it("a usage line lists every option when it fits, else the required ones and [options]", () => {
    assert.equal(
      usageLine(INIT),
      "kiln init [--name <name>] [--dir <folder>] [--namespace <namespace>] [--force] [--nested]",
    );
    assert.equal(usageLine(ADD), "kiln add <reference> --name <name> [options]");
  });

  it("a default that does not fit goes on a line of its own, under the description", () => {
    const lines = optionLines(ADD);
    const at = lines.findIndex((line) => line.startsWith("  -N, --namespace <namespace>"));
    assert.equal(lines[at + 1]?.trim(), "(default: default_namespace of kiln.toml)");
    assert.ok(lines.every((line) => line.length <= 96));
    assert.ok(
      optionLines(INIT).includes(
        "  -d, --dir <folder>           where `kiln add` writes files (default: k8s)",
      ),
    );
  });

  it("-q is read as the lenient parse of the command's declaration reads it, parsed or not", () => {
    // quietRequested parses only a command line with a word that could ask for it
    const word = fc.oneof(
      fc.constantFrom("-q", "-fq", "-qf", "-nq", "-n", "q", "--quiet", "--quiet=1", "--quiet="),
      fc.constantFrom("--name", "--force", "-f", "--", "-", "--q", "-Q", "web", "-vq", "--set"),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...COMMAND_LIST),
        fc.array(word, { maxLength: 6 }),
        (decl, argv) => {
          let expected = false;
          try {
            const options = parseConfig(decl);
            const { values } = parseArgs({
              args: argv,
              options,
              allowPositionals: true,
              strict: false,
            });
            expected = values.quiet === true;
          } catch {
            expected = false;
          }
          assert.equal(quietRequested(argv, decl), expected, `${decl.name} ${argv.join(" ")}`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("args.ts's parse still adds --help to every command", () => {
    assert.equal(parse(["-h"], {}).values.help, true);
  });
});
