// The byte layout of the search writer's kept documents (search-kept-documents.ts): an entry's
// fields in a part file, a directory record's, and the little readers and writers over them.
import { readVarint } from '../core/search/postings.js';
import type { KeptPart } from './kept-parts.js';

/** A document's share of the index as its writer made it. */
export interface KeptDocument {
  /** Its distinct index keys (words and stems), and how often each occurs (a kept one's decoded when asked). */
  terms: () => { keys: string[]; counts: number[] };
  /** A kept entry's: where its keys start in the previous file (termsAt), for a writer that asks later. */
  termsAt?: number;
  /** Its tokens (BM25's document length). */
  tokenCount: number;
  /** Its fetch body, compressed (search-document-compression.ts). */
  body: Uint8Array;
  /** Its excerpt source, compressed; empty when none was made (a call result's, or no text). */
  excerpt: Uint8Array;
}

export const DIGEST_BYTES = 32;
/** An entry's source field: none, or the length byte before its digest. */
export const NO_SOURCE = Uint8Array.of(0);
export const SOURCE_LENGTH = Uint8Array.of(DIGEST_BYTES);

/** A directory entry: digest, source length (0 or DIGEST_BYTES), source (zeros when none), part, offset. */
export const RECORD_BYTES = DIGEST_BYTES + 1 + DIGEST_BYTES + 8;
export const RECORD_SOURCE_AT = DIGEST_BYTES + 1;
export const RECORD_PART_AT = RECORD_SOURCE_AT + DIGEST_BYTES;

/** Where the entry starting at `start` ends (throws when it does not parse). */
function entryEndOf(bytes: Uint8Array, start: number): number {
  const at = { at: start + DIGEST_BYTES };
  const sourceLength = readVarint(bytes, at);
  if (sourceLength !== 0 && sourceLength !== DIGEST_BYTES) throw new RangeError('a source of another length');
  at.at += sourceLength;
  // Keys, counts, body, excerpt: each a length and its bytes.
  for (let field = 0; field < 4; field += 1) {
    const length = readVarint(bytes, at);
    at.at += length;
  }
  if (at.at > bytes.length) throw new RangeError('truncated');
  return at.at;
}

/** Whether a part holds `part.count` entries that parse, end to end. */
export function partParses(bytes: Uint8Array, part: KeptPart): boolean {
  try {
    let at = 0;
    let count = 0;
    for (; at < bytes.length; count += 1) at = entryEndOf(bytes, at);
    return at === bytes.length && count === part.count;
  } catch {
    return false;
  }
}

/** The little-endian unsigned 32-bit number at `at`. */
export function uint32At(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)) + bytes[at + 3]! * 0x1000000;
}

export function writeUint32At(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value & 0xff;
  bytes[at + 1] = (value >>> 8) & 0xff;
  bytes[at + 2] = (value >>> 16) & 0xff;
  bytes[at + 3] = (value >>> 24) & 0xff;
}

/** Whether `bytes[at, at + other.length)` are `other`'s bytes. */
export function sameBytes(bytes: Uint8Array, at: number, other: Uint8Array): boolean {
  for (let index = 0; index < other.length; index += 1) if (bytes[at + index] !== other[index]) return false;
  return true;
}

export function varintLength(value: number): number {
  let length = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 128)) length += 1;
  return length;
}
