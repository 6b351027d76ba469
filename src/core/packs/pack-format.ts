// The pack container (issue #24; search, issue #25, reuses it unchanged): a pack file holds many
// records, each carrying its own names and body; an index file maps sorted byte keys to a record
// (pack, offset, length). Portable: encoding (pack-encoding.ts) and parsing work on Uint8Array
// only, so the writer (Node), every host and `check` share one definition of the bytes. All integers are big-endian.
//
// Pack file:   "SMCPPACK" 0x00 version:u8 reserved:u16=0 recordCount:u32, then the records,
//              tiling the rest of the file exactly.
// Record:      "SMCR" nameCount:u16 bodyLength:u32 crc32:u32, then nameCount × (length:u16 UTF-8),
//              then the body; the CRC covers everything after its own field (names and body).
//              A record names every tree path (or search term) it answers: a left-out-default copy
//              is one more name on the same record, never a second copy of the bytes.
// Index file:  "SMCPINDX" 0x00 version:u8 keyKind:u8 reserved:u8=0 packCount:u32 entryCount:u32
//              keyHeapLength:u32, then packCount × (packLength:u32 nameLength:u16 UTF-8 tree path),
//              then entryCount × (keyOffset:u32 keyLength:u16 pack:u16 recordOffset:u32
//              recordLength:u32) sorted by key bytes, then the key heap; nothing after it.
import { sipHash13Halves } from '../tree/siphash.js';
import { findTreePathProblem, showTreePath } from '../tree/tree-path.js';
import { decodeUtf8, utf8Bytes } from '../tree/utf8.js';
import { crc32 } from './crc32.js';
import { type IndexPack, type IndexPacks, LazyIndexPacks } from './index-packs.js';

export type { IndexPack, IndexPacks };

export const PACK_FORMAT_VERSION = 1;
export const PACK_MAGIC = 'SMCPPACK';
export const INDEX_MAGIC = 'SMCPINDX';
export const RECORD_MARKER = 'SMCR';
export const PACK_HEADER_BYTES = 16;
/**
 * The largest pack a writer makes (Cloudflare's 25 MiB per file, less room to spare); an index
 * saying more is refused, so no reader sizes a buffer by a forged length.
 */
export const MAX_PACK_BYTES = 24 * 1024 * 1024;
export const RECORD_HEADER_BYTES = 14;
/** Where a record's CRC-32 (big-endian) of its names and body lies in its header. */
export const RECORD_CRC_OFFSET = 10;
export const INDEX_HEADER_BYTES = 24;
export const INDEX_ENTRY_BYTES = 16;
/** Where every pack and index lives in a tree; a name elsewhere is refused before it is read. */
export const PACKS_FOLDER = 'packs/';

/** How an index's keys are made from a record's names. */
export const KEY_KIND = {
  /** SipHash-1-3 (key 0, 0) of the tree path's UTF-8 bytes, 8 bytes big-endian: precomputed calls. */
  call: 1,
  /** The term's UTF-8 bytes: search (issue #25). */
  term: 2,
} as const;
export type KeyKind = (typeof KEY_KIND)[keyof typeof KEY_KIND];

/** The index key of a precomputed call's tree path. */
export function callKeyOf(treePath: string): Uint8Array {
  const [high, low] = sipHash13Halves(utf8Bytes(treePath));
  // Big-endian, byte by byte: no DataView per key (every packed call's lookup makes one).
  const key = new Uint8Array(8);
  key[0] = high >>> 24;
  key[1] = high >>> 16;
  key[2] = high >>> 8;
  key[3] = high;
  key[4] = low >>> 24;
  key[5] = low >>> 16;
  key[6] = low >>> 8;
  key[7] = low;
  return key;
}

/** Bytewise order, shorter first on a shared prefix: the order of index entries. */
export function compareKeys(left: Uint8Array, right: Uint8Array): number {
  const length = Math.min(left.length, right.length);
  // index < length, the shorter array's: both bytes exist.
  for (let index = 0; index < length; index += 1) if (left[index] !== right[index]) return left[index]! - right[index]!;
  return left.length - right.length;
}

function holdsAscii(bytes: Uint8Array, offset: number, text: string): boolean {
  if (bytes.length < offset + text.length) return false;
  for (let index = 0; index < text.length; index += 1)
    if (bytes[offset + index] !== text.charCodeAt(index)) return false;
  return true;
}

// ---- parsing (every reader) ----

/** Why bytes were not used: `missing` = not a file of ours at all (a host's fallback page, an
 * empty answer), so the tree simply lacks it; `refused` = ours, but damaged or not what the index
 * promised. Both read as "not in this tree"; the reason is for logs and `check`. */
export type PackProblem = { status: 'missing' | 'refused'; reason: string };

export interface ParsedIndex {
  keyKind: number;
  packs: IndexPacks;
  entryCount: number;
  /** The index file's bytes, kept whole: lookups binary-search the entry table in place. */
  bytes: Uint8Array;
  view: DataView;
  entriesStart: number;
  heapStart: number;
}

/** A pack name an index may point at: a plain tree path below packs/ ending in `.pack`. */
export function findPackPathProblem(candidate: string): string | undefined {
  const problem = findTreePathProblem(candidate);
  if (problem !== undefined) return problem;
  if (!candidate.startsWith(PACKS_FOLDER)) return `it is not below ${PACKS_FOLDER}`;
  if (!candidate.endsWith('.pack')) return 'it does not end in .pack';
  return undefined;
}

/**
 * Parses and checks an index file; `name` is its tree path, for messages. `entries`: `all` checks
 * every entry now (check, the listers that walk every entry); `lazy` only the header and the pack
 * list (each pack's path is checked by packPathRefusal before it is read), leaving each entry to
 * checkEntry when a lookup uses it: a cold search loads a dozen
 * indexes of ~700 entries each to use a few entries of each, and checking them all was a large
 * part of its first-run CPU.
 */
export function parseIndex(
  bytes: Uint8Array,
  name: string,
  entries: 'all' | 'lazy' = 'all',
): ParsedIndex | PackProblem {
  if (!holdsAscii(bytes, 0, INDEX_MAGIC) || bytes[8] !== 0) {
    return {
      status: 'missing',
      reason: `${name} is not a pack index (the host answered something else: a missing file?)`,
    };
  }
  const broken = (what: string): PackProblem => ({
    status: 'refused',
    reason: `${name} is a damaged pack index (${what}); build the tree again`,
  });
  if (bytes[9] !== PACK_FORMAT_VERSION) {
    return {
      status: 'refused',
      reason: `${name} is a pack index of format ${bytes[9]}, this reader knows ${PACK_FORMAT_VERSION}; update staticmcp or build the tree again`,
    };
  }
  if (bytes.length < INDEX_HEADER_BYTES) return broken('it ends inside its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const keyKind = bytes[10]!;
  const packCount = view.getUint32(12);
  const entryCount = view.getUint32(16);
  const heapLength = view.getUint32(20);
  if (packCount > 0xffff) return broken('more than 65,535 packs');
  const packs: IndexPack[] = [];
  const packOffsets: number[] = [];
  let offset = INDEX_HEADER_BYTES;
  for (let position = 0; position < packCount; position += 1) {
    if (offset + 6 > bytes.length) return broken('it ends inside its pack list');
    const length = view.getUint32(offset);
    const nameLength = view.getUint16(offset + 4);
    if (offset + 6 + nameLength > bytes.length) return broken('it ends inside its pack list');
    const nameOf = () => decodeUtf8(bytes.subarray(offset + 6, offset + 6 + nameLength)).text;
    if (length < PACK_HEADER_BYTES) return broken(`pack ${nameOf()} is said to be shorter than a pack header`);
    if (length > MAX_PACK_BYTES) return broken(`pack ${nameOf()} is said to be larger than any pack is made`);
    if (entries === 'all') {
      const decoded = decodeUtf8(bytes.subarray(offset + 6, offset + 6 + nameLength));
      const problem = decoded.replaced ? 'it is not UTF-8' : findPackPathProblem(decoded.text);
      if (problem !== undefined) return packPathProblem(name, decoded.text, problem);
      packs.push({ path: decoded.text, length });
      // Lazily parsed, a pack's name is decoded when an entry names it (LazyIndexPacks) and its
      // path checked when a lookup reads it (packPathRefusal).
    } else packOffsets.push(offset);
    offset += 6 + nameLength;
  }
  const entriesStart = offset;
  const heapStart = entriesStart + entryCount * INDEX_ENTRY_BYTES;
  if (heapStart + heapLength !== bytes.length)
    return broken('its length does not match its header: truncated or edited');
  const parsed: ParsedIndex = {
    keyKind,
    packs: entries === 'all' ? packs : new LazyIndexPacks(bytes, view, packOffsets),
    entryCount,
    bytes,
    view,
    entriesStart,
    heapStart,
  };
  if (entries === 'lazy') return parsed;
  for (let entry = 0; entry < entryCount; entry += 1) {
    const problem = entryProblem(parsed, entry);
    if (problem !== undefined) return broken(problem);
    if (entry > 0 && compareEntryKeys(parsed, entry - 1, entry) > 0) return broken(`entry ${entry} is out of order`);
  }
  return parsed;
}

function packPathProblem(name: string, path: string, problem: string): PackProblem {
  return {
    status: 'refused',
    reason: `${name} names the pack ${showTreePath(path)}, not a pack of this tree (${problem}); nothing was read`,
  };
}

/**
 * The refusal of a pack path that an index parsed lazily names (`name`: the index's tree path),
 * checked before the pack is read, as parseIndex checks every path of an index parsed whole.
 */
export function packPathRefusal(name: string, path: string): PackProblem | undefined {
  const problem = findPackPathProblem(path);
  return problem === undefined ? undefined : packPathProblem(name, path, problem);
}

/**
 * The refusal of a pack index path a table names, when that table's paths were left to be checked
 * on read (pack-table.ts): a plain tree path below packs/ ending in `.idx`, else nothing is read.
 */
export function indexPathRefusal(path: string): PackProblem | undefined {
  const problem =
    findTreePathProblem(path) ??
    (!path.startsWith(PACKS_FOLDER) || !path.endsWith('.idx')
      ? `it is not an .idx file below ${PACKS_FOLDER}`
      : undefined);
  if (problem === undefined) return undefined;
  return {
    status: 'refused',
    reason: `the pack table names the index ${showTreePath(path)}, not an index of this tree (${problem}); nothing was read`,
  };
}

/** What is wrong with one entry on its own (its key inside the heap, its pack and record), or undefined. */
function entryProblem(index: ParsedIndex, entry: number): string | undefined {
  const { view, entriesStart, packs } = index;
  const at = entriesStart + entry * INDEX_ENTRY_BYTES;
  const keyLength = view.getUint16(at + 4);
  if (view.getUint32(at) + keyLength > index.bytes.length - index.heapStart)
    return `entry ${entry}'s key lies outside the index`;
  if (index.keyKind === KEY_KIND.call && keyLength !== 8) return `entry ${entry}'s key is not 8 bytes`;
  const pack = view.getUint16(at + 6);
  const target = packs.at(pack);
  if (target === undefined) return `entry ${entry} names pack ${pack} of ${packs.length}`;
  const recordOffset = view.getUint32(at + 8);
  const recordLength = view.getUint32(at + 12);
  if (
    recordLength < RECORD_HEADER_BYTES ||
    recordOffset < PACK_HEADER_BYTES ||
    recordOffset + recordLength > target.length
  )
    return `entry ${entry} points past the end of ${target.path}`;
  return undefined;
}

/**
 * The refusal of an entry of an index parsed lazily, checked when a lookup uses it: the entry
 * itself, and its order against its neighbours (whose keys must lie inside the index too), so a
 * damaged entry is refused when used, and a lookup never reads outside the index.
 */
export function checkEntry(index: ParsedIndex, entry: number, name: string): PackProblem | undefined {
  const broken = (what: string): PackProblem => ({
    status: 'refused',
    reason: `${name} is a damaged pack index (${what}); build the tree again`,
  });
  const problem = entryProblem(index, entry);
  if (problem !== undefined) return broken(problem);
  // Only the entry's own pack name matters to it (a neighbour is read for its key alone).
  const pack = index.view.getUint16(index.entriesStart + entry * INDEX_ENTRY_BYTES + 6);
  if (index.packs.at(pack)!.notUtf8) return broken(`entry ${entry} names pack ${pack}, whose name is not UTF-8`);
  for (const neighbour of [entry - 1, entry + 1]) {
    if (neighbour < 0 || neighbour >= index.entryCount) continue;
    const neighbourProblem = entryProblem(index, neighbour);
    if (neighbourProblem !== undefined) return broken(neighbourProblem);
    const [left, right] = neighbour < entry ? [neighbour, entry] : [entry, neighbour];
    if (compareEntryKeys(index, left, right) > 0) return broken(`entry ${right} is out of order`);
  }
  return undefined;
}

/**
 * compareKeys of two entries' keys read in place: parseIndex checks the order of every entry when
 * an index loads, and two subarrays per entry were ~45% of a cold search query's CPU
 * (bench/search-index.mjs).
 */
function compareEntryKeys(index: ParsedIndex, left: number, right: number): number {
  const view = index.view;
  const leftAt = index.entriesStart + left * INDEX_ENTRY_BYTES;
  const rightAt = index.entriesStart + right * INDEX_ENTRY_BYTES;
  const leftStart = index.heapStart + view.getUint32(leftAt);
  const rightStart = index.heapStart + view.getUint32(rightAt);
  const leftLength = view.getUint16(leftAt + 4);
  const rightLength = view.getUint16(rightAt + 4);
  const shared = Math.min(leftLength, rightLength);
  const bytes = index.bytes;
  // The caller checked both keys lie inside the index.
  for (let position = 0; position < shared; position += 1) {
    const difference = bytes[leftStart + position]! - bytes[rightStart + position]!;
    if (difference !== 0) return difference;
  }
  return leftLength - rightLength;
}

export function entryKey(index: ParsedIndex, entry: number): Uint8Array {
  const at = index.entriesStart + entry * INDEX_ENTRY_BYTES;
  const keyOffset = index.heapStart + index.view.getUint32(at);
  return index.bytes.subarray(keyOffset, keyOffset + index.view.getUint16(at + 4));
}

export interface IndexEntry {
  pack: IndexPack;
  recordOffset: number;
  recordLength: number;
}

export function readEntry(index: ParsedIndex, entry: number): IndexEntry {
  const at = index.entriesStart + entry * INDEX_ENTRY_BYTES;
  return {
    // parseIndex checked every entry's pack number.
    pack: index.packs.at(index.view.getUint16(at + 6))!,
    recordOffset: index.view.getUint32(at + 8),
    recordLength: index.view.getUint32(at + 12),
  };
}

/** compareKeys(entry's key, key) read in place: the binary search allocates nothing. */
function compareEntryKey(index: ParsedIndex, entry: number, key: Uint8Array): number {
  const at = index.entriesStart + entry * INDEX_ENTRY_BYTES;
  const start = index.heapStart + index.view.getUint32(at);
  const length = index.view.getUint16(at + 4);
  const shared = Math.min(length, key.length);
  const bytes = index.bytes;
  // parseIndex checked that every key lies inside the index; index < shared <= key.length.
  for (let position = 0; position < shared; position += 1) {
    const difference = bytes[start + position]! - key[position]!;
    if (difference !== 0) return difference;
  }
  return length - key.length;
}

/** The entries holding `key`: [first, end) (empty when absent); keys may repeat on a hash collision. */
export function findEntries(index: ParsedIndex, key: Uint8Array): { first: number; end: number } {
  let low = 0;
  let high = index.entryCount;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareEntryKey(index, middle, key) < 0) low = middle + 1;
    else high = middle;
  }
  let end = low;
  while (end < index.entryCount && compareEntryKey(index, end, key) === 0) end += 1;
  return { first: low, end };
}

export interface ParsedRecord {
  names: string[];
  body: Uint8Array;
}

/**
 * Parses the record that exactly fills `bytes` (`where` names it for messages): its marker, its
 * lengths, its names (UTF-8) and its CRC must all hold, so a record cut short, shifted by a
 * reordered pack or hand-edited is refused rather than answered. `checksum` false: the caller
 * checked the whole pack by its name's digest (pack-digest.ts), which covers the CRC's bytes.
 */
export function parseRecord(bytes: Uint8Array, where: string, checksum = true): ParsedRecord | PackProblem {
  const refused = (what: string): PackProblem => ({
    status: 'refused',
    reason: `${where} is not a sound pack record (${what}); build the tree again`,
  });
  if (bytes.length < RECORD_HEADER_BYTES || !holdsAscii(bytes, 0, RECORD_MARKER)) {
    return refused('no record starts there: the pack was reordered, edited or replaced');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const nameCount = view.getUint16(4);
  const bodyLength = view.getUint32(6);
  const names: string[] = [];
  let offset = RECORD_HEADER_BYTES;
  for (let position = 0; position < nameCount; position += 1) {
    if (offset + 2 > bytes.length) return refused('it ends inside its names');
    const length = view.getUint16(offset);
    if (offset + 2 + length > bytes.length) return refused('it ends inside its names');
    const decoded = decodeUtf8(bytes.subarray(offset + 2, offset + 2 + length));
    if (decoded.replaced) return refused('a name is not UTF-8');
    names.push(decoded.text);
    offset += 2 + length;
  }
  if (nameCount === 0) return refused('it has no name');
  if (offset + bodyLength !== bytes.length) return refused('its length does not match the index: truncated or edited');
  if (checksum && crc32(bytes, RECORD_HEADER_BYTES) !== view.getUint32(RECORD_CRC_OFFSET))
    return refused('its checksum does not match: edited or damaged');
  return { names, body: bytes.subarray(offset) };
}

/** Checks a whole pack's header: the magic (else `missing`: a fallback page), the version, the length the index promised. */
export function checkPackHeader(bytes: Uint8Array, path: string, expectedLength: number): PackProblem | undefined {
  if (!holdsAscii(bytes, 0, PACK_MAGIC) || bytes[8] !== 0) {
    return { status: 'missing', reason: `${path} is not a pack (the host answered something else: a missing file?)` };
  }
  if (bytes[9] !== PACK_FORMAT_VERSION) {
    return {
      status: 'refused',
      reason: `${path} is a pack of format ${bytes[9]}, this reader knows ${PACK_FORMAT_VERSION}`,
    };
  }
  if (bytes.length !== expectedLength) {
    return {
      status: 'refused',
      reason: `${path} holds ${bytes.length} bytes, its index says ${expectedLength}: truncated or replaced; build the tree again`,
    };
  }
  return undefined;
}

/**
 * Every record of a whole pack, in order, for `check`: the records must tile the pack exactly
 * (no stray bytes between or after them) and number what the header says.
 */
export function parsePack(
  bytes: Uint8Array,
  path: string,
): { records: { offset: number; length: number; record: ParsedRecord }[] } | PackProblem {
  const headerProblem = checkPackHeader(bytes, path, bytes.length);
  if (headerProblem) return headerProblem;
  if (bytes.length < PACK_HEADER_BYTES) return { status: 'refused', reason: `${path} ends inside its header` };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const recordCount = view.getUint32(12);
  const records: { offset: number; length: number; record: ParsedRecord }[] = [];
  let offset = PACK_HEADER_BYTES;
  while (offset < bytes.length) {
    if (offset + RECORD_HEADER_BYTES > bytes.length)
      return { status: 'refused', reason: `${path} ends inside a record at byte ${offset}` };
    let length = RECORD_HEADER_BYTES + view.getUint32(offset + 6);
    let nameOffset = offset + RECORD_HEADER_BYTES;
    for (let position = 0; position < view.getUint16(offset + 4) && nameOffset + 2 <= bytes.length; position += 1) {
      const nameLength = 2 + view.getUint16(nameOffset);
      length += nameLength;
      nameOffset += nameLength;
    }
    if (offset + length > bytes.length)
      return { status: 'refused', reason: `${path} ends inside a record at byte ${offset}` };
    const record = parseRecord(bytes.subarray(offset, offset + length), `${path} at byte ${offset}`);
    if ('status' in record) return record;
    records.push({ offset, length, record });
    offset += length;
  }
  if (records.length !== recordCount) {
    return { status: 'refused', reason: `${path} holds ${records.length} records, its header says ${recordCount}` };
  }
  return { records };
}
