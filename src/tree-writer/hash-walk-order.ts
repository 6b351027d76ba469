// The content hash's order of a tree writer's files (file-digests.ts inHashOrder): its slots sorted
// by path, kept for the next walk until a path is added or dropped (the build hashes twice in a
// row), and walked with their digests. The build's last walk (its hash stage) gives the order
// back a window at a time as it goes: the order is 4 bytes a file, held through a walk that is
// part of the build's peak, and nothing reads it after.
import { releaseGrown, shrunkGrown } from './grown-typed-array.js';
import type { SlotWindows, SpilledDigests } from './spilled-digests.js';

export class HashWalkOrder {
  /** The slots in the content hash's order; grown-in-place memory, given back at once when dropped. */
  private sortedSlots: Uint32Array | undefined;
  /** How many walks are going (their order is not given back under them). */
  private walksGoing = 0;
  /** Set by giveBackByNextWalk: the next walk gives its order back as it goes. */
  private givenBackByNextWalk = false;

  /** `sort`: the live slots sorted by path, in an array grown in place (sort-positions.ts). */
  constructor(
    private readonly sort: () => Uint32Array,
    private readonly digests: SpilledDigests,
  ) {}

  /** Every live slot with its digest (a view, valid until the next), in the content hash's order. */
  *walk(): IterableIterator<[number, Buffer]> {
    this.sortedSlots ??= this.sort();
    const order = this.sortedSlots;
    let position = 0;
    this.walksGoing += 1;
    try {
      if (this.givenBackByNextWalk && this.walksGoing === 1) {
        this.givenBackByNextWalk = false;
        this.sortedSlots = undefined;
        yield* this.walkGivingBack(order);
        return;
      }
      for (const digest of this.digests.inOrder(order)) yield [order[position++]!, digest];
    } finally {
      this.walksGoing -= 1;
    }
  }

  /** walk with no object made a slot (a view, valid during the call): the content hash's. */
  forEach(visit: (slot: number, digest: Buffer) => void): void {
    this.sortedSlots ??= this.sort();
    const order = this.sortedSlots;
    this.walksGoing += 1;
    try {
      if (this.givenBackByNextWalk && this.walksGoing === 1) {
        this.givenBackByNextWalk = false;
        this.sortedSlots = undefined;
        this.forEachGivingBack(order, visit);
      } else this.digests.forEachInOrder(order, visit);
    } finally {
      this.walksGoing -= 1;
    }
  }

  /**
   * Says the next walk is the last before a path changes: it gives the order back as it goes, so
   * the walk ends holding none of it (a walk after it sorts again: slower, never wrong).
   */
  giveBackByNextWalk(): void {
    this.givenBackByNextWalk = true;
  }

  /** Gives the order back now rather than at the next new path. */
  forget(): void {
    // A walk still going holds the order: it is then left to the collector, never emptied under it.
    if (this.sortedSlots !== undefined && this.walksGoing === 0) releaseGrown(this.sortedSlots);
    this.sortedSlots = undefined;
  }

  /** forEach's walk of `order` giving it back as it goes (walkGivingBack's way). */
  private forEachGivingBack(order: Uint32Array, visit: (slot: number, digest: Buffer) => void): void {
    const windows = new WindowsGivenBack(order);
    try {
      this.digests.forEachInOrder(windows, visit);
    } finally {
      windows.release();
    }
  }

  /** walk's walk of `order` giving it back as it goes. */
  private *walkGivingBack(order: Uint32Array): IterableIterator<[number, Buffer]> {
    const windows = new WindowsGivenBack(order);
    let position = 0;
    let window = -1;
    try {
      for (const digest of this.digests.inOrder(windows)) {
        if (window !== windows.takes) [window, position] = [windows.takes, 0];
        yield [windows.taken[position++]!, digest];
      }
    } finally {
      windows.release();
    }
  }
}

/**
 * An order handed to the digests' reader a window at a time, turned around first so that its next
 * slots are at its end, where a buffer grown in place shrinks: each window taken is given back
 * before its digests are read.
 */
class WindowsGivenBack implements SlotWindows {
  readonly length: number;
  private left: number;
  /** The array the last window was taken into (the reader's own, reused for every window). */
  taken: Uint32Array = new Uint32Array(0);
  /** Windows taken so far. */
  takes = 0;

  constructor(private order: Uint32Array) {
    this.length = order.length;
    this.left = order.reverse().length;
  }

  take(into: Uint32Array): number {
    const count = Math.min(into.length, this.left);
    for (let index = 0; index < count; index++) into[index] = this.order[this.left - 1 - index]!;
    this.left -= count;
    this.order = shrunkGrown(this.order, this.left);
    this.taken = into;
    this.takes += 1;
    return count;
  }

  release(): void {
    this.order = releaseGrown(this.order);
  }
}
