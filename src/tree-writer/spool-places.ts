// Where each spooled file of a tree writer is in the spool (tree-writer.ts: held there, not yet a
// file of the tree), by the writer's slot number (file-digests.ts), in ~2.3 bytes a slot: files
// are appended to the spool in the order their slots are made, so a file starts where the slot
// before it ends. Each slot keeps its length (16 bits; longer ones aside), every 32nd slot its
// offset whole, and a gap noted aside where the spool grew by bytes no later slot accounts for.
// A file placed out of that order (a copy pointing back at an earlier file's bytes, a slot spooled
// again) is kept aside whole. Offsets and lengths of 48 + 32 bits a slot (10 bytes) were the
// largest part of the writer's state through a 650,000-call build.
import { grownTypedArray } from './grown-typed-array.js';

/** Slots per kept whole offset: a lookup adds up at most this many lengths less one. */
const BLOCK_SHIFT = 5;
const BLOCK_MASK = (1 << BLOCK_SHIFT) - 1;
/** A length at or past this is kept aside (in `longLengths`). */
const LONG_LENGTH = 0xffff;

export interface SpoolPlace {
  offset: number;
  length: number;
}

export class SpoolPlaces {
  /** Slots the chain of lengths covers (each slot below it has its place in the chain, or none). */
  private chained = 0;
  /** Where the chain's last slot ends. */
  private chainEnd = 0;
  // Grown at the first spooled file only (an unpacked build spools none).
  private lengths = new Uint16Array(0);
  private blockOffsets = new Float64Array(0);
  /** One bit a slot: whether it is spooled now. */
  private spooled = new Uint8Array(0);
  /** Lengths of LONG_LENGTH or more, by slot. */
  private readonly longLengths = new Map<number, number>();
  /** By slot: how far its file starts past the end of the slot before it. */
  private readonly gaps = new Map<number, number>();
  /**
   * Places kept whole: files placed out of the chain's order (each raw-name copy of a content
   * build's documents). By slot, the place's number + 1 (0: none); the places in typed arrays. An
   * object, its boxed offset and a Map entry a copy were ~90 bytes of heap a document.
   */
  private asideNumberOf = new Uint32Array(0);
  private asideOffsets = new Float64Array(0);
  private asideLengths = new Float64Array(0);
  private asideCount = 0;

  has(slot: number): boolean {
    return slot >>> 3 < this.spooled.length && (this.spooled[slot >>> 3]! & (1 << (slot & 7))) !== 0;
  }

  /** Records that `slot`'s file is `length` bytes at `offset` in the spool. */
  set(slot: number, offset: number, length: number): void {
    this.spooled = grownTypedArray(this.spooled, (slot >>> 3) + 1);
    this.spooled[slot >>> 3]! |= 1 << (slot & 7);
    // A copy points back into the spool, and a slot below the chain's end already has its place
    // there, which the slots after it count from.
    if (slot < this.chained || offset < this.chainEnd) {
      this.setAside(slot, offset, length);
      return;
    }
    this.deleteAside(slot);
    this.extendChain(slot + 1);
    if ((slot & BLOCK_MASK) === 0) this.blockOffsets[slot >>> BLOCK_SHIFT] = offset;
    else if (offset !== this.chainEnd) this.gaps.set(slot, offset - this.chainEnd);
    if (length < LONG_LENGTH) this.lengths[slot] = length;
    else {
      this.lengths[slot] = LONG_LENGTH;
      this.longLengths.set(slot, length);
    }
    this.chainEnd = offset + length;
  }

  /** The number + 1 of `slot`'s place kept whole (0: none). */
  private asideOf(slot: number): number {
    return slot < this.asideNumberOf.length ? this.asideNumberOf[slot]! : 0;
  }

  private setAside(slot: number, offset: number, length: number): void {
    let number = this.asideOf(slot) - 1;
    if (number < 0) {
      number = this.asideCount;
      this.asideCount += 1;
      this.asideNumberOf = grownTypedArray(this.asideNumberOf, slot + 1);
      this.asideNumberOf[slot] = number + 1;
      this.asideOffsets = grownTypedArray(this.asideOffsets, this.asideCount);
      this.asideLengths = grownTypedArray(this.asideLengths, this.asideCount);
    }
    this.asideOffsets[number] = offset;
    this.asideLengths[number] = length;
  }

  /** Forgets `slot`'s place kept whole; the slot keeps its number, which setAside fills again. */
  private deleteAside(slot: number): void {
    const number = this.asideOf(slot) - 1;
    if (number >= 0) this.asideLengths[number] = -1;
  }

  /** `slot`'s place kept whole, or undefined. */
  private asideAt(slot: number): SpoolPlace | undefined {
    const number = this.asideOf(slot) - 1;
    if (number < 0 || this.asideLengths[number]! < 0) return undefined;
    return { offset: this.asideOffsets[number]!, length: this.asideLengths[number]! };
  }

  /** Covers the slots up to `slots` with the chain, the ones not spooled as zero bytes. */
  private extendChain(slots: number): void {
    this.lengths = grownTypedArray(this.lengths, slots);
    this.blockOffsets = grownTypedArray(this.blockOffsets, ((slots - 1) >>> BLOCK_SHIFT) + 1);
    for (let slot = this.chained; slot < slots; slot++) {
      if ((slot & BLOCK_MASK) === 0) this.blockOffsets[slot >>> BLOCK_SHIFT] = this.chainEnd;
    }
    this.chained = slots;
  }

  /** Marks `slot`'s file as no longer spooled (its place in the chain stays: later slots count on it). */
  clear(slot: number): void {
    if (!this.has(slot)) return;
    this.spooled[slot >>> 3]! &= ~(1 << (slot & 7));
    this.deleteAside(slot);
  }

  /** Where `slot`'s file is, or undefined when it is not spooled. */
  at(slot: number): SpoolPlace | undefined {
    if (!this.has(slot)) return undefined;
    const aside = this.asideAt(slot);
    if (aside !== undefined) return aside;
    const first = slot & ~BLOCK_MASK;
    let offset = this.blockOffsets[slot >>> BLOCK_SHIFT]!;
    for (let before = first; before < slot; before++) offset += this.chainLengthOf(before);
    if (this.gaps.size > 0) for (let after = first + 1; after <= slot; after++) offset += this.gaps.get(after) ?? 0;
    return { offset, length: this.chainLengthOf(slot) };
  }

  /** The size of `slot`'s file, or undefined when it is not spooled. */
  lengthAt(slot: number): number | undefined {
    if (!this.has(slot)) return undefined;
    const number = this.asideOf(slot) - 1;
    if (number >= 0 && this.asideLengths[number]! >= 0) return this.asideLengths[number]!;
    return this.chainLengthOf(slot);
  }

  private chainLengthOf(slot: number): number {
    const length = this.lengths[slot]!;
    return length === LONG_LENGTH ? this.longLengths.get(slot)! : length;
  }
}
