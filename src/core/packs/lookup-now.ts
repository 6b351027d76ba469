// A packed record looked up without a promise, for an answer cut from its bytes
// (core/mcp/cut-call-answers.ts): only when its index is already parsed in the cache and the host
// reads a byte range synchronously (PackFileSource.readBytesNow: a local folder). It runs the
// same checks as PackReader.lookup on the entry it uses (the entry and its neighbours, the pack
// path's rule, the range's length, the record's marker, lengths, names and CRC) and answers only
// a sound record that names the path; anything else (no cached index, a damaged entry or record,
// a short read, a whole pack kept, a hash collision) is undefined, and the promise path answers
// it with its reason.
import {
  checkEntry,
  findEntries,
  type KeyKind,
  type ParsedIndex,
  packPathRefusal,
  parseRecord,
  readEntry,
} from './pack-format.js';
import { findIndexRow, type PackTableRow } from './pack-table.js';

/** What of PackFileSource and PackIndexCache (pack-reader.ts, which calls this) a lookup now uses. */
export interface NowReads {
  readBytesNow?(
    path: string,
    range: { offset: number; length: number; fileLength: number; keepsWhole: boolean },
  ): { status: 'ok'; bytes: Uint8Array; whole: boolean } | { status: 'missing' } | undefined;
}
export interface NowCache {
  get(path: string): ParsedIndex | undefined;
  wholePack(path: string): Uint8Array | undefined;
}

/** The record found, as PackReader.lookup answers it. */
export interface FoundNow {
  status: 'ok';
  body: Uint8Array;
  pack: string;
  packLength: number;
  recordOffset: number;
  recordLength: number;
}

export function lookUpNow(
  files: NowReads,
  cache: NowCache,
  rows: readonly PackTableRow[],
  keyKind: KeyKind,
  key: Uint8Array,
  name: string,
): FoundNow | undefined {
  if (files.readBytesNow === undefined) return undefined;
  const row = findIndexRow(rows, key);
  if (row === undefined) return undefined;
  const index = cache.get(row.index);
  if (index === undefined || index.keyKind !== keyKind) return undefined;
  const { first, end } = findEntries(index, key);
  // One entry: several share a key only on a hash collision, which the promise path sorts out.
  if (end !== first + 1 || checkEntry(index, first, row.index) !== undefined) return undefined;
  const { pack, recordOffset, recordLength } = readEntry(index, first);
  // A pack a host sent whole is read from the cache by the promise path, checked by its digest.
  if (packPathRefusal(row.index, pack.path) !== undefined || cache.wholePack(pack.path) !== undefined) return undefined;
  const read = files.readBytesNow(pack.path, {
    offset: recordOffset,
    length: recordLength,
    fileLength: pack.length,
    keepsWhole: false,
  });
  if (read?.status !== 'ok' || read.whole || read.bytes.length !== recordLength) return undefined;
  const record = parseRecord(read.bytes, `${pack.path} at byte ${recordOffset}`);
  if ('status' in record || !record.names.includes(name)) return undefined;
  return {
    status: 'ok',
    body: record.body,
    pack: pack.path,
    packLength: pack.length,
    recordOffset,
    recordLength,
  };
}
