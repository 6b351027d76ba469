// Sorting the typed arrays of positions the tree writer and the pack step order (hundreds of
// thousands of files or calls) without an array on the JavaScript heap: the built-in sort of a
// typed array with a comparator copies it into heap arrays first, and a 650,000-position sort
// grew the heap by ~16 MB that stayed committed for the rest of the build. Here a bottom-up merge
// sort uses one more typed array of the same length as scratch, outside the heap.

import { grownTypedArray, releaseGrown } from './grown-typed-array.js';

/** Runs this short are sorted by insertion before merging. */
const INSERTION_RUN = 16;

/**
 * Positions past which the scratch array is grown-in-place memory given back as soon as the sort
 * is done (128 KiB): a plain one waited for a collection that, the buffers outside the heap being
 * small to the collector, came late, and the pack step's sorts' scratch was still in RSS at its peak.
 */
const RELEASED_SCRATCH = 32 * 1024;

/** Sorts `order` in place by `compare` (stable), with a scratch array of its length; returns it. */
export function sortPositions<T extends Uint32Array>(order: T, compare: (left: number, right: number) => number): T {
  const count = order.length;
  for (let start = 0; start < count; start += INSERTION_RUN) {
    const end = Math.min(start + INSERTION_RUN, count);
    for (let index = start + 1; index < end; index++) {
      const item = order[index]!;
      let place = index;
      while (place > start && compare(order[place - 1]!, item) > 0) {
        order[place] = order[place - 1]!;
        place -= 1;
      }
      order[place] = item;
    }
  }
  if (count <= INSERTION_RUN) return order;
  let from: Uint32Array = order;
  const scratch = count >= RELEASED_SCRATCH ? grownTypedArray(new Uint32Array(0), count) : new Uint32Array(count);
  let to: Uint32Array = scratch;
  for (let width = INSERTION_RUN; width < count; width *= 2) {
    for (let start = 0; start < count; start += 2 * width) {
      const middle = Math.min(start + width, count);
      const end = Math.min(start + 2 * width, count);
      // Two runs already in order (files are mostly written in their paths' order): copied after
      // one comparison, not merged with one a position.
      if (middle >= end || compare(from[middle]!, from[middle - 1]!) >= 0) {
        to.set(from.subarray(start, end), start);
        continue;
      }
      let left = start;
      let right = middle;
      let out = start;
      while (left < middle && right < end)
        to[out++] = compare(from[right]!, from[left]!) < 0 ? from[right++]! : from[left++]!;
      while (left < middle) to[out++] = from[left++]!;
      while (right < end) to[out++] = from[right++]!;
    }
    [from, to] = [to, from];
  }
  if (from !== order) order.set(from);
  releaseGrown(scratch);
  return order;
}
