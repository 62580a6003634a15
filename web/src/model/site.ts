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
