// A whole pack checked at once by its name (issue #40): writers name every pack by the first 16
// hex digits of its bytes' SHA-256 (pack-writer.ts, search-index-output.ts), so a pack a host sent
// whole (the Workers asset binding ignores byte ranges) whose bytes hash to its name holds sound
// records, and none of them needs its own CRC: Web Crypto hashes the pack natively, where the CRC
// loop runs as a cold isolate's first-run JavaScript (a cold search checks ~23 records, ~55 KB).
// A pack that does not hash to its name (edited, damaged, or named some other way) is checked
// record by record, as before: a damaged record still refuses only what it holds. A record that
// is a small part of a large pack is checked by its CRC instead (digestsPackFor): hashing the
// whole pack for it costs a warm query more than the CRC, the pack being seldom read again.
// Portable.

/**
 * Whole packs larger than this are checked record by record: a query uses a few records of such a
 * pack (a term pack at 650,000 documents is megabytes), and hashing all of it would cost more.
 */
export const MAX_DIGEST_CHECKED_PACK_BYTES = 512 * 1024;

/** Packs up to this size are hashed whole for any record: a cold query's few small packs. */
const ALWAYS_DIGESTED_PACK_BYTES = 64 * 1024;

/**
 * How many times a record's bytes the pack may be and still be hashed whole for it: native SHA-256
 * runs several times faster per byte than the CRC in JavaScript, and not more than that.
 */
const DIGESTED_PACK_PER_RECORD_BYTES = 4;

/**
 * Whether a record of `recordLength` bytes in a whole pack of `packLength` bytes is checked by
 * hashing the pack (then every record of it is sound), not by its own CRC.
 */
export function digestsPackFor(packLength: number, recordLength: number): boolean {
  return packLength <= ALWAYS_DIGESTED_PACK_BYTES || packLength <= recordLength * DIGESTED_PACK_PER_RECORD_BYTES;
}

const NAMED_BY_DIGEST = /(?:^|\/)([0-9a-f]{16})\.pack$/;

/** Outcomes already known, by the bytes object a host's read or the whole-pack cache holds. */
const outcomes = new WeakMap<Uint8Array, { path: string; named: boolean }>();

/** Whether `bytes` (a whole pack) are already known to hash to `path`'s name. */
export function isKnownNamedContent(bytes: Uint8Array, path: string): boolean {
  const known = outcomes.get(bytes);
  return known !== undefined && known.path === path && known.named;
}

/**
 * Whether the whole pack `bytes` at `path` hashes to its name: false for a pack too large to be
 * checked so, one not named by a digest, or where Web Crypto is missing (a page over plain http).
 */
export async function holdsNamedContent(bytes: Uint8Array, path: string): Promise<boolean> {
  const known = outcomes.get(bytes);
  if (known !== undefined && known.path === path) return known.named;
  if (bytes.length > MAX_DIGEST_CHECKED_PACK_BYTES) return false;
  const name = NAMED_BY_DIGEST.exec(path)?.[1];
  const subtle = (globalThis as { crypto?: { subtle?: typeof crypto.subtle } }).crypto?.subtle;
  if (name === undefined || subtle === undefined) return false;
  let digest: Uint8Array;
  try {
    digest = new Uint8Array(await subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  } catch {
    return false;
  }
  let matches = true;
  for (let position = 0; position < 8 && matches; position += 1)
    matches = digest[position] === Number.parseInt(name.slice(position * 2, position * 2 + 2), 16);
  outcomes.set(bytes, { path, named: matches });
  return matches;
}
