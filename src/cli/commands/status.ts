// kiln status: what happened to the vendored files since kiln wrote them - per component and
// file, the file on disk against kiln.lock (unchanged, modified, missing, conflicted) and the
// newest item rendered with the recorded values against what kiln wrote (changed upstream);
// then the files in the output folder that no component owns, and the URLs it fetched; and,
// when kiln.toml's automation profile is not the one the files were rendered with, the command
// that switches them. Writes
// nothing; exits 0, or 1 after the report when a path breaks the rules of a write (`refused`:
// never read or hashed, see project-files.ts).

import { LOCK_FILE } from "../../core/config.ts";
import { isKilnError } from "../../core/errors.ts";
import type { RegistryItem } from "../../core/item.ts";
import { plural } from "../../core/plural.ts";
import {
  type LocalState,
  localState,
  MAX_VENDORED_FILE_BYTES,
  pairFiles,
} from "../../core/project/file-outcomes.ts";
import { itemFingerprint } from "../../core/project/lock-entry.ts";
import type { LockedComponent } from "../../core/project/lock-format.ts";
import {
  type ProfileDisagreement,
  profileDisagreement,
  profileDisagreementLine,
  switchCommand,
} from "../../core/project/profile-switch.ts";
import { sha256Hex } from "../../node/lock-compression.ts";
import { ProjectFiles, type Refusal, refusedPathsError } from "../../node/project-files.ts";
import { isNewerVersion } from "../../node/registry-client.ts";
import { readVersion } from "../../node/version.ts";
import { flag } from "../args.ts";
import { STATUS } from "../command-list.ts";
import {
  fetchUrlsOf,
  filesBelow,
  type LockedProject,
  readLockedProject,
  rerender,
  selectComponents,
} from "../lifecycle.ts";
import { warnOfNewerLock } from "../newer-lock.ts";
import { commandHelp, parseCommand } from "../options.ts";
import type { Output } from "../output.ts";
import { newerVersionLine, newerVersionOf } from "../registry-pins.ts";
import { ComponentRenderer } from "../render-component.ts";
import { RUN_FETCH_LIMITS, type UrlReport, urlLines } from "../url-fetches.ts";

export function help(): string {
  return commandHelp(STATUS, {
    title: "show what changed in the vendored files, here and upstream",
    about: `Reads ${LOCK_FILE} and, for every component (or those named: \`api\`, \`deployment/api\`) and file, compares the file on disk with what kiln
wrote (unchanged, modified, missing, conflicted: markers from \`kiln update --conflicts=markers\`
not yet resolved) and renders the newest item (this kiln's built-ins, the URL, the file) with
the recorded values to see whether it changed upstream. Lists the files in the output folder
that no component owns, says when the automation_profile of kiln.toml is not the profile the
files were rendered with (and that \`kiln update --profile <profile>\` switches them), and each URL it fetched (each once; at most ${RUN_FETCH_LIMITS.maxUrls}, ${RUN_FETCH_LIMITS.concurrency} at a time,
${RUN_FETCH_LIMITS.deadlineMs / 1000} s in all). A path that breaks the rules of a write (outside the project, through a link that
leads out, in .git, not a regular file, over ${MAX_VENDORED_FILE_BYTES / 1024 / 1024} MiB) is never read: it is listed as refused, and the
command exits 1 after the report. Writes nothing; exits 0 otherwise.

Lists only the files with something to say (not unchanged, or changed upstream) and a summary
line counting every file; --all lists every file, --json holds every file.`,
    examples: [
      "kiln status",
      "kiln status --all",
      "kiln status service/api",
      "kiln status --json | jq '.components[].files[]'",
    ],
  });
}

/** What the newest item would write for a recorded file. */
type Upstream = "unchanged" | "changed" | "moved" | "removed" | "unknown";

interface FileStatus {
  path: string;
  local: LocalState;
  upstream: Upstream;
  /** For `moved`: the path the newest render gives it. */
  to?: string | undefined;
  /** For `refused`: why kiln did not read it. */
  reason?: string | undefined;
}

interface ComponentStatus {
  name: string;
  component: string;
  reference: string;
  source: LockedComponent["source"];
  files: FileStatus[];
  /** Files the newest render writes that kiln.lock does not record for it. */
  added: string[];
  /**
   * The component's paths - recorded, or given by the newest render - that break the rules of a
   * write: never read or hashed (a recorded one is also in `files`, as `refused`).
   */
  refused: Refusal[];
  /**
   * The item itself against what kiln.lock records of it (its fingerprint): `changed` when the
   * newest item differs - a built-in whose template changed between the kiln that recorded it
   * and this one - even where the files it renders with the recorded values do not.
   */
  upstream: "changed" | "unchanged" | "unknown";
  /** Why the newest item could not be rendered (offline, file gone); upstream is then unknown. */
  error?: string | undefined;
  /** A registry's item: the newest version its index lists, when newer than the pinned one. */
  newerVersion?: string | undefined;
}

async function componentStatus(
  renderer: ComponentRenderer,
  project: LockedProject,
  entry: LockedComponent,
  disk: ProjectFiles,
): Promise<ComponentStatus> {
  const refused: Refusal[] = [];
  const files = entry.files.map((file): FileStatus => {
    const reason = disk.refusal(file.path);
    if (reason !== undefined) {
      refused.push({ path: file.path, reason });
      return { path: file.path, local: "refused", upstream: "unknown", reason };
    }
    const content = disk.read(file.path);
    const hash = content === undefined ? undefined : sha256Hex(content);
    return { path: file.path, local: localState(file, content, hash), upstream: "unknown" };
  });
  const status: ComponentStatus = {
    name: entry.name,
    component: entry.component,
    reference: entry.reference,
    source: entry.source,
    files,
    added: [],
    refused,
    upstream: "unknown",
  };
  try {
    const rendered = await rerender(renderer, project, entry);
    status.upstream = itemChanged(entry, rendered.render.item) ? "changed" : "unchanged";
    const { pairs, dropped } = pairFiles(entry.files, rendered.files);
    for (const [old, file] of pairs) {
      // a new path is checked like a recorded one: status names it, and only when it may
      const reason = file.path === old?.path ? undefined : disk.refusal(file.path);
      if (reason !== undefined) refused.push({ path: file.path, reason });
      if (old === undefined) {
        if (reason === undefined) status.added.push(file.path);
        continue;
      }
      const row = files.find((row) => row.path === old.path) as FileStatus;
      if (file.path !== old.path) {
        row.upstream = "moved";
        row.to = file.path;
      } else row.upstream = sha256Hex(file.content) === old.sha256 ? "unchanged" : "changed";
    }
    for (const old of dropped) {
      (files.find((row) => row.path === old.path) as FileStatus).upstream = "removed";
    }
  } catch (error) {
    if (!isKilnError(error)) throw error;
    status.error = error.message;
  }
  status.newerVersion = (await newerVersionOf(renderer, entry, isNewerVersion))?.newest;
  return status;
}

/** Does the newest item differ from the one kiln.lock records (by the item's fingerprint)? */
function itemChanged(entry: LockedComponent, item: RegistryItem): boolean {
  return itemFingerprint(item, sha256Hex) !== entry.fingerprint;
}

/**
 * What the component's line adds when its item changed upstream: for a built-in, the kiln that
 * recorded it and this one, whose built-in differs.
 */
function itemChangeNote(component: ComponentStatus): string {
  if (component.upstream !== "changed") return "";
  return component.source.type === "builtin"
    ? `changed upstream: the built-in of kiln ${component.source.kiln} differs from kiln ${readVersion()}'s`
    : "changed upstream: the item differs from the one kiln.lock records";
}

export async function run(argv: string[], output: Output): Promise<number> {
  const { parsed, args } = parseCommand(argv, STATUS);
  const cwd = process.cwd();
  const project = readLockedProject(cwd);
  warnOfNewerLock(output, project.lock);
  // the components named (`api`, `deployment/api`), all when none is
  const selected = selectComponents(project.lock, args);
  const disk = new ProjectFiles(cwd);
  const renderer = new ComponentRenderer(cwd, { lock: project.lock });
  const components: ComponentStatus[] = [];
  let urls: UrlReport[];
  try {
    // every URL at once, within the run's bounds; one that gives no item leaves its
    // component's upstream unknown, and the report names it
    urls = await fetchUrlsOf(renderer, selected);
    for (const entry of selected) {
      components.push(await componentStatus(renderer, project, entry, disk));
    }
  } finally {
    await renderer.close();
  }
  const owned = new Set(project.lock.components.flatMap((entry) => entry.files.map((f) => f.path)));
  const unowned = filesBelow(cwd, project.config.outputDir).filter(
    (path) => !owned.has(path) && path !== LOCK_FILE && path !== "kiln.toml",
  );
  const profile = profileDisagreement(project.config, project.lock);
  if (flag(parsed, "json")) {
    // `urls` only when the lock names any, as in `kiln diff` and `kiln check`; `profile` only
    // when kiln.toml and kiln.lock disagree
    const answer = {
      components,
      unowned,
      ...(urls.length === 0 ? {} : { urls }),
      ...(profile === undefined ? {} : { profile: profileJson(profile) }),
    };
    output.json(answer);
  } else {
    report(output, components, unowned, urls, flag(parsed, "all"));
    if (profile !== undefined) output.line(output.out.yellow(profileDisagreementLine(profile)));
  }
  const refused = components.flatMap((component) => component.refused);
  if (refused.length > 0) throw refusedPathsError(refused);
  return 0;
}

/** A disagreement as `--json` gives it: both sides and the command that switches. */
function profileJson(profile: ProfileDisagreement) {
  return {
    project: profile.project,
    lock: profile.lock,
    command: switchCommand(profile.project),
  };
}

/**
 * Whether a file has something to say: not `unchanged` on disk, or changed upstream (it moves,
 * changes or goes away with the next update). Only these are listed without --all.
 */
function worthListing(file: FileStatus): boolean {
  return (
    file.local !== "unchanged" || (file.upstream !== "unchanged" && file.upstream !== "unknown")
  );
}

/**
 * The report for people: per component the files with something to say (every file with
 * `all`, --all) under the component's line - a component with nothing to say is left out -,
 * then the files no component owns, the URLs fetched, and a summary counting every file.
 */
function report(
  output: Output,
  components: ComponentStatus[],
  unowned: string[],
  urls: UrlReport[],
  all: boolean,
): void {
  const style = output.out;
  const colour = {
    unchanged: style.dim,
    modified: style.yellow,
    missing: style.red,
    conflicted: style.red,
    refused: style.red,
  };
  const counts = new Map<string, number>();
  const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const component of components) {
    const from = component.reference === component.component ? "" : ` (${component.reference})`;
    const itemNote = itemChangeNote(component);
    // a changed item counts once, where none of its files says so already
    let upstreamCounted = false;
    // the component's lines, printed under its own line when there is any (or the item changed)
    const lines: string[] = [];
    for (const file of component.files) {
      count(file.local);
      const upstream =
        file.upstream === "changed"
          ? "changed upstream"
          : file.upstream === "moved"
            ? `moves upstream to ${file.to}`
            : file.upstream === "removed"
              ? "removed upstream"
              : "";
      if (upstream !== "") {
        count("upstream");
        upstreamCounted = true;
      }
      if (!all && !worthListing(file)) continue;
      const why = file.reason === undefined ? "" : `  (${file.reason})`;
      lines.push(
        `  ${colour[file.local](file.local.padEnd(10))} ${output.path(file.path)}${why}${upstream ? `  ${style.yellow(`(${upstream})`)}` : ""}`,
      );
    }
    for (const path of component.added) {
      count("upstream");
      upstreamCounted = true;
      lines.push(
        `  ${style.green("new".padEnd(10))} ${output.path(path)}  ${style.yellow("(added upstream)")}`,
      );
    }
    const recorded = new Set(component.files.map((file) => file.path));
    for (const refusal of component.refused.filter((refusal) => !recorded.has(refusal.path))) {
      count("new refused");
      lines.push(
        `  ${style.red("refused".padEnd(10))} ${output.path(refusal.path)}  (from the newest item: ${refusal.reason})`,
      );
    }
    if (itemNote !== "" && !upstreamCounted) count("upstream");
    if (component.error !== undefined) {
      lines.push(`  ${style.yellow(`upstream unknown: ${component.error}`)}`);
    }
    if (component.newerVersion !== undefined && component.source.type === "registry") {
      const newer = { pinned: component.source.version, newest: component.newerVersion };
      lines.push(`  ${style.yellow(newerVersionLine(component, newer))}`);
    }
    if (!all && lines.length === 0 && itemNote === "") continue;
    output.line(
      `${style.bold(component.name)} ${component.component}${from}${itemNote === "" ? "" : `  ${style.yellow(`(${itemNote})`)}`}`,
    );
    for (const line of lines) output.line(line);
  }
  if (unowned.length > 0) {
    output.line(style.bold("not recorded in kiln.lock"));
    for (const path of unowned)
      output.line(`  ${style.dim("unowned".padEnd(10))} ${output.path(path)}`);
  }
  for (const line of urlLines(urls, style)) output.line(line);
  const files = components.reduce((sum, component) => sum + component.files.length, 0);
  const parts = (["unchanged", "modified", "missing", "conflicted", "refused"] as const)
    .filter((state) => (counts.get(state) ?? 0) > 0)
    .map((state) => `${counts.get(state)} ${state}`);
  const newRefused = counts.get("new refused") ?? 0;
  const upstreamRefused =
    newRefused > 0 ? `; ${plural(newRefused, "path")} of the newest items refused` : "";
  output.line(
    `${plural(components.length, "component")}, ${plural(files, "file")}${parts.length > 0 ? `: ${parts.join(", ")}` : ""}; ${counts.get("upstream") ?? 0} changed upstream${upstreamRefused}; ${plural(unowned.length, "file")} not recorded`,
  );
}
