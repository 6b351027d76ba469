// llms-full.txt's entries kept from the previous build (issue #39, "Edits in a second"): an entry is
// a function of its document's source key (search-results.ts: id, title, url, URI, MIME type and
// the file's digest) and the links' base, so `.staticmcp/llms-full-entries.bin` keeps each entry of
// the last llms-full.txt under a digest of those (of the source key's own digest, which the search
// writer makes anyway, not of the key again), and the next build takes an unchanged document's
// entry from there instead of reading its text (a kept document's file is otherwise read for it
// alone: ~8 MiB of documents a build). The file is a directory (MAGIC, then per entry KEY_BYTES of
// key and its part, offset and length as u32, then the parts' table, its length and the entry
// count, then the sha256 of all before it), checked whole and held (DigestKeyTable looks keys up
// in it); the entries' UTF-8 bytes lie in part files beside it (kept-parts.ts), each read and
// checked (size, CRC-32) when an entry of it is first taken, and written again only when the
// entries it holds changed. A damaged directory is not used; a damaged part, only its entries.
// This build's llms-full.txt is written from this build's parts (finishParts): an entry's bytes
// are written once, into its part, not also into a scratch copy.
import { createHash, hash } from 'node:crypto';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { DigestKeyTable } from '../shared/digest-key-table.js';
import {
  decodePartTable,
  encodePartTable,
  type EntryPlace,
  type KeptPart,
  KeptPartReader,
  KeptPartWriter,
  partsFolderOf,
  removeUnnamedParts,
} from './kept-parts.js';
import { SpillWriter } from './spill-files.js';
import type { FinishedParts } from './llms-full-entries.js';

// 03: keys made of the source key's digest (02: of the source key).
const MAGIC = Buffer.from('SMCPLF03', 'latin1');
/** This build's entries are written to `<file><NEW_ENTRIES_MARK><pid>`, then renamed into place. */
export const NEW_ENTRIES_MARK = '.new-';
const KEY_BYTES = 16;
/** A source key's digest (sha256's). */
const SOURCE_DIGEST_BYTES = 32;
/** A directory entry: its key, then its part, offset and length (u32 each). */
const RECORD_BYTES = KEY_BYTES + 12;
const CHECKSUM_BYTES = 32;

/** The previous directory, checked: its entries (RECORD_BYTES each, in part order) and parts. */
interface PreviousEntries {
  records: Buffer;
  parts: KeptPart[];
  /** Its sha256 (hex). */
  checksum: string;
  /** Each part's first entry. */
  partFirstRecord: Uint32Array;
}

export class KeptLlmsEntries {
  private readonly records: Buffer;
  /** The previous entries by key. */
  private readonly table: DigestKeyTable;
  private readonly partFirstRecord: Uint32Array;
  private parts: KeptPartReader | undefined;
  /** The entry lookup returned last, and where it lies: added back as it is, it repeats that entry. */
  private lastTaken: { bytes: Uint8Array; part: number; index: number; offset: number } | undefined;
  private next: SpillWriter | undefined;
  private partWriter: KeptPartWriter | undefined;
  private readonly nextHash = createHash('sha256');
  private readonly record = Buffer.alloc(RECORD_BYTES);
  /**
   * What keyOf hashes: JSON.stringify([salt, linkBase]) as UTF-8, then room for a source digest,
   * for the link base it was made for (one buffer, the digest copied in: no string a document).
   */
  private keyInput: { linkBase: string | undefined; bytes: Buffer; digestAt: number } | undefined;
  private nextCount = 0;
  /** The previous directory's checksum (hex) and parts, when it was read whole. */
  readonly previous: { checksum: string; folder: string; parts: readonly KeptPart[] } | undefined;
  /** This build's directory's checksum (hex) and parts, once committed. */
  committed: { checksum: string; parts: readonly KeptPart[] } | undefined;
  /**
   * Whether the previous parts are as they were written (the search edit state says so, by their
   * size, mtime and inode): an entry is then named in this build's parts without being read.
   */
  private trusted = false;

  /**
   * `file`: the kept entries; `salt`: the writer's identity (a new one keeps nothing of the old);
   * `sourceDigestOf`: a collision-resistant digest of a source key (the build's is the search
   * writer's, made for the same document just before).
   */
  constructor(
    readonly file: string,
    private readonly salt: string,
    readPrevious: boolean,
    private readonly sourceDigestOf: (sourceKey: string) => Uint8Array = (sourceKey) =>
      hash('sha256', sourceKey, 'buffer'),
  ) {
    const previous = readPrevious ? readDirectory(file) : undefined;
    this.records = previous?.records ?? Buffer.alloc(0);
    this.previous = previous && { checksum: previous.checksum, folder: partsFolderOf(file), parts: previous.parts };
    this.partFirstRecord = previous?.partFirstRecord ?? new Uint32Array(0);
    this.table = new DigestKeyTable(this.records, RECORD_BYTES, KEY_BYTES);
    // Entries are taken in about the order they were kept: one part held at a time.
    if (previous) this.parts = new KeptPartReader(partsFolderOf(file), previous.parts, undefined, true);
    try {
      this.next = new SpillWriter(`${file}${NEW_ENTRIES_MARK}${process.pid}`);
      this.partWriter = new KeptPartWriter(partsFolderOf(file), previous?.parts ?? [], this.parts);
      this.append(MAGIC);
    } catch {
      this.next?.close();
      this.next = undefined;
    }
  }

  keyOf(sourceKey: string, linkBase: string | undefined): Buffer {
    return this.keyOfDigest(this.sourceDigestOf(sourceKey), linkBase);
  }

  /** keyOf, given the source key's digest (`sourceDigestOf`'s): a document of an unchanged list run has it. */
  keyOfDigest(digest: Uint8Array, linkBase: string | undefined): Buffer {
    // The salt and link base made once: the salt (the writer's identity) is long. A JSON array
    // never ends inside itself, so the digest after it is unambiguous.
    if (this.keyInput === undefined || this.keyInput.linkBase !== linkBase) {
      const head = Buffer.from(JSON.stringify([this.salt, linkBase ?? null]), 'utf8');
      const bytes = Buffer.alloc(head.length + SOURCE_DIGEST_BYTES);
      head.copy(bytes);
      this.keyInput = { linkBase, bytes, digestAt: head.length };
    }
    const { bytes, digestAt } = this.keyInput;
    if (digest.length !== SOURCE_DIGEST_BYTES) throw new RangeError('a source digest is not 32 bytes');
    bytes.set(digest, digestAt);
    // One-shot (no Hash object a document): the same bytes as createHash's.
    return hash('sha256', bytes, 'buffer').subarray(0, KEY_BYTES);
  }

  /** The kept entry's UTF-8 bytes, or undefined (none, or its part is missing or damaged). */
  lookup(key: Buffer): Uint8Array | undefined {
    const position = this.table.find(key);
    if (position < 0 || this.parts === undefined) return undefined;
    const at = position * RECORD_BYTES + KEY_BYTES;
    const part = this.records.readUInt32LE(at);
    const offset = this.records.readUInt32LE(at + 4);
    const bytes = this.parts.bytesOf(part)?.subarray(offset, offset + this.records.readUInt32LE(at + 8));
    this.lastTaken = bytes && { bytes, part, index: position - this.partFirstRecord[part]!, offset };
    return bytes;
  }

  /** Lets entries be kept without reading their parts (search-edit-state.ts vouches for the parts). */
  trust(): void {
    this.trusted = this.parts !== undefined;
  }

  /**
   * Keeps the previous entry under `key` for the next build without reading its part, when the
   * parts are trusted and it repeats a run of its part's entries; returns its length and where it
   * lies in this build's parts, or undefined (nothing kept: the caller looks it up and adds it);
   * `fits` says whether an entry of that length still fits llms-full.txt.
   */
  repeat(key: Buffer, fits: (length: number) => boolean): { length: number; place: EntryPlace } | undefined {
    const { next, partWriter } = this;
    if (!this.trusted || next === undefined || partWriter === undefined) return undefined;
    const position = this.table.find(key);
    if (position < 0) return undefined;
    const at = position * RECORD_BYTES + KEY_BYTES;
    const part = this.records.readUInt32LE(at);
    const from = { part, index: position - this.partFirstRecord[part]!, offset: this.records.readUInt32LE(at + 4) };
    const length = this.records.readUInt32LE(at + 8);
    if (!fits(length)) return undefined;
    const place = partWriter.repeatUncopied(from, length, key.readUInt32LE(0));
    if (place === undefined) return undefined;
    this.appendRecord(key, place, length);
    return { length, place };
  }

  /**
   * Keeps an entry of this build's llms-full.txt for the next one; returns where it lies in this
   * build's parts (read back once finishParts closed them), or undefined when it is not kept.
   */
  add(key: Uint8Array, entry: Uint8Array): EntryPlace | undefined {
    const { next, partWriter, lastTaken } = this;
    if (next === undefined || partWriter === undefined) return undefined;
    const from =
      lastTaken?.bytes === entry
        ? { part: lastTaken.part, index: lastTaken.index, offset: lastTaken.offset }
        : undefined;
    const keyWord = Buffer.from(key.buffer, key.byteOffset, 4).readUInt32LE(0);
    const place = partWriter.append([entry], keyWord, from);
    this.appendRecord(key, place, entry.length);
    return place;
  }

  private appendRecord(key: Uint8Array, place: EntryPlace, length: number): void {
    // One record's bytes, reused: append copies them.
    const record = this.record;
    record.set(key.subarray(0, KEY_BYTES));
    record.writeUInt32LE(place.part, KEY_BYTES);
    record.writeUInt32LE(place.offset, KEY_BYTES + 4);
    record.writeUInt32LE(length, KEY_BYTES + 8);
    this.append(record);
    this.nextCount += 1;
  }

  /** This build's parts, the last one closed and written: where the entries add placed lie. */
  finishParts(): FinishedParts | undefined {
    if (this.next === undefined || this.partWriter === undefined) return undefined;
    return { folder: partsFolderOf(this.file), parts: this.partWriter.finish() };
  }

  private append(bytes: Uint8Array): void {
    this.next!.append(bytes);
    this.nextHash.update(bytes);
  }

  /** Puts this build's entries in place of the previous ones (the build wrote its llms-full.txt). */
  commit(): void {
    const { next, partWriter } = this;
    if (next === undefined || partWriter === undefined) return;
    this.next = undefined;
    try {
      const parts = partWriter.finish();
      const table = encodePartTable(parts);
      const lengths = Buffer.alloc(8);
      lengths.writeUInt32LE(table.length, 0);
      lengths.writeUInt32LE(this.nextCount, 4);
      for (const bytes of [table, lengths]) {
        next.append(bytes);
        this.nextHash.update(bytes);
      }
      const checksum = this.nextHash.digest();
      next.append(checksum);
      next.close();
      renameSync(next.file, this.file);
      this.committed = { checksum: checksum.toString('hex'), parts };
    } catch {
      partWriter.discard();
      rmSync(next.file, { force: true });
      return;
    }
    // The parts the new directory names stay whatever happens here.
    try {
      removeUnnamedParts(partsFolderOf(this.file), partWriter.parts);
    } catch {
      // Left for the next build's commit to remove.
    }
  }

  /** Drops this build's entries when they were not committed. */
  discard(): void {
    const { next } = this;
    if (next === undefined) return;
    this.next = undefined;
    try {
      next.close();
    } catch {
      // A write failed: the file goes all the same.
    }
    rmSync(next.file, { force: true });
    this.partWriter?.discard();
  }
}

/** The directory at `file`, checked whole, or undefined when it is missing, foreign or damaged. */
function readDirectory(file: string): PreviousEntries | undefined {
  try {
    const whole = readFileSync(file);
    if (whole.length < MAGIC.length + 8 + CHECKSUM_BYTES || !whole.subarray(0, MAGIC.length).equals(MAGIC))
      throw new Error('foreign');
    const body = whole.subarray(0, whole.length - CHECKSUM_BYTES);
    if (!createHash('sha256').update(body).digest().equals(whole.subarray(body.length))) throw new Error('damaged');
    const tableLength = body.readUInt32LE(body.length - 8);
    const count = body.readUInt32LE(body.length - 4);
    const tableStart = body.length - 8 - tableLength;
    if (tableStart !== MAGIC.length + count * RECORD_BYTES) throw new Error('damaged');
    const parts = decodePartTable(body, tableStart, body.length - 8);
    const records = body.subarray(MAGIC.length, tableStart);
    // Each part's entries lie end to end in it, in the directory's order, and fill it.
    const partFirstRecord = new Uint32Array(parts.length);
    let record = 0;
    parts.forEach((part, index) => {
      partFirstRecord[index] = record;
      let offset = 0;
      for (let entry = 0; entry < part.count; entry += 1, record += 1) {
        const at = record * RECORD_BYTES + KEY_BYTES;
        if (record >= count || records.readUInt32LE(at) !== index || records.readUInt32LE(at + 4) !== offset)
          throw new Error('damaged');
        offset += records.readUInt32LE(at + 8);
      }
      if (offset !== part.sizeBytes) throw new Error('damaged');
    });
    if (record !== count) throw new Error('damaged');
    return { records, parts, partFirstRecord, checksum: whole.subarray(body.length).toString('hex') };
  } catch {
    return undefined;
  }
}
