// A flat copy of a string kept for every document discovery walks (walk-folder.ts): its path.
// core/search/detached-string.ts cuts a string loose from its parent as a view of a copy one
// character longer (a sliced string's 32-byte header over it), which the bundles the tree ships
// keep as they are; on Node, JSON.parse makes a string value this long a flat string of its own
// (only keys and very short values are internalized), and the round trip is exact.
import { SHORTEST_VIEW } from '../core/search/detached-string.js';

/** `text` as a flat string of its own (not a view into `text`'s parent, nor into a copy). */
export function ownString(text: string): string {
  if (text.length < SHORTEST_VIEW) return text;
  return JSON.parse(JSON.stringify(text)) as string;
}
