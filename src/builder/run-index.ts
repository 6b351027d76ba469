// Where each result of a cache bucket's log is (its line's offset and length), by key, kept out of
// the JavaScript heap and held through the whole call loop, so kept small: ~15 bytes a cached call.
// Entries are kept in the log's order, one per indexed line: 48 bits of its key, its line's length
// (16 bits; longer ones aside), and no offset: a line starts where the entry before it ends, plus
// a gap noted aside where lines the index skips lie between (damaged ones, results appended
// unindexed), and every 32nd entry keeps its offset whole. A key set again (a later line of it in
// the log, or a rerun's append) gets a new entry at the end and the old one is left in the chain
// unreferenced, so offsets only ever grow. An open-addressing table holds entry numbers by key.
// A Map of 32-character keys cost ~100 bytes of heap a call; entries with offsets of their own
// ~24. 48 bits of a key tell keys apart here, and the line a lookup reads starts with the whole
// key, which the bucket compares (run-bucket.ts): two keys alike in 48 bits cost a rerun, never a
// wrong result.
import { grownTypedArray, releaseGrown } from '../tree-writer/grown-typed-array.js';

/** The hex characters of a key given. */
const KEY_HEX_LENGTH = 32;
/** Entries per kept whole offset: a lookup adds up at most this many lengths less one. */
const BLOCK_SHIFT = 5;
const BLOCK_MASK = (1 << BLOCK_SHIFT) - 1;
/** A length at or past this is kept aside (in `longLengths`). */
const LONG_LENGTH = 0xffff;
const INITIAL_ENTRIES = 1024;
const EMPTY = 0;
const ABSENT = -1;
const INVALID = -2;

export class RunIndex {
  /** Keys in the index (a key set twice counts once). */
  private count = 0;
  /** Entries made: keys, plus one per key set again. */
  private entries = 0;
  /** Whether some key was set again: the table then holds fewer entries than were made. */
  private moved = false;
  private keyLows = new Uint32Array(INITIAL_ENTRIES);
  private keyHighs = new Uint16Array(INITIAL_ENTRIES);
  private lengths = new Uint16Array(INITIAL_ENTRIES);
  private blockOffsets = new Float64Array(INITIAL_ENTRIES >> BLOCK_SHIFT);
  /** Lengths of LONG_LENGTH or more, by entry. */
  private longLengths = new Map<number, number>();
  /** By entry: how far its line starts past the end of the previous entry's line and its newline. */
  private gaps = new Map<number, number>();
  private lastOffset = 0;
  private lastLength = -1;
  /**
   * Entry number + 1 of each key, EMPTY where none; at most three quarters full (as file-digests.ts:
   * half full cost 4 more bytes a cached call, held through the whole call loop).
   */
  private table = new Uint32Array(INITIAL_ENTRIES * 2);
  /** The key being looked up, as bytes. */
  private readonly probe = Buffer.alloc(KEY_HEX_LENGTH / 2);
  private probeLow = 0;
  private probeHigh = 0;
  /** Where in the table the key last looked up and not found would go. */
  private freePosition = 0;

  get size(): number {
    return this.count;
  }

  /** Lines indexed and then superseded by a later line of their key. */
  get superseded(): number {
    return this.entries - this.count;
  }

  /**
   * The table position of `hexKey` (32 hex characters); ABSENT when it is not there (freePosition
   * is then where it would go), INVALID when it is no such key (a damaged log line): never found.
   */
  private find(hexKey: string): number {
    if (hexKey.length !== KEY_HEX_LENGTH || this.probe.write(hexKey, 'hex') !== KEY_HEX_LENGTH / 2) return INVALID;
    this.probeLow = this.probe.readUInt32LE(0);
    this.probeHigh = this.probe.readUInt16LE(4);
    return this.findProbe(this.table);
  }

  /** Looks up probeLow/probeHigh in `table`. */
  private findProbe(table: Uint32Array): number {
    const mask = table.length - 1;
    // The key is a sha256 prefix: its first bytes are already uniformly spread.
    for (let position = this.probeLow & mask; ; position = (position + 1) & mask) {
      const entry = table[position]!;
      if (entry === EMPTY) {
        this.freePosition = position;
        return ABSENT;
      }
      if (this.keyLows[entry - 1] === this.probeLow && this.keyHighs[entry - 1] === this.probeHigh) return position;
    }
  }

  has(hexKey: string): boolean {
    return this.find(hexKey) >= 0;
  }

  /** Where the line of `hexKey` is, or undefined. */
  get(hexKey: string): { offset: number; length: number } | undefined {
    const position = this.find(hexKey);
    if (position < 0) return undefined;
    const entry = this.table[position]! - 1;
    return { offset: this.offsetOf(entry), length: this.lengthOf(entry) };
  }

  /** Points `hexKey` at a line; `onlyIfPresent`: moves a known key, never adds one. */
  set(hexKey: string, offset: number, length: number, onlyIfPresent = false): void {
    const position = this.find(hexKey);
    if (position === INVALID || (position === ABSENT && onlyIfPresent)) return;
    const entry = this.addEntry(offset, length);
    if (position === ABSENT) {
      this.table[this.freePosition] = entry + 1;
      this.count += 1;
      if (this.count * 4 > this.table.length * 3) this.rebuildTable(this.table.length * 2);
    } else {
      this.table[position] = entry + 1;
      this.moved = true;
    }
  }

  /** Appends an entry for the probed key's line; entries follow the log, so `offset` only grows. */
  private addEntry(offset: number, length: number): number {
    const entry = this.entries++;
    this.ensureCapacity(this.entries);
    this.keyLows[entry] = this.probeLow;
    this.keyHighs[entry] = this.probeHigh;
    if (length < LONG_LENGTH) this.lengths[entry] = length;
    else {
      this.lengths[entry] = LONG_LENGTH;
      this.longLengths.set(entry, length);
    }
    if ((entry & BLOCK_MASK) === 0) this.blockOffsets[entry >>> BLOCK_SHIFT] = offset;
    else {
      const gap = offset - (this.lastOffset + this.lastLength + 1);
      if (gap !== 0) this.gaps.set(entry, gap);
    }
    this.lastOffset = offset;
    this.lastLength = length;
    return entry;
  }

  private lengthOf(entry: number): number {
    const length = this.lengths[entry]!;
    return length === LONG_LENGTH ? this.longLengths.get(entry)! : length;
  }

  /** Its block's whole offset, plus the lines (and gaps) of the entries before it in the block. */
  private offsetOf(entry: number): number {
    const first = entry & ~BLOCK_MASK;
    let offset = this.blockOffsets[entry >>> BLOCK_SHIFT]!;
    for (let before = first; before < entry; before++) {
      const length = this.lengths[before]!;
      offset += (length === LONG_LENGTH ? this.longLengths.get(before)! : length) + 1;
    }
    if (this.gaps.size > 0) for (let after = first + 1; after <= entry; after++) offset += this.gaps.get(after) ?? 0;
    return offset;
  }

  /**
   * Empties the index and gives its memory back at once: a buffer grown in place is not counted as
   * external memory, so no collection comes for it soon, and the build's pack step (the peak of a
   * cached rebuild) ran with ~25 bytes a cached call of released index still resident.
   */
  clear(): void {
    this.count = 0;
    this.entries = 0;
    this.moved = false;
    this.lastOffset = 0;
    this.lastLength = -1;
    this.longLengths.clear();
    this.gaps.clear();
    releaseGrown(this.keyLows);
    releaseGrown(this.keyHighs);
    releaseGrown(this.lengths);
    releaseGrown(this.blockOffsets);
    releaseGrown(this.table);
    this.keyLows = new Uint32Array(INITIAL_ENTRIES);
    this.keyHighs = new Uint16Array(INITIAL_ENTRIES);
    this.lengths = new Uint16Array(INITIAL_ENTRIES);
    this.blockOffsets = new Float64Array(INITIAL_ENTRIES >> BLOCK_SHIFT);
    this.table = new Uint32Array(INITIAL_ENTRIES * 2);
  }

  /** Grown in place (tree-writer/grown-typed-array.ts): no copy, no old buffer left behind. */
  private ensureCapacity(entries: number): void {
    if (entries <= this.lengths.length) return;
    this.keyLows = grownTypedArray(this.keyLows, entries);
    this.keyHighs = grownTypedArray(this.keyHighs, entries);
    this.lengths = grownTypedArray(this.lengths, entries);
    this.blockOffsets = grownTypedArray(this.blockOffsets, (this.lengths.length >> BLOCK_SHIFT) + 1);
  }

  /**
   * Refills the table, grown in place, from the entries. With no key set twice every entry is in
   * it; otherwise the latest entry of each key is, so the entries go in from the last.
   */
  private rebuildTable(size: number): void {
    const table = grownTypedArray(this.table, size).fill(EMPTY);
    const mask = size - 1;
    const { probeLow, probeHigh, freePosition } = this;
    if (!this.moved) {
      for (let entry = 0; entry < this.entries; entry++) {
        let position = this.keyLows[entry]! & mask;
        while (table[position] !== EMPTY) position = (position + 1) & mask;
        table[position] = entry + 1;
      }
    } else {
      for (let entry = this.entries - 1; entry >= 0; entry--) {
        this.probeLow = this.keyLows[entry]!;
        this.probeHigh = this.keyHighs[entry]!;
        if (this.findProbe(table) === ABSENT) table[this.freePosition] = entry + 1;
      }
    }
    this.table = table;
    this.probeLow = probeLow;
    this.probeHigh = probeHigh;
    this.freePosition = freePosition;
  }
}
