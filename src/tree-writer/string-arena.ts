// A list of strings held as their UTF-8 bytes side by side in one growing buffer, with their
// offsets in typed arrays: what the pack step keeps per call (paths, names) for tools of hundreds of
// thousands of calls. A string and an array slot per call cost several times the path's own bytes
// on the heap, and the heap grows to a multiple of what it holds; here a path costs its bytes and
// eight more, outside the heap. A string is made again only when read (`at`).

import { grownTypedArray, releaseGrown } from './grown-typed-array.js';
import { sortPositions } from './sort-positions.js';

const INITIAL_ITEMS = 256;

/**
 * Compares two UTF-8 byte ranges the way `<` compares the strings they encode (by UTF-16 code
 * units), so a sort here gives the order a sort of the strings gives. The two orders differ in one
 * case only: a character past U+FFFF (lead byte F0-F4, a surrogate pair in UTF-16) against one in
 * U+E000-U+FFFF (lead byte EE or EF); UTF-16 puts the surrogate first.
 */
export function compareUtf8AsUtf16(
  bytes: Uint8Array,
  leftStart: number,
  leftEnd: number,
  rightStart: number,
  rightEnd: number,
): number {
  const length = Math.min(leftEnd - leftStart, rightEnd - rightStart);
  for (let index = 0; index < length; index++) {
    const left = bytes[leftStart + index]!;
    const right = bytes[rightStart + index]!;
    if (left === right) continue;
    if (left >= 0xf0 && (right === 0xee || right === 0xef)) return -1;
    if (right >= 0xf0 && (left === 0xee || left === 0xef)) return 1;
    return left - right;
  }
  return leftEnd - leftStart - (rightEnd - rightStart);
}

/** compareUtf8AsUtf16 of the first `leftLength` bytes of `leftBytes` and `rightLength` of `rightBytes`. */
export function compareUtf8BytesAsUtf16(
  leftBytes: Uint8Array,
  leftLength: number,
  rightBytes: Uint8Array,
  rightLength: number,
): number {
  const length = Math.min(leftLength, rightLength);
  for (let index = 0; index < length; index++) {
    const left = leftBytes[index]!;
    const right = rightBytes[index]!;
    if (left === right) continue;
    if (left >= 0xf0 && (right === 0xee || right === 0xef)) return -1;
    if (right >= 0xf0 && (left === 0xee || left === 0xef)) return 1;
    return left - right;
  }
  return leftLength - rightLength;
}

export class StringArena {
  private bytes = Buffer.alloc(INITIAL_ITEMS * 32);
  private bytesUsed = 0;
  private starts = new Uint32Array(INITIAL_ITEMS);
  private ends = new Uint32Array(INITIAL_ITEMS);
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** Appends `text`; returns its position. */
  push(text: string): number {
    const position = this.count;
    this.count += 1;
    if (this.count > this.starts.length) {
      this.starts = grownTypedArray(this.starts, this.count);
      this.ends = grownTypedArray(this.ends, this.count);
    }
    // Room for the most UTF-8 the text can take (3 bytes a UTF-16 code unit), rather than a
    // count of its bytes before the write that counts them again.
    const most = this.bytesUsed + 3 * text.length;
    if (most > this.bytes.length) this.bytes = grownTypedArray(this.bytes, most);
    this.starts[position] = this.bytesUsed;
    this.bytesUsed += this.bytes.write(text, this.bytesUsed, 'utf8');
    this.ends[position] = this.bytesUsed;
    return position;
  }

  /**
   * Appends strings given as their UTF-8 bytes back to back (`bytes`) and their byte lengths, a
   * length of `none` standing for no string: one copy of the bytes. Each string's position plus one
   * (0 for none) is written to `positions` from `at`, when given.
   */
  pushRun(lengths: Uint32Array, bytes: Uint8Array, none: number, positions?: Uint32Array, at = 0): void {
    let present = 0;
    for (let index = 0; index < lengths.length; index += 1) if (lengths[index] !== none) present += 1;
    const first = this.count;
    this.count += present;
    if (this.count > this.starts.length) {
      this.starts = grownTypedArray(this.starts, this.count);
      this.ends = grownTypedArray(this.ends, this.count);
    }
    const base = this.bytesUsed;
    if (base + bytes.length > this.bytes.length) this.bytes = grownTypedArray(this.bytes, base + bytes.length);
    this.bytes.set(bytes, base);
    this.bytesUsed = base + bytes.length;
    const { starts, ends } = this;
    let position = first;
    let offset = base;
    for (let index = 0; index < lengths.length; index += 1) {
      const length = lengths[index]!;
      if (length === none) {
        if (positions !== undefined) positions[at + index] = 0;
        continue;
      }
      starts[position] = offset;
      offset += length;
      ends[position] = offset;
      if (positions !== undefined) positions[at + index] = position + 1;
      position += 1;
    }
  }

  /** Gives back the arena's memory now (its strings are gone: the arena is empty again). */
  release(): void {
    this.bytes = releaseGrown(this.bytes);
    this.starts = releaseGrown(this.starts);
    this.ends = releaseGrown(this.ends);
    this.bytesUsed = 0;
    this.count = 0;
  }

  /** The string at `position`. */
  at(position: number): string {
    return this.bytes.toString('utf8', this.starts[position]!, this.ends[position]!);
  }

  /** The UTF-8 bytes of the string at `position` (a view: valid until the next `push`). */
  bytesAt(position: number): Uint8Array {
    // A plain view: the Buffer's own subarray goes through its species constructor, which over a
    // grown (resizable) buffer costs many times a view's making.
    const start = this.starts[position]!;
    return new Uint8Array(this.bytes.buffer, this.bytes.byteOffset + start, this.ends[position]! - start);
  }

  /** The length of the UTF-8 bytes of the string at `position`. */
  byteLengthAt(position: number): number {
    return this.ends[position]! - this.starts[position]!;
  }

  /**
   * Compares the strings at two positions by their UTF-8 bytes: code point order, which is
   * `<`'s order but for the one case compareUtf8AsUtf16 describes.
   */
  compareBytes(left: number, right: number): number {
    const { bytes } = this;
    const leftStart = this.starts[left]!;
    const rightStart = this.starts[right]!;
    const leftLength = this.ends[left]! - leftStart;
    const rightLength = this.ends[right]! - rightStart;
    const length = Math.min(leftLength, rightLength);
    // A loop here, not Buffer#compare: a native call per comparison cost more than short ids' bytes.
    for (let index = 0; index < length; index++) {
      const difference = bytes[leftStart + index]! - bytes[rightStart + index]!;
      if (difference !== 0) return difference;
    }
    return leftLength - rightLength;
  }

  /** Compares the strings at two positions as `<` compares strings. */
  compare(left: number, right: number): number {
    return compareUtf8AsUtf16(this.bytes, this.starts[left]!, this.ends[left]!, this.starts[right]!, this.ends[right]!);
  }

  /** The positions 0 … length - 1 in the strings' order (as a sort of the strings gives it). */
  sortedPositions(): Uint32Array {
    const order = new Uint32Array(this.count);
    for (let position = 0; position < this.count; position++) order[position] = position;
    return sortPositions(order, (left, right) => this.compare(left, right));
  }
}
