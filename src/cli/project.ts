// kiln.toml in the working directory, and the output folder it names.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_FILE } from "../core/config.ts";
import { KilnError } from "../core/errors.ts";
import { escapesTarget, isAbsolutePath } from "../core/plan.ts";
import { type ProjectConfig, parseProjectConfig } from "../core/project.ts";

/** Reads `kiln.toml` from `cwd`; a missing file says to run `kiln init`. */
export function readProject(cwd: string): ProjectConfig {
  let text: string;
  try {
    text = readFileSync(join(cwd, PROJECT_FILE), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    throw new KilnError(
      "not_initialized",
      `no ${PROJECT_FILE} found in ${cwd} - run \`kiln init\` first`,
    );
  }
  return parseProjectConfig(text);
}

/**
 * An output folder must lie inside the project: kiln.toml or a preset from elsewhere must not
 * send files to `/etc` or `../..`. (`apply --into` is typed by the user and may go anywhere.)
 */
export function isFolderInsideProject(dir: string): boolean {
  return !isAbsolutePath(dir) && !escapesTarget(dir);
}
