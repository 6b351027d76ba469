// The kept term records patched pack range by pack range (issue #39, "Edits in a second"): with
// the previous term part's layout (search-terms-layout.ts), each range of records a previous pack
// was made from is read and checked by its CRC-32; a range that no changed document touches (none
// of its records holds a changed number, no added key falls in it by the packs' first keys) is
// copied to the new records file as it is, bytes and all, and the others are patched record by
// record (search-term-record-patch.ts). What the repack needs comes back: where each range went,
// which changed, every new record's previous position, and the packed totals (the stem lists the
// packs leave out decided anew only where a record or the one before it changed).
import { closeSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { SpillWriter } from './spill-files.js';
import { grownTypedArray } from './grown-typed-array.js';
import { StemListJudge } from './search-stem-lists.js';
import { scanTermRecords } from './search-changed-postings.js';
import {
  type ChangedDocument,
  type EmitTermRecord,
  RECORD_NAME_AT,
  TermRecordPatch,
} from './search-term-record-patch.js';
import type { TermsLayout } from './search-terms-layout.js';
import type { PartTotals } from './search-part-boundaries.js';

/** Thrown when the records or their layout are not what the layout says: the full path follows. */
export class TermsLayoutMismatch extends Error {}

/** The new records file, by the previous layout's ranges. */
export interface EditedTermRecords {
  /** Records and bytes of the new file. */
  count: number;
  bytes: number;
  /** By previous pack: where its range starts in the new file (position, byte) and where its last record starts (-1: none). */
  newStart: Uint32Array;
  newByte: Float64Array;
  newLastByte: Float64Array;
  /** By previous pack: 1 when its range packs otherwise than before (a record, or whether one is left out, changed). */
  changed: Uint8Array;
  /** By new position: the previous position plus one of a record copied as it was, else 0. */
  origins: Uint32Array;
  /** The packed records' totals (the boundaries' inputs). */
  totals: PartTotals;
}

/** Reads a varint of `bytes` at `cursor.at`. */
export function varintAt(bytes: Uint8Array, cursor: { at: number }): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (cursor.at >= bytes.length) throw new TermsLayoutMismatch('a term record range ends inside a number');
    const byte = bytes[cursor.at++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 128;
  }
}

/** The key and encoded bytes of the record at `at` of `bytes`. */
export function recordAt(bytes: Uint8Array, at: number): { key: Uint8Array; encoded: Uint8Array } {
  const cursor = { at };
  const keyLength = varintAt(bytes, cursor);
  const key = bytes.subarray(cursor.at, cursor.at + keyLength);
  cursor.at += keyLength;
  const encodedLength = varintAt(bytes, cursor);
  return { key, encoded: bytes.subarray(cursor.at, cursor.at + encodedLength) };
}

/** The first key's bytes of each previous pack. */
function firstKeysOf(layout: TermsLayout): Buffer[] {
  return layout.packs.map((pack) => Buffer.from(pack.firstKey, 'hex'));
}

/**
 * Writes to `file` the records of `previous` (a file laid out as `layout`) patched for `changed`
 * (of `documentCount`, impacts of `averageLength`); `stems` when the packs leave out repeated stem
 * lists. Throws TermsLayoutMismatch when a range is not the one the layout names.
 */
export function editTermRecords(
  previousFile: string,
  layout: TermsLayout,
  changed: readonly ChangedDocument[],
  documentCount: number,
  averageLength: number,
  file: string,
  stems: boolean,
): EditedTermRecords {
  const patch = new TermRecordPatch(changed, documentCount, averageLength);
  const packCount = layout.packs.length;
  const firstKeys = firstKeysOf(layout);
  const edited: EditedTermRecords = {
    count: 0,
    bytes: 0,
    newStart: new Uint32Array(packCount),
    newByte: new Float64Array(packCount),
    newLastByte: new Float64Array(packCount),
    changed: new Uint8Array(packCount),
    origins: new Uint32Array(Math.max(1024, layout.count + patch.addedKeys.length)),
    totals: { count: 0, totalBytes: 0, keyBytes: 0 },
  };
  const judge = stems ? new StemListJudge() : undefined;
  const writer = new SpillWriter(file);
  const fd = openSync(previousFile, 'r');
  let range = new Uint8Array(64 * 1024);
  // Whether the record before the next range is a new one (its neighbour's stem list is then decided again).
  let beforeChanged = false;
  let lastByte = -1;
  const emit: EmitTermRecord = (key, encoded, origin) => {
    const position = edited.count++;
    edited.origins = grownTypedArray(edited.origins, edited.count);
    edited.origins[position] = origin + 1;
    lastByte = writer.bytes;
    writer.appendVarint(key.length);
    writer.append(key);
    writer.appendVarint(encoded.length);
    writer.append(encoded);
    if (judge?.drops(key, encoded)) return;
    edited.totals.count += 1;
    edited.totals.totalBytes += encoded.length;
    edited.totals.keyBytes += key.length;
  };
  try {
    for (let at = 0; at < packCount; at += 1) {
      const pack = layout.packs[at]!;
      const end = layout.packs[at + 1]?.byte ?? layout.bytes;
      const records = (layout.packs[at + 1]?.start ?? layout.count) - pack.start;
      if (end - pack.byte > range.length) range = new Uint8Array(end - pack.byte);
      const bytes = range.subarray(0, end - pack.byte);
      if (readSync(fd, bytes, 0, bytes.length, pack.byte) !== bytes.length || crc32(bytes) !== pack.crc)
        throw new TermsLayoutMismatch(`the term records of pack ${pack.path} are not those the layout names`);
      // The added keys below the next pack's first key fall in this range.
      let addedEnd = patch.next;
      while (
        addedEnd < patch.addedKeys.length &&
        (at + 1 === packCount || Buffer.compare(patch.addedKeys[addedEnd]!.bytes, firstKeys[at + 1]!) < 0)
      )
        addedEnd += 1;
      const scan = scanTermRecords(bytes, records, RECORD_NAME_AT, patch.changedNumbers);
      if (scan.end !== bytes.length) throw new TermsLayoutMismatch(`pack ${pack.path}'s records do not fill its range`);
      const touched = addedEnd > patch.next || scan.holds;
      const lastAt = scan.lastAt;
      const cursor = { at: 0 };
      edited.newStart[at] = edited.count;
      edited.newByte[at] = writer.bytes;
      if (touched) {
        cursor.at = 0;
        for (let record = 0; record < records; record += 1) {
          const keyLength = varintAt(bytes, cursor);
          const keyStart = cursor.at;
          cursor.at += keyLength;
          const encodedLength = varintAt(bytes, cursor);
          const encoded = bytes.subarray(cursor.at, cursor.at + encodedLength);
          cursor.at += encodedLength;
          patch.record(bytes.subarray(keyStart, keyStart + keyLength), encoded, pack.start + record, emit);
        }
        patch.emitAddedUpTo(addedEnd, emit);
        edited.changed[at] = 1;
        edited.newLastByte[at] = edited.count > edited.newStart[at]! ? lastByte : -1;
        beforeChanged = true;
        continue;
      }
      // Copied whole: its first record's stem list is decided again after a changed record.
      const first = edited.count;
      edited.count += records;
      edited.origins = grownTypedArray(edited.origins, edited.count);
      for (let record = 0; record < records; record += 1) edited.origins[first + record] = pack.start + record + 1;
      writer.append(bytes);
      edited.newLastByte[at] = edited.newByte[at]! + lastAt;
      edited.totals.count += pack.packedCount;
      edited.totals.totalBytes += pack.packedBytes;
      edited.totals.keyBytes += pack.packedKeyBytes;
      if (judge !== undefined) {
        const { key, encoded } = recordAt(bytes, 0);
        if (judge.drops(key, encoded)) {
          // A pack's first record, left out now that the record before it changed: its range packs otherwise.
          if (!beforeChanged) throw new TermsLayoutMismatch(`pack ${pack.path} starts with a record left out`);
          edited.changed[at] = 1;
          edited.origins[first] = 0;
          edited.totals.count -= 1;
          edited.totals.totalBytes -= encoded.length;
          edited.totals.keyBytes -= key.length;
        }
        // The judge goes on from the range's last record (what it says of it here is not asked).
        if (records > 1) {
          const last = recordAt(bytes, lastAt);
          judge.drops(last.key, last.encoded);
        }
      }
      beforeChanged = false;
    }
  } finally {
    closeSync(fd);
    writer.close();
  }
  edited.bytes = writer.bytes;
  edited.origins = edited.origins.subarray(0, edited.count);
  return edited;
}
