// kiln registry build|validate: the registry author's tools. `build` turns a source folder (a
// registry.json manifest and component folders laid out like the built-in catalogue) into the
// static files any web server serves; `validate` checks every item as a client will meet it.
// The work is src/node/registry-build.ts's and src/cli/registry-validate.ts's; this file parses
// the command line and prints.
import { resolve } from "node:path";
import { didYouMean } from "../../core/did-you-mean.ts";
import { plural } from "../../core/plural.ts";
import {
  DEFAULT_OUTPUT,
  planRegistryBuild,
  readRegistrySource,
  writeRegistryBuild,
} from "../../node/registry-build.ts";
import { stringOption, UsageError } from "../args.ts";
import { REGISTRY } from "../command-list.ts";
import { EXIT_FAILED, EXIT_OK } from "../exit.ts";
import { recoverInterruptedRun } from "../journal-notice.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { validateRegistry } from "../registry-validate.ts";
import { reportSteps } from "../report.ts";

export function help(): string {
  return commandHelp(REGISTRY, {
    title: "build and validate a registry of your own components",
    about: `<dir> (default: the current folder) holds registry.json - {"name": "acme", "homepage":
"https://...", "items": ["redis", ...]} - and one folder per item listed there, laid out like
kiln's own catalogue: component.json (with an optional "version", default 0.1.0) and the
template files it names.

\`kiln registry build\` writes into --output: registry.json (the index: each item's name,
category, title, description, version and sha256 digest), <name>.json (the newest version) and
<name>@<version>.json per item, in the registry-item format \`kiln add <url>\` reads. Files of
versions published before are kept; a version already published with other bytes is refused.

\`kiln registry validate\` checks every item against the registry-item schema, renders it (in the
sandbox) with its examples and defaults and with its required fields only, and runs the real
tools on the files (YAML; terraform fmt and the automation tool's inventory and syntax checks
where installed). Exits 1 naming each item, file and problem.`,
    examples: [
      "kiln registry build",
      "kiln registry build ./my-registry --output ./site/r",
      "kiln registry validate ./my-registry",
    ],
  });
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, REGISTRY);
  const [action, typedDir = "."] = args as [string, string | undefined];
  if (action !== "build" && action !== "validate") {
    throw new UsageError(
      `unknown action \`${action}\`${didYouMean(action, ["build", "validate"])} - kiln registry build or kiln registry validate`,
    );
  }
  const cwd = process.cwd();
  const dirShown = output.typed(typedDir);
  const dir = resolve(cwd, typedDir);
  const typedOutput = stringOption(parsed, "output");
  if (action === "validate") {
    if (typedOutput !== undefined) throw new UsageError("--output is for kiln registry build");
    return (await validateRegistry(dir, dirShown, output)) ? EXIT_OK : EXIT_FAILED;
  }
  if (typedOutput === "") throw new UsageError("--output needs a folder");
  const outputShown =
    typedOutput === undefined
      ? `${dirShown === "." ? "" : `${dirShown.replace(/\/+$/, "")}/`}${DEFAULT_OUTPUT}`
      : output.typed(typedOutput);
  const outputDir =
    typedOutput === undefined ? resolve(dir, DEFAULT_OUTPUT) : resolve(cwd, typedOutput);
  recoverInterruptedRun(cwd, output);
  const source = readRegistrySource(dir, dirShown);
  const build = planRegistryBuild(source, outputDir, outputShown);
  const steps = writeRegistryBuild(build, outputDir, cwd);
  // every file of the build is listed, the unchanged ones too (not one of the commands that
  // list only what they change)
  reportSteps(output, steps, false, [], new Map(), true);
  output.line(
    `built registry ${build.manifest.name}: ${plural(build.entries.length, "item")} into ${outputShown}`,
  );
  return EXIT_OK;
}
