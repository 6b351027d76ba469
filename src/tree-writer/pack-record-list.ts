// What the pack writer (pack-writer.ts) holds of one tool's records between reading them and
// writing the last index, in typed arrays rather than an object per record and per name (a tool can
// have hundreds of thousands): each name as its number in a name source (its own arena,
// string-arena.ts, or one the caller already holds: the build's are the tree writer's recorded
// paths, file-digests.ts, so no second copy of a path is made), about a byte a name where the
// numbers come close together (compact-ids.ts: a tool's call files among the writer's slots),
// each record's first name and body size (none where the source holds the body's length: the
// writer's spooled files), and, once its pack is made, each record's offset in its pack (only in a list whose records
// have several names: pack-writer.ts works it out again for the others). A name's call key is not
// held (but while a list of at most HELD_NAMES names is packed: holdKeysAndSizes): it is worked
// out again from the name (SipHash of its bytes) where it is needed, and the
// key order is made by counting the names into their key's top-bit buckets, then sorting one
// bucket at a time (8 bytes a name of keys, and a sort's scratch as long as the list, were held
// through the whole pack step, the build's peak). A name's index entry is worked out from those
// when the index is written (its record's length from the names and the body size, its pack from
// the key's bucket: pack-writer.ts) rather than kept.
// Comparing (high, low) as unsigned numbers is comparing a key's 8 big-endian bytes.
import { encodedRecordBytes } from '../core/packs/pack-encoding.js';
import { sipHash13Halves } from '../core/tree/siphash.js';
import { CompactIds } from './compact-ids.js';
import { grownTypedArray, releaseGrown } from './grown-typed-array.js';
import { StringArena } from './string-arena.js';
import { sortPositions } from './sort-positions.js';

const INITIAL_ITEMS = 256;
/**
 * Lists of at most this many names hold each name's key and each record's encoded size while they
 * are packed (holdKeysAndSizes: 12 bytes a name at most, 1.5 MiB), instead of working them out
 * again each of the four or five times the pack writer asks; a larger list (a tool of hundreds of
 * thousands of calls, the build's peak) still works them out each time.
 */
const HELD_NAMES = 128 * 1024;
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
  /**
   * The length of the body the source holds for string `id` (the writer's spooled files), if it
   * holds one; it must not change while a list refers to it.
   */
  heldLengthAt?(id: number): number | undefined;
}

/** Items in key order, and where each bucket of the keys' top bits starts in it (one more: the end). */
export interface KeyOrder {
  order: Uint32Array;
  bucketStarts: Uint32Array;
}

/** The bucket of a key whose high 32 bits are `high`, among 2^bits (bits ≤ 16). */
export function bucketOfHigh(high: number, bits: number): number {
  return bits === 0 ? 0 : high >>> (32 - bits);
}

export class PackRecordList {
  /** Per name position, the name's number in `names`. */
  private readonly nameIds = new CompactIds();
  private nameTotal = 0;
  /** Names pushed as strings go here (`push`); `pushIds` refers to the caller's source instead. */
  private readonly ownNames: StringArena | undefined;
  /**
   * Per record, the position of its first name; its names are the ones up to the next record's
   * first. Undefined while every record has one name (record r's is then name r): made at the
   * first record with extra names, so a tool without left-out-default copies never holds it.
   */
  private firstNames: Uint32Array | undefined;
  /** Per record, its body's length in bytes, for a source that holds no lengths. */
  private bodyLengths: Uint32Array | undefined;
  /** For a source that holds lengths, the records (ascending) whose body length it does not hold… */
  private unheldRecords = new Uint32Array(0);
  /** … and those records' body lengths. */
  private unheldLengths = new Uint32Array(0);
  private unheldCount = 0;
  private recordCount = 0;
  /** Per record, once it is packed: its offset in its pack. */
  private recordOffsets = new Uint32Array(0);
  /** While held (holdKeysAndSizes): each name's key halves, and each record's encoded size. */
  private heldHighs: Uint32Array | undefined;
  private heldLows: Uint32Array | undefined;
  private heldRecordBytes: Uint32Array | undefined;

  get length(): number {
    return this.recordCount;
  }

  get nameCount(): number {
    return this.nameTotal;
  }

  /** `names`: the source `pushIds` numbers refer to; none: the list keeps the strings `push` gets. */
  constructor(readonly names: PackNameSource = new StringArena()) {
    this.ownNames = names instanceof StringArena ? names : undefined;
    if (names.heldLengthAt === undefined) this.bodyLengths = new Uint32Array(INITIAL_ITEMS);
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
    if (this.heldHighs !== undefined) throw new Error('pushIds: the list holds its keys and sizes (holdKeysAndSizes)');
    const record = this.recordCount;
    this.recordCount += 1;
    if (this.firstNames === undefined && ids.length !== 1) {
      this.firstNames = new Uint32Array(Math.max(INITIAL_ITEMS, this.recordCount));
      for (let earlier = 0; earlier < record; earlier++) this.firstNames[earlier] = earlier;
    }
    if (this.firstNames !== undefined) {
      this.firstNames = grownTypedArray(this.firstNames, this.recordCount);
      this.firstNames[record] = this.nameTotal;
    }
    this.setBodyLength(record, ids[0]!, bodyLength);
    const names: Uint8Array[] = [];
    for (let index = 0; index < ids.length; index++) {
      this.nameTotal += 1;
      const id = ids[index]!;
      const bytes = this.names.bytesAt(id);
      this.nameIds.push(id);
      names.push(ids.length === 1 ? bytes : new Uint8Array(bytes));
    }
    return names;
  }

  /** The number of the name at `position` in the list's name source. */
  nameIdAt(position: number): number {
    return this.nameIds.at(position);
  }

  /** The UTF-8 bytes of the name at `position` (a view: valid until the next call on the source). */
  nameViewAt(position: number): Uint8Array {
    return this.names.bytesAt(this.nameIds.at(position));
  }

  /** The name at `position` as a string. */
  nameAt(position: number): string {
    return this.names.at(this.nameIds.at(position));
  }

  /** Keeps the record's body length, unless the source holds that length for its first name. */
  private setBodyLength(record: number, firstId: number, bodyLength: number): void {
    if (this.bodyLengths !== undefined) {
      this.bodyLengths = grownTypedArray(this.bodyLengths, this.recordCount);
      this.bodyLengths[record] = bodyLength;
      return;
    }
    if (this.names.heldLengthAt!(firstId) === bodyLength) return;
    this.unheldCount += 1;
    this.unheldRecords = grownTypedArray(this.unheldRecords, this.unheldCount);
    this.unheldLengths = grownTypedArray(this.unheldLengths, this.unheldCount);
    this.unheldRecords[this.unheldCount - 1] = record;
    this.unheldLengths[this.unheldCount - 1] = bodyLength;
  }

  bodyLengthOf(record: number): number {
    if (this.bodyLengths !== undefined) return this.bodyLengths[record]!;
    // Records are pushed in ascending order, so the unheld ones are sorted.
    let low = 0;
    let high = this.unheldCount;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.unheldRecords[middle]! < record) low = middle + 1;
      else high = middle;
    }
    if (low < this.unheldCount && this.unheldRecords[low] === record) return this.unheldLengths[low]!;
    const held = this.names.heldLengthAt!(this.nameIds.at(this.firstNameOf(record)));
    if (held === undefined) throw new Error(`record ${record}'s body is no longer held by its name source`);
    return held;
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
      const bytes = this.names.bytesAt(this.nameIds.at(position));
      names.push(end - first === 1 ? bytes : new Uint8Array(bytes));
    }
    return names;
  }

  /** The call key of the name at `position`: its SipHash halves (high, low), worked out from the name. */
  keyOf(position: number): [number, number] {
    if (this.heldHighs !== undefined) return [this.heldHighs[position]!, this.heldLows![position]!];
    return sipHash13Halves(this.names.bytesAt(this.nameIds.at(position)));
  }

  /**
   * Works out every name's key and every record's encoded size once, for keyOf and recordBytesOf
   * to answer from until releaseKeysAndSizes, when the list has at most HELD_NAMES names (else
   * nothing is held). No record may be pushed meanwhile.
   */
  holdKeysAndSizes(): void {
    if (this.heldHighs !== undefined || this.nameTotal > HELD_NAMES) return;
    const highs = grownTypedArray(new Uint32Array(0), this.nameTotal);
    const lows = grownTypedArray(new Uint32Array(0), this.nameTotal);
    for (let position = 0; position < this.nameTotal; position++) {
      const [high, low] = sipHash13Halves(this.names.bytesAt(this.nameIds.at(position)));
      highs[position] = high;
      lows[position] = low;
    }
    const recordBytes = grownTypedArray(new Uint32Array(0), this.recordCount);
    for (let record = 0; record < this.recordCount; record++) recordBytes[record] = this.recordBytesOf(record);
    this.heldHighs = highs;
    this.heldLows = lows;
    this.heldRecordBytes = recordBytes;
  }

  /** Lets go what holdKeysAndSizes held. */
  releaseKeysAndSizes(): void {
    if (this.heldHighs === undefined) return;
    releaseGrown(this.heldHighs);
    releaseGrown(this.heldLows!);
    releaseGrown(this.heldRecordBytes!);
    this.heldHighs = undefined;
    this.heldLows = undefined;
    this.heldRecordBytes = undefined;
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

  /**
   * The records 0 … length - 1 in key order of their first names (then by the name itself: two
   * names of one key still come in a fixed order), with where each of the 2^bits buckets of their
   * key's top bits starts in it.
   */
  recordsByKey(bits: number): KeyOrder {
    return this.byKey(this.recordCount, (record) => this.firstNameOf(record), bits);
  }

  /** Every name's position in key order (then by the name), with where each bucket starts. */
  namesByKey(bits: number): KeyOrder {
    return this.byKey(this.nameTotal, (position) => position, bits);
  }

  /**
   * Items 0 … count - 1 by the key of their name `nameOf(item)`: counted into their buckets, then
   * each bucket sorted on its own, its keys worked out once more.
   */
  private byKey(count: number, nameOf: (item: number) => number, bits: number): KeyOrder {
    const bucketStarts = new Uint32Array(2 ** bits + 1);
    // Each item's bucket (bits ≤ 16) for the placing pass, given back before the packs are made.
    const buckets = grownTypedArray(new Uint16Array(0), count);
    for (let item = 0; item < count; item++) {
      const bucket = bucketOfHigh(this.keyOf(nameOf(item))[0], bits);
      buckets[item] = bucket;
      bucketStarts[bucket + 1]! += 1;
    }
    for (let bucket = 1; bucket < bucketStarts.length; bucket++) bucketStarts[bucket]! += bucketStarts[bucket - 1]!;
    // Given back by the pack writer (releaseGrown) once it is done with it.
    const order = grownTypedArray(new Uint32Array(0), count);
    const next = bucketStarts.slice(0, -1);
    for (let item = 0; item < count; item++) order[next[buckets[item]!]!++] = item;
    releaseGrown(buckets);
    // One bucket's keys and positions at a time: a pack's or an index's worth.
    let highs = new Uint32Array(0);
    let lows = new Uint32Array(0);
    let local = new Uint32Array(0);
    let items = new Uint32Array(0);
    for (let bucket = 0; bucket + 1 < bucketStarts.length; bucket++) {
      const start = bucketStarts[bucket]!;
      const size = bucketStarts[bucket + 1]! - start;
      if (size < 2) continue;
      if (size > highs.length) {
        const capacity = Math.max(size, highs.length * 2);
        highs = new Uint32Array(capacity);
        lows = new Uint32Array(capacity);
        local = new Uint32Array(capacity);
        items = new Uint32Array(capacity);
      }
      for (let index = 0; index < size; index++) {
        const item = order[start + index]!;
        [highs[index], lows[index]] = this.keyOf(nameOf(item));
        local[index] = index;
        items[index] = item;
      }
      const nameIdOf = (index: number) => this.nameIds.at(nameOf(items[index]!));
      sortPositions(
        local.subarray(0, size),
        (left, right) =>
          highs[left]! - highs[right]! ||
          lows[left]! - lows[right]! ||
          this.names.compare(nameIdOf(left), nameIdOf(right)),
      );
      for (let index = 0; index < size; index++) order[start + index] = items[local[index]!]!;
    }
    return { order, bucketStarts };
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
    if (this.heldRecordBytes !== undefined) return this.heldRecordBytes[record]!;
    const first = this.firstNameOf(record);
    const end = record + 1 < this.recordCount ? this.firstNameOf(record + 1) : this.nameTotal;
    let total = encodedRecordBytes(NO_NAMES, this.bodyLengthOf(record));
    for (let position = first; position < end; position++)
      total += NAME_LENGTH_BYTES + this.names.byteLengthAt(this.nameIds.at(position));
    return total;
  }
}
