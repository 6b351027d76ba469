// The layout of the search index's term part, saved with the kept term records (issue #39, "Edits
// in a second"; search-kept-terms.ts keeps it in the records' state file): for each term pack, the
// range of kept records it was made from (their positions, counting the stem lists the packs leave
// out, and their bytes in the records file with a CRC-32 of them), its last packed record, its
// packed totals, file and first key; for each index file, its first and last records, file and
// first key; and the boundaries the part was cut by. An edit reads it to patch only the ranges its
// documents touch and to link every other pack and index without walking their records
// (search-terms-edit.ts, search-terms-repack.ts). It is checked as it is read: shape, order and
// sums here, each range's CRC when its bytes are read; anything else is the full path.
import { closeSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { PackPlace } from './search-record-packer.js';

/** A term pack: the kept records [start, next pack's start) it was made from. */
export interface LayoutPack extends PackPlace {
  /** The byte where its first record starts in the records file. */
  byte: number;
  /** CRC-32 of the range's bytes in the records file. */
  crc: number;
}

/** A term index file: the positions of its first and last records. */
export interface LayoutIndex {
  start: number;
  lastPacked: number;
  path: string;
  firstKey: string;
}

export interface TermsLayout {
  /** The boundaries' targets and divisors (search-part-boundaries.ts). */
  cut: readonly number[];
  /** The records file's record count and bytes. */
  count: number;
  bytes: number;
  packs: LayoutPack[];
  indexes: LayoutIndex[];
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** `saved` as a TermsLayout when it has the shape and order a layout has, else undefined. */
export function layoutOf(saved: unknown): TermsLayout | undefined {
  if (typeof saved !== 'object' || saved === null) return undefined;
  const { cut, count, bytes, packs, indexes } = saved as Record<string, unknown>;
  if (!Array.isArray(cut) || !cut.every(isCount) || !isCount(count) || !isCount(bytes)) return undefined;
  if (!Array.isArray(packs) || !Array.isArray(indexes) || packs.length === 0 || indexes.length === 0) return undefined;
  const layoutPacks: LayoutPack[] = [];
  for (const row of packs) {
    if (!Array.isArray(row) || row.length !== 10) return undefined;
    const [start, byte, crc, lastPacked, packedCount, packedBytes, packedKeyBytes, path, length, firstKey] = row;
    if (![start, byte, crc, lastPacked, packedCount, packedBytes, packedKeyBytes, length].every(isCount))
      return undefined;
    if (!isText(path) || typeof firstKey !== 'string') return undefined;
    const previous = layoutPacks.at(-1);
    const first =
      previous === undefined ? start === 0 && byte === 0 : start > previous.lastPacked && byte > previous.byte;
    if (!first || lastPacked < start || lastPacked >= count || byte >= bytes) return undefined;
    layoutPacks.push({
      start,
      byte,
      crc,
      lastPacked,
      packedCount,
      packedBytes,
      packedKeyBytes,
      path,
      length,
      firstKey,
    });
  }
  const layoutIndexes: LayoutIndex[] = [];
  for (const row of indexes) {
    if (!Array.isArray(row) || row.length !== 4) return undefined;
    const [start, lastPacked, path, firstKey] = row;
    if (!isCount(start) || !isCount(lastPacked) || !isText(path) || typeof firstKey !== 'string') return undefined;
    const previous = layoutIndexes.at(-1);
    if (previous === undefined ? start !== 0 : start <= previous.lastPacked) return undefined;
    if (lastPacked < start || lastPacked >= count) return undefined;
    layoutIndexes.push({ start, lastPacked, path, firstKey });
  }
  if (layoutPacks.at(-1)!.lastPacked !== layoutIndexes.at(-1)!.lastPacked) return undefined;
  return { cut, count, bytes, packs: layoutPacks, indexes: layoutIndexes };
}

/** The layout as saved (rows of numbers and strings). */
export function savedLayoutOf(layout: TermsLayout): unknown {
  return {
    cut: layout.cut,
    count: layout.count,
    bytes: layout.bytes,
    packs: layout.packs.map((pack) => [
      pack.start,
      pack.byte,
      pack.crc,
      pack.lastPacked,
      pack.packedCount,
      pack.packedBytes,
      pack.packedKeyBytes,
      pack.path,
      pack.length,
      pack.firstKey,
    ]),
    indexes: layout.indexes.map((index) => [index.start, index.lastPacked, index.path, index.firstKey]),
  };
}

/** The last position whose `start` is at most `position` in rows sorted by start (0 when none is). */
export function rowAt(rows: readonly { start: number }[], position: number): number {
  let low = 0;
  let high = rows.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (rows[middle]!.start <= position) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Bytes read at a time by fillRangeBytes: under glibc's mmap threshold (CONTRIBUTING.md, Benchmarks). */
const READ_BYTES = 64 * 1024;

/**
 * Fills each pack's `byte` and `crc` (given its `start`) from the records file `file` of `count`
 * records: one pass over it, a window at a time. Returns the file's bytes.
 */
export function fillRangeBytes(file: string, count: number, packs: LayoutPack[]): number {
  const fd = openSync(file, 'r');
  const window = new Uint8Array(READ_BYTES);
  let windowAt = 0;
  let windowEnd = 0;
  let fileAt = 0;
  const byteAt = (offset: number): number => {
    if (offset >= windowEnd) {
      windowAt = offset;
      windowEnd = offset + readSync(fd, window, 0, window.length, offset);
      if (windowEnd === windowAt) throw new RangeError('the term records end early');
    }
    return window[offset - windowAt]!;
  };
  try {
    // Positions first: each record is a varint key length, the key, a varint length, the record.
    let next = 0;
    for (let position = 0; position < count; position += 1) {
      if (next < packs.length && packs[next]!.start === position) packs[next++]!.byte = fileAt;
      for (let field = 0; field < 2; field += 1) {
        let length = 0;
        let scale = 1;
        for (;;) {
          const byte = byteAt(fileAt++);
          length += (byte & 0x7f) * scale;
          if (byte < 0x80) break;
          scale *= 128;
        }
        fileAt += length;
      }
    }
    if (next !== packs.length) throw new RangeError('a term pack starts past the term records');
    packs.forEach((pack, at) => {
      pack.crc = crcOfRange(fd, pack.byte, packs[at + 1]?.byte ?? fileAt, window);
    });
    return fileAt;
  } finally {
    closeSync(fd);
  }
}

/** CRC-32 of the bytes [start, end) of the file open as `fd`, read through `window`. */
export function crcOfRange(fd: number, start: number, end: number, window: Uint8Array): number {
  let crc = 0;
  for (let at = start; at < end; ) {
    const read = readSync(fd, window, 0, Math.min(window.length, end - at), at);
    if (read === 0) throw new RangeError('the term records end early');
    crc = crc32(window.subarray(0, read), crc);
    at += read;
  }
  return crc;
}
