// The source folder of a small registry, for the tests of kiln registry build and validate:
// `redis` (a Kubernetes pod, version 1.2.0) and `notes` (a Markdown file, no version, in a
// nested folder), and the digest the index records.
import { createHash } from "node:crypto";
import { tempDir, write, writeJson } from "./helpers.ts";

export const REDIS_TEMPLATE =
  "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ name | yaml }}\nspec:\n  containers:\n    - name: redis\n      image: {{ image | yaml }}\n";

/** The component.json of the fixture's redis item (its template file beside it). */
export function redisComponent(version: string | undefined): Record<string, unknown> {
  return {
    name: "redis",
    category: "apps",
    ...(version === undefined ? {} : { version }),
    title: "Redis",
    description: "A single Redis pod.",
    fields: [{ name: "image", required: true, example: "redis:7.4" }],
    files: [{ path: "{{ name }}-redis.yaml", templateFile: "redis.yaml.j2" }],
    kiln: { stage: "deploy" },
  };
}

/** A source folder: registry.json, `redis` (1.2.0) and `notes` (no version: 0.1.0). */
export function fixtureRegistry(): string {
  const dir = tempDir();
  writeJson(dir, "registry.json", {
    name: "acme",
    homepage: "https://registry.acme.dev",
    items: ["redis", "extras/notes"],
  });
  writeJson(dir, "redis/component.json", redisComponent("1.2.0"));
  write(dir, "redis/redis.yaml.j2", REDIS_TEMPLATE);
  writeJson(dir, "extras/notes/component.json", {
    name: "notes",
    category: "docs",
    files: [{ path: "{{ name }}.md", templateFile: "notes.md.j2" }],
  });
  write(dir, "extras/notes/notes.md.j2", "# {{ name }}\n");
  return dir;
}

export function sha256(bytes: string): string {
  return `sha256:${createHash("sha256").update(bytes, "utf8").digest("hex")}`;
}

/** One item a test registry serves: its registry-item JSON (with `name`) at `version`. */
export interface PublishedItem {
  item: { name: string; category: string; title?: string; description?: string };
  version: string;
}

/**
 * A built registry written straight into `dir` (as `kiln registry build` lays it out, without
 * its source folder): `<name>.json` and `<name>@<version>.json` per item, and `registry.json`
 * listing them in order with their digests.
 */
export function publishRegistry(dir: string, name: string, items: PublishedItem[]): void {
  const entries = items.map(({ item, version }) => {
    const bytes = `${JSON.stringify(item, null, 2)}\n`;
    write(dir, `${item.name}.json`, bytes);
    write(dir, `${item.name}@${version}.json`, bytes);
    return {
      name: item.name,
      category: item.category,
      title: item.title ?? "",
      description: item.description ?? "",
      version,
      digest: sha256(bytes),
    };
  });
  writeJson(dir, "registry.json", { name, homepage: "https://example.test", items: entries });
}
