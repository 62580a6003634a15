// "Did you mean": the known name a mistyped one was most likely meant to be. One rule for every
// place a name is looked up - fields, JSON keys, references, commands, options, component names,
// kiln.toml keys - so a typo gets the same answer wherever it is made. The distance is
// damerau-levenshtein's (a widely used library): two neighbours swapped (`imgae`) count as one
// edit, as people make them.
import damerauLevenshtein from "damerau-levenshtein";

/** Case and `-`/`_` are ignored: `targetPort`, `target-port` and `target_port` are one name. */
function comparable(name: string): string {
  return name.toLowerCase().replaceAll("-", "_");
}

/**
 * The candidate `name` was most likely meant to be: the nearest by edit distance (case and
 * `-`/`_` ignored), if at most a third of the name's length away (at least one edit), the
 * first in the list on a tie; undefined when none is that near.
 */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  const wanted = comparable(name);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    if (candidate === name) continue;
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
