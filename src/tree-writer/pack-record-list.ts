// What the pack writer (pack-writer.ts) holds of one tool's records between reading them and
// writing the last index, in typed arrays rather than an object per record and per name (a tool can
// have hundreds of thousands): every name's UTF-8 bytes in one arena (string-arena.ts), each name's
// call key as its two 32-bit SipHash halves, each record's first name and body size, and, once
// its pack is made, each name's index entry (pack number, record offset and length).
// Comparing (high, low) as unsigned numbers is comparing a key's 8 big-endian bytes.
import { sipHash13Halves } from '../core/tree/siphash.js';
import { grownTypedArray } from './grown-typed-array.js';
import { StringArena } from './string-arena.js';

const INITIAL_ITEMS = 256;

export class PackRecordList {
  readonly names = new StringArena();
  private keyHighs = new Uint32Array(INITIAL_ITEMS);
  private keyLows = new Uint32Array(INITIAL_ITEMS);
  /** Per record, the position of its first name; its names are the ones up to the next record's first. */
  private firstNames = new Uint32Array(INITIAL_ITEMS);
  /** Per record, its body's length in bytes. */
  private bodyLengths = new Uint32Array(INITIAL_ITEMS);
  private recordCount = 0;
  /** Per name, once its record is packed: the pack's number, the record's offset and length in it. */
  private entryPacks = new Uint32Array(0);
  private entryOffsets = new Uint32Array(0);
  private entryLengths = new Uint32Array(0);

  get length(): number {
    return this.recordCount;
  }

  get nameCount(): number {
    return this.names.length;
  }

  /**
   * Adds a record answering `paths` (its own first) whose body is `bodyLength` bytes; returns the
   * names' UTF-8 bytes (views, valid until the next push).
   */
  push(paths: readonly string[], bodyLength: number): Uint8Array[] {
    const record = this.recordCount;
    this.recordCount += 1;
    this.firstNames = grownTypedArray(this.firstNames, this.recordCount);
    this.bodyLengths = grownTypedArray(this.bodyLengths, this.recordCount);
    this.firstNames[record] = this.names.length;
    this.bodyLengths[record] = bodyLength;
    for (const name of paths) {
      const position = this.names.push(name);
      this.keyHighs = grownTypedArray(this.keyHighs, position + 1);
      this.keyLows = grownTypedArray(this.keyLows, position + 1);
      const [high, low] = sipHash13Halves(this.names.bytesAt(position));
      this.keyHighs[position] = high;
      this.keyLows[position] = low;
    }
    const names: Uint8Array[] = [];
    for (let position = this.firstNames[record]!; position < this.names.length; position++)
      names.push(this.names.bytesAt(position));
    return names;
  }

  bodyLengthOf(record: number): number {
    return this.bodyLengths[record]!;
  }

  /** The record's names' UTF-8 bytes, its own first (views: valid until the next push). */
  nameBytesOf(record: number): Uint8Array[] {
    const [first, end] = this.nameRangeOf(record);
    const names: Uint8Array[] = [];
    for (let position = first; position < end; position++) names.push(this.names.bytesAt(position));
    return names;
  }

  /** The key's high 32 bits of the name at `position`. */
  keyHigh(position: number): number {
    return this.keyHighs[position]!;
  }

  keyLow(position: number): number {
    return this.keyLows[position]!;
  }

  /** Names by key, then by the name itself (two names with one key are still in a fixed order). */
  compareNames(left: number, right: number): number {
    return (
      this.keyHighs[left]! - this.keyHighs[right]! ||
      this.keyLows[left]! - this.keyLows[right]! ||
      this.names.compare(left, right)
    );
  }

  firstNameOf(record: number): number {
    return this.firstNames[record]!;
  }

  /** The positions of the record's names: [first, end). */
  nameRangeOf(record: number): [number, number] {
    const end = record + 1 < this.recordCount ? this.firstNames[record + 1]! : this.names.length;
    return [this.firstNames[record]!, end];
  }

  /** The record's names as strings, its own first. */
  pathsOf(record: number): string[] {
    const [first, end] = this.nameRangeOf(record);
    const paths: string[] = [];
    for (let position = first; position < end; position++) paths.push(this.names.at(position));
    return paths;
  }

  /** The records 0 … length - 1 in key order of their first names. */
  sortedRecords(): Uint32Array {
    const order = new Uint32Array(this.recordCount);
    for (let record = 0; record < this.recordCount; record++) order[record] = record;
    return order.sort((left, right) => this.compareNames(this.firstNames[left]!, this.firstNames[right]!));
  }

  /** Every name's position in key order. */
  sortedNames(): Uint32Array {
    const order = new Uint32Array(this.names.length);
    for (let position = 0; position < order.length; position++) order[position] = position;
    return order.sort((left, right) => this.compareNames(left, right));
  }

  /** Records where the record's names point: pack number `pack`, at `offset`, `length` bytes. */
  setEntry(record: number, pack: number, offset: number, length: number): void {
    if (this.entryPacks.length < this.names.length) {
      this.entryPacks = grownTypedArray(this.entryPacks, this.names.length);
      this.entryOffsets = grownTypedArray(this.entryOffsets, this.names.length);
      this.entryLengths = grownTypedArray(this.entryLengths, this.names.length);
    }
    const [first, end] = this.nameRangeOf(record);
    for (let position = first; position < end; position++) {
      this.entryPacks[position] = pack;
      this.entryOffsets[position] = offset;
      this.entryLengths[position] = length;
    }
  }

  entryPack(name: number): number {
    return this.entryPacks[name]!;
  }

  entryOffset(name: number): number {
    return this.entryOffsets[name]!;
  }

  entryLength(name: number): number {
    return this.entryLengths[name]!;
  }
}
