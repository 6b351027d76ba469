// The previous build's document record (document-record.ts), read through a window of the file
// rather than whole (issue #39, "Memory": 25 MB at 100,000 Markdown documents, held through
// discovery, an edit build's peak). The record is checked whole first, its digest and every
// entry's lengths, a window at a time; then entries are read as they are asked for. A build asks
// in the order the previous one recorded them, so a lookup mostly finds its entry at the cursor,
// inside the window or in the next one; an entry asked for out of order is found through a table
// of path hashes (made at the first such lookup), and one asked for by digest through a table of
// digest prefixes: typed arrays of offsets, a few bytes a document, not a string each. The file
// stays open until close(): a record renamed over it meanwhile (another build) is not this one.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import {
  DIGEST_BYTES,
  DocumentRecordHash,
  type DocumentStats,
  entryFieldsValid,
  FIXED_BYTES,
} from './document-record.js';
import { WalkedIdentity } from './walked-identities.js';

/**
 * A sequential read's window; an entry asked for out of order reads only SCATTERED_READ_BYTES.
 * Under glibc's 128 KiB mmap threshold: a larger buffer, once freed, raises it (CONTRIBUTING.md).
 */
const WINDOW_BYTES = 1 << 16;
const SCATTERED_READ_BYTES = 1 << 12;
/** Offsets are held in 32 bits (stored one up, 0 is an empty slot): a larger record is not read. */
const MAX_RECORD_BYTES = 0xffff_fffe;

/** FNV-1a over a byte range. */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let index = start; index < end; index += 1) hash = Math.imul(hash ^ bytes[index]!, 0x01000193);
  return hash >>> 0;
}

/** Entry offsets by a 32-bit hash, open addressing (a table twice the entries' count). */
class OffsetTable {
  private readonly hashes: Uint32Array;
  private readonly offsets: Uint32Array;
  private readonly mask: number;

  constructor(count: number) {
    let capacity = 16;
    while (capacity < 2 * count) capacity *= 2;
    this.hashes = new Uint32Array(capacity);
    this.offsets = new Uint32Array(capacity);
    this.mask = capacity - 1;
  }

  add(hash: number, offset: number): void {
    let slot = hash & this.mask;
    while (this.offsets[slot] !== 0) slot = (slot + 1) & this.mask;
    this.hashes[slot] = hash;
    this.offsets[slot] = offset + 1;
  }

  /** The first offset of `hash` for which `matches` is true. */
  find(hash: number, matches: (offset: number) => boolean): number | undefined {
    for (let slot = hash & this.mask; this.offsets[slot] !== 0; slot = (slot + 1) & this.mask)
      if (this.hashes[slot] === hash && matches(this.offsets[slot]! - 1)) return this.offsets[slot]! - 1;
    return undefined;
  }
}

/** An entry's bytes (its length prefix included), valid until the record is read again. */
export type EntryView = Buffer;

export class DocumentRecord {
  private window = Buffer.allocUnsafe(WINDOW_BYTES);
  private windowStart = 0;
  private windowEnd = 0;
  /** Where the entry after the last one read starts: a miss there reads a whole window. */
  private nextAt = -1;
  private byPath: OffsetTable | undefined;
  private byDigest: OffsetTable | undefined;
  /** The entry the next lookup most likely wants (the previous build recorded in lookup order). */
  private cursor: number;
  private last: { relativePath: string; at: number } | undefined;
  /** A read came short or an entry no longer reads as one: nothing more is believed. */
  private lost = false;
  /**
   * The last entry viewAt gave, and where: a lookup asks for the same entry several times (its
   * flags, identity, MIME type, parse, digest, bytes), and each view of the window is an object.
   */
  private viewed: EntryView | undefined;
  private viewedAt = -1;
  /** The MIME type hasMimeTypeAt compared last, as UTF-8 (most documents of a build share one). */
  private mimeBytes = Buffer.alloc(0);
  private mimeBytesOf: string | undefined;

  private constructor(
    private fd: number | undefined,
    private readonly firstEntry: number,
    private readonly end: number,
    /** How many entries the record holds. */
    readonly size: number,
  ) {
    this.cursor = firstEntry;
  }

  /** The record in `file` for `key`, or undefined when it is missing or not a whole record of that key. */
  static open(file: string, key: string): DocumentRecord | undefined {
    let fd: number | undefined;
    try {
      fd = openSync(file, 'r');
      const record = DocumentRecord.check(fd, key);
      if (record !== undefined) fd = undefined;
      return record;
    } catch {
      // Unreadable: every document is read and parsed.
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  private static check(fd: number, key: string): DocumentRecord | undefined {
    const header = DocumentRecordHash.header(key);
    const bytes = fstatSync(fd).size;
    if (bytes < header.length + DIGEST_BYTES || bytes > MAX_RECORD_BYTES) return undefined;
    const end = bytes - DIGEST_BYTES;
    const start = Buffer.alloc(header.length);
    if (readSync(fd, start, 0, header.length, 0) !== header.length || !start.equals(header)) return undefined;
    const record = new DocumentRecord(fd, header.length, end, 0);
    if (!record.digestMatches()) return undefined;
    // Every entry's lengths checked once (and again as each is read: see viewAt).
    let count = 0;
    for (let at = header.length; at < end; count += 1) {
      const entry = record.viewAt(at);
      if (entry === undefined) return undefined;
      at += entry.length;
    }
    (record as { size: number }).size = count;
    record.cursor = header.length;
    return record;
  }

  /** Whether the last 32 bytes are the sha256 of all before them (read a window at a time). */
  private digestMatches(): boolean {
    const hash = createHash('sha256');
    for (let at = 0; at < this.end; ) {
      const read = readSync(this.fd!, this.window, 0, Math.min(this.window.length, this.end - at), at);
      if (read === 0) return false;
      hash.update(this.window.subarray(0, read));
      at += read;
    }
    const trailer = Buffer.alloc(DIGEST_BYTES);
    return readSync(this.fd!, trailer, 0, DIGEST_BYTES, this.end) === DIGEST_BYTES && hash.digest().equals(trailer);
  }

  /** Lets go of the file and the window (lookups after this find nothing). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.lost = true;
    this.window = Buffer.alloc(0);
    this.windowStart = this.windowEnd = 0;
    this.forgetView();
  }

  private forgetView(): void {
    this.viewed = undefined;
    this.viewedAt = -1;
  }

  /** Fills the window from `at`: a whole window when reading on from the last entry, else a little. */
  private fill(at: number, atLeast: number): boolean {
    const wanted = Math.max(atLeast, at === this.nextAt ? WINDOW_BYTES : SCATTERED_READ_BYTES);
    const length = Math.min(wanted, this.end - at);
    if (length < atLeast) return false;
    if (length > this.window.length) this.window = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const read = readSync(this.fd!, this.window, done, length - done, at + done);
      if (read === 0) break;
      done += read;
    }
    this.windowStart = at;
    this.windowEnd = at + done;
    this.forgetView();
    return done >= atLeast;
  }

  /** The entry at `at`, its lengths checked; undefined (and nothing believed after) when it is not one. */
  private viewAt(at: number): EntryView | undefined {
    if (this.lost || this.fd === undefined) return undefined;
    if (at === this.viewedAt) return this.viewed;
    if (at < this.windowStart || at + 4 > this.windowEnd) {
      if (!this.fill(at, 4)) return this.lose();
    }
    const length = 4 + this.window.readUInt32LE(at - this.windowStart);
    if (at + length > this.end) return this.lose();
    if (at + length > this.windowEnd && !this.fill(at, length)) return this.lose();
    const from = at - this.windowStart;
    const entry = this.window.subarray(from, from + length);
    if (!entryFieldsValid(entry)) return this.lose();
    this.nextAt = at + length;
    this.viewed = entry;
    this.viewedAt = at;
    return entry;
  }

  private lose(): undefined {
    this.lost = true;
    this.forgetView();
    return undefined;
  }

  /** The offset of the entry recorded for a path. */
  offsetOf(relativePath: string): number | undefined {
    if (this.lost) return undefined;
    if (this.last?.relativePath === relativePath) return this.last.at;
    let at: number | undefined;
    const atCursor = this.cursor < this.end ? this.viewAt(this.cursor) : undefined;
    if (atCursor !== undefined && pathIs(atCursor, relativePath)) at = this.cursor;
    else {
      this.byPath ??= this.indexEntries(hashOfPath);
      const wanted = Buffer.from(relativePath, 'utf8');
      at = this.byPath?.find(hashBytes(wanted, 0, wanted.length), (offset) => {
        const entry = this.viewAt(offset);
        return entry !== undefined && pathBytesOf(entry).equals(wanted);
      });
    }
    if (at !== undefined) this.cursor = at + (this.viewAt(at)?.length ?? 0);
    this.last = at === undefined || this.lost ? undefined : { relativePath, at };
    return this.lost ? undefined : at;
  }

  /** The offset of an entry whose bytes had this digest and MIME type. */
  offsetOfDigest(sha256: string, mimeType: string): number | undefined {
    if (this.lost) return undefined;
    this.byDigest ??= this.indexEntries(hashOfDigest);
    const digest = Buffer.from(sha256, 'hex');
    if (digest.length !== DIGEST_BYTES) return undefined;
    const at = this.byDigest?.find(digest.readUInt32LE(0), (offset) => {
      const entry = this.viewAt(offset);
      return entry !== undefined && digestBytesOf(entry).equals(digest) && mimeTypeOf(entry) === mimeType;
    });
    return this.lost ? undefined : at;
  }

  /** A table of every entry's offset by `hashOf` its bytes (one sequential pass). */
  private indexEntries(hashOf: (entry: EntryView) => number): OffsetTable | undefined {
    const table = new OffsetTable(this.size);
    for (let at = this.firstEntry; at < this.end; ) {
      const entry = this.viewAt(at);
      if (entry === undefined) return undefined;
      table.add(hashOf(entry), at);
      at += entry.length;
    }
    return table;
  }

  /** The entry's bytes, its length prefix included (to be copied to the next record as they are). */
  entryBytes(at: number): EntryView {
    return this.viewAt(at) ?? Buffer.alloc(0);
  }

  flagsAt(at: number): number {
    return this.viewAt(at)?.[4] ?? 0;
  }

  /** Whether the entry's identity is `stats`'s. */
  sameIdentityAt(at: number, stats: DocumentStats): boolean {
    const entry = this.viewAt(at);
    if (entry !== undefined && stats instanceof WalkedIdentity) return stats.equalsLittleEndian(entry, 5);
    return (
      entry !== undefined &&
      entry.readBigUInt64LE(5) === BigInt.asUintN(64, stats.ino) &&
      entry.readBigUInt64LE(13) === BigInt.asUintN(64, stats.size) &&
      entry.readBigInt64LE(21) === BigInt.asIntN(64, stats.mtimeNs)
    );
  }

  sha256At(at: number): string {
    return this.viewAt(at) === undefined ? '' : digestBytesOf(this.viewAt(at)!).toString('hex');
  }

  /** The entry's digest as bytes (a view, valid until the record is read again; empty when unreadable). */
  digestAt(at: number): Buffer {
    const entry = this.viewAt(at);
    return entry === undefined ? Buffer.alloc(0) : digestBytesOf(entry);
  }

  /** Whether the entry's MIME type is `mimeType` (compared as bytes: no string made per entry). */
  hasMimeTypeAt(at: number, mimeType: string): boolean {
    const entry = this.viewAt(at);
    if (entry === undefined) return false;
    if (mimeType !== this.mimeBytesOf) {
      this.mimeBytes = Buffer.from(mimeType, 'utf8');
      this.mimeBytesOf = mimeType;
    }
    const wanted = this.mimeBytes;
    const mimeAt = mimeLengthAt(entry);
    if (entry.readUInt16LE(mimeAt) !== wanted.length) return false;
    for (let index = 0; index < wanted.length; index += 1)
      if (entry[mimeAt + 2 + index] !== wanted[index]) return false;
    return true;
  }

  mimeTypeAt(at: number): string {
    const entry = this.viewAt(at);
    return entry === undefined ? '' : mimeTypeOf(entry);
  }

  /** The parse as recorded, JSON text ('' when the record could not be read). */
  parsedJsonAt(at: number): string {
    const entry = this.viewAt(at);
    if (entry === undefined) return '';
    const mimeAt = mimeLengthAt(entry);
    return entry.toString('utf8', mimeAt + 2 + entry.readUInt16LE(mimeAt), entry.length);
  }
}

const PATH_AT = 4 + FIXED_BYTES;

function pathBytesOf(entry: EntryView): Buffer {
  return entry.subarray(PATH_AT, PATH_AT + entry.readUInt32LE(PATH_AT - 4));
}

function pathOf(entry: EntryView): string {
  return entry.toString('utf8', PATH_AT, PATH_AT + entry.readUInt32LE(PATH_AT - 4));
}

/**
 * Whether the entry's path is `relativePath`: an ASCII path is compared byte by byte with the
 * string's code units, no string made of it (a lookup in order asks this once a document).
 */
function pathIs(entry: EntryView, relativePath: string): boolean {
  const length = entry.readUInt32LE(PATH_AT - 4);
  // More bytes than code units: not ASCII, compared as text.
  if (length > relativePath.length) return pathOf(entry) === relativePath;
  if (length < relativePath.length) return false;
  for (let index = 0; index < length; index += 1) {
    const byte = entry[PATH_AT + index]!;
    if (byte >= 0x80 || byte !== relativePath.charCodeAt(index)) return byte >= 0x80 && pathOf(entry) === relativePath;
  }
  return true;
}

function hashOfPath(entry: EntryView): number {
  return hashBytes(entry, PATH_AT, PATH_AT + entry.readUInt32LE(PATH_AT - 4));
}

function digestBytesOf(entry: EntryView): Buffer {
  return entry.subarray(29, 29 + DIGEST_BYTES);
}

function hashOfDigest(entry: EntryView): number {
  return entry.readUInt32LE(29);
}

function mimeLengthAt(entry: EntryView): number {
  return PATH_AT + entry.readUInt32LE(PATH_AT - 4);
}

function mimeTypeOf(entry: EntryView): string {
  const mimeAt = mimeLengthAt(entry);
  return entry.toString('utf8', mimeAt + 2, mimeAt + 2 + entry.readUInt16LE(mimeAt));
}
