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
const DIGEST_BYTES = 32;
/** flags, inode, size, mtime, digest, path length: the fixed part of an entry after its length. */
const FIXED_BYTES = 1 + 8 + 8 + 8 + DIGEST_BYTES + 4;
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

/**
 * A record read whole and checked: its entries found by path (and, when first asked, by digest),
 * each decoded only when looked up. Undefined from `parse` when the bytes are not a whole record
 * of this key.
 */
export class DocumentRecord {
  private byDigest: Map<string, number> | undefined;
  /** Path → offset, made only when a lookup leaves the record's order. */
  private byPath: Map<string, number> | undefined;
  /**
   * The entry the next lookup most likely wants: a build looks documents up in the order the
   * previous one recorded them, so most lookups compare one path and make no map of every path.
   */
  private cursor: number;
  private last: { relativePath: string; at: number } | undefined;

  private constructor(
    private readonly bytes: Buffer,
    private readonly firstEntry: number,
    private readonly end: number,
    /** How many entries the record holds. */
    readonly size: number,
  ) {
    this.cursor = firstEntry;
  }

  static parse(bytes: Buffer, key: string): DocumentRecord | undefined {
    const header = DocumentRecordHash.header(key);
    if (bytes.length < header.length + DIGEST_BYTES || !bytes.subarray(0, header.length).equals(header)) return;
    const end = bytes.length - DIGEST_BYTES;
    const digest = createHash('sha256').update(bytes.subarray(0, end)).digest();
    if (!digest.equals(bytes.subarray(end))) return;
    // Every entry's lengths checked once: the lookups after read inside its bounds.
    let count = 0;
    let at = header.length;
    while (at < end) {
      if (at + 4 > end) return;
      const next = at + 4 + bytes.readUInt32LE(at);
      const pathAt = at + 4 + FIXED_BYTES;
      if (next > end || pathAt > next) return;
      const pathEnd = pathAt + bytes.readUInt32LE(pathAt - 4);
      if (pathEnd + 2 > next || pathEnd + 2 + bytes.readUInt16LE(pathEnd) > next) return;
      count += 1;
      at = next;
    }
    return new DocumentRecord(bytes, header.length, end, count);
  }

  /** The offset of the entry recorded for a path. */
  offsetOf(relativePath: string): number | undefined {
    if (this.last?.relativePath === relativePath) return this.last.at;
    let at: number | undefined;
    if (this.byPath === undefined && this.cursor < this.end && this.pathAt(this.cursor) === relativePath) {
      at = this.cursor;
      this.cursor = this.nextOf(at);
    } else {
      this.byPath ??= this.indexPaths();
      at = this.byPath.get(relativePath);
    }
    this.last = at === undefined ? undefined : { relativePath, at };
    return at;
  }

  private indexPaths(): Map<string, number> {
    const byPath = new Map<string, number>();
    for (let at = this.firstEntry; at < this.end; at = this.nextOf(at)) byPath.set(this.pathAt(at), at);
    return byPath;
  }

  private nextOf(at: number): number {
    return at + 4 + this.bytes.readUInt32LE(at);
  }

  private pathAt(at: number): string {
    const pathAt = at + 4 + FIXED_BYTES;
    return this.bytes.toString('utf8', pathAt, pathAt + this.bytes.readUInt32LE(pathAt - 4));
  }

  /** The offset of an entry whose bytes had this digest and MIME type. */
  offsetOfDigest(sha256: string, mimeType: string): number | undefined {
    if (this.byDigest === undefined) {
      this.byDigest = new Map();
      for (let at = this.firstEntry; at < this.end; at = this.nextOf(at))
        this.byDigest.set(`${this.sha256At(at)} ${this.mimeTypeAt(at)}`, at);
    }
    return this.byDigest.get(`${sha256} ${mimeType}`);
  }

  /** The entry's bytes, its length prefix included (to be copied to the next record as they are). */
  entryBytes(at: number): Buffer {
    return this.bytes.subarray(at, at + 4 + this.bytes.readUInt32LE(at));
  }

  flagsAt(at: number): number {
    return this.bytes[at + 4]!;
  }

  /** Whether the entry's identity is `stats`'s. */
  sameIdentityAt(at: number, stats: DocumentStats): boolean {
    return (
      this.bytes.readBigUInt64LE(at + 5) === BigInt.asUintN(64, stats.ino) &&
      this.bytes.readBigUInt64LE(at + 13) === BigInt.asUintN(64, stats.size) &&
      this.bytes.readBigInt64LE(at + 21) === BigInt.asIntN(64, stats.mtimeNs)
    );
  }

  sha256At(at: number): string {
    return this.bytes.toString('hex', at + 29, at + 29 + DIGEST_BYTES);
  }

  mimeTypeAt(at: number): string {
    const mimeAt = this.mimeLengthAt(at);
    return this.bytes.toString('utf8', mimeAt + 2, mimeAt + 2 + this.bytes.readUInt16LE(mimeAt));
  }

  /** The parse as recorded, JSON text. */
  parsedJsonAt(at: number): string {
    const mimeAt = this.mimeLengthAt(at);
    return this.bytes.toString(
      'utf8',
      mimeAt + 2 + this.bytes.readUInt16LE(mimeAt),
      at + 4 + this.bytes.readUInt32LE(at),
    );
  }

  private mimeLengthAt(at: number): number {
    const pathAt = at + 4 + FIXED_BYTES;
    return pathAt + this.bytes.readUInt32LE(pathAt - 4);
  }
}
