// How a command names the components of kiln.lock: a bare `<name>` selects every component of
// that name (a deployment, a service and an ingress may share one); `<component>/<name>` - the
// last segment of the reference or of the registry item's `category/name`, like kubectl's
// `deployment/api` - and the full `<reference>/<name>` (`k8s/deployment/api`, a URL or a file
// reference followed by `/api`) select exactly one. Pure: update, remove, diff, status and check
// all select through here, so they read an address the same way.

import { LOCK_FILE } from "../config.ts";
import { closest } from "../did-you-mean.ts";
import { KilnError } from "../errors.ts";
import type { LockedComponent } from "./lock-format.ts";

type Addressable = Pick<LockedComponent, "name" | "component" | "reference">;

/** The part after the last `/` (a trailing `/` ignored). */
function lastSegment(text: string): string {
  const trimmed = text.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

/** The short spelling that selects exactly this component: `deployment/api`. */
export function shortAddress(entry: Addressable): string {
  return `${lastSegment(entry.component)}/${entry.name}`;
}

/** The spellings of `entry` an address may use before `/<name>`. */
function prefixesOf(entry: Addressable): string[] {
  return [
    lastSegment(entry.component),
    lastSegment(entry.reference),
    entry.component,
    entry.reference,
    entry.reference.replace(/\/+$/, ""),
  ];
}

/**
 * The components `address` selects, in lock order: a name some component has is a bare name
 * (a name may itself hold a `/`); otherwise the part after the last `/` is the name and the part
 * before it names the component. Empty when it selects none.
 */
export function componentsAt<Entry extends Addressable>(
  components: readonly Entry[],
  address: string,
): Entry[] {
  const named = components.filter((entry) => entry.name === address);
  if (named.length > 0) return named;
  const slash = address.lastIndexOf("/");
  if (slash <= 0) return [];
  const prefix = address.slice(0, slash);
  const name = address.slice(slash + 1);
  return components.filter((entry) => entry.name === name && prefixesOf(entry).includes(prefix));
}

/** Whether `address` is a bare name (selects every component of the name) rather than one spelt out. */
export function isBareName(components: readonly Addressable[], address: string): boolean {
  return components.some((entry) => entry.name === address) || !address.includes("/");
}

/** Each component's exact spelling, the full reference's when the short one is shared. */
export function exactAddresses(
  components: readonly Addressable[],
  among: readonly Addressable[] = components,
): string[] {
  return components.map((entry) => {
    const short = shortAddress(entry);
    return componentsAt(among, short).length > 1 ? `${entry.reference}/${entry.name}` : short;
  });
}

/**
 * The components the addresses select (all when there is none), in lock order, each once. An
 * address that selects none is an error listing the spellings that do; a spelt-out address
 * that selects several (two references ending in the same segment) is an error listing each
 * one's full spelling.
 */
export function selectAddressed<Entry extends Addressable>(
  components: readonly Entry[],
  addresses: readonly string[],
): Entry[] {
  if (addresses.length === 0) return [...components];
  const chosen = new Set<Entry>();
  for (const address of addresses) {
    const found = componentsAt(components, address);
    if (found.length === 0) throw unknownAddressError(components, address);
    if (found.length > 1 && !isBareName(components, address)) {
      throw new KilnError(
        "invalid_request",
        `\`${address}\` names ${found.length} components of ${LOCK_FILE}`,
        `name one by its full reference: ${found.map((entry) => `${entry.reference}/${entry.name}`).join(", ")}`,
      );
    }
    for (const entry of found) chosen.add(entry);
  }
  return components.filter((entry) => chosen.has(entry));
}

function unknownAddressError(components: readonly Addressable[], address: string): KilnError {
  const names = [...new Set(components.map((entry) => entry.name))].sort();
  const spelt = address.includes("/") && !names.includes(address);
  return new KilnError(
    "invalid_request",
    spelt
      ? `no component \`${address}\` in ${LOCK_FILE}`
      : `no component named \`${address}\` in ${LOCK_FILE}`,
    names.length === 0
      ? "the lock records no components"
      : spelt
        ? `${nearestAddress(address, exactAddresses(components))}its components: ${exactAddresses(components).join(", ")}`
        : `${nearestAddress(address, names)}its components: ${names.join(", ")}`,
  );
}

/** `did you mean \`api\`? ` before the list of components, or "" when none is near. */
function nearestAddress(address: string, known: readonly string[]): string {
  const guess = closest(address, known);
  return guess === undefined ? "" : `did you mean \`${guess}\`? `;
}
