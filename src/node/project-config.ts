// kiln.toml in the working directory, and the output folder it names.
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { PROJECT_FILE } from "../core/config.ts";
import { isKilnError, KilnError } from "../core/errors.ts";
import { escapesTarget, isAbsolutePath } from "../core/plan.ts";
import { type ProjectConfig, parseProjectConfig } from "../core/project/kiln-toml.ts";
import { MAX_PROJECT_FILE_BYTES, readRegularFile } from "./read-regular-file.ts";

/**
 * Reads `kiln.toml` from `cwd`; a missing file says to run `kiln init`. A cloned repository's
 * kiln.toml may be anything: it is read only as a regular file (links followed) of at most
 * MAX_PROJECT_FILE_BYTES, and a TOML error says where, never what the file holds.
 */
export function readProject(cwd: string): ProjectConfig {
  const text = readRegularFile(join(cwd, PROJECT_FILE), PROJECT_FILE, MAX_PROJECT_FILE_BYTES);
  if (text === undefined) {
    throw new KilnError(
      "not_initialized",
      `no ${PROJECT_FILE} found in ${cwd} - run \`kiln init\` first`,
    );
  }
  try {
    return parseProjectConfig(text);
  } catch (error) {
    // only the parser's own message quotes the file; other errors' details are kiln's
    if (isKilnError(error) && error.message.startsWith(`${PROJECT_FILE} is not valid TOML`)) {
      throw new KilnError(error.kind, error.message, tomlErrorWithoutText(text));
    }
    throw error;
  }
}

/**
 * The TOML parser's own message quotes the lines around the mistake (kiln.toml may be a link
 * to a file of secrets): keep its reason and where, drop the quote.
 */
function tomlErrorWithoutText(text: string): string {
  try {
    parseToml(text);
  } catch (error) {
    const { line, column, message } = error as {
      line?: unknown;
      column?: unknown;
      message: string;
    };
    const reason = String(message)
      .split("\n", 1)[0]
      ?.replace(/^Invalid TOML document: /, "");
    if (typeof line === "number" && typeof column === "number") {
      return `line ${line}, column ${column}: ${reason}`;
    }
    return reason ?? "not valid TOML";
  }
  return "not valid TOML";
}

/**
 * An output folder must lie inside the project: kiln.toml or a preset from elsewhere must not
 * send files to `/etc` or `../..`. (`apply --into` is typed by the user and may go anywhere.)
 */
export function isFolderInsideProject(dir: string): boolean {
  return !isAbsolutePath(dir) && !escapesTarget(dir);
}
