// Where a project command runs. Like git, kiln works from any folder of a project: the project
// is the nearest folder holding kiln.toml, from the working folder up to the filesystem root.
// The command then runs in that folder (process.chdir), so the journal, kiln.lock and every
// path rule of a write work from the project root exactly as when kiln starts there; what it
// prints names files from the folder the user stands in. `-C <dir>` (main.ts) changes the
// working folder first, as if kiln had been started in <dir>.
//
// A kiln.toml found in a parent is a stranger's file like the one in the working folder: it is
// read by the same rules later (readProject: a regular file, bounded in size). Finding it here is
// only an lstat, and a parent's kiln.toml owned by another user is refused (as git refuses a
// repository another user owns): a kiln.toml planted in /tmp or a shared folder must not turn
// every folder below it into someone else's project.
import { lstatSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { PROJECT_FILE } from "../core/config.ts";
import { KilnError } from "../core/errors.ts";

/** The project a command runs in, and the folder the user started it from (both absolute). */
export interface ProjectPlace {
  root: string;
  user: string;
}

/** Whether `dir` holds an entry named kiln.toml that is not a folder (a link counts: read later). */
function holdsProjectFile(dir: string): { uid: number } | undefined {
  try {
    const stats = lstatSync(join(dir, PROJECT_FILE), { throwIfNoEntry: false });
    return stats === undefined || stats.isDirectory() ? undefined : { uid: stats.uid };
  } catch {
    return undefined;
  }
}

/** The user running kiln; undefined where the platform has no user ids (Windows). */
function currentUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/**
 * A kiln.toml in a parent folder that another user owns is not taken as this user's project:
 * stopping there with an error, rather than looking further up, says what was found.
 */
function refuseStrangersProject(dir: string, uid: number): never {
  throw new KilnError(
    "invalid_request",
    `refusing the project in ${dir} - its ${PROJECT_FILE} belongs to another user (uid ${uid}), not to you`,
    `run kiln in a project of yours, or \`kiln -C ${dir} <command>\` to use that project on purpose`,
  );
}

/**
 * The nearest folder from `start` up to the filesystem root that holds kiln.toml; undefined when
 * none does. `start` itself is always the user's choice; a parent's kiln.toml must be the user's:
 * another user's is refused, or with `strangers: "pass"` (`kiln init`, asking whether it would
 * nest a project of the user's) passed over.
 */
export function findProjectRoot(
  start: string,
  strangers: "refuse" | "pass" = "refuse",
): string | undefined {
  const uid = currentUid();
  let dir = resolve(start);
  for (;;) {
    const found = holdsProjectFile(dir);
    if (found !== undefined) {
      const isStrangers = dir !== resolve(start) && uid !== undefined && found.uid !== uid;
      if (!isStrangers) return dir;
      if (strangers === "refuse") refuseStrangersProject(dir, found.uid);
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Moves the process into the project found from the working folder (nothing moves when there is
 * none: the command then says `no kiln.toml found in <folder> - run \`kiln init\` first`).
 */
export function enterProjectRoot(): ProjectPlace | undefined {
  const user = process.cwd();
  const root = findProjectRoot(user);
  if (root === undefined || root === user) return undefined;
  process.chdir(root);
  return { root, user };
}

/** `path` (from the project root) as seen from the user's folder, with `/` between names. */
export function pathFromUser(place: ProjectPlace | undefined, path: string): string {
  if (place === undefined) return path;
  const shown = relative(place.user, join(place.root, path)) || ".";
  return sep === "/" ? shown : shown.split(sep).join("/");
}

/**
 * A path the user typed (a preset or item file, `--output`, `--into`), which names a file from
 * the folder they stand in, as the same file from the project root, where the command runs.
 * Built-in names (`k8s/deployment`, `k8s-web-app`) and URLs are left alone: only what starts
 * with `./` or `../`, or names a `.json` file, is a path. An absolute path stays as it is.
 */
export function pathFromRoot(place: ProjectPlace | undefined, typed: string): string {
  if (place === undefined || isAbsolute(typed) || /^[a-z][a-z0-9+.-]*:\/\//i.test(typed)) {
    return typed;
  }
  const isPath = /^\.\.?(\/|$)/.test(typed) || typed.endsWith(".json");
  if (!isPath) return typed;
  const fromRoot = relative(place.root, resolve(place.user, typed)) || ".";
  const shown = sep === "/" ? fromRoot : fromRoot.split(sep).join("/");
  return shown.startsWith("..") ? shown : `./${shown}`;
}
