// The roles a play uses, read the one way both the facts of a component's fields (facts.ts)
// and the facts of its file on disk (disk-facts.ts) read them.

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Role names of one play's `roles` list (strings, or objects with `role`). */
export function roleNames(roles: unknown): string[] {
  if (!Array.isArray(roles)) return [];
  const names: string[] = [];
  for (const entry of roles) {
    if (typeof entry === "string") names.push(entry);
    else if (isRecord(entry) && typeof entry.role === "string") names.push(entry.role);
  }
  return names.filter((name) => name.trim() !== "");
}
