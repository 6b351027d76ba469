// Packs a stream of search records, sorted by key, into content-addressed packs and indexes in one
// pass, handing each file to the caller as it closes: the spilling search index writer
// (search-index-spill-writer.ts) packs its term, title and document records through it, cut at
// the same content-defined boundaries as the in-memory reference writer (search-part-boundaries.ts).
// A part whose records come deferred (their lengths and inputs known, their bytes made on demand)
// can take a pack whole from the previous build: each pack is keyed by the sha256 of its records'
// inputs, and a pack the previous build made from the same inputs is linked, not made again. A
// part whose records come with positions (the term records) can take a pack whole when its
// records were copied unchanged from the previous build's: found by those previous positions.
import { createHash, type Hash } from 'node:crypto';
import { hexOfBytes } from '../core/packs/hex-of-bytes.js';
import { INDEX_ENTRY_BYTES, type KeyKind, PACK_HEADER_BYTES } from '../core/packs/pack-format.js';
import { encodeIndex, encodePack, type IndexEntryInput } from '../core/packs/pack-encoding.js';
import type { PackTableRow } from '../core/packs/pack-table.js';
import type { SearchPackRow } from '../core/search/search-index-format.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { MAX_PACK_BYTES } from './pack-writer.js';
import { compareStrings, contentName } from './search-index-output.js';
import { boundaryHash, fitPartBoundaries, type PartTotals, type VisitRecordSizes } from './search-part-boundaries.js';
import type { SearchPartFileLimits } from './search-index-targets.js';

/** Writes one index file (a tree path below packs/search.index/). */
export type WriteIndexFile = (treePath: string, bytes: Uint8Array) => Promise<void>;

/** A record on its way into a pack: its key, its own name, its encoded bytes. */
export interface EncodedRecord {
  key: Uint8Array;
  name: string;
  encoded: Uint8Array;
  /** Encoded records that follow this one in its pack, with no index entry (a title block's excerpt sources). */
  followers?: Uint8Array[];
  /** Whose each follower is (a document's arrival), for `onFollowerPlaced`. */
  followerArrivals?: number[];
  /** A record that lies in another part's pack (a document source): only its index entry is made. */
  placedAt?: RecordPlace;
  /** A record made only if its pack is (`encoded` and `followers` are then empty until made). */
  deferred?: DeferredRecord;
  /** Its position in its part's records (the term records'), counting those a filter leaves out. */
  position?: number;
  /**
   * A record that is the previous build's record at `previous`, unchanged, as are the records
   * from position `runStart` to it (each the one after the previous record of the one before).
   */
  copied?: { previous: number; runStart: number };
}

/** A record known by its lengths and the bytes it is made from, made on demand. */
export interface DeferredRecord {
  /** Its encoded bytes' length, and each follower's. */
  length: number;
  followerLengths: readonly number[];
  /** Feeds everything its bytes (and its followers') are made from to `hash`. */
  feed(hash: Hash): void;
  make(): { encoded: Uint8Array; followers: Uint8Array[] };
}

/** Packs of the previous build that may stand for this build's, by the digest of their records' inputs. */
export interface PackReuse {
  /** The previous pack made from inputs of digest `key` (hex), when it is still in the previous tree. */
  find(key: string): { path: string; length: number } | undefined;
  /** Puts that pack into this build's tree as it is. */
  link(path: string): Promise<void>;
  /** Tells what this build's pack made from inputs of digest `key` is. */
  made(key: string, path: string): void;
  /**
   * For records that come with positions: the previous pack that held exactly the previous
   * records at positions `first` to `last` (their first and last), when it is still in the tree.
   */
  findRange?(first: number, last: number): { path: string; length: number } | undefined;
  /** Tells what this build's pack of the records at positions `first` to `last` is. */
  madeRange?(first: number, last: number, path: string): void;
  /** The previous tree's index file at `path` (its length), when it may be linked. */
  previousFile?(path: string): { length: number } | undefined;
}

/** Where a record lies: its pack (its path is filled when the pack closes), offset and length. */
export interface RecordPlace {
  pack: { path: string; length: number };
  offset: number;
  length: number;
}

/** Records sorted by key, with the totals that place content-defined boundaries. */
export interface RecordSource extends PartTotals {
  records: () => Iterable<EncodedRecord>;
  /** Each record's key and encoded bytes, in the same order, without encoding the records. */
  visitSizes: VisitRecordSizes;
  /**
   * Each record's key and encoded bytes, in order, as views valid only during the call (nothing
   * copied or allocated a record): for a walk that keeps none of them. Absent: walk `records`.
   */
  visitRecords?: (visit: (key: Uint8Array, encoded: Uint8Array) => void) => void;
}

/** Where a pack of positioned records lies: its first and last packed records, totals, file and first key. */
export interface PackPlace {
  start: number;
  lastPacked: number;
  packedCount: number;
  packedBytes: number;
  packedKeyBytes: number;
  path: string;
  length: number;
  firstKey: string;
}

/** Told where each pack and index of a part with positioned records (the term records) lies. */
export interface PackLayoutListener {
  /** The boundaries' targets and divisors (PartBoundaries.cut), before the first pack. */
  cut(cut: readonly number[]): void;
  pack(pack: PackPlace): void;
  index(index: { start: number; lastPacked: number; path: string; firstKey: string }): void;
}

/** A record's follower lengths when it has none (one array for all: a new one a record was garbage). */
const NO_FOLLOWERS: readonly number[] = [];

interface OpenPack {
  records: Uint8Array[];
  /** Deferred records (made when the pack closes and is not reused), with the digest of their inputs. */
  deferred: DeferredRecord[];
  inputs?: Hash;
  size: number;
  /** Its records and their keys' bytes (for a PackLayoutListener). */
  count: number;
  keyBytes: number;
  firstName: string;
  firstKey: Uint8Array;
  /** Its first and last records (their positions and origins: a pack of copied records may be linked). */
  first: EncodedRecord;
  last: EncodedRecord;
  /** Filled when the pack closes. */
  file: { path: string; length: number };
}

/** An index entry waiting for its pack's name. */
export interface IndexEntryPending {
  key: Uint8Array;
  pack: OpenPack['file'];
  offset: number;
  length: number;
}

/** The index file of `entries` (their packs named), in key order. */
export function encodePartIndex(keyKind: KeyKind, entries: readonly IndexEntryPending[]): Uint8Array {
  const packs = [...new Map(entries.map((entry) => [entry.pack.path, entry.pack])).values()].sort((a, b) =>
    compareStrings(a.path, b.path),
  );
  const packNumber = new Map(packs.map((file, position) => [file.path, position]));
  const indexEntries: IndexEntryInput[] = entries.map((entry) => ({
    key: entry.key,
    pack: packNumber.get(entry.pack.path)!,
    recordOffset: entry.offset,
    recordLength: entry.length,
  }));
  return encodeIndex(
    keyKind,
    packs.map((file) => ({ path: file.path, length: file.length })),
    indexEntries,
  );
}

/**
 * packSortedRecords (test/helpers/in-memory-search-index.ts) in one pass over a stream: the same content-defined
 * pack and index boundaries, the same files and rows. An index closes before the pack of its last
 * records may; it waits (its entries only) until that pack has its name.
 */
export async function packRecords(
  folder: string,
  keyKind: KeyKind,
  source: RecordSource,
  givenTargets: { targetPackBytes: number; targetIndexBytes: number },
  limits: SearchPartFileLimits,
  writeFile: WriteIndexFile,
  onFollowerPlaced?: (arrival: number, place: RecordPlace) => void,
  reuse?: PackReuse,
  packRows?: SearchPackRow[],
  layout?: PackLayoutListener,
): Promise<PackTableRow[]> {
  if (source.count === 0) return [];
  const boundaries = fitPartBoundaries(givenTargets, source, limits, source.visitSizes);
  layout?.cut(boundaries.cut);
  const rows: PackTableRow[] = [];
  let pack: OpenPack | undefined;
  let index: IndexEntryPending[] = [];
  // The pack of the index's last entry in this part's packs: the index waits for its name.
  let indexLastPack: OpenPack['file'] | undefined;
  let indexSize = 0;
  // The positions of the index's first record and of the last record met (for a PackLayoutListener).
  let indexStart = -1;
  let lastPosition = -1;
  const waiting: {
    entries: IndexEntryPending[];
    lastPack?: OpenPack['file'];
    start: number;
    lastPacked: number;
  }[] = [];

  const linkPrevious = async (open: OpenPack, previous: { path: string; length: number }) => {
    open.file.path = previous.path;
    open.file.length = previous.length;
    await reuse!.link(previous.path);
    packRows?.push([hexOfBytes(open.firstKey), previous.path.slice(folder.length, -'.pack'.length), previous.length]);
  };
  const closePack = async (open: OpenPack) => {
    // The digest covers the records' count and each one's inputs (their names included).
    const key = open.inputs?.update(`${open.deferred.length}`).digest('hex');
    const previous = key === undefined ? undefined : reuse?.find(key);
    if (previous !== undefined) {
      await linkPrevious(open, previous);
      reuse!.made(key!, previous.path);
      tellPack(open);
      return;
    }
    const range = rangeOf(open);
    const previousRange = range?.previous && reuse?.findRange?.(range.previous.first, range.previous.last);
    if (range !== undefined && previousRange) {
      await linkPrevious(open, previousRange);
      reuse!.madeRange?.(range.first, range.last, previousRange.path);
      tellPack(open);
      return;
    }
    for (const record of open.deferred) {
      const made = record.make();
      open.records.push(made.encoded, ...made.followers);
    }
    const packBytes = encodePack(open.records);
    if (packBytes.length > MAX_PACK_BYTES) {
      throw new StaticMcpError(
        'PACK_TOO_LARGE',
        `The search record ${open.firstName} would make a pack of ${packBytes.length} bytes, more than the ${MAX_PACK_BYTES} a host accepts in one file`,
        'Leave that document out of the search index, or make it smaller.',
      );
    }
    const name = contentName(packBytes);
    open.file.path = `${folder}${name}.pack`;
    open.file.length = packBytes.length;
    if (key !== undefined) reuse?.made(key, open.file.path);
    if (range !== undefined) reuse?.madeRange?.(range.first, range.last, open.file.path);
    packRows?.push([hexOfBytes(open.firstKey), name, packBytes.length]);
    tellPack(open);
    await writeFile(open.file.path, packBytes);
  };
  const tellPack = (open: OpenPack) => {
    layout?.pack({
      start: open.first.position!,
      lastPacked: open.last.position!,
      packedCount: open.count,
      packedBytes: open.size - PACK_HEADER_BYTES,
      packedKeyBytes: open.keyBytes,
      path: open.file.path,
      length: open.file.length,
      firstKey: hexOfBytes(open.firstKey),
    });
  };
  const writeWaitingIndexes = async () => {
    while (waiting.length > 0 && (waiting[0]!.lastPack?.path ?? 'placed') !== '') {
      const { entries, start, lastPacked } = waiting.shift()!;
      const indexBytes = encodePartIndex(keyKind, entries);
      const indexPath = `${folder}${contentName(indexBytes)}.idx`;
      await writeFile(indexPath, indexBytes);
      rows.push({ first: hexOfBytes(entries[0]!.key), index: indexPath });
      layout?.index({ start, lastPacked, path: indexPath, firstKey: hexOfBytes(entries[0]!.key) });
    }
  };

  for (const record of source.records()) {
    if (record.placedAt !== undefined) {
      index.push({ key: record.key, ...record.placedAt });
    } else {
      if (pack === undefined)
        pack = {
          records: [],
          deferred: [],
          size: PACK_HEADER_BYTES,
          count: 0,
          keyBytes: 0,
          firstName: record.name,
          firstKey: record.key,
          first: record,
          last: record,
          file: { path: '', length: 0 },
        };
      pack.last = record;
      pack.count += 1;
      pack.keyBytes += record.key.length;
      const { deferred } = record;
      const length = deferred?.length ?? record.encoded.length;
      index.push({ key: record.key, pack: pack.file, offset: pack.size, length });
      indexLastPack = pack.file;
      pack.size += length;
      if (deferred !== undefined) {
        // A pack is deferred whole or not at all (a part's records all come one way).
        pack.inputs ??= createHash('sha256');
        deferred.feed(pack.inputs);
        pack.deferred.push(deferred);
      } else pack.records.push(record.encoded);
      const followerLengths =
        deferred?.followerLengths ?? record.followers?.map((follower) => follower.length) ?? NO_FOLLOWERS;
      if (followerLengths.length > 0)
        followerLengths.forEach((followerLength, position) => {
          const arrival = record.followerArrivals?.[position];
          if (arrival !== undefined)
            onFollowerPlaced?.(arrival, { pack: pack!.file, offset: pack!.size, length: followerLength });
          if (deferred === undefined) pack!.records.push(record.followers![position]!);
          pack!.size += followerLength;
        });
    }
    indexSize += INDEX_ENTRY_BYTES + record.key.length;
    if (indexStart < 0) indexStart = record.position ?? 0;
    lastPosition = record.position ?? 0;
    const hash = boundaryHash(record.key);
    // A pack holding no record (only placed ones met) is never half its target: it does not close.
    if (pack !== undefined && boundaries.closesPack(pack.size, hash)) {
      await closePack(pack);
      pack = undefined;
    }
    if (boundaries.closesIndex(indexSize, hash)) {
      waiting.push({ entries: index, lastPack: indexLastPack, start: indexStart, lastPacked: lastPosition });
      index = [];
      indexLastPack = undefined;
      indexSize = 0;
      indexStart = -1;
    }
    // Awaited only when an index waits: an await per record made a promise per record.
    if (waiting.length > 0) await writeWaitingIndexes();
  }
  if (pack !== undefined) await closePack(pack);
  if (index.length > 0)
    waiting.push({ entries: index, lastPack: indexLastPack, start: indexStart, lastPacked: lastPosition });
  await writeWaitingIndexes();
  return rows;
}

/**
 * The positions of a pack's first and last records, and, when every record from the one before its
 * first to its last was copied in one run from the previous build's (so a filter that looks at a
 * record's neighbour decided alike), the previous positions of that first and last.
 */
function rangeOf(
  open: OpenPack,
): { first: number; last: number; previous?: { first: number; last: number } } | undefined {
  const first = open.first.position;
  const last = open.last.position;
  if (first === undefined || last === undefined || open.deferred.length > 0) return undefined;
  const from = open.first.copied;
  const to = open.last.copied;
  const oneRun =
    from !== undefined &&
    to !== undefined &&
    (to.runStart < first || (first === 0 && from.previous === 0 && to.runStart === 0));
  return { first, last, ...(oneRun ? { previous: { first: from.previous, last: to.previous } } : {}) };
}
