// Sorting the typed arrays of positions the tree writer and the pack step order (hundreds of
// thousands of files or calls) without an array on the JavaScript heap: the built-in sort of a
// typed array with a comparator copies it into heap arrays first, and a 650,000-position sort
// grew the heap by ~16 MB that stayed committed for the rest of the build. Here a bottom-up merge
// sort uses one more typed array of half the length as scratch, outside the heap (its sorts of a
// whole tree's files are part of the content hash's and the pack step's peaks).

import { grownTypedArray, releaseGrown } from './grown-typed-array.js';

/** Runs this short are sorted by insertion before merging. */
const INSERTION_RUN = 16;

/**
 * Scratch positions past which the scratch array is grown-in-place memory given back as soon as the sort
 * is done (128 KiB): a plain one waited for a collection that, the buffers outside the heap being
 * small to the collector, came late, and the pack step's sorts' scratch was still in RSS at its peak.
 */
const RELEASED_SCRATCH = 32 * 1024;

/**
 * The positions 0 … count - 1 that `keep` accepts (`kept` of them), sorted by `compare`, in an
 * array grown here (grown-typed-array.ts): a typed array, not an array of numbers, since a tree
 * can have 650,000 files.
 */
export function sortedPositionsOf(
  count: number,
  kept: number,
  keep: (position: number) => boolean,
  compare: (left: number, right: number) => number,
): Uint32Array {
  const order = grownTypedArray(new Uint32Array(0), kept);
  let placed = 0;
  for (let position = 0; position < count; position++) if (keep(position)) order[placed++] = position;
  return sortPositions(order, compare);
}

/** Sorts `order` in place by `compare` (stable), with a scratch array of half its length; returns it. */
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
  // Each merge copies the shorter of its two runs out and merges back into `order`: scratch for
  // half the positions, where merging from one whole array into another took as many again.
  const scratchLength = Math.floor(count / 2);
  const scratch =
    scratchLength >= RELEASED_SCRATCH
      ? grownTypedArray(new Uint32Array(0), scratchLength)
      : new Uint32Array(scratchLength);
  for (let width = INSERTION_RUN; width < count; width *= 2) {
    for (let start = 0; start + width < count; start += 2 * width) {
      const middle = start + width;
      const end = Math.min(start + 2 * width, count);
      // Two runs already in order (files are mostly written in their paths' order): left in place
      // after one comparison, not merged with one a position.
      if (compare(order[middle]!, order[middle - 1]!) >= 0) continue;
      if (middle - start <= end - middle) mergeForward(order, scratch, start, middle, end, compare);
      else mergeBackward(order, scratch, start, middle, end, compare);
    }
  }
  releaseGrown(scratch);
  return order;
}

/** Merges the runs [start, middle) and [middle, end) of `order` with the left one copied out. */
function mergeForward(
  order: Uint32Array,
  scratch: Uint32Array,
  start: number,
  middle: number,
  end: number,
  compare: (left: number, right: number) => number,
): void {
  const leftLength = middle - start;
  scratch.set(order.subarray(start, middle));
  let left = 0;
  let right = middle;
  let out = start;
  // A tie takes the left run's first: stable.
  while (left < leftLength && right < end)
    order[out++] = compare(order[right]!, scratch[left]!) < 0 ? order[right++]! : scratch[left++]!;
  while (left < leftLength) order[out++] = scratch[left++]!;
}

/** Merges the runs [start, middle) and [middle, end) of `order` with the right one copied out, from the end. */
function mergeBackward(
  order: Uint32Array,
  scratch: Uint32Array,
  start: number,
  middle: number,
  end: number,
  compare: (left: number, right: number) => number,
): void {
  scratch.set(order.subarray(middle, end));
  let left = middle - 1;
  let right = end - middle - 1;
  let out = end - 1;
  // A tie puts the right run's last at the end: stable.
  while (left >= start && right >= 0)
    order[out--] = compare(scratch[right]!, order[left]!) < 0 ? order[left--]! : scratch[right--]!;
  while (right >= 0) order[out--] = scratch[right--]!;
}
