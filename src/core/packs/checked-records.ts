// Records whose CRC-32 already passed, by the bytes of the whole pack that holds them (issue #40):
// a pack the reader keeps (the whole-pack cache) hands the same bytes to every later query, so a
// record checked once is not checked again, and a pack too large to hash whole for the few
// records a query uses (pack-digest.ts) costs each of its records one check, not one per query.
// A pack read again is a new bytes object and is checked again: damage on the host is still seen.
// Portable.
import { type PackProblem, type ParsedRecord, parseRecord } from './pack-format.js';

/** Offsets of the records found sound, by the pack bytes they lie in (gone with those bytes). */
const checkedOffsets = new WeakMap<Uint8Array, Set<number>>();

/**
 * The record at `offset`, `length` bytes of the whole pack `bytes`: its CRC checked unless the pack
 * is known sound (`packSound`, it hashed to its name) or this record of these bytes passed before.
 */
export function parseRecordOfPack(
  bytes: Uint8Array,
  offset: number,
  length: number,
  where: string,
  packSound: boolean,
): ParsedRecord | PackProblem {
  let checked = checkedOffsets.get(bytes);
  const known = packSound || (checked?.has(offset) ?? false);
  const record = parseRecord(bytes.subarray(offset, offset + length), where, !known);
  if (known || 'status' in record) return record;
  if (checked === undefined) {
    checked = new Set();
    checkedOffsets.set(bytes, checked);
  }
  checked.add(offset);
  return record;
}
