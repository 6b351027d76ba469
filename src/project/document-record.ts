// The document cache's record on disk (document-cache.ts), in binary: a header with the cache's
// key, one entry a document, and a sha256 of all that before it as the last 32 bytes, checked
// before any entry is believed (a damaged or cut record is no record: every document is read).
// An entry holds a file's path, identity (inode, size, mtime), digest, MIME type and its parse as
// JSON; it is length-prefixed, so an unchanged document's entry is copied to the next record as
// bytes, never decoded and encoded again (issue #39: the JSON record was parsed and written again
// whole on every edit). Layout of an entry, little-endian:
//   u32 length of what follows · u8 flags (1: identity trusted, 2: a site page) · u64 inode ·
//   u64 size · i64 mtime ns · 32 bytes sha256 · u32 path length · path · u16 MIME type length ·
//   MIME type · parse (JSON, to the entry's end)
import { createHash, type Hash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';

/** A document's identity on disk, as `fs.stat(…, { bigint: true })` gives it. */
export type DocumentStats = Pick<BigIntStats, 'ino' | 'size' | 'mtimeNs'>;

const MAGIC = Buffer.from('staticmcp documents 1\n', 'latin1');
export const DIGEST_BYTES = 32;
/** flags, inode, size, mtime, digest, path length: the fixed part of an entry after its length. */
export const FIXED_BYTES = 1 + 8 + 8 + 8 + DIGEST_BYTES + 4;
export const TRUSTED_IDENTITY = 1;
const SITE_PAGE = 2;

/** One entry as its fields (what record() is given, or a reader decodes). */
export interface DocumentEntry {
  relativePath: string;
  mimeType: string;
  /** Whether the identity may stand for the bytes next time (the file was not too fresh). */
  trusted: boolean;
  stats: DocumentStats;
  sha256: string;
  /** The parse, as JSON text. */
  parsedJson: string;
  sitePage: boolean;
}

/** The bytes of one entry, its length prefix included. */
export function encodeEntry(entry: DocumentEntry): Buffer {
  const pathLength = Buffer.byteLength(entry.relativePath);
  const mimeLength = Buffer.byteLength(entry.mimeType);
  const parsedLength = Buffer.byteLength(entry.parsedJson);
  const body = FIXED_BYTES + pathLength + 2 + mimeLength + parsedLength;
  const bytes = Buffer.allocUnsafe(4 + body);
  let at = bytes.writeUInt32LE(body, 0);
  at = bytes.writeUInt8((entry.trusted ? TRUSTED_IDENTITY : 0) | (entry.sitePage ? SITE_PAGE : 0), at);
  at = bytes.writeBigUInt64LE(BigInt.asUintN(64, entry.stats.ino), at);
  at = bytes.writeBigUInt64LE(BigInt.asUintN(64, entry.stats.size), at);
  at = bytes.writeBigInt64LE(BigInt.asIntN(64, entry.stats.mtimeNs), at);
  at += bytes.write(entry.sha256, at, DIGEST_BYTES, 'hex');
  at = bytes.writeUInt32LE(pathLength, at);
  at += bytes.write(entry.relativePath, at, pathLength, 'utf8');
  at = bytes.writeUInt16LE(mimeLength, at);
  at += bytes.write(entry.mimeType, at, mimeLength, 'utf8');
  bytes.write(entry.parsedJson, at, parsedLength, 'utf8');
  return bytes;
}

/** Writes a record: the header first, then entries as they come, the digest last. */
export class DocumentRecordHash {
  private readonly hash: Hash = createHash('sha256');

  /** The header for `key`, to be written (and hashed) first. */
  static header(key: string): Buffer {
    const keyBytes = Buffer.from(key, 'utf8');
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32LE(keyBytes.length, 0);
    return Buffer.concat([MAGIC, length, keyBytes]);
  }

  add(bytes: Uint8Array): void {
    this.hash.update(bytes);
  }

  /** The trailer: the sha256 of everything added. */
  trailer(): Buffer {
    return this.hash.digest();
  }
}

/** Whether an entry's bytes (its length prefix included) hold its path and MIME type within them. */
export function entryFieldsValid(entry: Buffer): boolean {
  const pathAt = 4 + FIXED_BYTES;
  if (entry.length < pathAt || entry.readUInt32LE(0) !== entry.length - 4) return false;
  const pathEnd = pathAt + entry.readUInt32LE(pathAt - 4);
  return pathEnd + 2 <= entry.length && pathEnd + 2 + entry.readUInt16LE(pathEnd) <= entry.length;
}
