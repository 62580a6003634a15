// The structured model of automation/site's `playbooks` field: `[{name, path}]` in order.
import { isRecord, withKey } from "./json-style.ts";

export type Json = Record<string, unknown>;

export function siteEntryView(entry: unknown): { name: string; path: string } {
  const object = isRecord(entry) ? entry : {};
  return {
    name: typeof object.name === "string" ? object.name : "",
    path: typeof object.path === "string" ? object.path : "",
  };
}

export function updateSiteEntry(entry: unknown, change: { name?: string; path?: string }): Json {
  let object: Json = isRecord(entry) ? entry : { name: "", path: "" };
  if (change.name !== undefined) object = withKey(object, "name", change.name);
  if (change.path !== undefined) object = withKey(object, "path", change.path);
  return object;
}

/** The playbook paths a site can import: each playbook component's file, relative to the site. */
export function playbookPathSuggestions(
  files: readonly { path: string; kind: string | undefined }[],
  sitePath: string,
): string[] {
  const depth = sitePath.split("/").length - 1;
  const up = "../".repeat(depth);
  return files
    .filter((file) => file.kind === "playbook" || file.kind === "k8s-bootstrap")
    .map((file) => `${up}${file.path}`);
}
