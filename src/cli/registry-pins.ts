// The versions of a project's registry components (`@acme/redis@1.2.0` in kiln.lock): which one
// `kiln update` renders (the pinned one; `--to <version>` or `--latest` move the pin), and the
// line `kiln status` prints when a registry's index lists a newer one than the pin.
import { shortAddress } from "../core/project/component-address.ts";
import type { Lock, LockedComponent } from "../core/project/lock-format.ts";
import { flag, type Parsed, stringOption, UsageError } from "./args.ts";
import { selectComponents } from "./lifecycle.ts";
import type { ComponentRenderer, PinChange } from "./render-component.ts";

/**
 * `update --to <version>` / `--latest`: they move the pin of the selected registry components,
 * so they need one (a built-in, URL or file has no version), and `--to` names one item's
 * version, so the selected registry components must all be of the same item.
 */
export function pinChangeOf(
  parsed: Parsed,
  lock: Lock,
  names: readonly string[],
): PinChange | undefined {
  const to = stringOption(parsed, "to");
  const latest = flag(parsed, "latest");
  if (to === undefined && !latest) return undefined;
  if (to !== undefined && latest) {
    throw new UsageError("--to and --latest each choose the version: pass one of them");
  }
  const option = to === undefined ? "--latest" : "--to";
  const registryItems = new Set(
    selectComponents(lock, names).flatMap((entry) =>
      entry.source.type === "registry" ? [`${entry.source.registry}/${entry.source.item}`] : [],
    ),
  );
  if (registryItems.size === 0) {
    throw new UsageError(
      `${option} changes the version of a registry's item (@acme/redis), and ${names.length === 0 ? "the project has none" : "none of the components named is one"}`,
    );
  }
  if (to !== undefined && registryItems.size > 1) {
    throw new UsageError(
      `--to ${to} names one item's version, and the components selected come from ${registryItems.size} items (${[...registryItems].join(", ")}) - name the components of one, e.g. kiln update cache --to ${to}`,
    );
  }
  return { to, latest };
}

/** A registry component whose index lists a newer version than the one kiln.lock pins. */
export interface NewerVersion {
  pinned: string;
  newest: string;
}

/**
 * The newest version `entry`'s registry lists, when newer than its pin; undefined for other
 * components, an index that cannot be read (the component's own line says why it could not be
 * rendered), or a pin that is the newest.
 */
export async function newerVersionOf(
  renderer: ComponentRenderer,
  entry: LockedComponent,
  isNewer: (a: string, b: string) => Promise<boolean>,
): Promise<NewerVersion | undefined> {
  const source = entry.source;
  if (source.type !== "registry") return undefined;
  let newest: string;
  try {
    newest = await (await renderer.registries()).newestVersion(source.registry, source.item);
  } catch {
    return undefined;
  }
  return (await isNewer(newest, source.version)) ? { pinned: source.version, newest } : undefined;
}

/** `status`'s one line for it: what is out, and the command that takes it. */
export function newerVersionLine(
  entry: { name: string; component: string; reference: string },
  newer: NewerVersion,
): string {
  const address = shortAddress(entry);
  return `newer version: ${newer.newest} (kiln.lock pins ${newer.pinned}) - \`kiln update ${address} --to ${newer.newest}\` takes it`;
}
