// What the search index writer keeps of each document between builds (issue #39, "Edits in a
// second"): its index keys with their counts, its token count, its compressed fetch body and
// compressed excerpt source, keyed
// by a digest of everything they are made from (the stored body, the indexed text, the stemming).
// A rebuild takes an unchanged document's entry instead of tokenizing, stemming and compressing
// it again, so a one-document edit re-tokenizes one document; the index is still put together from
// every document, so it is byte for byte what a from-scratch build writes.
// The file lives in the project's .staticmcp/ folder, on its own (the other caches there are
// other modules'): a header naming the writer (generator and targets), the entries, and the
// sha256 of everything before it. A file that is absent, of another writer, damaged or edited
// is ignored as a whole: every document is tokenized again, never a wrong index.
// A new file is written beside it as the documents pass, and put in place when the index is done.
// An entry of a resource document also carries the digest of what it was listed from (its source:
// its file's content digest and its manifest entry, tree-documents.ts SourceKey): a rebuild finds
// it by that, without reading, parsing or encoding the unchanged document at all.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { readVarint, writeVarint } from '../core/search/postings.js';
import { SpillWriter } from './spill-files.js';

/** The kept file's size at most (reading it is one read): past it, nothing is kept or read. */
export const DEFAULT_MAX_KEPT_SEARCH_BYTES = 512 * 1024 * 1024;
/** Changes the bound above (bytes; 0 turns the kept file off). */
export const MAX_KEPT_SEARCH_BYTES_VARIABLE = 'STATICMCP_MAX_KEPT_SEARCH_BYTES';

// 6: a document whose text fits in its excerpt source keeps an empty body and its document source.
// 5: a stem's key is the stem and STEM_KEY_SUFFIX (it was "~" and the stem), and entries carry
// their source key (4 had one or the other).
const MAGIC = 'staticmcp search documents 6\n';
/** The new file is `<file><NEW_FILE_MARK><pid>` until it is put in place. */
export const NEW_FILE_MARK = '.new-';
const DIGEST_BYTES = 32;
/** An entry's source field: none, or the length byte before its digest. */
const NO_SOURCE = Uint8Array.of(0);
const SOURCE_LENGTH = Uint8Array.of(DIGEST_BYTES);

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

/** The bound in force: the environment's, else the default. */
export function maxKeptSearchBytes(environment: Record<string, string | undefined>): number {
  const given = environment[MAX_KEPT_SEARCH_BYTES_VARIABLE];
  if (given === undefined || given === '') return DEFAULT_MAX_KEPT_SEARCH_BYTES;
  const value = Number(given);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(
      `${MAX_KEPT_SEARCH_BYTES_VARIABLE} is ${JSON.stringify(given)}: give a number of bytes (0 keeps nothing)`,
    );
  return value;
}

/**
 * The digest an entry is kept under: the stemming, the document's stored body and its indexed
 * text. A body that holds the text (every document's but a call result's) covers it, so the text
 * is hashed once: `undefined` says the body holds it. Unambiguous: a body is JSON, which never
 * holds a raw NUL.
 */
export function keptDigestOf(stemming: string, body: string, indexedText: string | undefined): Buffer {
  const hash = createHash('sha256');
  hash.update(indexedText === undefined ? `${stemming}\0` : `${stemming}\0${indexedText}\0`);
  return hash.update(body).digest();
}

/** The digest an entry is also found under: the stemming and the document's source key (tree-documents.ts). */
export function keptSourceDigestOf(stemming: string, sourceKey: string): Buffer {
  // The lister asks for a resource's digest, then the index writer for the same one right after.
  if (lastSourceDigest?.stemming === stemming && lastSourceDigest.sourceKey === sourceKey)
    return lastSourceDigest.digest;
  const digest = createHash('sha256').update(`${stemming}\0source\0${sourceKey}`).digest();
  lastSourceDigest = { stemming, sourceKey, digest };
  return digest;
}

/** The last digest keptSourceDigestOf made (never changed by its callers: a lookup key). */
let lastSourceDigest: { stemming: string; sourceKey: string; digest: Buffer } | undefined;

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Where entries start, by a digest that sits in each entry `offset` bytes from its start: keyed by
 * the digest's first 48 bits (a string per entry made the previous file's read cost more than its
 * checksum), each found start checked against the whole digest in `bytes`.
 */
class DigestTable {
  private readonly starts = new Map<number, number>();
  /** Entries whose first 48 bits another entry shares, by the whole digest. */
  private readonly clashes = new Map<string, number>();

  constructor(private readonly offset: number) {}

  private digestAt(bytes: Uint8Array, start: number): Buffer {
    return Buffer.from(bytes.buffer, bytes.byteOffset + start + this.offset, DIGEST_BYTES);
  }

  set(bytes: Uint8Array, start: number): void {
    const digest = this.digestAt(bytes, start);
    const key = digest.readUIntBE(0, 6);
    const existing = this.starts.get(key);
    if (existing === undefined) {
      this.starts.set(key, start);
      return;
    }
    if (existing >= 0) this.clashes.set(this.digestAt(bytes, existing).toString('latin1'), existing);
    this.starts.set(key, -1);
    this.clashes.set(digest.toString('latin1'), start);
  }

  get(bytes: Uint8Array, digest: Buffer): number | undefined {
    const start = this.starts.get(digest.readUIntBE(0, 6));
    if (start === undefined) return undefined;
    if (start < 0) return this.clashes.get(digest.toString('latin1'));
    return this.digestAt(bytes, start).equals(digest) ? start : undefined;
  }

  clear(): void {
    this.starts.clear();
    this.clashes.clear();
  }
}

/** The previous build's entries (read once) and the new file being written. */
export class KeptSearchDocuments {
  private readonly previous = new DigestTable(0);
  /** Entries by source digest (latin1), where each starts. */
  private readonly previousBySource = new DigestTable(DIGEST_BYTES + 1);
  private bytes: Uint8Array = new Uint8Array(0);
  private writer: SpillWriter | undefined;
  private readonly hash = createHash('sha256');
  /** Why the previous file was not used, when it was there and was not. */
  readonly ignoredBecause: string | undefined;
  /** Entries taken from the previous file. */
  taken = 0;
  /** The previous file's checksum (hex), when it was read whole; and the new file's once committed. */
  previousChecksum: string | undefined;
  committedChecksum: string | undefined;

  /**
   * Opens `file` for the writer named `identity`: its entries when it is whole and that writer's
   * (`readPrevious` false: none, as --force), and a new file beside it for this build's.
   */
  constructor(
    private readonly file: string,
    identity: string,
    private readonly maxBytes: number,
    readPrevious: boolean,
  ) {
    const header = Buffer.from(`${MAGIC}${createHash('sha256').update(identity).digest('hex')}\n`, 'utf8');
    this.ignoredBecause = readPrevious ? this.readPrevious(header) : undefined;
    if (maxBytes > 0) {
      this.writer = new SpillWriter(`${file}${NEW_FILE_MARK}${process.pid}`);
      this.append(header);
    }
  }

  private readPrevious(header: Buffer): string | undefined {
    let size: number;
    try {
      size = statSync(this.file).size;
    } catch {
      return undefined;
    }
    if (size > this.maxBytes) return `it is larger than ${this.maxBytes} bytes`;
    const bytes = readFileSync(this.file);
    const body = bytes.subarray(0, bytes.length - DIGEST_BYTES);
    if (bytes.length < header.length + DIGEST_BYTES || !body.subarray(0, header.length).equals(header))
      return 'another writer made it';
    if (!createHash('sha256').update(body).digest().equals(bytes.subarray(body.length)))
      return 'its checksum does not match (it was damaged or edited)';
    // Where each entry starts, by digest; an entry is decoded only when its document comes.
    const at = { at: header.length };
    try {
      while (at.at < body.length) {
        const start = at.at;
        const digest = body.subarray(at.at, at.at + DIGEST_BYTES);
        at.at += DIGEST_BYTES;
        const sourceLength = readVarint(body, at);
        at.at += sourceLength;
        // Keys, counts, body, excerpt: each a length and its bytes.
        for (let field = 0; field < 4; field += 1) {
          const length = readVarint(body, at);
          at.at += length;
        }
        if (
          at.at > body.length ||
          digest.length < DIGEST_BYTES ||
          (sourceLength !== 0 && sourceLength !== DIGEST_BYTES)
        )
          throw new RangeError('truncated');
        this.previous.set(body, start);
        if (sourceLength > 0) this.previousBySource.set(body, start);
      }
    } catch {
      this.previous.clear();
      this.previousBySource.clear();
      return 'an entry does not parse';
    }
    this.bytes = body;
    this.previousChecksum = bytes.subarray(body.length).toString('hex');
    return undefined;
  }

  /** Whether the previous build kept an entry under the source digest `source`. */
  hasSource(source: Buffer): boolean {
    return this.previousBySource.get(this.bytes, source) !== undefined;
  }

  /**
   * The previous build's entry for `digest` (or, `bySource`, for the source digest `digest`), if it
   * kept one that parses; kept again for the next build, under `source` when given.
   */
  take(digest: Buffer, source?: Buffer, bySource = false): KeptDocument | undefined {
    const start = (bySource ? this.previousBySource : this.previous).get(this.bytes, digest);
    if (start === undefined) return undefined;
    try {
      const at = { at: start + DIGEST_BYTES };
      const sourceLength = readVarint(this.bytes, at);
      at.at += sourceLength;
      const fieldsStart = at.at;
      const keysLength = readVarint(this.bytes, at);
      // Checked now, decoded only when asked (a writer that patches the previous terms never asks).
      let keyCount = keysLength === 0 ? 0 : 1;
      for (let index = at.at; index < at.at + keysLength; index += 1) if (this.bytes[index] === 0x0a) keyCount += 1;
      at.at += keysLength;
      const countBytes = readVarint(this.bytes, at);
      const countsEnd = at.at + countBytes;
      const tokenCount = readVarint(this.bytes, at);
      let countCount = 0;
      for (; at.at < countsEnd; countCount += 1) readVarint(this.bytes, at);
      if (at.at !== countsEnd || countCount !== keyCount) return undefined;
      const bodyLength = readVarint(this.bytes, at);
      const body = this.bytes.subarray(at.at, at.at + bodyLength);
      at.at += bodyLength;
      const excerptLength = readVarint(this.bytes, at);
      const excerpt = this.bytes.subarray(at.at, at.at + excerptLength);
      this.taken += 1;
      // Kept for the next build as it is, under this build's source digest: its pieces appended
      // one after the other (joining them first made a copy of every entry, ~1 KB each, as garbage).
      const digestBytes = this.bytes.subarray(start, start + DIGEST_BYTES);
      const fields = this.bytes.subarray(fieldsStart, at.at + excerptLength);
      if (source === undefined) this.appendEntry(digestBytes, NO_SOURCE, fields);
      else this.appendEntry(digestBytes, SOURCE_LENGTH, source, fields);
      return { terms: () => this.termsAt(fieldsStart), termsAt: fieldsStart, tokenCount, body, excerpt };
    } catch {
      return undefined;
    }
  }

  /** The keys and counts of the entry whose fields start at `at` (KeptDocument.termsAt), as take checked them. */
  termsAt(at: number): { keys: string[]; counts: number[] } {
    const cursor = { at };
    const keysLength = readVarint(this.bytes, cursor);
    const keysText = decoder.decode(this.bytes.subarray(cursor.at, cursor.at + keysLength));
    cursor.at += keysLength;
    const countsEnd = readVarint(this.bytes, cursor) + cursor.at;
    readVarint(this.bytes, cursor);
    const counts: number[] = [];
    while (cursor.at < countsEnd) counts.push(readVarint(this.bytes, cursor));
    return { keys: keysText === '' ? [] : keysText.split('\n'), counts };
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
    const entry = Buffer.alloc(
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
        kept.excerpt.length,
    );
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
    this.appendEntry(entry);
  }

  /** Appends an entry made of `pieces`, in order. */
  private appendEntry(...pieces: Uint8Array[]): void {
    if (this.writer === undefined) return;
    let length = 0;
    for (const piece of pieces) length += piece.length;
    if (this.writer.bytes + length + DIGEST_BYTES > this.maxBytes) this.discard();
    else for (const piece of pieces) this.append(piece);
  }

  private append(bytes: Uint8Array): void {
    this.hash.update(bytes);
    this.writer!.append(bytes);
  }

  /** Puts the new file in place of the previous one (the index it was made with is whole). */
  commit(): void {
    if (this.writer === undefined) {
      rmSync(this.file, { force: true });
      return;
    }
    const checksum = this.hash.digest();
    this.committedChecksum = checksum.toString('hex');
    this.writer.append(checksum);
    this.writer.close();
    renameSync(this.writer.file, this.file);
    this.writer = undefined;
  }

  /** Drops the new file (the index failed, or the file outgrew its bound). */
  discard(): void {
    if (this.writer === undefined) return;
    this.writer.close();
    rmSync(this.writer.file, { force: true });
    this.writer = undefined;
  }
}

function varintLength(value: number): number {
  let length = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 128)) length += 1;
  return length;
}
