// What the pack writer (pack-writer.ts) holds of one tool's records between reading them and
// writing the last index, in typed arrays rather than an object per record and per name (a tool can
// have hundreds of thousands): each name as its number in a name source (its own arena,
// string-arena.ts, or one the caller already holds: the build's are the tree writer's recorded
// paths, file-digests.ts, so no second copy of a path is made), each name's call key as its two
// 32-bit SipHash halves, each record's first name and body size, and, once its pack is made, each
// record's offset in its pack (only in a list whose records have several names: pack-writer.ts
// works it out again for the others). A name's index entry is worked out from those when the index is
// written (its record's length from the names and the body size, its pack from the key's bucket:
// pack-writer.ts) rather than kept: 12 bytes a name, held through the whole index step, at the
// build's peak.
// Comparing (high, low) as unsigned numbers is comparing a key's 8 big-endian bytes.
import { encodedRecordBytes } from '../core/packs/pack-encoding.js';
import { sipHash13Halves } from '../core/tree/siphash.js';
import { grownTypedArray } from './grown-typed-array.js';
import { StringArena } from './string-arena.js';
import { sortPositions } from './sort-positions.js';

const INITIAL_ITEMS = 256;
const NO_NAMES: readonly Uint8Array[] = [];
/** Each name's length field in a record (pack-encoding.ts). */
const NAME_LENGTH_BYTES = 2;

/** Strings by number, as UTF-8 bytes: what a record list's names refer to. */
export interface PackNameSource {
  /** The UTF-8 bytes of string `id` (a view: valid until the next call on the source, file-digests.ts). */
  bytesAt(id: number): Uint8Array;
  /** The length of string `id`'s UTF-8 bytes (bytesAt's length, without making the view). */
  byteLengthAt(id: number): number;
  at(id: number): string;
  /** Compares strings `left` and `right` as `<` compares strings. */
  compare(left: number, right: number): number;
}

export class PackRecordList {
  /** Per name position, the name's number in `names`. */
  private nameIds = new Uint32Array(INITIAL_ITEMS);
  private nameTotal = 0;
  /** Names pushed as strings go here (`push`); `pushIds` refers to the caller's source instead. */
  private readonly ownNames: StringArena | undefined;
  private keyHighs = new Uint32Array(INITIAL_ITEMS);
  private keyLows = new Uint32Array(INITIAL_ITEMS);
  /**
   * Per record, the position of its first name; its names are the ones up to the next record's
   * first. Undefined while every record has one name (record r's is then name r): made at the
   * first record with extra names, so a tool without left-out-default copies never holds it.
   */
  private firstNames: Uint32Array | undefined;
  /** Per record, its body's length in bytes. */
  private bodyLengths = new Uint32Array(INITIAL_ITEMS);
  private recordCount = 0;
  /** Per record, once it is packed: its offset in its pack. */
  private recordOffsets = new Uint32Array(0);

  get length(): number {
    return this.recordCount;
  }

  get nameCount(): number {
    return this.nameTotal;
  }

  /** `names`: the source `pushIds` numbers refer to; none: the list keeps the strings `push` gets. */
  constructor(readonly names: PackNameSource = new StringArena()) {
    this.ownNames = names instanceof StringArena ? names : undefined;
  }

  /**
   * Adds a record answering `paths` (its own first) whose body is `bodyLength` bytes (a list
   * made without a name source); returns the names' UTF-8 bytes (views, valid until the next push).
   */
  push(paths: readonly string[], bodyLength: number): Uint8Array[] {
    if (!this.ownNames) throw new Error('push: this record list refers to names by number (pushIds)');
    const ids: number[] = [];
    for (const name of paths) ids.push(this.ownNames.push(name));
    return this.pushIds(ids, bodyLength);
  }

  /**
   * Adds a record answering the names numbered `ids` in the list's source (its own first) whose
   * body is `bodyLength` bytes; returns the names' UTF-8 bytes (a lone name's a view, valid until
   * the next call on the source).
   */
  pushIds(ids: ArrayLike<number>, bodyLength: number): Uint8Array[] {
    const record = this.recordCount;
    this.recordCount += 1;
    this.bodyLengths = grownTypedArray(this.bodyLengths, this.recordCount);
    if (this.firstNames === undefined && ids.length !== 1) {
      this.firstNames = new Uint32Array(Math.max(INITIAL_ITEMS, this.recordCount));
      for (let earlier = 0; earlier < record; earlier++) this.firstNames[earlier] = earlier;
    }
    if (this.firstNames !== undefined) {
      this.firstNames = grownTypedArray(this.firstNames, this.recordCount);
      this.firstNames[record] = this.nameTotal;
    }
    this.bodyLengths[record] = bodyLength;
    const names: Uint8Array[] = [];
    for (let index = 0; index < ids.length; index++) {
      const position = this.nameTotal;
      this.nameTotal += 1;
      this.nameIds = grownTypedArray(this.nameIds, this.nameTotal);
      this.keyHighs = grownTypedArray(this.keyHighs, this.nameTotal);
      this.keyLows = grownTypedArray(this.keyLows, this.nameTotal);
      const id = ids[index]!;
      const bytes = this.names.bytesAt(id);
      const [high, low] = sipHash13Halves(bytes);
      this.nameIds[position] = id;
      this.keyHighs[position] = high;
      this.keyLows[position] = low;
      names.push(ids.length === 1 ? bytes : new Uint8Array(bytes));
    }
    return names;
  }

  /** The number of the name at `position` in the list's name source. */
  nameIdAt(position: number): number {
    return this.nameIds[position]!;
  }

  /** The name at `position` as a string. */
  nameAt(position: number): string {
    return this.names.at(this.nameIds[position]!);
  }

  bodyLengthOf(record: number): number {
    return this.bodyLengths[record]!;
  }

  /**
   * The record's names' UTF-8 bytes, its own first: a lone name's a view (valid until the next
   * call on the source), several names copies (a source's view may be one buffer reused:
   * prefix-coded-paths.ts); only records with left-out-default copies pay for the copies.
   */
  nameBytesOf(record: number): Uint8Array[] {
    const [first, end] = this.nameRangeOf(record);
    const names: Uint8Array[] = [];
    for (let position = first; position < end; position++) {
      const bytes = this.names.bytesAt(this.nameIds[position]!);
      names.push(end - first === 1 ? bytes : new Uint8Array(bytes));
    }
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
      this.names.compare(this.nameIds[left]!, this.nameIds[right]!)
    );
  }

  firstNameOf(record: number): number {
    return this.firstNames === undefined ? record : this.firstNames[record]!;
  }

  /** The positions of the record's names: [first, end). */
  nameRangeOf(record: number): [number, number] {
    const end = record + 1 < this.recordCount ? this.firstNameOf(record + 1) : this.nameTotal;
    return [this.firstNameOf(record), end];
  }

  /** The record's names as strings, its own first. */
  pathsOf(record: number): string[] {
    const [first, end] = this.nameRangeOf(record);
    const paths: string[] = [];
    for (let position = first; position < end; position++) paths.push(this.nameAt(position));
    return paths;
  }

  /** The records 0 … length - 1 in key order of their first names. */
  sortedRecords(): Uint32Array {
    const order = new Uint32Array(this.recordCount);
    for (let record = 0; record < this.recordCount; record++) order[record] = record;
    return sortPositions(order, (left, right) => this.compareNames(this.firstNameOf(left), this.firstNameOf(right)));
  }

  /** Every name's position in key order. */
  sortedNames(): Uint32Array {
    const order = new Uint32Array(this.nameTotal);
    for (let position = 0; position < order.length; position++) order[position] = position;
    return sortPositions(order, (left, right) => this.compareNames(left, right));
  }

  /** Records where the record was packed: at `offset` in its pack. */
  setRecordOffset(record: number, offset: number): void {
    if (this.recordOffsets.length < this.recordCount)
      this.recordOffsets = grownTypedArray(this.recordOffsets, this.recordCount);
    this.recordOffsets[record] = offset;
  }

  /** The record the name at `position` belongs to. */
  recordOf(position: number): number {
    // Without extra names, a record's only name has the record's own number.
    const firstNames = this.firstNames;
    if (firstNames === undefined) return position;
    // Names are pushed record by record, so the first names' positions ascend.
    let low = 0;
    let high = this.recordCount - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (firstNames[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** The record's offset in its pack (setRecordOffset). */
  recordOffsetOf(record: number): number {
    return this.recordOffsets[record]!;
  }

  /**
   * The record's encoded length in its pack: its names, its body, its header. From the names'
   * lengths alone: the pack writer asks for every record's more than once, and a view per name
   * each time was most of the pack step's garbage.
   */
  recordBytesOf(record: number): number {
    const first = this.firstNameOf(record);
    const end = record + 1 < this.recordCount ? this.firstNameOf(record + 1) : this.nameTotal;
    let total = encodedRecordBytes(NO_NAMES, this.bodyLengths[record]!);
    for (let position = first; position < end; position++)
      total += NAME_LENGTH_BYTES + this.names.byteLengthAt(this.nameIds[position]!);
    return total;
  }
}
