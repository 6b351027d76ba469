// A list of numbers held in about one byte each where they come close together, as a tool's call
// files do among the tree writer's slots (the pack step's names, pack-record-list.ts): each block
// of 32 keeps its first number (4 bytes) and each number its distance from it (1 byte). A list
// whose numbers stray 256 or more past their block's first (or below it) turns, once, into 4
// bytes a number. Either way a number is read back in constant time.
import { grownTypedArray, releaseGrown } from './grown-typed-array.js';

const BLOCK_BITS = 5;
const BLOCK_MASK = (1 << BLOCK_BITS) - 1;
/** Distances from a block's first number that fit in a byte. */
const SPAN = 256;
const INITIAL_ITEMS = 256;

export class CompactIds {
  /** Each block's first number. */
  private bases = new Uint32Array(INITIAL_ITEMS >>> BLOCK_BITS);
  /** Each number's distance from its block's first. */
  private distances = new Uint8Array(INITIAL_ITEMS);
  /** Every number as it is, once one did not fit. */
  private plain: Uint32Array | undefined;
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** Whether the list fell back to 4 bytes a number. */
  get isPlain(): boolean {
    return this.plain !== undefined;
  }

  push(id: number): void {
    const position = this.count;
    this.count += 1;
    if (this.plain === undefined) {
      const block = position >>> BLOCK_BITS;
      if ((position & BLOCK_MASK) === 0) {
        this.bases = grownTypedArray(this.bases, block + 1);
        this.bases[block] = id;
      }
      const distance = id - this.bases[block]!;
      if (distance >= 0 && distance < SPAN) {
        this.distances = grownTypedArray(this.distances, this.count);
        this.distances[position] = distance;
        return;
      }
      this.turnPlain(position);
    }
    this.plain = grownTypedArray(this.plain!, this.count);
    this.plain[position] = id;
  }

  at(position: number): number {
    const plain = this.plain;
    if (plain !== undefined) return plain[position]!;
    return this.bases[position >>> BLOCK_BITS]! + this.distances[position]!;
  }

  /** Gives the list's memory back at once and empties it. */
  release(): void {
    this.bases = releaseGrown(this.bases);
    this.distances = releaseGrown(this.distances);
    if (this.plain !== undefined) releaseGrown(this.plain);
    this.plain = undefined;
    this.count = 0;
  }

  /** Copies the first `count` numbers into a plain array and lets the blocks go. */
  private turnPlain(count: number): void {
    const plain = grownTypedArray(new Uint32Array(0), Math.max(INITIAL_ITEMS, count + 1));
    for (let position = 0; position < count; position++) plain[position] = this.at(position);
    this.bases = releaseGrown(this.bases);
    this.distances = releaseGrown(this.distances);
    this.plain = plain;
  }
}
