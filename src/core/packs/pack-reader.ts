// Looks a name up in a packed tool: the pack table (from mcp.json) → one index file (parsed once,
// kept in a bounded least-recently-used cache) → one record, read as a byte range of its pack where
// the host serves ranges, else as the whole pack. Never throws on bad bytes: a missing, damaged or
// hostile pack or index answers `missing`/`refused` with the reason (I/O failures of the host do
// throw, as TreeSource reads do, so they are not taken for an absent file). Only paths an index
// names below packs/ are ever read.
import { hexOfBytes } from './hex-of-bytes.js';
import { decodeUtf8 } from '../tree/utf8.js';
import { BoundedCache } from './bounded-cache.js';
import { parseCheckedRecord, parseRecordOfPack } from './checked-records.js';
import { digestsPackFor, holdsNamedContent, isKnownNamedContent } from './pack-digest.js';
import {
  checkEntry,
  checkPackHeader,
  compareKeys,
  entryKey,
  findEntries,
  type IndexEntry,
  indexPathRefusal,
  type KeyKind,
  type PackProblem,
  type ParsedIndex,
  packPathRefusal,
  parseIndex,
  type parseRecord,
  readEntry,
} from './pack-format.js';
import { type FoundNow, lookUpNow } from './lookup-now.js';
import type { PackTableRow } from './pack-table.js';
import { findIndexRow } from './pack-table.js';
import { lookupInWholePack } from './whole-pack-lookup.js';

export interface ByteRange {
  offset: number;
  length: number;
  /** The whole file's length, as the pack index says it. */
  fileLength: number;
  /**
   * Whether the reader keeps the whole file when a host answers the range with it (the Workers
   * asset binding does, and says no Content-Length to a worker): such an answer is then read
   * whole, else only the range is cut out of it as it streams.
   */
  keepsWhole: boolean;
}

export type BytesOutcome =
  /** `whole`: the bytes are the whole file (a host that ignores ranges answers so too). */
  { status: 'ok'; bytes: Uint8Array; whole: boolean } | { status: 'missing' };

/** The binary read a host offers to packs: a tree file's bytes, or a byte range of them. */
export interface PackFileSource {
  /** `relativePath` is a plain tree path below packs/. Throws on I/O failures, like TreeSource.read. */
  readBytes(relativePath: string, range?: ByteRange): Promise<BytesOutcome>;
  /**
   * A byte range read without a promise (a local folder, its packs kept open: lookup-now.ts), or
   * undefined when it cannot be read now (readBytes then says why).
   */
  readBytesNow?(relativePath: string, range: ByteRange): BytesOutcome | undefined;
  /** Closes what readBytesNow keeps open: a new manifest (a rebuilt tree) names its own packs. */
  closeKept?(): void;
  /** True where the host answers a range with the whole file (the Workers asset binding): a pack is one read either way. */
  readonly sendsWholeFiles?: boolean;
}

export type PackLookup =
  | { status: 'ok'; body: Uint8Array; pack: string; packLength: number; recordOffset: number; recordLength: number }
  | PackProblem;

/** Which whole packs a lookup keeps when a host sends them: up to `upToBytes`, and whether one may push others out. */
export interface WholePackKeeping {
  upToBytes: number;
  pushesOut: boolean;
}
const KEEP_ANY_WHOLE_PACK: WholePackKeeping = { upToBytes: Number.POSITIVE_INFINITY, pushesOut: true };

export interface PackCacheLimits {
  /** Parsed indexes kept at most. */
  maxIndexes: number;
  /** Their file bytes kept at most (an index larger than this is used once, not kept). */
  maxIndexBytes: number;
  /**
   * Bytes of whole packs kept, where the host answered a record's range with the whole file (the
   * Workers asset binding does): the next record of that pack costs no read. A pack over a
   * quarter of this is used once, not kept. 0: none kept. Hosts that serve ranges never fill it.
   */
  maxWholePackBytes?: number;
}

/**
 * 8 MiB of index files (a fixed ceiling on the isolate's memory), at most 1,024 of them (so tiny
 * indexes' objects stay bounded too). The writer's indexes come out at 32–64 KiB (≈ 2,700 calls
 * at 64 KiB), so 8 MiB holds 128–256 of them: 350,000+ calls' lookups without a second index read.
 * It was 64 indexes / 8 MiB, where the count bound always bound first (4 MiB at most):
 * bench/packed-trees.mjs at 650,000 calls (256 indexes of ~61 KB) measured 0.77 index reads per
 * random call through the worker with 64, against ~0.47 now.
 * 32 MiB of whole packs: at 650,000 documents a search reads up to 10 title blocks, one pack
 * each; holding 80% of the 40 MB of title packs instead of 40% took a warm query from 16.4 to
 * 13.2 ms CPU p50 in workerd (bench/search-query.mjs), and index format 5's 31 MB all fit. The
 * isolate holds ~50 MiB after a full collection (target: under 64). 12 MiB of indexes (all of
 * the 11 MB of term indexes at 650,000 documents, not three quarters) measured within noise
 * (10.8 vs 10.7 ms), for 3 MiB more: not taken.
 */
export const DEFAULT_PACK_CACHE_LIMITS: PackCacheLimits = {
  maxIndexes: 1024,
  maxIndexBytes: 8 * 1024 * 1024,
  maxWholePackBytes: 32 * 1024 * 1024,
};

/**
 * Parsed indexes, least recently used dropped first, within PackCacheLimits. Plain data, no
 * pending reads: an edge isolate shares one between its requests (each with its own PackReader
 * and asset fetcher), so a lookup costs one pack read once its index is warm.
 */
export class PackIndexCache {
  private readonly indexes = new Map<string, ParsedIndex>();
  private cachedBytes = 0;
  private readonly wholePacks: BoundedCache<Uint8Array>;

  constructor(private readonly limits: PackCacheLimits = DEFAULT_PACK_CACHE_LIMITS) {
    const maxWholePackBytes = limits.maxWholePackBytes ?? 0;
    this.wholePacks = new BoundedCache(maxWholePackBytes, Math.floor(maxWholePackBytes / 4));
  }

  size(): { indexes: number; bytes: number; wholePackBytes: number } {
    return { indexes: this.indexes.size, bytes: this.cachedBytes, wholePackBytes: this.wholePacks.size().bytes };
  }

  /**
   * Whether a whole pack of `length` bytes is kept when a host sends one (a quarter of the budget
   * at most; with `pushesOut` false, only into room no other pack holds).
   */
  keepsWholePack(length: number, pushesOut = true): boolean {
    return this.wholePacks.keeps(length, pushesOut);
  }

  /** A whole pack a host sent earlier (its header checked then), by its tree path. */
  wholePack(path: string): Uint8Array | undefined {
    return this.wholePacks.get(path);
  }

  /** Keeps a whole pack whose header was checked (pack names carry their content's hash, so a path is one content). */
  addWholePack(path: string, bytes: Uint8Array, pushesOut = true): void {
    this.wholePacks.set(path, bytes, bytes.length, pushesOut);
  }

  get(path: string): ParsedIndex | undefined {
    const cached = this.indexes.get(path);
    if (cached) {
      // Most recently used last: Map keeps insertion order.
      this.indexes.delete(path);
      this.indexes.set(path, cached);
    }
    return cached;
  }

  add(path: string, parsed: ParsedIndex): void {
    if (this.indexes.has(path)) return;
    if (parsed.bytes.length > this.limits.maxIndexBytes || this.limits.maxIndexes <= 0) return;
    this.indexes.set(path, parsed);
    this.cachedBytes += parsed.bytes.length;
    for (const [oldPath, old] of this.indexes) {
      if (this.indexes.size <= this.limits.maxIndexes && this.cachedBytes <= this.limits.maxIndexBytes) break;
      this.indexes.delete(oldPath);
      this.cachedBytes -= old.bytes.length;
    }
  }
}

/** The refusal of an index whose keys are of another kind than the table row promised. */
function otherKeyKind(row: PackTableRow, index: ParsedIndex, keyKind: KeyKind): PackProblem {
  return {
    status: 'refused',
    reason: `${row.index} holds keys of kind ${index.keyKind}, not ${keyKind}; build the tree again`,
  };
}

export class PackReader {
  private readonly cache: PackIndexCache;

  /** `cache`: limits for a cache of its own, or a cache shared with other readers of the same tree. */
  constructor(
    private readonly files: PackFileSource,
    cache: PackCacheLimits | PackIndexCache = DEFAULT_PACK_CACHE_LIMITS,
  ) {
    this.cache = cache instanceof PackIndexCache ? cache : new PackIndexCache(cache);
  }

  /** Indexes and bytes held now (for benches and tests of the bound). */
  cacheSize(): { indexes: number; bytes: number; wholePackBytes: number } {
    return this.cache.size();
  }

  /**
   * The record of `name` (a tree path or term) under `key`, from the rows of its tool. A pack sent
   * whole is kept as `keeping` says (a reader that caches what it decodes, from large packs rarely
   * read twice, would only push out the packs that are).
   */
  async lookup(
    rows: readonly PackTableRow[],
    keyKind: KeyKind,
    key: Uint8Array,
    name: string,
    keeping: WholePackKeeping = KEEP_ANY_WHOLE_PACK,
  ): Promise<PackLookup> {
    const row = findIndexRow(rows, key);
    if (row === undefined)
      return { status: 'missing', reason: `${name} is not in this tree (no pack index covers it)` };
    const index = await this.loadIndex(row.index);
    if ('status' in index) return index;
    if (index.keyKind !== keyKind) return otherKeyKind(row, index, keyKind);
    const { first, end } = findEntries(index, key);
    let problem: PackProblem | undefined;
    // Several entries share a key only on a hash collision: the record's own names decide.
    for (let entry = first; entry < end; entry += 1) {
      const damaged = checkEntry(index, entry, row.index);
      if (damaged !== undefined) return damaged;
      const found = await this.readRecord(row.index, index, entry, keeping);
      if ('status' in found) {
        problem ??= found;
        continue;
      }
      if (found.names.includes(name)) {
        const { recordLength, pack } = readEntry(index, entry);
        const { body, recordOffset } = found;
        return { status: 'ok', body, pack: found.pack, packLength: pack.length, recordOffset, recordLength };
      }
      problem ??= {
        status: 'refused',
        reason: `${row.index} sends ${name} to a record of ${found.pack} that does not name it (a hash collision or a tampered index): not in this tree`,
      };
    }
    return problem ?? { status: 'missing', reason: `${name} is not in this tree (not in ${row.index})` };
  }

  /** lookup without a promise, or undefined when it cannot be answered now (lookup-now.ts). */
  lookupNow(rows: readonly PackTableRow[], keyKind: KeyKind, key: Uint8Array, name: string): FoundNow | undefined {
    return lookUpNow(this.files, this.cache, rows, keyKind, key, name);
  }

  /**
   * The record `name` of the pack at `path`, read whole, with no index (whole-pack-lookup.ts):
   * `missing` when that pack is sound and lacks it, undefined when unsure (ask `lookup`).
   */
  lookupInPack(
    path: string,
    name: string,
    keeping: WholePackKeeping = KEEP_ANY_WHOLE_PACK,
    sorted = false,
  ): Promise<PackLookup | undefined> {
    return lookupInWholePack(this.files, this.cache, path, name, keeping, sorted);
  }

  /**
   * Where the first record under `key` lies (its index entry), without reading the record: for a
   * reader that decides by a record's size whether to read it (the search reader's common terms).
   */
  async locate(
    rows: readonly PackTableRow[],
    keyKind: KeyKind,
    key: Uint8Array,
    name: string,
  ): Promise<({ status: 'ok' } & IndexEntry) | PackProblem> {
    const row = findIndexRow(rows, key);
    if (row === undefined)
      return { status: 'missing', reason: `${name} is not in this tree (no pack index covers it)` };
    const index = await this.loadIndex(row.index);
    if ('status' in index) return index;
    if (index.keyKind !== keyKind) return otherKeyKind(row, index, keyKind);
    const { first, end } = findEntries(index, key);
    if (first === end) return { status: 'missing', reason: `${name} is not in this tree (not in ${row.index})` };
    const damaged = checkEntry(index, first, row.index);
    if (damaged !== undefined) return damaged;
    const found = readEntry(index, first);
    // The caller reads the pack itself: its path is checked here, as a lookup checks it.
    return packPathRefusal(row.index, found.pack.path) ?? { status: 'ok', ...found };
  }

  /**
   * The keys that start with `prefix`, in key order, each with its record's length (a reader picks
   * the longest without reading them: the search reader's prefix queries), reading at most
   * `maxIndexes` indexes and `maxKeys` entries; `complete` is false when a bound cut the walk.
   * Keys `skips` accepts are passed over, uncounted (the search index's stem keys among its words).
   */
  async keysWithPrefix(
    rows: readonly PackTableRow[],
    keyKind: KeyKind,
    prefix: Uint8Array,
    bounds: { maxIndexes: number; maxKeys: number; skips?: (key: Uint8Array) => boolean },
  ): Promise<{ status: 'ok'; keys: { key: Uint8Array; recordLength: number }[]; complete: boolean } | PackProblem> {
    const prefixHex = hexOfBytes(prefix);
    const keys: { key: Uint8Array; recordLength: number }[] = [];
    const startRow = findIndexRow(rows, prefix);
    let at = startRow === undefined ? 0 : rows.indexOf(startRow);
    let indexes = 0;
    for (; at < rows.length; at += 1) {
      const row = rows[at]!;
      // A later row whose first key is past the prefix's range holds none of its keys.
      if (row !== startRow && !row.first.startsWith(prefixHex)) break;
      if (indexes === bounds.maxIndexes) return { status: 'ok', keys, complete: false };
      indexes += 1;
      const index = await this.loadIndex(row.index);
      if ('status' in index) return index;
      if (index.keyKind !== keyKind) return otherKeyKind(row, index, keyKind);
      for (let entry = findEntries(index, prefix).first; entry < index.entryCount; entry += 1) {
        const damaged = checkEntry(index, entry, row.index);
        if (damaged !== undefined) return damaged;
        const key = entryKey(index, entry);
        if (key.length < prefix.length || compareKeys(key.subarray(0, prefix.length), prefix) !== 0) break;
        if (bounds.skips?.(key)) continue;
        if (keys.length === bounds.maxKeys) return { status: 'ok', keys, complete: false };
        keys.push({ key, recordLength: readEntry(index, entry).recordLength });
      }
    }
    return { status: 'ok', keys, complete: true };
  }

  /**
   * The body of the record `name` at `recordOffset` of a pack an index named (a record no index
   * entry points at, placed by a record that is: a title block's excerpt sources), refused unless
   * a whole sound record named `name` lies exactly there.
   */
  async readPlacedRecord(
    pack: { path: string; length: number },
    recordOffset: number,
    recordLength: number,
    name: string,
  ): Promise<{ status: 'ok'; body: Uint8Array } | PackProblem> {
    if (recordOffset + recordLength > pack.length)
      return { status: 'refused', reason: `${name} would lie past the end of ${pack.path}; build the tree again` };
    const found = await this.readAt(pack, recordOffset, recordLength, KEEP_ANY_WHOLE_PACK);
    if ('status' in found) return found;
    if (!found.names.includes(name))
      return {
        status: 'refused',
        reason: `the record at byte ${recordOffset} of ${pack.path} does not name ${name}: not a sound index; build the tree again`,
      };
    return { status: 'ok', body: found.body };
  }

  private async loadIndex(path: string): Promise<ParsedIndex | PackProblem> {
    const cached = this.cache.get(path);
    if (cached) return cached;
    // A table parsed with its paths left to now (a search table) is checked here, row by row.
    const refused = indexPathRefusal(path);
    if (refused !== undefined) return refused;
    const read = await this.files.readBytes(path);
    // Lookups made at once (a search's title blocks, its words and their stems) share one read of
    // the index (shared-reads.ts) and resume one after the other: the first parses and keeps it,
    // the others take that one rather than parsing the same bytes again.
    const parsedMeanwhile = this.cache.get(path);
    if (parsedMeanwhile) return parsedMeanwhile;
    if (read.status === 'missing')
      return { status: 'missing', reason: `the pack index ${path} is missing on the host` };
    // Each entry is checked when a lookup uses it (checkEntry), not all of them now.
    const parsed = parseIndex(read.bytes, path, 'lazy');
    if ('status' in parsed) return parsed;
    this.cache.add(path, parsed);
    return parsed;
  }

  private async readRecord(
    indexPath: string,
    index: ParsedIndex,
    entry: number,
    keeping: WholePackKeeping,
  ): Promise<{ names: string[]; body: Uint8Array; pack: string; recordOffset: number } | PackProblem> {
    const { pack, recordOffset, recordLength } = readEntry(index, entry);
    const refused = packPathRefusal(indexPath, pack.path);
    if (refused !== undefined) return refused;
    return this.readAt(pack, recordOffset, recordLength, keeping);
  }

  private async readAt(
    pack: { path: string; length: number },
    recordOffset: number,
    recordLength: number,
    keeping: WholePackKeeping,
  ): Promise<{ names: string[]; body: Uint8Array; pack: string; recordOffset: number } | PackProblem> {
    const keepPack = pack.length <= keeping.upToBytes;
    const kept = this.cache.wholePack(pack.path);
    const read: BytesOutcome = kept
      ? { status: 'ok', bytes: kept, whole: true }
      : await this.files.readBytes(pack.path, {
          offset: recordOffset,
          length: recordLength,
          fileLength: pack.length,
          keepsWhole: keepPack && this.cache.keepsWholePack(pack.length, keeping.pushesOut),
        });
    if (read.status === 'missing') return { status: 'missing', reason: `the pack ${pack.path} is missing on the host` };
    const where = `${pack.path} at byte ${recordOffset}`;
    let record: ReturnType<typeof parseRecord>;
    // A whole pack that hashes to its name holds sound records: none needs its own CRC. Only one
    // the reader keeps is hashed (once), and only when the record is not a small part of it
    // (digestsPackFor): else the record's CRC is cheaper, and is checked once for the bytes kept.
    if (read.whole) {
      if (!kept) {
        const headerProblem = checkPackHeader(read.bytes, pack.path, pack.length);
        if (headerProblem) return headerProblem;
        if (keepPack) this.cache.addWholePack(pack.path, read.bytes, keeping.pushesOut);
      }
      const named =
        isKnownNamedContent(read.bytes, pack.path) ||
        (keepPack &&
          digestsPackFor(read.bytes.length, recordLength) &&
          (await holdsNamedContent(read.bytes, pack.path)));
      record = await parseRecordOfPack(read.bytes, recordOffset, recordLength, where, named);
    } else if (read.bytes.length !== recordLength) {
      return {
        status: 'refused',
        reason: `${pack.path} answered ${read.bytes.length} bytes at ${recordOffset}, its index says ${recordLength}: truncated or replaced; build the tree again`,
      };
    } else record = await parseCheckedRecord(read.bytes, where);
    if ('status' in record) return record;
    return { names: record.names, body: record.body, pack: pack.path, recordOffset };
  }
}

/** A record body as the tree sources hand text over (invalid UTF-8 becomes U+FFFD, as a file read does). */
export function textOfBody(body: Uint8Array): string {
  return decodeUtf8(body).text;
}
