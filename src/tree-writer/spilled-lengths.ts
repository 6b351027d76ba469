// Where each item of an append-only scratch file lies (search-index-spill-writer.ts), by arrival:
// its length in a typed array, and its offset summed from those lengths from the nearest of one
// offset kept per CHECKPOINT_ITEMS items. The items are appended one after the other in arrival
// order, so an offset is the sum of the lengths before it: an offset column (8 bytes an item) was
// 24 bytes a document across the index step's three scratch files, held to its end.
import { grownTypedArray } from './grown-typed-array.js';

/** Items per kept offset: a read sums at most this many lengths less one. */
const CHECKPOINT_ITEMS = 32;
const CHECKPOINT_SHIFT = 5;

export class SpilledLengths {
  private lengths = new Uint32Array(1024);
  /** The offset of every CHECKPOINT_ITEMS-th item (a file may pass 4 GiB: doubles). */
  private checkpoints = new Float64Array(32);
  private items = 0;
  private end = 0;

  /**
   * `gap`: bytes that follow each item in its file, not counted in its length (the title file's
   * entry digests).
   */
  constructor(private readonly gap = 0) {}

  /** The item after the last, `length` bytes, at the file's current end; returns its offset. */
  push(length: number): number {
    const at = this.items;
    this.items += 1;
    this.lengths = grownTypedArray(this.lengths, this.items);
    this.lengths[at] = length;
    if ((at & (CHECKPOINT_ITEMS - 1)) === 0) {
      this.checkpoints = grownTypedArray(this.checkpoints, (at >> CHECKPOINT_SHIFT) + 1);
      this.checkpoints[at >> CHECKPOINT_SHIFT] = this.end;
    }
    const offset = this.end;
    this.end += length + this.gap;
    return offset;
  }

  /** The items pushed so far; the next one's arrival. */
  get count(): number {
    return this.items;
  }

  /** Each item's length, by arrival (a view: valid while no item is pushed). */
  get lengthOf(): Uint32Array {
    return this.lengths;
  }

  lengthAt(arrival: number): number {
    return this.lengths[arrival]!;
  }

  offsetAt(arrival: number): number {
    const first = arrival & ~(CHECKPOINT_ITEMS - 1);
    let offset = this.checkpoints[arrival >> CHECKPOINT_SHIFT]!;
    for (let at = first; at < arrival; at += 1) offset += this.lengths[at]! + this.gap;
    return offset;
  }
}
