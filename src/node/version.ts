// The version of this kiln (`kiln --version`, the built-ins' source in kiln.lock, the service's
// catalogue metadata), read from package.json. Every JavaScript file of kiln (source, tsc output
// and the CLI's bundle chunks) sits two folders below the package root.
import { readFileSync } from "node:fs";

/**
 * The version as first read: package.json does not change under a running kiln, and `kiln setup`
 * asks once per component for its kiln.lock source (35 reads and parses of package.json for
 * multi-tier-platform, about 2 ms).
 */
let version: string | undefined;

export function readVersion(): string {
  if (version === undefined) {
    const url = new URL("../../package.json", import.meta.url);
    version = (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
  }
  return version;
}
