// Encodes the pack container's bytes (pack-format.ts defines the layout and parses it): records,
// packs of records and the sorted index over them. Portable, Uint8Array only; the tree writer
// (Node) uses it for call packs and the search index.
import { crc32 } from './crc32.js';
import {
  INDEX_ENTRY_BYTES,
  INDEX_HEADER_BYTES,
  INDEX_MAGIC,
  type KeyKind,
  PACK_FORMAT_VERSION,
  PACK_HEADER_BYTES,
  PACK_MAGIC,
  RECORD_HEADER_BYTES,
  RECORD_MARKER,
} from './pack-format.js';
import { utf8Bytes } from '../tree/utf8.js';

function writeAscii(target: Uint8Array, offset: number, text: string): void {
  for (let index = 0; index < text.length; index += 1) target[offset + index] = text.charCodeAt(index);
}

export interface RecordInput {
  /** The tree paths (calls) or terms (search) this record answers; the first is its own. */
  names: readonly string[];
  body: Uint8Array;
}

/** Bytes a record takes in a pack. */
export function encodedRecordBytes(names: readonly Uint8Array[], bodyBytes: number): number {
  let total = RECORD_HEADER_BYTES + bodyBytes;
  for (const name of names) total += 2 + name.length;
  return total;
}

/** One record's bytes. Throws when a name is empty or longer than 65,535 bytes. */
export function encodeRecord(record: RecordInput): Uint8Array {
  const names = record.names.map((name) => utf8Bytes(name));
  const bytes = new Uint8Array(encodedRecordBytes(names, record.body.length));
  encodeRecordInto(bytes, 0, names, record.body.length, (into) => into.set(record.body));
  return bytes;
}

/**
 * Writes one record at `offset` of `target`, which has room for it (encodedRecordBytes), the same
 * bytes encodeRecord makes; `writeBody` fills the body's place (a view of `bodyBytes` bytes), so
 * a pack is encoded in one buffer with no copy of any body. Returns the record's length. Throws
 * when a name is empty or longer than 65,535 bytes.
 */
export function encodeRecordInto(
  target: Uint8Array,
  offset: number,
  names: readonly Uint8Array[],
  bodyBytes: number,
  writeBody: (into: Uint8Array) => void,
): number {
  if (names.length === 0 || names.length > 0xffff) throw new Error('a pack record needs 1 to 65,535 names');
  for (const name of names) {
    if (name.length === 0 || name.length > 0xffff) throw new Error('a pack record name must be 1 to 65,535 bytes');
  }
  const length = encodedRecordBytes(names, bodyBytes);
  const view = new DataView(target.buffer, target.byteOffset + offset, length);
  writeAscii(target, offset, RECORD_MARKER);
  view.setUint16(4, names.length);
  view.setUint32(6, bodyBytes);
  let at = RECORD_HEADER_BYTES;
  for (const name of names) {
    view.setUint16(at, name.length);
    target.set(name, offset + at + 2);
    at += 2 + name.length;
  }
  writeBody(target.subarray(offset + at, offset + at + bodyBytes));
  view.setUint32(10, crc32(target, offset + RECORD_HEADER_BYTES, offset + length));
  return length;
}

/** Writes a pack's header for `recordCount` records at the start of `target`. */
export function encodePackHeader(target: Uint8Array, recordCount: number): void {
  target.fill(0, 0, PACK_HEADER_BYTES);
  writeAscii(target, 0, PACK_MAGIC);
  target[9] = PACK_FORMAT_VERSION;
  new DataView(target.buffer, target.byteOffset, PACK_HEADER_BYTES).setUint32(12, recordCount);
}

/** A pack of already encoded records, in the order given. */
export function encodePack(records: readonly Uint8Array[]): Uint8Array {
  let total = PACK_HEADER_BYTES;
  for (const record of records) total += record.length;
  const bytes = new Uint8Array(total);
  encodePackHeader(bytes, records.length);
  let offset = PACK_HEADER_BYTES;
  for (const record of records) {
    bytes.set(record, offset);
    offset += record.length;
  }
  return bytes;
}

export interface IndexEntryInput {
  key: Uint8Array;
  /** Position in `packs`. */
  pack: number;
  recordOffset: number;
  recordLength: number;
}

/** An index; `entries` must already be sorted by key (compareKeys). */
export function encodeIndex(
  keyKind: KeyKind,
  packs: readonly { path: string; length: number }[],
  entries: readonly IndexEntryInput[],
): Uint8Array {
  let keyHeapLength = 0;
  for (const entry of entries) keyHeapLength += entry.key.length;
  const { bytes, view, entriesStart } = encodeIndexHead(keyKind, packs, entries.length, keyHeapLength);
  let offset = entriesStart;
  let heapOffset = 0;
  const heapStart = entriesStart + entries.length * INDEX_ENTRY_BYTES;
  for (const entry of entries) {
    view.setUint32(offset, heapOffset);
    view.setUint16(offset + 4, entry.key.length);
    view.setUint16(offset + 6, entry.pack);
    view.setUint32(offset + 8, entry.recordOffset);
    view.setUint32(offset + 12, entry.recordLength);
    bytes.set(entry.key, heapStart + heapOffset);
    heapOffset += entry.key.length;
    offset += INDEX_ENTRY_BYTES;
  }
  return bytes;
}

/** An index's entries as columns, the call packs' (8-byte keys): no object per entry. */
export interface FixedKeyIndexEntries {
  count: number;
  /** Entry i's key: bytes i*8 … i*8+7, entries sorted by key. */
  keys: Uint8Array;
  /** Entry i's position in `packs`. */
  packs: ArrayLike<number>;
  recordOffsets: ArrayLike<number>;
  recordLengths: ArrayLike<number>;
}

/** Bytes of a key in a FixedKeyIndexEntries. */
export const FIXED_KEY_BYTES = 8;

/** The same bytes encodeIndex makes of the same entries, from columns (the build's call packs). */
export function encodeFixedKeyIndex(
  keyKind: KeyKind,
  packs: readonly { path: string; length: number }[],
  entries: FixedKeyIndexEntries,
): Uint8Array {
  const { count } = entries;
  const keyHeapLength = count * FIXED_KEY_BYTES;
  const { bytes, view, entriesStart } = encodeIndexHead(keyKind, packs, count, keyHeapLength);
  let offset = entriesStart;
  for (let entry = 0; entry < count; entry++) {
    view.setUint32(offset, entry * FIXED_KEY_BYTES);
    view.setUint16(offset + 4, FIXED_KEY_BYTES);
    view.setUint16(offset + 6, entries.packs[entry]!);
    view.setUint32(offset + 8, entries.recordOffsets[entry]!);
    view.setUint32(offset + 12, entries.recordLengths[entry]!);
    offset += INDEX_ENTRY_BYTES;
  }
  bytes.set(entries.keys.subarray(0, keyHeapLength), offset);
  return bytes;
}

/** An index's buffer with its header and pack list written; its entries start at `entriesStart`. */
function encodeIndexHead(
  keyKind: KeyKind,
  packs: readonly { path: string; length: number }[],
  entryCount: number,
  keyHeapLength: number,
): { bytes: Uint8Array; view: DataView; entriesStart: number } {
  const packNames = packs.map((pack) => utf8Bytes(pack.path));
  let total = INDEX_HEADER_BYTES + entryCount * INDEX_ENTRY_BYTES + keyHeapLength;
  for (const name of packNames) total += 6 + name.length;
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  writeAscii(bytes, 0, INDEX_MAGIC);
  bytes[9] = PACK_FORMAT_VERSION;
  bytes[10] = keyKind;
  view.setUint32(12, packs.length);
  view.setUint32(16, entryCount);
  view.setUint32(20, keyHeapLength);
  let offset = INDEX_HEADER_BYTES;
  packs.forEach((pack, position) => {
    const name = packNames[position]!;
    view.setUint32(offset, pack.length);
    view.setUint16(offset + 4, name.length);
    bytes.set(name, offset + 6);
    offset += 6 + name.length;
  });
  return { bytes, view, entriesStart: offset };
}
