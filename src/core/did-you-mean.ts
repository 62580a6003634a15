// "Did you mean": the known name a mistyped one was most likely meant to be. One rule for every
// place a name is looked up - fields, JSON keys, references, commands, options, component names,
// kiln.toml keys - so a typo gets the same answer wherever it is made. The distance is
// damerau-levenshtein's (a widely used library): two neighbours swapped (`imgae`) count as one
// edit, as people make them.
import damerauLevenshtein from "damerau-levenshtein";

/**
 * Names longer than this get no suggestion, and candidates this long are not compared: the
 * distance costs the product of the two lengths in time and memory, and the names come from
 * strangers too (a registry item's fields, a cloned project's kiln.lock, an HTTP caller's keys)
 * - a 50,000-character key against an item's 50,000-character field names would be billions of
 * steps for a hint no one needs. Nobody mistypes a name this long.
 */
export const MAX_SUGGESTED_NAME = 200;

/** Case and `-`/`_` are ignored: `targetPort`, `target-port` and `target_port` are one name. */
function comparable(name: string): string {
  return name.toLowerCase().replaceAll("-", "_");
}

/**
 * The candidate `name` was most likely meant to be: the nearest by edit distance (case and
 * `-`/`_` ignored), if at most a third of the name's length away (at least one edit), the
 * first in the list on a tie; undefined when none is that near, or when `name` is longer than
 * MAX_SUGGESTED_NAME.
 */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  if (name.length > MAX_SUGGESTED_NAME) return undefined;
  const limit = Math.max(1, Math.floor(name.length / 3));
  const wanted = comparable(name);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    // the distance is at least the difference of the lengths: such a candidate is never near
    if (Math.abs(candidate.length - name.length) > limit) continue;
    const apart = damerauLevenshtein(wanted, comparable(candidate)).steps;
    if (apart < bestDistance) {
      best = candidate;
      bestDistance = apart;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** `; did you mean \`add\`?` after a message, or "" when no candidate is near. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const guess = closest(name, candidates);
  return guess === undefined ? "" : `; did you mean \`${guess}\`?`;
}
