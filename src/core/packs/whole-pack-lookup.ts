// A record found in a pack read whole, without its index (issue #40): a host that ignores byte
// ranges (the Workers asset binding) sends the whole pack for any record of it anyway, so a table
// naming each pack by its first key (the search index's, search-pack-rows.ts) saves a cold query
// the index's read. The pack's records are walked by their headers. A pack that hashes to its name
// (pack-digest.ts) is sound as a whole: a name it lacks is not in the tree. Anything else the walk
// is unsure of (a pack not so named that lacks the name, bytes where no record starts, a record
// whose CRC fails) is left to the index, which refuses only the damaged record. Portable.
import { utf8Bytes } from '../tree/utf8.js';
import { parseRecordOfPack } from './checked-records.js';
import { digestsPackFor, holdsNamedContent, isKnownNamedContent } from './pack-digest.js';
import { checkPackHeader, PACK_HEADER_BYTES, type PackProblem, RECORD_HEADER_BYTES } from './pack-format.js';

// The pack reader's shapes (pack-reader.ts), as this file uses them: that file calls this one.
interface WholeFiles {
  readBytes(path: string): Promise<{ status: 'ok'; bytes: Uint8Array; whole: boolean } | { status: 'missing' }>;
}
interface WholePackCache {
  wholePack(path: string): Uint8Array | undefined;
  keepsWholePack(length: number, pushesOut: boolean): boolean;
  addWholePack(path: string, bytes: Uint8Array, pushesOut: boolean): void;
}
type FoundRecord =
  | { status: 'ok'; body: Uint8Array; pack: string; packLength: number; recordOffset: number; recordLength: number }
  | PackProblem;

/**
 * A sorted walk compares one record in 8 with the name (a mask): comparing each cost a found
 * word's walk more than stopping early saved a missing one's; the walk stops at most 7 records late.
 */
const SORT_CHECK_EVERY = 7;

/** "SMCR", a record's marker, as a big-endian u32. */
const RECORD_MARKER_WORD = 0x534d4352;

function holdsKeyAt(bytes: Uint8Array, at: number, key: Uint8Array): boolean {
  for (let position = 0; position < key.length; position += 1) if (bytes[at + position] !== key[position]) return false;
  return true;
}

/** Whether the `length` bytes of a name at `at` sort after `key` (byte order). */
function sortsAfterKey(bytes: Uint8Array, at: number, length: number, key: Uint8Array): boolean {
  const common = Math.min(length, key.length);
  for (let position = 0; position < common; position += 1) {
    const difference = bytes[at + position]! - key[position]!;
    if (difference !== 0) return difference > 0;
  }
  return length > key.length;
}

/**
 * The record named `name` in the pack at `path` (read whole, or the whole-pack cache's copy, kept
 * as `keeping` says), `missing` when a sound pack lacks it, undefined when unsure (ask the index).
 * `sorted`: the pack's records are in byte order of their first names (the search index's term
 * packs; `check` says when one is not), so the walk stops at the first that sorts after the name:
 * a word the index lacks, and a stem's key that has no list of its own, cost half a walk.
 */
export async function lookupInWholePack(
  files: WholeFiles,
  cache: WholePackCache,
  path: string,
  name: string,
  keeping: { upToBytes: number; pushesOut: boolean },
  sorted = false,
): Promise<FoundRecord | undefined> {
  let bytes = cache.wholePack(path);
  let kept = bytes !== undefined;
  if (bytes === undefined) {
    const read = await files.readBytes(path);
    if (read.status !== 'ok' || !read.whole) return undefined;
    if (checkPackHeader(read.bytes, path, read.bytes.length) !== undefined) return undefined;
    bytes = read.bytes;
    kept = bytes.length <= keeping.upToBytes && cache.keepsWholePack(bytes.length, keeping.pushesOut);
    if (kept) cache.addWholePack(path, bytes, keeping.pushesOut);
  }
  const key = utf8Bytes(name);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = PACK_HEADER_BYTES;
  let walked = 0;
  while (offset < bytes.length) {
    if (offset + RECORD_HEADER_BYTES > bytes.length || view.getUint32(offset) !== RECORD_MARKER_WORD) return undefined;
    const nameCount = view.getUint16(offset + 4);
    let at = offset + RECORD_HEADER_BYTES;
    let holds = false;
    let past = false;
    for (let position = 0; position < nameCount; position += 1) {
      if (at + 2 > bytes.length) return undefined;
      const length = view.getUint16(at);
      at += 2;
      if (at + length > bytes.length) return undefined;
      if (!holds && length === key.length && holdsKeyAt(bytes, at, key)) holds = true;
      else if (sorted && position === 0 && (walked & SORT_CHECK_EVERY) === 0 && sortsAfterKey(bytes, at, length, key))
        past = true;
      at += length;
    }
    // Every later record sorts after this one: none holds the name.
    if (past) break;
    walked += 1;
    const end = at + view.getUint32(offset + 6);
    if (end > bytes.length) return undefined;
    if (holds) {
      // As a lookup through the index: a pack kept is hashed once when that pays (digestsPackFor),
      // else the record's CRC is checked, once for the bytes kept.
      const recordLength = end - offset;
      const named =
        isKnownNamedContent(bytes, path) ||
        (kept && digestsPackFor(bytes.length, recordLength) && (await holdsNamedContent(bytes, path)));
      const record = await parseRecordOfPack(bytes, offset, recordLength, `${path} at byte ${offset}`, named);
      if ('status' in record || !record.names.includes(name)) return undefined;
      return {
        status: 'ok',
        body: record.body,
        pack: path,
        packLength: bytes.length,
        recordOffset: offset,
        recordLength,
      };
    }
    offset = end;
  }
  if (!(isKnownNamedContent(bytes, path) || (await holdsNamedContent(bytes, path)))) return undefined;
  return { status: 'missing', reason: `${name} is not in this tree (not in ${path})` };
}
