// The version of this kiln (`kiln --version`, the built-ins' source in kiln.lock, the service's
// catalogue metadata), read from package.json. Every JavaScript file of kiln (source, tsc output
// and the CLI's bundle chunks) sits two folders below the package root.
import { readFileSync } from "node:fs";

/**
 * package.json's version as the CLI bundle was built from it (scripts/bundle-cli.mjs writes it
 * in): a bundle ships with the package.json it was built with, and the build runs again when the
 * version changes (package-lock.json, which `npm version` changes with it, is among its
 * sources). Reading and parsing package.json and making its URL cost `kiln add` about 1 ms; the
 * service and runs from source, where this is not defined, read the file.
 */
declare const KILN_BUNDLED_VERSION: string | undefined;

/**
 * The version as first read: package.json does not change under a running kiln, and `kiln setup`
 * asks once per component for its kiln.lock source (35 reads and parses of package.json for
 * multi-tier-platform, about 2 ms).
 */
let version: string | undefined;

export function readVersion(): string {
  version ??=
    typeof KILN_BUNDLED_VERSION === "string" ? KILN_BUNDLED_VERSION : versionInPackageJson();
  return version;
}

function versionInPackageJson(): string {
  const url = new URL("../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}
