// What the search index writer keeps of each document between builds (issue #39, "Edits in a
// second"): its index keys with their counts, its token count, its compressed fetch body and
// excerpt source, keyed by a digest of all they are made from (stored body, indexed text, stemming).
// A rebuild takes an unchanged document's entry instead of tokenizing, stemming and compressing
// it again, so a one-document edit re-tokenizes one document; the index is still put together from
// every document, so it is byte for byte what a from-scratch build writes.
// It lives in the project's .staticmcp/ folder, on its own (the other caches there are other
// modules'): a directory file (a header naming the writer, generator and targets; each entry's
// digests and place; the parts' table; the sha256 of everything before it) and the part files
// holding the entries (kept-parts.ts: each checked by its size and CRC-32 when first read, and
// written again only when an edit changed what it holds). A directory that is absent, of another
// writer, damaged or edited is ignored as a whole, and a part that is missing or damaged is not
// used: those documents are tokenized again, never a wrong index.
// A new directory is written beside it as the documents pass (search-kept-documents-writer.ts),
// and put in place when the index is done.
// An entry of a resource document also carries the digest of what it was listed from (its source:
// its file's content digest and its manifest entry, tree-documents.ts SourceKey): a rebuild finds
// it by that, without reading, parsing or encoding the unchanged document at all.
import { createHash } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { readVarint } from '../core/search/postings.js';
import {
  decodePartTable,
  type KeptPart,
  KeptPartReader,
  type RepeatedEntry,
  partsFolderOf,
  partsSizeBytes,
  removePartsFolder,
} from './kept-parts.js';
import { releaseGrown } from './grown-typed-array.js';
import { KeptDocumentsWriter, NEW_FILE_MARK } from './search-kept-documents-writer.js';
import { readFileMapped } from './read-exactly.js';
import { DigestTable } from './kept-digest-table.js';
import {
  DIGEST_BYTES,
  type KeptDocument,
  partParses,
  RECORD_BYTES,
  RECORD_PART_AT,
  RECORD_SOURCE_AT,
  sameBytes,
  uint32At,
} from './search-kept-entry-layout.js';

export type { KeptDocument };
export { NEW_FILE_MARK };

// 7: a directory of entries naming part files (kept-parts.ts).
// 6: a document whose text fits in its excerpt source keeps an empty body and its document source.
// 5: a stem's key is the stem and STEM_KEY_SUFFIX (it was "~" and the stem), and entries carry
// their source key (4 had one or the other).
const MAGIC = 'staticmcp search documents 7\n';
type FoundEntry = { bytes: Uint8Array; place: { part: number; offset: number }; index: number };
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * A plain Uint8Array view of `bytes[at, at + length)`, which must lie in it: a part's bytes are a
 * Buffer over a resizable buffer (readFileMapped), whose subarray makes a Buffer through its
 * species constructor, many times the cost of a view, two a document.
 */
function viewOf(bytes: Uint8Array, at: number, length: number): Uint8Array {
  if (at + length > bytes.length) throw new RangeError('an entry past its part');
  return new Uint8Array(bytes.buffer, bytes.byteOffset + at, length);
}

/**
 * The previous build's entries (its directory read whole and checked; each part read and checked
 * when an entry of it is first asked for, kept-parts.ts) and this build's, written as they come.
 */
export class KeptSearchDocuments {
  private readonly previous = new DigestTable(0);
  /** Entries by source digest. */
  private readonly previousBySource = new DigestTable(RECORD_SOURCE_AT);
  /** The previous directory's entries (RECORD_BYTES each), in part order. */
  private records: Uint8Array = new Uint8Array(0);
  /** The previous file as read (records is a view of it): given back by endLookups. */
  private recordsWhole: Buffer | undefined;
  private parts: KeptPartReader | undefined;
  /** Each previous part's first entry (its position in `records`). */
  private partFirstRecord = new Uint32Array(0);
  /** This build's entries (none when the bound is 0). */
  private readonly writer: KeptDocumentsWriter | undefined;
  /** What find found last, and for which digest (the same Buffer: a lookup key no caller changes). */
  private lastFound: { digest: Buffer; bySource: boolean; found: FoundEntry } | undefined;
  private readonly header: Buffer;
  /** Why the previous file was not used, when it was there and was not. */
  readonly ignoredBecause: string | undefined;
  /** Entries taken from the previous file. */
  taken = 0;
  /** The previous directory's checksum (hex), when it was read whole; and the new one's once committed. */
  previousChecksum: string | undefined;

  /**
   * Opens `file` for the writer named `identity`: its entries when it is whole and that writer's
   * (`readPrevious` false: none, as --force), and a new file beside it for this build's.
   */
  constructor(
    private readonly file: string,
    readonly identity: string,
    private readonly maxBytes: number,
    readPrevious: boolean,
  ) {
    this.header = Buffer.from(`${MAGIC}${createHash('sha256').update(identity).digest('hex')}\n`, 'utf8');
    this.ignoredBecause = readPrevious ? this.readPrevious() : undefined;
    if (maxBytes > 0)
      this.writer = new KeptDocumentsWriter(file, this.header, maxBytes, {
        parts: this.parts?.parts ?? [],
        reader: this.parts,
      });
  }

  /** The new directory's checksum (hex), once committed. */
  get committedChecksum(): string | undefined {
    return this.writer?.committedChecksum;
  }

  private readPrevious(): string | undefined {
    let size: number;
    try {
      size = statSync(this.file).size;
    } catch {
      return undefined;
    }
    if (size > this.maxBytes) return `it is larger than ${this.maxBytes} bytes`;
    const { header } = this;
    let bytes: Buffer;
    try {
      bytes = readFileMapped(this.file);
    } catch {
      return undefined;
    }
    const refused = (reason: string) => {
      releaseGrown(bytes);
      return reason;
    };
    if (bytes.length < header.length + 8 + DIGEST_BYTES) return refused('another writer made it');
    const body = bytes.subarray(0, bytes.length - DIGEST_BYTES);
    if (!body.subarray(0, header.length).equals(header)) return refused('another writer made it');
    if (!createHash('sha256').update(body).digest().equals(bytes.subarray(body.length)))
      return refused('its checksum does not match (it was damaged or edited)');
    let parts: KeptPart[];
    try {
      const tableLength = body.readUInt32LE(body.length - 8);
      const count = body.readUInt32LE(body.length - 4);
      const tableStart = body.length - 8 - tableLength;
      if (tableStart !== header.length + count * RECORD_BYTES) throw new RangeError('truncated');
      parts = decodePartTable(body, tableStart, body.length - 8);
      if (partsSizeBytes(parts) > this.maxBytes) return refused(`its parts are larger than ${this.maxBytes} bytes`);
      this.records = body.subarray(header.length, tableStart);
      this.recordsWhole = bytes;
      this.partFirstRecord = new Uint32Array(parts.length);
      let first = 0;
      parts.forEach((part, index) => {
        this.partFirstRecord[index] = first;
        first += part.count;
      });
      if (first !== count) throw new RangeError('counts differ');
      for (let record = 0; record < count; record += 1) {
        const start = record * RECORD_BYTES;
        const sourceLength = this.records[start + DIGEST_BYTES];
        if ((sourceLength !== 0 && sourceLength !== DIGEST_BYTES) || !this.liesInItsPart(record))
          throw new RangeError('an entry of another form');
      }
      const records = this.records;
      this.previous.index(records, RECORD_BYTES, count);
      this.previousBySource.index(records, RECORD_BYTES, count, (start) => records[start + DIGEST_BYTES] !== 0);
    } catch {
      this.previous.clear();
      this.previousBySource.clear();
      this.records = new Uint8Array(0);
      this.recordsWhole = undefined;
      return refused('an entry does not parse');
    }
    // Given back as let go: take's body and excerpt are copied out before the next document's.
    this.parts = new KeptPartReader(
      partsFolderOf(this.file),
      parts,
      (partBytes, part) => partParses(partBytes, part),
      false,
      true,
    );
    this.previousChecksum = bytes.subarray(body.length).toString('hex');
    return undefined;
  }

  /** Record `record`'s part and offset when its part is the one its position says and the offset lies in it. */
  private partOf(record: number): { part: number; offset: number } | undefined {
    if (!this.liesInItsPart(record)) return undefined;
    const start = record * RECORD_BYTES + RECORD_PART_AT;
    return { part: uint32At(this.records, start), offset: uint32At(this.records, start + 4) };
  }

  /** Whether record `record`'s part is the one its position says and its offset lies in it (no object made: a check a record). */
  private liesInItsPart(record: number): boolean {
    const start = record * RECORD_BYTES + RECORD_PART_AT;
    const part = uint32At(this.records, start);
    const first = this.partFirstRecord[part];
    const size = this.parts?.parts[part]?.sizeBytes ?? Number.POSITIVE_INFINITY;
    return first !== undefined && record >= first && uint32At(this.records, start + 4) < size;
  }

  /** The previous entry found under `digest`: its part's bytes (read and checked), where it starts, its place. */
  private find(digest: Buffer, bySource: boolean) {
    // The lister asks whether a source is kept, then the writer takes it with the same digest.
    const last = this.lastFound;
    if (last?.digest === digest && last.bySource === bySource && last.found.bytes.length > 0) return last.found;
    const start = (bySource ? this.previousBySource : this.previous).get(this.records, digest);
    if (start === undefined) return undefined;
    const record = start / RECORD_BYTES;
    const place = this.partOf(record)!;
    const bytes = this.parts?.bytesOf(place.part);
    if (bytes === undefined) return undefined;
    const found = { bytes, place, index: record - this.partFirstRecord[place.part]! };
    this.lastFound = { digest, bySource, found };
    return found;
  }

  /** The directory record of this build's entry appended last (valid until the next append). */
  get lastRecord(): Uint8Array | undefined {
    return this.writer?.lastRecord;
  }

  /** The previous directory's parts (none when it was not read), and their folder. */
  get previousParts(): { folder: string; parts: readonly KeptPart[] } {
    return { folder: partsFolderOf(this.file), parts: this.parts?.parts ?? [] };
  }

  /** This build's entries so far, and where the last one lies (search-edit-state-recorder.ts). */
  get appended(): { count: number; last: KeptDocumentsWriter['lastEntry'] } | undefined {
    return this.writer === undefined ? undefined : { count: this.writer.appended, last: this.writer.lastEntry };
  }

  /** The new directory's parts, once committed. */
  get committedParts(): readonly KeptPart[] | undefined {
    return this.writer?.committedParts;
  }

  /**
   * Keeps the previous entry `from` (`length` bytes, under `digest` and its source `source`, its
   * fields `fieldsOffset` bytes in) for the next build as the edit state (search-edit-state.ts)
   * vouches it is: without reading its part while it continues a run of its part's entries, else
   * copied from its part as it lies there (the rest of the part an edit broke: no entry parsed or
   * made again). Returns where its fields start for termsAt, or undefined when it cannot be kept
   * so (its part is missing or damaged, or it is not that entry there: the caller takes it instead).
   */
  repeat(digest: Uint8Array, source: Uint8Array, from: RepeatedEntry, length: number, fieldsOffset: number) {
    const parts = this.parts;
    const part = parts?.parts[from.part];
    if (part === undefined || from.offset + length > part.sizeBytes || from.index >= part.count) return undefined;
    if (this.writer !== undefined && !this.writer.appendRepeated(digest, source, from, length)) {
      const bytes = parts!.bytesOf(from.part);
      const start = from.offset;
      const end = start + length;
      if (
        bytes === undefined ||
        fieldsOffset !== DIGEST_BYTES + 1 + DIGEST_BYTES ||
        end > bytes.length ||
        !sameBytes(bytes, start, digest) ||
        bytes[start + DIGEST_BYTES] !== DIGEST_BYTES ||
        !sameBytes(bytes, start + DIGEST_BYTES + 1, source)
      )
        return undefined;
      this.writer.appendKept(bytes, start, end, source, from);
    }
    this.taken += 1;
    return parts!.starts[from.part]! + from.offset + fieldsOffset;
  }

  /** Whether the previous build kept an entry under the source digest `source` (its part whole). */
  hasSource(source: Buffer): boolean {
    return this.find(source, true) !== undefined;
  }

  /**
   * The previous build's entry for `digest` (or, `bySource`, for the source digest `digest`), if it
   * kept one that parses; kept again for the next build, under `source` when given.
   */
  take(digest: Buffer, source?: Buffer, bySource = false): KeptDocument | undefined {
    const found = this.find(digest, bySource);
    if (found === undefined) return undefined;
    const { bytes, place } = found;
    const start = place.offset;
    try {
      const at = { at: start + DIGEST_BYTES };
      const sourceLength = readVarint(bytes, at);
      const sourceAt = at.at;
      at.at += sourceLength;
      const fieldsStart = at.at;
      const keysLength = readVarint(bytes, at);
      // Checked now, decoded only when asked (a writer that patches the previous terms never asks).
      let keyCount = keysLength === 0 ? 0 : 1;
      for (let index = at.at; index < at.at + keysLength; index += 1) if (bytes[index] === 0x0a) keyCount += 1;
      at.at += keysLength;
      const countBytes = readVarint(bytes, at);
      const countsEnd = at.at + countBytes;
      const tokenCount = readVarint(bytes, at);
      let countCount = 0;
      for (; at.at < countsEnd; countCount += 1) readVarint(bytes, at);
      if (at.at !== countsEnd || countCount !== keyCount) return undefined;
      const bodyLength = readVarint(bytes, at);
      const body = viewOf(bytes, at.at, bodyLength);
      at.at += bodyLength;
      const excerptLength = readVarint(bytes, at);
      const excerpt = viewOf(bytes, at.at, excerptLength);
      const end = at.at + excerptLength;
      this.taken += 1;
      // Kept for the next build as it is, under this build's source digest: the same bytes (the
      // same source) are the previous entry, which a part of the same entries names as it is.
      // Copied from the part in place, not through views of it (see DigestTable).
      const sameSource =
        source === undefined
          ? sourceLength === 0
          : sourceLength === source.length && sameBytes(bytes, sourceAt, source);
      if (sameSource)
        this.writer?.appendKept(bytes, start, end, source, { part: place.part, index: found.index, offset: start });
      else this.writer?.appendKept(bytes, start, end, source, undefined, fieldsStart);
      const termsAt = this.parts!.starts[place.part]! + fieldsStart;
      return { terms: () => this.termsAt(termsAt), termsAt, tokenCount, body, excerpt };
    } catch {
      return undefined;
    }
  }

  /**
   * Lets go of the previous directory and the parts held (every document has passed): from here
   * on nothing is found by digest, and termsAt reads a part again when asked. The directory (73
   * bytes a document) and its two tables were held through the index step's peak.
   */
  endLookups(): void {
    this.lastFound = undefined;
    this.previous.clear();
    this.previousBySource.clear();
    this.records = new Uint8Array(0);
    if (this.recordsWhole !== undefined) releaseGrown(this.recordsWhole);
    this.recordsWhole = undefined;
    this.parts?.release();
  }

  /** The keys and counts of the entry whose fields start at `position` (KeptDocument.termsAt), as take checked them. */
  termsAt(position: number): { keys: string[]; counts: number[] } {
    const part = this.parts!.partAt(position);
    const bytes = this.parts!.bytesOf(part);
    // Only when a part let go (kept-parts.ts MAX_HELD_PARTS) was removed or changed since it was read.
    if (bytes === undefined)
      throw new Error(
        `the kept search state in ${this.file} changed while this build read it (another build of this project?): build again`,
      );
    const cursor = { at: position - this.parts!.starts[part]! };
    const keysLength = readVarint(bytes, cursor);
    const keysText = decoder.decode(bytes.subarray(cursor.at, cursor.at + keysLength));
    cursor.at += keysLength;
    const countsEnd = readVarint(bytes, cursor) + cursor.at;
    readVarint(bytes, cursor);
    const counts: number[] = [];
    while (cursor.at < countsEnd) counts.push(readVarint(bytes, cursor));
    return { keys: keysText === '' ? [] : keysText.split('\n'), counts };
  }

  /** Adds this build's entry for `digest` (and `source`, when given) to the new file (dropped past the size bound). */
  keep(digest: Buffer, kept: KeptDocument, source?: Buffer): void {
    this.writer?.keep(digest, kept, source);
  }

  /** Puts the new directory in place of the previous one (the index it was made with is whole), and drops the parts it no longer names. */
  commit(): void {
    if (this.writer !== undefined) this.writer.commit();
    else {
      rmSync(this.file, { force: true });
      removePartsFolder(this.file);
    }
  }

  /** Drops the new file and the parts it made (the index failed, or the file outgrew its bound). */
  discard(): void {
    this.writer?.discard();
  }
}
