// The files kiln reads back from the project: `status`, `diff`, `update` and `remove` compare
// the vendored files on disk with kiln.lock and with a new render. Every such path comes from a
// stranger as much as a path kiln writes - kiln.lock is edited in pull requests, a registry
// item's next version chooses its paths, any file of a cloned tree may be a link - so each one
// passes the rules of a write before it is opened (resolveProjectFile in write-plan.ts: inside
// the project, no `..` out, not absolute, no link leading out, not in `.git`, a regular file),
// and is read through one descriptor up to the cap a write reads (MAX_VENDORED_FILE_BYTES). A
// path that fails is refused: never opened, read or hashed, and the command says so.

import { LOCK_FILE, PROJECT_FILE } from "../core/config.ts";
import { isKilnError, KilnError } from "../core/errors.ts";
import { shortPath } from "../core/plan.ts";
import { plural } from "../core/plural.ts";
import {
  DiskView,
  displayPath,
  errorCode,
  readTreeFile,
  realPathOf,
  resolveProjectFile,
} from "./write-plan.ts";

/** What kiln found at a path of the project. */
type Found = { content: string | undefined } | { refused: string };

/** A path kiln would not read, and why (the rule's message). */
export interface Refusal {
  path: string;
  reason: string;
}

/** The files of the project at `cwd`, each checked and read at most once per run. */
export class ProjectFiles {
  private readonly cwd: string;
  private readonly disk = new DiskView();
  private readonly found = new Map<string, Found>();
  private projectReal: string | undefined;

  constructor(cwd: string) {
    this.cwd = cwd;
  }

  /** Why kiln will not read or write `path` (from the project root); undefined when it may. */
  refusal(path: string): string | undefined {
    const found = this.lookUp(path);
    return "refused" in found ? found.refused : undefined;
  }

  /**
   * The content of the file at `path`, undefined when there is none. A refused path is never
   * read: asking for it is the refusal, thrown (ask `refusal` first to report it instead).
   */
  read(path: string): string | undefined {
    const found = this.lookUp(path);
    if ("refused" in found) {
      throw new KilnError("invalid_request", found.refused, REFUSED_DETAIL);
    }
    return found.content;
  }

  private lookUp(path: string): Found {
    let found = this.found.get(path);
    if (found === undefined) {
      found = this.check(path);
      this.found.set(path, found);
    }
    return found;
  }

  private check(path: string): Found {
    const shown = displayPath(this.cwd, this.cwd, path);
    try {
      this.projectReal ??= realPathOf(this.cwd);
      const kilnOwn = path === PROJECT_FILE || path === LOCK_FILE;
      const { destination, stats } = resolveProjectFile(
        this.projectReal,
        path,
        shown,
        this.disk,
        kilnOwn,
      );
      if (stats === undefined) return { content: undefined };
      return { content: readTreeFile(destination, shown)?.toString("utf8") };
    } catch (error) {
      if (isKilnError(error)) return { refused: error.message };
      // a system error outside the rules' own (the project folder itself unreadable)
      const code = errorCode(error);
      if (code !== undefined)
        return { refused: `could not read \`${shortPath(shown)}\` (${code})` };
      throw error;
    }
  }
}

const REFUSED_DETAIL =
  "kiln reads and writes only regular files inside the project, never through a link that leads out of it and never in `.git`: fix the path in kiln.lock (it is in git: `git checkout kiln.lock`) or in the item, or replace the link or special file with a regular file";

/**
 * The error that ends a command after it met paths kiln will not read or write: each path with
 * its reason, and what to do. `outcome` says what the command did not do ("nothing was written").
 */
export function refusedPathsError(refusals: readonly Refusal[], outcome?: string): KilnError {
  const unique = [...new Map(refusals.map((refusal) => [refusal.path, refusal])).values()];
  return new KilnError(
    "invalid_request",
    `${plural(unique.length, "path")} refused - kiln does not read or write ${unique.length === 1 ? "it" : "them"}${outcome ? `; ${outcome}` : ""}`,
    [
      ...unique.map((refusal) => `${shortPath(refusal.path)}: ${refusal.reason}`),
      REFUSED_DETAIL,
    ].join("\n"),
  );
}
