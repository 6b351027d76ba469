// Groups one tool's call files into packs and indexes (core/packs/pack-format.ts) and returns the
// files to write and the tool's rows of the manifest's pack table. Deterministic: the same records
// give byte-identical files. Local: a record goes to the pack of its key's top bits (keys are
// SipHash values, so the packs come out even), an index covers a fixed key range of whole packs,
// and file names are content hashes, so a changed record renames only its pack and the index(es)
// naming it; the rest keep their names and their CDN-cached copies. The bucket counts are powers
// of two chosen from the tool's total size: when a tool about doubles or halves they change and
// every pack of that tool is rewritten once.
import { hexOfBytes } from '../core/packs/hex-of-bytes.js';
import { createHash } from 'node:crypto';
import {
  INDEX_ENTRY_BYTES,
  KEY_KIND,
  MAX_PACK_BYTES,
  PACK_HEADER_BYTES,
  PACKS_FOLDER,
} from '../core/packs/pack-format.js';
import {
  encodeFixedKeyIndex,
  FIXED_KEY_BYTES,
  type FixedKeyIndexEntries,
  encodePackHeader,
  encodeRecordInto,
} from '../core/packs/pack-encoding.js';
import type { PackTableRow } from '../core/packs/pack-table.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { assertPlainTreePath } from '../core/tree/tree-path.js';
import { releaseGrown } from './grown-typed-array.js';
import { bucketOfHigh, type KeyOrder, PackRecordList } from './pack-record-list.js';
import { recordsDigestOf } from './pack-records-digest.js';

export interface PackRecord {
  /** The tree paths this body answers: the call's own first, then its left-out-default copies. */
  paths: readonly string[];
  bytes: Uint8Array;
}

/** A record whose body is read (`readBody` of its first path) only when its pack is written. */
export interface LazyPackRecord {
  paths: readonly string[];
  byteLength: number;
}

export interface PackToolOptions {
  tool: string;
  records: readonly PackRecord[];
  /** Average pack size aimed at; packs come out between half of it and it, give or take a few %. */
  targetPackBytes: number;
  /** Average index size aimed at; an index never covers less than one pack. */
  targetIndexBytes?: number;
}

export interface PackedTool {
  /** Tree path → bytes, packs and indexes, sorted by path. */
  files: { path: string; bytes: Uint8Array }[];
  /** The tool's rows of the manifest's `packs` table, in key order. */
  table: PackTableRow[];
}

/**
 * 256 KiB. bench/pack-lookup.mjs: where the host serves byte ranges (a folder, most static hosts)
 * a packed read costs about what a plain file read costs at any pack size; where it reads whole
 * packs (assume the worker's asset binding does), the cost grows with the pack: ~2× a plain read
 * at 64 KiB, ~4-5× at 256 KiB, ~8-10× at 1 MiB, ~25× at 4 MiB. So: the smallest packs the file
 * budget allows, and 256 KiB when it allows smaller (a 650,000-call, 1.3 GB tool needs ≥ ~80 KiB
 * packs to stay under 20,000 files).
 */
export const DEFAULT_TARGET_PACK_BYTES = 256 * 1024;
export const DEFAULT_TARGET_INDEX_BYTES = 64 * 1024;
// The largest pack lives with the format (readers refuse an index saying more); writers keep to it.
export { MAX_PACK_BYTES };
/** At most 2^16 packs per tool. */
const MAX_BUCKET_BITS = 16;
/** A call key's 8 bytes and an entry, per name: what an index costs per call. */
const INDEX_BYTES_PER_NAME = 8 + INDEX_ENTRY_BYTES;

/** A pack or index file the writer made. */
export interface PackFile {
  path: string;
  bytes: Uint8Array;
  /** A pack's records digest (packRecordsDigest), when the caller gave body digests. */
  records?: string;
  /** A pack the caller's `reusedPack` named: `bytes` is empty, the caller links the file it has. */
  reused?: boolean;
}

/** The smallest bit count b with total / 2^b <= target (0 when it fits in one), capped. */
function bucketBits(total: number, target: number): number {
  let bits = 0;
  while (bits < MAX_BUCKET_BITS && total / 2 ** bits > target) bits += 1;
  return bits;
}

/**
 * The most files packToolRecords writes for a tool of `recordBytes` (records' bytes, names and
 * headers included; ≈ bodies + paths + 16 per call) and `nameCount` paths: for the file budget.
 */
export function maxPackFilesFor(
  recordBytes: number,
  nameCount: number,
  targetPackBytes: number,
  targetIndexBytes = DEFAULT_TARGET_INDEX_BYTES,
): number {
  if (nameCount === 0) return 0;
  const packBits = bucketBits(recordBytes, targetPackBytes);
  const indexBits = Math.min(packBits, bucketBits(nameCount * INDEX_BYTES_PER_NAME, targetIndexBytes));
  return 2 ** packBits + 2 ** indexBits;
}

function contentName(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

/** Packs and indexes for one tool's records, all in memory (tests, benches; the build streams: generateToolPacks). */
export function packToolRecords(options: PackToolOptions): PackedTool {
  const files: PackFile[] = [];
  const bodies = new Map(options.records.map((record) => [record.paths[0] ?? '', record.bytes]));
  const generator = generateToolPacks({
    ...options,
    records: options.records.map((record) => ({ paths: record.paths, byteLength: record.bytes.length })),
    readBody: (firstPath) => bodies.get(firstPath)!,
  });
  let step = generator.next();
  // A copy: a pack's bytes are a view the generator reuses for the next pack.
  for (; !step.done; step = generator.next()) files.push({ path: step.value.path, bytes: step.value.bytes.slice() });
  const table = step.value;
  files.sort((a, b) => compareStrings(a.path, b.path));
  return { files, table };
}

/** How the pack generators read a tool's records, and find packs the caller already has. */
export type ListPackOptions = Omit<PackToolOptions, 'records'> & {
  /** The body of the record whose first path is `firstPath`. */
  readBody(firstPath: string): Uint8Array;
  /** Fills `into` (the body's place in the pack, byteLength bytes) with that body; readBody's copy when absent. */
  readBodyInto?(firstPath: string, into: Uint8Array): void;
  /** The content digest of a record's body: given, each pack is yielded with its records digest. */
  bodyDigest?(firstPath: string): Uint8Array;
  /**
   * bodyDigest by the first name's number in the list's name source (used instead when given: no
   * string made a record); the digest is read before the next call.
   */
  bodyDigestOfName?(nameId: number): Uint8Array;
  /**
   * The path of a pack file the caller already has for a records digest, `length` bytes long:
   * that pack is yielded as reused, its bodies neither read nor encoded.
   */
  reusedPack?(records: string, length: number): string | undefined;
};

/**
 * Packs and indexes for one tool's records, each file yielded as soon as it is made (packs in key
 * order, then indexes); the tool's rows of the pack table are the generator's return value. A
 * pack is encoded in one buffer, reused for the next pack (a yielded pack's bytes are valid until
 * the generator resumes), each record's body read straight into its place (`readBodyInto`): no
 * allocation per record, and none per pack once the buffer has grown to the largest pack (freed
 * buffers of a few hundred KiB each left the allocator's heap fragmented: peak RSS grew with
 * the tool). Memory holds that buffer and each record's offset in its pack (in typed arrays,
 * pack-record-list.ts), never the tool's bodies. Throws when a path is not plain or a pack would
 * pass MAX_PACK_BYTES.
 */
export function* generateToolPacks(
  options: ListPackOptions & {
    /** Read once, as they come (an iterable: the build never holds a list of them). */
    records: Iterable<LazyPackRecord>;
  },
): Generator<PackFile, PackTableRow[]> {
  // Every name and key in typed arrays (pack-record-list.ts), never an object per record or name.
  const list = new PackRecordList();
  for (const record of options.records) {
    for (const path of record.paths) assertPlainTreePath(path, 'A packed call file');
    list.push(record.paths, record.byteLength);
  }
  return yield* generateListPacks(list, options);
}

/**
 * generateToolPacks over records already in a list (the build's: names by their number in the tree
 * writer's recorded paths, checked plain when written), read by the reader's callbacks.
 */
export function* generateListPacks(
  list: PackRecordList,
  options: ListPackOptions,
): Generator<PackFile, PackTableRow[]> {
  const { tool } = options;
  assertPlainTreePath(`${PACKS_FOLDER}${tool}`, `The packs folder of tool ${tool}`);
  if (tool.includes('/')) throw new Error(`tool name ${tool} holds a "/"`);
  const readBodyInto =
    options.readBodyInto ??
    ((firstPath: string, into: Uint8Array) => {
      const body = options.readBody(firstPath);
      if (body.length !== into.length)
        throw new Error(`the body of ${firstPath} is ${body.length} bytes, not the ${into.length} announced`);
      into.set(body);
    });
  if (list.length === 0) return [];
  list.holdKeysAndSizes();
  try {
    return yield* generateHeldListPacks(list, options, readBodyInto);
  } finally {
    list.releaseKeysAndSizes();
  }
}

/** generateListPacks once the list holds what it can (PackRecordList.holdKeysAndSizes). */
function* generateHeldListPacks(
  list: PackRecordList,
  options: ListPackOptions,
  readBodyInto: (firstPath: string, into: Uint8Array) => void,
): Generator<PackFile, PackTableRow[]> {
  const { tool, targetPackBytes } = options;
  const targetIndexBytes = options.targetIndexBytes ?? DEFAULT_TARGET_INDEX_BYTES;
  let totalBytes = 0;
  for (let record = 0; record < list.length; record++) totalBytes += list.recordBytesOf(record);
  const nameCount = list.nameCount;

  const packBits = bucketBits(totalBytes, targetPackBytes);
  const indexBits = Math.min(packBits, bucketBits(nameCount * INDEX_BYTES_PER_NAME, targetIndexBytes));
  const packs: { path: string; length: number }[] = [];
  // Each bucket's pack number (a bucket holds one pack or none): a name's pack is its record's
  // first key's bucket's, so no pack number is kept per name.
  const packOfBucket = new Uint32Array(2 ** packBits);

  // Where every record has one name, the indexes list the records in the order they are packed
  // (an index covers whole packs), so a record's offset in its pack is worked out again as its
  // entry is written rather than held (4 bytes a call, through the whole index step).
  const singleNames = list.nameCount === list.length;
  // Deterministic order whatever order the records came in: key, then the path itself. A pack
  // bucket's records are together in it (the bucket is the key's top bits).
  let records: KeyOrder | undefined = list.recordsByKey(packBits);
  {
    const { order, bucketStarts } = records;
    let scratch = new Uint8Array(0);
    for (let bucket = 0; bucket < packOfBucket.length; bucket++) {
      const start = bucketStarts[bucket]!;
      const end = bucketStarts[bucket + 1]!;
      if (start === end) continue;
      let packLength = PACK_HEADER_BYTES;
      for (let position = start; position < end; position += 1) {
        const record = order[position]!;
        packLength += list.recordBytesOf(record);
      }
      if (packLength > MAX_PACK_BYTES) {
        throw new StaticMcpError(
          'PACK_TOO_LARGE',
          `A pack of tool ${tool} would hold ${packLength} bytes, more than the ${MAX_PACK_BYTES} a host accepts in one file`,
          'Lower the pack size, or make the largest call results smaller.',
        );
      }
      // Room for a pack a little over the target at once: each regrowth frees the old buffer.
      if (packLength > scratch.length)
        scratch = new Uint8Array(Math.max(packLength, scratch.length * 2, Math.ceil(targetPackBytes * 1.125)));
      const packRecords = options.bodyDigestOfName
        ? recordsDigestOf(list, order, start, end, (first) => options.bodyDigestOfName!(list.nameIdAt(first)))
        : options.bodyDigest &&
          recordsDigestOf(list, order, start, end, (first) => options.bodyDigest!(list.nameAt(first)));
      const reusedPath = packRecords !== undefined ? options.reusedPack?.(packRecords, packLength) : undefined;
      if (reusedPath !== undefined) {
        // Its entries from the records' sizes alone, as the encoding lays them out.
        let offset = PACK_HEADER_BYTES;
        for (let position = start; position < end; position += 1) {
          const record = order[position]!;
          if (!singleNames) list.setRecordOffset(record, offset);
          offset += list.recordBytesOf(record);
        }
        packOfBucket[bucket] = packs.length;
        packs.push({ path: reusedPath, length: packLength });
        yield { path: reusedPath, bytes: new Uint8Array(0), records: packRecords!, reused: true };
        continue;
      }
      const packBytes = scratch.subarray(0, packLength);
      encodePackHeader(packBytes, end - start);
      let offset = PACK_HEADER_BYTES;
      for (let position = start; position < end; position += 1) {
        const record = order[position]!;
        const names = list.nameBytesOf(record);
        const firstPath = list.nameAt(list.firstNameOf(record));
        const length = encodeRecordInto(packBytes, offset, names, list.bodyLengthOf(record), (into) =>
          readBodyInto(firstPath, into),
        );
        // The indexes' entries (and reused packs) are worked out from the sizes alone.
        if (length !== list.recordBytesOf(record))
          throw new Error(
            `the record of ${firstPath} took ${length} bytes, not the ${list.recordBytesOf(record)} its sizes say`,
          );
        if (!singleNames) list.setRecordOffset(record, offset);
        offset += length;
      }
      packOfBucket[bucket] = packs.length;
      const pack = { path: `${PACKS_FOLDER}${tool}/${contentName(packBytes)}.pack`, length: packLength };
      packs.push(pack);
      yield { path: pack.path, bytes: packBytes, ...(packRecords !== undefined ? { records: packRecords } : {}) };
    }
  }

  // An index per key range of 2^(64 - indexBits): the entries of its names, wherever their record lives.
  // Where every record has one name, name r is record r's: the records' order is the names', and
  // an index's bucket is 2^(packBits - indexBits) pack buckets in a row (otherwise that order is
  // let go before the names' is made).
  if (!singleNames) {
    releaseGrown(records.order);
    records = undefined;
  }
  const names = records ?? list.namesByKey(indexBits);
  records = undefined;
  const order = names.order;
  const bucketsPerIndex = singleNames ? 2 ** (packBits - indexBits) : 1;
  const table: PackTableRow[] = [];
  // One index's entries as columns, reused from index to index: no object or key view per name.
  const columns = new IndexColumns();
  // singleNames: the offset of the next record in its pack (packed) and that pack's number.
  let packedOffset = 0;
  let packedIn = -1;
  for (let bucket = 0; bucket < 2 ** indexBits; bucket++) {
    const start = names.bucketStarts[bucket * bucketsPerIndex]!;
    const end = names.bucketStarts[(bucket + 1) * bucketsPerIndex]!;
    if (start === end) continue;
    const entries = columns.reset(end - start);
    const keyView = new DataView(entries.keys.buffer, entries.keys.byteOffset, entries.keys.byteLength);
    const packsNamed = new Set<number>();
    // Each name's key worked out again (the list holds none), its record's pack number for now.
    for (let position = start; position < end; position++) {
      const name = order[position]!;
      const record = list.recordOf(name);
      const entry = position - start;
      const [high, low] = list.keyOf(name);
      keyView.setUint32(entry * 8, high);
      keyView.setUint32(entry * 8 + 4, low);
      const firstName = list.firstNameOf(record);
      const recordPack = packOfBucket[bucketOfHigh(firstName === name ? high : list.keyOf(firstName)[0], packBits)]!;
      packsNamed.add(recordPack);
      const recordBytes = list.recordBytesOf(record);
      entries.packs[entry] = recordPack;
      if (singleNames) {
        if (recordPack !== packedIn) [packedIn, packedOffset] = [recordPack, PACK_HEADER_BYTES];
        entries.recordOffsets[entry] = packedOffset;
        packedOffset += recordBytes;
      } else {
        entries.recordOffsets[entry] = list.recordOffsetOf(record);
      }
      entries.recordLengths[entry] = recordBytes;
    }
    const packNumbers = [...packsNamed].sort((left, right) => compareStrings(packs[left]!.path, packs[right]!.path));
    const packNumber = new Map(packNumbers.map((number, position) => [number, position]));
    for (let entry = 0; entry < end - start; entry++) entries.packs[entry] = packNumber.get(entries.packs[entry]!)!;
    const indexBytes = encodeFixedKeyIndex(
      KEY_KIND.call,
      packNumbers.map((number) => packs[number]!),
      entries,
    );
    const indexPath = `${PACKS_FOLDER}${tool}/${contentName(indexBytes)}.idx`;
    yield { path: indexPath, bytes: indexBytes };
    const firstKey = new Uint8Array(8);
    new DataView(firstKey.buffer).setUint32(0, indexBits === 0 ? 0 : (bucket << (32 - indexBits)) >>> 0);
    table.push({ first: hexOfBytes(firstKey), index: indexPath });
  }
  // Given back now: freed by a collection, an order this size would leave glibc's heap fragmented.
  releaseGrown(order);
  return table;
}

/** An index's entries as typed columns, to be filled. */
interface IndexColumnArrays extends FixedKeyIndexEntries {
  packs: Uint32Array;
  recordOffsets: Uint32Array;
  recordLengths: Uint32Array;
}

function indexColumnsFor(capacity: number): IndexColumnArrays {
  return {
    count: 0,
    keys: new Uint8Array(capacity * FIXED_KEY_BYTES),
    packs: new Uint32Array(capacity),
    recordOffsets: new Uint32Array(capacity),
    recordLengths: new Uint32Array(capacity),
  };
}

/** One index's entries as columns (encodeFixedKeyIndex), grown to the largest index of a tool. */
class IndexColumns {
  private entries = indexColumnsFor(0);

  /** The columns for `count` entries, to be filled (their earlier values are stale). */
  reset(count: number): IndexColumnArrays {
    if (count > this.entries.packs.length)
      this.entries = indexColumnsFor(Math.max(count, this.entries.packs.length * 2));
    this.entries.count = count;
    return this.entries;
  }
}

function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
