// The paths a tree writer records (file-digests.ts), front- and back-coded: each path is kept as
// the length of the prefix it shares with the path recorded before it, the bytes after that
// prefix up to the tail it shares with that path too, and that tail's length, with a whole path
// every BLOCK_PATHS paths so any one is decoded from at most that many entries. Files are
// recorded in the order their calls finish, close to the order they were enumerated, so most
// paths share all but a byte or two with the one before (`tools/grid/1234/5` and `.json` of
// `tools/grid/1234/56.json`): a path costs a few bytes, not all of them plus a 4-byte start, for
// the whole build (the record lives from the first call to the last pack).
// Decoding goes through cursors that remember the path they hold and where the next entry starts,
// so a walk in slot order decodes each entry once and a merge sort's comparisons (one side stays
// put) decode one path each.
import { grownTypedArray } from './grown-typed-array.js';
import { compareUtf8BytesAsUtf16 } from './string-arena.js';

/** Paths per block: a decode walks at most this many entries from the block's whole path. */
const BLOCK_PATHS = 8;
const INITIAL_BYTES = 16 * 1024;

/** One decoded path, and where in the entries the path after it starts. */
class Cursor {
  bytes: Buffer = Buffer.alloc(256);
  length = 0;
  /** The slot the cursor holds (-1: none). */
  slot = -1;
  /** Where the entry of slot + 1 starts. */
  next = 0;
}

export class PrefixCodedPaths {
  private entries: Buffer = Buffer.alloc(INITIAL_BYTES);
  private used = 0;
  /** Where each block's first entry (a whole path) starts in `entries`. */
  private blockStarts = new Uint32Array(64);
  private count = 0;
  /** The newest path (the next one is coded against it). */
  private readonly newest = new Cursor();
  private readonly first = new Cursor();
  private readonly second = new Cursor();
  /** bytesAt's: only the next bytesAt moves it (a lookup or comparison between two never does). */
  private readonly viewed = new Cursor();
  /** The lengths of the entry read last (readLengths'). */
  private readonly lengths: EntryLengths = { shared: 0, middle: 0, tail: 0 };

  get length(): number {
    return this.count;
  }

  /** Records `length` bytes of `source` as the path of the next slot; returns that slot. */
  push(source: Uint8Array, length: number): number {
    const slot = this.count;
    const newest = this.newest;
    let shared = 0;
    let tail = 0;
    if (slot % BLOCK_PATHS === 0) {
      this.blockStarts = grownTypedArray(this.blockStarts, slot / BLOCK_PATHS + 1);
      this.blockStarts[slot / BLOCK_PATHS] = this.used;
    } else {
      const most = Math.min(length, newest.length);
      while (shared < most && newest.bytes[shared] === source[shared]) shared += 1;
      // The tail never reaches into the shared prefix of either path.
      const end = newest.length - 1;
      while (tail < most - shared && newest.bytes[end - tail] === source[length - 1 - tail]) tail += 1;
    }
    const middle = length - shared - tail;
    // The lengths (at most 16 bytes), then the middle.
    this.entries = grownTypedArray(this.entries, this.used + 16 + middle);
    this.used = writeLengths(this.entries, this.used, shared, middle, tail);
    this.entries.set(source.subarray(shared, shared + middle), this.used);
    this.used += middle;
    if (newest.bytes.length < length)
      newest.bytes = grownCopy(newest.bytes, shared, Math.max(length, newest.bytes.length * 2));
    newest.bytes.set(source.subarray(shared, length), shared);
    newest.length = length;
    newest.slot = slot;
    newest.next = this.used;
    this.count += 1;
    return slot;
  }

  /** The bytes of the path in `slot` (a view: valid until the next bytesAt or push). */
  bytesAt(slot: number): Buffer {
    const viewed = this.viewed;
    if (viewed.slot !== slot) this.decode(viewed, slot);
    return viewed.bytes.subarray(0, viewed.length);
  }

  /** The path in `slot` as a string. */
  stringAt(slot: number): string {
    const cursor = this.cursorFor(slot, -1);
    return cursor.bytes.toString('utf8', 0, cursor.length);
  }

  /**
   * The length of the path in `slot`, in bytes: from its entry's two lengths, walked to from its
   * block's start without decoding a path (the pack writer asks for every name's, several times).
   */
  byteLengthAt(slot: number): number {
    if (this.first.slot === slot) return this.first.length;
    if (this.second.slot === slot) return this.second.length;
    if (this.newest.slot === slot) return this.newest.length;
    if (this.viewed.slot === slot) return this.viewed.length;
    if (slot >= this.count || slot < 0) throw new RangeError(`no path recorded in slot ${slot}`);
    const entries = this.entries;
    let at = this.blockStarts[Math.floor(slot / BLOCK_PATHS)]!;
    const lengths = this.lengths;
    for (let current = slot - (slot % BLOCK_PATHS); ; current++) {
      at = readLengths(entries, at, lengths);
      if (current === slot) return lengths.shared + lengths.middle + lengths.tail;
      at += lengths.middle;
    }
  }

  /** Whether the path in `slot` is the first `length` bytes of `probe`. */
  equals(slot: number, probe: Uint8Array, length: number): boolean {
    const cursor = this.cursorFor(slot, -1);
    if (cursor.length !== length) return false;
    const bytes = cursor.bytes;
    for (let index = length - 1; index >= 0; index--) if (bytes[index] !== probe[index]) return false;
    return true;
  }

  /** Compares the paths of two slots by their bytes (`asUtf16`: as `<` compares the strings). */
  compare(left: number, right: number, asUtf16: boolean): number {
    const leftCursor = this.cursorFor(left, right);
    const rightCursor = this.cursorFor(right, left);
    if (asUtf16)
      return compareUtf8BytesAsUtf16(leftCursor.bytes, leftCursor.length, rightCursor.bytes, rightCursor.length);
    return leftCursor.bytes.compare(rightCursor.bytes, 0, rightCursor.length, 0, leftCursor.length);
  }

  /**
   * A cursor holding `slot`'s path: one already there, else the one not holding `keep` (the other
   * side of a comparison), moved forward when it is earlier in the same block.
   */
  private cursorFor(slot: number, keep: number): Cursor {
    if (this.first.slot === slot) return this.first;
    if (this.second.slot === slot) return this.second;
    if (this.newest.slot === slot) return this.newest;
    if (this.viewed.slot === slot) return this.viewed;
    const cursor = this.first.slot === keep && keep >= 0 ? this.second : this.first;
    this.decode(cursor, slot);
    return cursor;
  }

  /** Moves `cursor` to `slot`: forward from where it is in the same block, else from the block's whole path. */
  private decode(cursor: Cursor, slot: number): void {
    if (slot >= this.count || slot < 0) throw new RangeError(`no path recorded in slot ${slot}`);
    const block = Math.floor(slot / BLOCK_PATHS);
    let at: number;
    let current: number;
    if (cursor.slot >= 0 && cursor.slot < slot && Math.floor(cursor.slot / BLOCK_PATHS) === block) {
      at = cursor.next;
      current = cursor.slot + 1;
    } else {
      at = this.blockStarts[block]!;
      current = block * BLOCK_PATHS;
      cursor.length = 0;
    }
    const entries = this.entries;
    const lengths = this.lengths;
    for (; ; current++) {
      // readLengths, its common case inline (this loop decodes every path the sorts compare).
      let shared = entries[at]!;
      const both = entries[at + 1]!;
      let middle: number;
      let tail: number;
      if (shared < 0x80 && both < 0x80) {
        middle = both >>> 4;
        tail = both & 0x0f;
        at += 2;
      } else {
        at = readLengths(entries, at, lengths);
        ({ shared, middle, tail } = lengths);
      }
      // Entries before the one asked for are decoded in place: each path is made from the one before.
      const length = shared + middle + tail;
      if (cursor.bytes.length < length)
        cursor.bytes = grownCopy(cursor.bytes, cursor.length, Math.max(length, cursor.bytes.length * 2));
      const bytes = cursor.bytes;
      // The tail first: the middle may land where the previous path's tail was.
      if (tail > 0) bytes.copyWithin(shared + middle, cursor.length - tail, cursor.length);
      for (let index = 0; index < middle; index++) bytes[shared + index] = entries[at + index]!;
      cursor.length = length;
      at += middle;
      if (current === slot) {
        cursor.slot = slot;
        cursor.next = at;
        return;
      }
    }
  }
}

function grownCopy(bytes: Buffer, keepLength: number, length: number): Buffer {
  const grown = Buffer.alloc(length);
  bytes.copy(grown, 0, 0, keepLength);
  return grown;
}

/** An entry's three lengths: the prefix it shares with the path before, its own bytes, the tail it shares. */
interface EntryLengths {
  shared: number;
  middle: number;
  tail: number;
}

/** A tail this long or longer is written as a varint of its own (a long entry's byte holds shorter ones). */
const LONG_TAIL = 0x7f;

/**
 * Writes an entry's lengths at `at`; returns where they end. The shared prefix is a varint; a
 * neighbour's middle (below 8) and tail (below 16) then share one byte below 0x80 (most entries:
 * `tools/grid/123/4` shared, `6` its own, `.json` the tail), else a byte 0x80 | tail (0xff: the
 * tail follows as a varint) comes before the middle's varint.
 */
function writeLengths(bytes: Uint8Array, at: number, shared: number, middle: number, tail: number): number {
  let end = writeVarint(bytes, at, shared);
  if (middle < 8 && tail < 16) {
    bytes[end++] = (middle << 4) | tail;
    return end;
  }
  if (tail < LONG_TAIL) bytes[end++] = 0x80 | tail;
  else {
    bytes[end++] = 0x80 | LONG_TAIL;
    end = writeVarint(bytes, end, tail);
  }
  return writeVarint(bytes, end, middle);
}

/** Reads the lengths writeLengths wrote at `at` into `into`; returns where they end. */
function readLengths(bytes: Uint8Array, at: number, into: EntryLengths): number {
  let end = at;
  let shared = bytes[end++]!;
  if (shared >= 0x80) [shared, end] = readLongVarint(bytes, end - 1);
  into.shared = shared;
  const both = bytes[end++]!;
  if (both < 0x80) {
    into.middle = both >>> 4;
    into.tail = both & 0x0f;
    return end;
  }
  let tail = both & LONG_TAIL;
  if (tail === LONG_TAIL) [tail, end] = readLongVarint(bytes, end);
  into.tail = tail;
  let middle = bytes[end++]!;
  if (middle >= 0x80) [middle, end] = readLongVarint(bytes, end - 1);
  into.middle = middle;
  return end;
}

/** Writes `value` as a LEB128 varint at `at`; returns where it ends. */
function writeVarint(bytes: Uint8Array, at: number, value: number): number {
  let rest = value;
  while (rest >= 0x80) {
    bytes[at++] = (rest & 0x7f) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  bytes[at++] = rest;
  return at;
}

/** Reads a LEB128 varint starting at `at`; returns it and where it ends. */
function readLongVarint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  let position = at;
  for (;;) {
    const byte = bytes[position++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, position];
    scale *= 0x80;
  }
}
