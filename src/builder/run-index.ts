// Where each result of a cache bucket's log is (its line's offset and length), by key, held through
// the whole call loop, so kept small: ~6.4 bytes a cached call in memory. Entries are kept in the
// log's order, one per indexed line: 32 bits of its key, its line's length (16 bits; longer ones
// aside), and no offset: a line starts where the entry before it ends, plus a gap noted aside
// where lines the index skips lie between (damaged ones, results appended unindexed), and every
// 32nd entry keeps its offset whole. A lookup tries the entries next to the one found last
// (lookups follow the log's order but for runs that finished out of turn); the keys, 48 bits
// each with their entry's number, are sorted on disk for the others (sorted-key-file.ts: a
// lookup there reads one block). A key set again (a later line of it in the log, or a rerun's
// append) gets a new entry at the end and the old one is marked replaced, so offsets only grow.
// The 32 bits of key kept per entry are only a shortcut past the disk: they are held in chunks,
// each given back once every entry in it was found (a build looks each call up once, in the log's
// order), so the call loop ends holding few of them where it held them all to the end.
// A Map of 32-character keys cost ~100 bytes of heap a call; 48-bit keys and an open-addressing
// table in memory ~15. The line a lookup reads starts with the whole key, which the bucket
// compares (run-bucket.ts): two keys alike in the bits compared cost a rerun, never a wrong result.
import { grownTypedArray, releaseGrown } from '../tree-writer/grown-typed-array.js';
import { NOT_FOUND, SortedKeyFile } from './sorted-key-file.js';

/** The hex characters of a key given. */
const KEY_HEX_LENGTH = 32;
/** Entries per kept whole offset: a lookup adds up at most this many lengths less one. */
const BLOCK_SHIFT = 5;
const BLOCK_MASK = (1 << BLOCK_SHIFT) - 1;
/** A length at or past this is kept aside (in `longLengths`). */
const LONG_LENGTH = 0xffff;
const INITIAL_ENTRIES = 1024;
/** How far from the entry found last a lookup looks first, each way. */
const NEAR_ENTRIES = 8;
/**
 * Entries per chunk of key bits (512 KiB): past the size grown-typed-array.ts keeps in plain
 * buffers, so a chunk given back returns its pages at once rather than at some collection.
 */
const CHUNK_SHIFT = 17;
const CHUNK_ENTRIES = 1 << CHUNK_SHIFT;
const CHUNK_MASK = CHUNK_ENTRIES - 1;

export class RunIndex {
  /** Entries made: keys, plus one per key set again. */
  private entries = 0;
  private lengths = new Uint16Array(INITIAL_ENTRIES);
  private blockOffsets = new Float64Array(INITIAL_ENTRIES >> BLOCK_SHIFT);
  /** Lengths of LONG_LENGTH or more, by entry. */
  private longLengths = new Map<number, number>();
  /** By entry: how far its line starts past the end of the previous entry's line and its newline. */
  private gaps = new Map<number, number>();
  private lastOffset = 0;
  private lastLength = -1;
  /** Each key's entry. */
  private readonly keys: SortedKeyFile;
  /**
   * By chunk of CHUNK_ENTRIES entries: 32 bits of each entry's key, which a lookup near the entry
   * found last compares first; undefined once given back (its lookups then read the disk).
   */
  private keyBitChunks: (Uint32Array | undefined)[] = [];
  /** By chunk: its entries not superseded, and the lookups that found one of them. */
  private liveInChunk: number[] = [];
  private foundInChunk: number[] = [];
  /** One bit an entry: whether a later entry of its key replaced it. */
  private superseded = new Uint8Array(INITIAL_ENTRIES >> 3);
  /** The entry the last lookup found (-1: none). */
  private lastFound = -1;
  /** The key being looked up, as bytes. */
  private readonly probe = Buffer.alloc(KEY_HEX_LENGTH / 2);

  /** `scratchFile`: where the keys go past a few thousand (created and unlinked at once). */
  constructor(scratchFile: string) {
    this.keys = new SortedKeyFile(scratchFile, (entry) => {
      if (this.isSuperseded(entry)) return;
      this.superseded[entry >>> 3]! |= 1 << (entry & 7);
      this.liveInChunk[entry >>> CHUNK_SHIFT]! -= 1;
    });
  }

  /** Keys in the index (a key set twice counts once). */
  get size(): number {
    return this.keys.size;
  }

  /** 48 bits of `hexKey` (32 hex characters) as a number, or -1 when it is no such key (a damaged log line). */
  private keyOf(hexKey: string): number {
    if (hexKey.length !== KEY_HEX_LENGTH || this.probe.write(hexKey, 'hex') !== KEY_HEX_LENGTH / 2) return -1;
    return this.probe.readUIntLE(0, 6);
  }

  /** Entries whose key bits are still held (the rest were given back, chunk by chunk). */
  get heldKeyBits(): number {
    let held = 0;
    for (let chunk = 0; chunk < this.keyBitChunks.length; chunk++)
      if (this.keyBitChunks[chunk] !== undefined) held += Math.min(CHUNK_ENTRIES, this.entries - chunk * CHUNK_ENTRIES);
    return held;
  }

  /** 32 bits of an entry's key, or -1 once its chunk was given back. */
  private keyBitsOf(entry: number): number {
    const chunk = this.keyBitChunks[entry >>> CHUNK_SHIFT];
    return chunk === undefined ? -1 : chunk[entry & CHUNK_MASK]!;
  }

  /** Lines indexed and then superseded by a later line of their key. */
  get supersededLines(): number {
    return this.entries - this.keys.size;
  }

  /**
   * The entry of `key` (keyOf's), or NOT_FOUND. A build looks its calls up in the order it
   * enumerates them, the order their results were appended in but for runs finishing out of turn:
   * the entries next to the one found last are tried first, by 32 bits of their key, and only a
   * lookup none of them answers reads the keys on disk. A near entry alike in those 32 bits but
   * of another key (one chance in 2^28 a lookup) is a miss, found so by the line's own key.
   */
  private find(key: number): number {
    this.keys.settle();
    const bits = this.probe.readUInt32LE(0);
    const last = this.lastFound;
    for (let distance = 1; last >= 0 && distance <= NEAR_ENTRIES; distance++) {
      const after = last + distance;
      const before = last - distance;
      let near = -1;
      if (after < this.entries && this.keyBitsOf(after) === bits && !this.isSuperseded(after)) near = after;
      else if (before >= 0 && this.keyBitsOf(before) === bits && !this.isSuperseded(before)) near = before;
      if (near >= 0) return this.found(near);
    }
    const entry = this.keys.find(key);
    return entry === NOT_FOUND ? entry : this.found(entry);
  }

  /**
   * Notes a lookup's entry; gives its chunk's key bits back once its lookups number its live
   * entries (a key looked up twice gives them back early: a later lookup then reads the disk),
   * but for the chunk entries are still added to.
   */
  private found(entry: number): number {
    this.lastFound = entry;
    const chunk = entry >>> CHUNK_SHIFT;
    const found = (this.foundInChunk[chunk] ?? 0) + 1;
    this.foundInChunk[chunk] = found;
    if (found >= this.liveInChunk[chunk]! && chunk < (this.entries - 1) >>> CHUNK_SHIFT) {
      const bits = this.keyBitChunks[chunk];
      if (bits !== undefined) releaseGrown(bits);
      this.keyBitChunks[chunk] = undefined;
    }
    return entry;
  }

  private isSuperseded(entry: number): boolean {
    return (this.superseded[entry >>> 3]! & (1 << (entry & 7))) !== 0;
  }

  has(hexKey: string): boolean {
    const key = this.keyOf(hexKey);
    return key >= 0 && this.find(key) !== NOT_FOUND;
  }

  /** Where the line of `hexKey` is, or undefined. */
  get(hexKey: string): { offset: number; length: number } | undefined {
    const key = this.keyOf(hexKey);
    const entry = key < 0 ? NOT_FOUND : this.find(key);
    if (entry === NOT_FOUND) return undefined;
    return { offset: this.offsetOf(entry), length: this.lengthOf(entry) };
  }

  /** Points `hexKey` at a line; `onlyIfPresent`: moves a known key, never adds one. */
  set(hexKey: string, offset: number, length: number, onlyIfPresent = false): void {
    const key = this.keyOf(hexKey);
    if (key < 0) return;
    // The keys on disk, not the near entries: the key's record there is what a move repoints.
    if (onlyIfPresent) {
      if (this.keys.find(key) === NOT_FOUND) return;
      this.keys.repointFound(this.addEntry(offset, length));
    } else this.keys.add(key, this.addEntry(offset, length));
  }

  /** Appends an entry for a line; entries follow the log, so `offset` only grows. */
  private addEntry(offset: number, length: number): number {
    const entry = this.entries++;
    this.ensureCapacity(this.entries);
    this.keyBitChunkFor(entry)[entry & CHUNK_MASK] = this.probe.readUInt32LE(0);
    const chunk = entry >>> CHUNK_SHIFT;
    this.liveInChunk[chunk] = (this.liveInChunk[chunk] ?? 0) + 1;
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
    this.entries = 0;
    this.lastOffset = 0;
    this.lastLength = -1;
    this.longLengths.clear();
    this.gaps.clear();
    this.keys.clear();
    this.lastFound = -1;
    for (const bits of this.keyBitChunks) if (bits !== undefined) releaseGrown(bits);
    this.keyBitChunks = [];
    this.liveInChunk = [];
    this.foundInChunk = [];
    releaseGrown(this.superseded);
    this.superseded = new Uint8Array(INITIAL_ENTRIES >> 3);
    releaseGrown(this.lengths);
    releaseGrown(this.blockOffsets);
    this.lengths = new Uint16Array(INITIAL_ENTRIES);
    this.blockOffsets = new Float64Array(INITIAL_ENTRIES >> BLOCK_SHIFT);
  }

  /** Grown in place (tree-writer/grown-typed-array.ts): no copy, no old buffer left behind. */
  private ensureCapacity(entries: number): void {
    if (entries <= this.lengths.length) return;
    this.lengths = grownTypedArray(this.lengths, entries);
    this.superseded = grownTypedArray(this.superseded, (this.lengths.length >> 3) + 1);
    this.blockOffsets = grownTypedArray(this.blockOffsets, (this.lengths.length >> BLOCK_SHIFT) + 1);
  }

  /**
   * The chunk of key bits `entry` goes in, grown to hold it: the first from a few entries (a small
   * bucket holds little), a later one made whole (a resizable buffer: a page costs once written).
   */
  private keyBitChunkFor(entry: number): Uint32Array {
    const chunk = entry >>> CHUNK_SHIFT;
    let bits = this.keyBitChunks[chunk];
    if (bits === undefined)
      bits = chunk === 0 ? new Uint32Array(INITIAL_ENTRIES) : grownTypedArray(new Uint32Array(0), CHUNK_ENTRIES);
    else if ((entry & CHUNK_MASK) < bits.length) return bits;
    bits = grownTypedArray(bits, (entry & CHUNK_MASK) + 1);
    this.keyBitChunks[chunk] = bits;
    return bits;
  }
}
