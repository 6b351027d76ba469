// Records whose CRC-32 already passed, by the bytes of the whole pack that holds them (issue #40):
// a pack the reader keeps (the whole-pack cache) hands the same bytes to every later query, so a
// record checked once is not checked again, and a pack too large to hash whole for the few
// records a query uses (pack-digest.ts) costs each of its records one check, not one per query.
// A pack read again is a new bytes object and is checked again: damage on the host is still seen.
// Where the host computes CRC-32 natively (native-crc32.ts: workerd) a record's CRC is checked so
// first; a record that fails there, or a host without it, is checked by crc32.ts, whose refusal
// names what is wrong. Portable.
import { hasNativeCrc32, nativeCrc32 } from './native-crc32.js';
import {
  type PackProblem,
  type ParsedRecord,
  parseRecord,
  RECORD_CRC_OFFSET,
  RECORD_HEADER_BYTES,
} from './pack-format.js';

/** Offsets of the records found sound, by the pack bytes they lie in (gone with those bytes). */
const checkedOffsets = new WeakMap<Uint8Array, Set<number>>();

/**
 * The record at `offset`, `length` bytes of the whole pack `bytes`: its CRC checked unless the pack
 * is known sound (`packSound`, it hashed to its name) or this record of these bytes passed before.
 */
export async function parseRecordOfPack(
  bytes: Uint8Array,
  offset: number,
  length: number,
  where: string,
  packSound: boolean,
): Promise<ParsedRecord | PackProblem> {
  const recordBytes = bytes.subarray(offset, offset + length);
  const known = packSound || (checkedOffsets.get(bytes)?.has(offset) ?? false);
  const sound = known || (hasNativeCrc32() && (await holdsNativeCrc(recordBytes)));
  const record = parseRecord(recordBytes, where, !sound);
  if (known || 'status' in record) return record;
  // Looked up again: another lookup may have added the set while the CRC was computed.
  let checked = checkedOffsets.get(bytes);
  if (checked === undefined) {
    checked = new Set();
    checkedOffsets.set(bytes, checked);
  }
  checked.add(offset);
  return record;
}

/** The record that exactly fills `bytes` (a byte range read), its CRC checked natively where the host can. */
export async function parseCheckedRecord(bytes: Uint8Array, where: string): Promise<ParsedRecord | PackProblem> {
  return parseRecord(bytes, where, !(hasNativeCrc32() && (await holdsNativeCrc(bytes))));
}

/**
 * Whether the record `bytes` holds the CRC its header says, by the host's native CRC-32: false
 * when it does not, or when the host has none (then parseRecord checks it with crc32.ts).
 */
async function holdsNativeCrc(bytes: Uint8Array): Promise<boolean> {
  if (bytes.length < RECORD_HEADER_BYTES) return false;
  const crc = await nativeCrc32(bytes.subarray(RECORD_HEADER_BYTES));
  if (crc === undefined) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return crc === view.getUint32(RECORD_CRC_OFFSET);
}
