// "Did you mean …?": the known name closest to a mistyped one (the one module that imports
// fastest-levenshtein), or none when every known name is too different to be what was meant.
import { distance } from 'fastest-levenshtein';

/** The closest candidate within a third of the longer name's length (at least 2 edits), else undefined. */
export function findClosestName(given: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const edits = distance(given.toLowerCase(), candidate.toLowerCase());
    if (edits < bestDistance) {
      best = candidate;
      bestDistance = edits;
    }
  }
  if (best === undefined) return undefined;
  return bestDistance <= Math.max(2, Math.floor(Math.max(given.length, best.length) / 3)) ? best : undefined;
}
