// Where each result of a cache bucket's log is (its line's offset and length), by key, kept out of
// the JavaScript heap: the keys' first 64 bits side by side in one buffer, offsets and lengths in
// typed arrays, and an open-addressing table of slot numbers. A Map of 32-character keys cost ~100
// bytes of heap a call, so a rebuild answered from the cache peaked well above the cold build of
// the same project (98 against 83 MB at 40,000 calls). Held through the whole call loop, so kept
// small: 64 bits of a key tell keys apart here, and the line a lookup reads starts with the whole
// key, which the bucket compares (run-bucket.ts): two keys alike in 64 bits cost a rerun, never a
// wrong result.
import { grownTypedArray, releaseGrown } from '../tree-writer/grown-typed-array.js';

/** The bytes of a key kept (of the 16 a 32-hex-character key is). */
const KEY_BYTES = 8;
/** The hex characters of a key given. */
const KEY_HEX_LENGTH = 32;
/** A line's offset is split into 32 low bits and 16 high bits (up to 256 TiB of log). */
const LOW_SPAN = 2 ** 32;
const INITIAL_SLOTS = 1024;
const EMPTY = 0;
const ABSENT = -1;
const INVALID = -2;

export class RunIndex {
  private count = 0;
  private keys = Buffer.alloc(INITIAL_SLOTS * KEY_BYTES);
  private offsetLows = new Uint32Array(INITIAL_SLOTS);
  private offsetHighs = new Uint16Array(INITIAL_SLOTS);
  private lengths = new Uint32Array(INITIAL_SLOTS);
  /**
   * Slot number + 1 of each key, EMPTY where none; at most three quarters full (as file-digests.ts:
   * half full cost 4 more bytes a cached call, held through the whole call loop).
   */
  private table = new Uint32Array(INITIAL_SLOTS * 2);
  /** The key being looked up, as bytes (all 16; the first KEY_BYTES are compared). */
  private readonly probe = Buffer.alloc(KEY_HEX_LENGTH / 2);

  get size(): number {
    return this.count;
  }

  /** Where in the table the key last looked up and not found would go. */
  private freePosition = 0;

  /**
   * The slot of `hexKey` (32 hex characters); ABSENT when it is not there (freePosition is then
   * where it would go), INVALID when it is no such key (a damaged log line): never found.
   */
  private find(hexKey: string): number {
    if (hexKey.length !== KEY_HEX_LENGTH || this.probe.write(hexKey, 'hex') !== KEY_HEX_LENGTH / 2) return INVALID;
    const mask = this.table.length - 1;
    // The key is a sha256 prefix: its first bytes are already uniformly spread.
    for (let position = this.probe.readUInt32LE(0) & mask; ; position = (position + 1) & mask) {
      const entry = this.table[position]!;
      if (entry === EMPTY) {
        this.freePosition = position;
        return ABSENT;
      }
      const start = (entry - 1) * KEY_BYTES;
      if (this.keys.compare(this.probe, 0, KEY_BYTES, start, start + KEY_BYTES) === 0) return entry - 1;
    }
  }

  has(hexKey: string): boolean {
    return this.find(hexKey) >= 0;
  }

  /** Where the line of `hexKey` is, or undefined. */
  get(hexKey: string): { offset: number; length: number } | undefined {
    const slot = this.find(hexKey);
    if (slot < 0) return undefined;
    return { offset: this.offsetHighs[slot]! * LOW_SPAN + this.offsetLows[slot]!, length: this.lengths[slot]! };
  }

  /** Points `hexKey` at a line; `onlyIfPresent`: moves a known key, never adds one. */
  set(hexKey: string, offset: number, length: number, onlyIfPresent = false): void {
    let slot = this.find(hexKey);
    if (slot === INVALID || (slot === ABSENT && onlyIfPresent)) return;
    if (slot === ABSENT) {
      slot = this.count++;
      this.ensureCapacity(this.count);
      this.probe.copy(this.keys, slot * KEY_BYTES, 0, KEY_BYTES);
      this.table[this.freePosition] = slot + 1;
      if (this.count * 4 > this.table.length * 3) this.rebuildTable(this.table.length * 2);
    }
    this.offsetLows[slot] = offset % LOW_SPAN;
    this.offsetHighs[slot] = Math.floor(offset / LOW_SPAN);
    this.lengths[slot] = length;
  }

  /**
   * Empties the index and gives its memory back at once: a buffer grown in place is not counted as
   * external memory, so no collection comes for it soon, and the build's pack step (the peak of a
   * cached rebuild) ran with ~25 bytes a cached call of released index still resident.
   */
  clear(): void {
    this.count = 0;
    releaseGrown(this.keys);
    releaseGrown(this.offsetLows);
    releaseGrown(this.offsetHighs);
    releaseGrown(this.lengths);
    releaseGrown(this.table);
    this.keys = Buffer.alloc(INITIAL_SLOTS * KEY_BYTES);
    this.offsetLows = new Uint32Array(INITIAL_SLOTS);
    this.offsetHighs = new Uint16Array(INITIAL_SLOTS);
    this.lengths = new Uint32Array(INITIAL_SLOTS);
    this.table = new Uint32Array(INITIAL_SLOTS * 2);
  }

  /** Grown in place (tree-writer/grown-typed-array.ts): no copy, no old buffer left behind. */
  private ensureCapacity(slots: number): void {
    if (slots <= this.lengths.length) return;
    this.keys = grownTypedArray(this.keys, slots * KEY_BYTES);
    this.offsetLows = grownTypedArray(this.offsetLows, slots);
    this.offsetHighs = grownTypedArray(this.offsetHighs, slots);
    this.lengths = grownTypedArray(this.lengths, slots);
  }

  private rebuildTable(size: number): void {
    const table = grownTypedArray(this.table, size).fill(EMPTY);
    const mask = size - 1;
    for (let slot = 0; slot < this.count; slot++) {
      let position = this.keys.readUInt32LE(slot * KEY_BYTES) & mask;
      while (table[position] !== EMPTY) position = (position + 1) & mask;
      table[position] = slot + 1;
    }
    this.table = table;
  }
}
