// The open-addressing table through which a tree writer finds a path's slot (file-digests.ts),
// with its positions packed as tightly as their values allow. A table of 2^k positions is kept at
// most three quarters full, so every value it holds (a slot number + 1, 0 for an empty position)
// is below 2^k and takes k bits: a tree of 650,000 files has a table of 2^20 positions, 20 bits
// each rather than 32. The table is held from the first file to the last pack (the build's peak).
import { grownTypedArray } from './grown-typed-array.js';

const WORD_BITS = 32;

export class PackedSlotTable {
  /** Bits a position: log2 of the number of positions. */
  private width: number;
  private mask: number;
  /** The positions, `width` bits each from bit 0 of word 0, plus a word so a read never runs past. */
  private words: Uint32Array;

  /** `positions`: a power of two, at least 2. */
  constructor(positions: number) {
    this.width = Math.log2(positions);
    this.mask = 2 ** this.width - 1;
    this.words = new Uint32Array(wordsFor(positions, this.width));
  }

  /** How many positions the table has (a power of two). */
  get length(): number {
    return 2 ** this.width;
  }

  /** The value at `position` (0: empty). */
  at(position: number): number {
    // position * width bits in, without a product past 2^32: 32 positions take `width` words.
    const inGroup = (position & (WORD_BITS - 1)) * this.width;
    const word = (position >>> 5) * this.width + (inGroup >>> 5);
    const offset = inGroup & (WORD_BITS - 1);
    let value = this.words[word]! >>> offset;
    if (offset + this.width > WORD_BITS) value |= this.words[word + 1]! << (WORD_BITS - offset);
    return (value & this.mask) >>> 0;
  }

  /** Sets `position` to `value` (below `length`). */
  put(position: number, value: number): void {
    const inGroup = (position & (WORD_BITS - 1)) * this.width;
    const word = (position >>> 5) * this.width + (inGroup >>> 5);
    const offset = inGroup & (WORD_BITS - 1);
    const words = this.words;
    words[word] = (words[word]! & ~(this.mask << offset)) | (value << offset);
    if (offset + this.width > WORD_BITS) {
      const spilled = WORD_BITS - offset;
      words[word + 1] = (words[word + 1]! & ~(this.mask >>> spilled)) | (value >>> spilled);
    }
  }

  /** Doubles the number of positions (a bit more a position), every one of them empty. */
  growEmpty(): void {
    this.width += 1;
    this.mask = 2 ** this.width - 1;
    // Grown in place (grown-typed-array.ts), then emptied.
    this.words = grownTypedArray(this.words, wordsFor(this.length, this.width)).fill(0);
  }
}

function wordsFor(positions: number, width: number): number {
  return Math.ceil((positions * width) / WORD_BITS) + 1;
}
