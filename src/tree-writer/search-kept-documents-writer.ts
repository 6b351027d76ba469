// This build's kept search documents (search-kept-documents.ts), written as the documents pass: a
// new directory file beside the previous one (its header, then a record per entry: digests and
// place) and the entries in parts (kept-parts.ts: a part whose entries repeat a previous part's is
// that part, never copied), then at commit the parts' table, the entry count and the sha256 of
// everything before it; the file is put in place of the previous one only then. Past its size
// bound it keeps nothing (the next build tokenizes those documents again).
import { createHash } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import { writeVarint } from '../core/search/postings.js';
import {
  encodePartTable,
  type KeptPartReader,
  KeptPartWriter,
  type KeptPart,
  partsFolderOf,
  removePartsFolder,
  removeUnnamedParts,
  type RepeatedEntry,
} from './kept-parts.js';
import { SpillWriter } from './spill-files.js';
import {
  DIGEST_BYTES,
  type KeptDocument,
  NO_SOURCE,
  RECORD_BYTES,
  RECORD_PART_AT,
  RECORD_SOURCE_AT,
  SOURCE_LENGTH,
  uint32At,
  varintLength,
  writeUint32At,
} from './search-kept-entry-layout.js';

/** The new file is `<file><NEW_FILE_MARK><pid>` until it is put in place. */
export const NEW_FILE_MARK = '.new-';
/** Directory bytes gathered before they are hashed and appended (under glibc's mmap threshold). */
const PENDING_BYTES = 1 << 16;

export class KeptDocumentsWriter {
  private writer: SpillWriter | undefined;
  private readonly partWriter: KeptPartWriter;
  private readonly hash = createHash('sha256');
  private readonly record = new Uint8Array(RECORD_BYTES);
  /**
   * Directory bytes not yet hashed and appended: a hash update and an append a record were most
   * of what an unchanged document's entry cost here.
   */
  private pending: Uint8Array | undefined = new Uint8Array(PENDING_BYTES);
  private pendingUsed = 0;
  /**
   * A made entry's bytes, reused from document to document: a new Buffer each was a malloc of a
   * few KiB alive until a collection, and a first build's stream of them grew glibc's heap.
   */
  private entry = Buffer.allocUnsafeSlow(8192);
  private appendedBytes = 0;
  private recordCount = 0;
  /** The new directory's checksum (hex), once committed. */
  committedChecksum: string | undefined;
  /** The new directory's parts, once committed. */
  committedParts: readonly KeptPart[] | undefined;
  /** Entries appended so far (a document whose entry was appended raised it). */
  appended = 0;
  /** The entry appended last: where it lies in the new parts, its length, where its fields start in it. */
  readonly lastEntry = { part: 0, index: 0, offset: 0, length: 0, fieldsOffset: 0 };

  /** A new directory for `file` starting with `header`; `previous`: the previous parts as read (repeated ones are not copied). */
  constructor(
    private readonly file: string,
    header: Uint8Array,
    private readonly maxBytes: number,
    previous: { parts: readonly KeptPart[]; reader: KeptPartReader | undefined },
  ) {
    this.writer = new SpillWriter(`${file}${NEW_FILE_MARK}${process.pid}`);
    this.partWriter = new KeptPartWriter(partsFolderOf(file), previous.parts, previous.reader);
    this.append(header);
  }

  /** The directory record of the entry appended last (valid until the next append). */
  get lastRecord(): Uint8Array {
    return this.record;
  }

  /** Adds this build's entry for `digest` (and `source`, when given) to the new file (dropped past the size bound). */
  keep(digest: Buffer, kept: KeptDocument, source?: Buffer): void {
    // A key holding the separator is not kept (tokens never do); its document is tokenized next time.
    const terms = kept.terms();
    if (this.writer === undefined || terms.keys.some((key) => key.includes('\n'))) return;
    const keys = Buffer.from(terms.keys.join('\n'), 'utf8');
    const counts: number[] = [kept.tokenCount, ...terms.counts];
    const countBytes = counts.reduce((sum, count) => sum + varintLength(count), 0);
    const sourceBytes = source?.length ?? 0;
    const length =
      DIGEST_BYTES +
      1 +
      sourceBytes +
      varintLength(keys.length) +
      keys.length +
      varintLength(countBytes) +
      countBytes +
      varintLength(kept.body.length) +
      kept.body.length +
      varintLength(kept.excerpt.length) +
      kept.excerpt.length;
    // Every byte of it is written below, and append copies it.
    if (this.entry.length < length) this.entry = Buffer.allocUnsafeSlow(Math.max(length, 2 * this.entry.length));
    const { entry } = this;
    let at = digest.copy(entry, 0);
    at = writeVarint(entry, at, sourceBytes);
    if (source !== undefined) at += source.copy(entry, at);
    at = writeVarint(entry, at, keys.length);
    at += keys.copy(entry, at);
    at = writeVarint(entry, at, countBytes);
    for (const count of counts) at = writeVarint(entry, at, count);
    at = writeVarint(entry, at, kept.body.length);
    entry.set(kept.body, at);
    at = writeVarint(entry, at + kept.body.length, kept.excerpt.length);
    entry.set(kept.excerpt, at);
    this.appendEntry(digest, source, entry, length);
  }

  /**
   * Appends the previous entry `bytes[start, end)` to this build's parts: as it is (`from`, the
   * entry it repeats), or with `source` in place of its source field (its fields from `fieldsStart`).
   */
  appendKept(
    bytes: Uint8Array,
    start: number,
    end: number,
    source: Uint8Array | undefined,
    from?: RepeatedEntry,
    fieldsStart?: number,
  ): void {
    if (this.writer === undefined) return;
    const sourceBytes = source?.length ?? 0;
    const length = fieldsStart === undefined ? end - start : DIGEST_BYTES + 1 + sourceBytes + end - fieldsStart;
    if (!this.room(length)) return;
    const writer = this.partWriter;
    const index = writer.count;
    const place = writer.begin(from);
    if (fieldsStart === undefined) writer.add(bytes, start, end);
    else {
      writer.add(bytes, start, start + DIGEST_BYTES);
      writer.add(sourceBytes === 0 ? NO_SOURCE : SOURCE_LENGTH, 0, 1);
      if (source !== undefined) writer.add(source, 0, sourceBytes);
      writer.add(bytes, fieldsStart, end);
    }
    writer.end(uint32At(bytes, start));
    this.appendRecord(bytes, start, source, place, index, length);
  }

  /**
   * Appends the previous entry `from` (`length` bytes, its digest `digest`, its source `source`)
   * as it is, without reading it, when the part writer leaves it in the previous part (a run of a
   * previous part's entries); false, appending nothing, when it would have to be copied.
   */
  appendRepeated(digest: Uint8Array, source: Uint8Array, from: RepeatedEntry, length: number): boolean {
    if (this.writer === undefined) return true;
    if (this.appendedBytes + length > this.maxBytes) {
      // Past the bound this build keeps nothing: handled, as room does.
      this.discard();
      return true;
    }
    const place = this.partWriter.repeatUncopied(from, length, uint32At(digest, 0));
    if (place === undefined) return false;
    this.appendedBytes += length;
    this.appendRecord(digest, 0, source, place, place.index, length);
    return true;
  }

  /** Appends the entry `bytes[0, length)` to this build's parts, and its record to the directory. */
  private appendEntry(digest: Uint8Array, source: Uint8Array | undefined, bytes: Uint8Array, length: number): void {
    if (this.writer === undefined) return;
    if (!this.room(length)) return;
    const writer = this.partWriter;
    const index = writer.count;
    const place = writer.begin(undefined);
    writer.add(bytes, 0, length);
    writer.end(uint32At(digest, 0));
    this.appendRecord(digest, 0, source, place, index, length);
  }

  /** Whether an entry of `length` bytes still fits the bound (past it, this build keeps nothing). */
  private room(length: number): boolean {
    if (this.appendedBytes + length > this.maxBytes) {
      this.discard();
      return false;
    }
    this.appendedBytes += length;
    return true;
  }

  /** The directory's record of the entry whose digest is `digestBytes[digestAt, +32)`, placed at `place`. */
  private appendRecord(
    digestBytes: Uint8Array,
    digestAt: number,
    source: Uint8Array | undefined,
    place: { part: number; offset: number },
    index: number,
    length: number,
  ): void {
    const last = this.lastEntry;
    last.part = place.part;
    last.index = index;
    last.offset = place.offset;
    last.length = length;
    last.fieldsOffset = DIGEST_BYTES + 1 + (source?.length ?? 0);
    this.appended += 1;
    // One record's bytes, reused: append copies them.
    const record = this.record;
    for (let index = 0; index < DIGEST_BYTES; index += 1) record[index] = digestBytes[digestAt + index]!;
    if (source !== undefined) {
      record[DIGEST_BYTES] = DIGEST_BYTES;
      record.set(source, RECORD_SOURCE_AT);
    } else record.fill(0, DIGEST_BYTES, RECORD_PART_AT);
    writeUint32At(record, RECORD_PART_AT, place.part);
    writeUint32At(record, RECORD_PART_AT + 4, place.offset);
    this.append(record);
    this.recordCount += 1;
  }

  private append(bytes: Uint8Array): void {
    const pending = this.pending!;
    if (bytes.length > pending.length - this.pendingUsed) this.flushPending();
    if (bytes.length > pending.length) {
      this.hash.update(bytes);
      this.writer!.append(bytes);
      return;
    }
    pending.set(bytes, this.pendingUsed);
    this.pendingUsed += bytes.length;
  }

  /** Hashes and appends the directory bytes gathered. */
  private flushPending(): void {
    if (this.pendingUsed === 0) return;
    const bytes = this.pending!.subarray(0, this.pendingUsed);
    this.pendingUsed = 0;
    this.hash.update(bytes);
    this.writer!.append(bytes);
  }

  /** Puts the new directory in place of the previous one (the index it was made with is whole), and drops the parts it no longer names. */
  commit(): void {
    if (this.writer === undefined) {
      rmSync(this.file, { force: true });
      removePartsFolder(this.file);
      return;
    }
    const parts = this.partWriter.finish();
    this.committedParts = parts;
    const table = encodePartTable(parts);
    const lengths = Buffer.alloc(8);
    lengths.writeUInt32LE(table.length, 0);
    lengths.writeUInt32LE(this.recordCount, 4);
    this.append(table);
    this.append(lengths);
    this.flushPending();
    this.pending = undefined;
    const checksum = this.hash.digest();
    this.committedChecksum = checksum.toString('hex');
    this.writer.append(checksum);
    this.writer.close();
    renameSync(this.writer.file, this.file);
    this.writer = undefined;
    removeUnnamedParts(partsFolderOf(this.file), parts);
  }

  /** Drops the new file and the parts it made (the index failed, or the file outgrew its bound). */
  discard(): void {
    if (this.writer === undefined) return;
    this.pending = undefined;
    this.pendingUsed = 0;
    this.writer.close();
    rmSync(this.writer.file, { force: true });
    this.partWriter.discard();
    this.writer = undefined;
  }
}
