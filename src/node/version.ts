// The version of this kiln (`kiln --version`, the built-ins' source in kiln.lock, the service's
// catalogue metadata), read from package.json. Every JavaScript file of kiln (source, tsc output
// and the CLI's bundle chunks) sits two folders below the package root.
import { readFileSync } from "node:fs";

export function readVersion(): string {
  const url = new URL("../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}
