// The version printed by `kiln --version`, read from package.json. Every JavaScript file of the
// CLI (source, tsc output and bundle chunks) sits two folders below the package root.
import { readFileSync } from "node:fs";

export function readVersion(): string {
  const url = new URL("../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}
