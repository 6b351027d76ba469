// The per-document parse cache (issue #39: a document is not parsed when its bytes did not
// change). `<project>/.staticmcp/cache/documents.bin` (document-record.ts) keeps, for each
// resource file, what the build takes from reading and parsing it (text or binary, a Markdown
// file's title, description, page and front-matter problem), keyed by the sha256 of its bytes, its
// MIME type and the parser's identity; and each file's identity on disk (inode, size, mtime), so a
// build knows an untouched file without reading it. A file whose identity changed is read and
// digested: the same bytes (a touch, a checkout) are still not parsed. Only what this build saw is
// written back, so the record holds one entry per document of the project; it is written as the
// documents pass (into a scratch file beside it, renamed over it at the end), never held whole, and
// an untouched document's entry is copied over as the bytes it was. A record that is damaged, cut
// short or of another key is ignored.
import { promises as fs, mkdirSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { removeDeadWritersFiles } from '../tree-writer/interrupted-write.js';
import { SpillWriter } from '../tree-writer/spill-files.js';
import {
  DIGEST_BYTES,
  DocumentRecordHash,
  type DocumentStats,
  encodeEntry,
  TRUSTED_IDENTITY,
} from './document-record.js';
import { DocumentRecord } from './document-record-reader.js';
import { maxFrontMatterBytes } from './front-matter-limit.js';
import type { MarkdownSummary } from './markdown-summary.js';

/**
 * What a parse of the same bytes gives: change it whenever markdown-summary.ts (or what the
 * build keeps from it) changes. The generator's name and version are part of the key too.
 */
export const DOCUMENT_PARSER_ID = 'markdown-summary/3';
const CACHE_FILE = path.join('.staticmcp', 'cache', 'documents.bin');
/** The JSON record of earlier versions: removed when a record is written. */
const OLD_CACHE_FILE = path.join('.staticmcp', 'cache', 'documents.json');
/** Beside the record, `<mark><pid>`: the record being written. */
const RECORD_MARK = '.new-';
/** A site page's extracted text, one file per digest, read when its resource file is written. */
const PAGES_FOLDER = path.join('.staticmcp', 'cache', 'pages');
/**
 * A file modified this close to the build is not trusted by its identity next time (it could be
 * written again within the same mtime tick): it is digested instead.
 */
const RACY_WINDOW_NS = 2_000_000_000n;
/** What the record's writer gathers before a write (under glibc's mmap threshold, CONTRIBUTING.md). */
const RECORD_CHUNK_BYTES = 1 << 16;

/** What the build keeps from reading and parsing a document's bytes. */
export interface ParsedDocument {
  /** Published as `text` (else as a base64 `blob`). */
  text: boolean;
  summary?: MarkdownSummary;
  /** A built site's page (extract-page.ts): its text is in the cache's page folder (pageTextFile). */
  page?: { title?: string; canonicalHref?: string; warnings: string[] };
}

export type { DocumentStats };

/** Only the identity of a stat (a whole BigIntStats per document would be held until it is written). */
export function identityOf(stats: DocumentStats): DocumentStats {
  return { ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs };
}

export function digestBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A recorded parse, or undefined when its JSON is not one (then the document is parsed again). */
function parsedOf(json: string): ParsedDocument | undefined {
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as ParsedDocument).text === 'boolean')
      return parsed as ParsedDocument;
  } catch {
    // Not JSON: a record whose digest matched is never this, but a parse is cheaper than a doubt.
  }
  return undefined;
}

export class DocumentCache {
  /** Documents parsed by this build (Markdown files and site pages whose bytes the cache did not know). */
  parsedCount = 0;
  /** Documents whose parse came from the cache (by identity, or by digest after a read). */
  reusedCount = 0;
  private readonly pagesFolder: string | undefined;
  /**
   * This build's record, written as it is made (issue #39, "Memory": as objects it held ~600 bytes
   * of heap a document, and its JSON text as much again, at discovery's end), beside the record.
   */
  private writer: RecordWriter | undefined;
  /** Entries recorded, and whether each is its path's entry in the previous record as it was. */
  private recordedCount = 0;
  private allAsBefore = true;
  /** The record could not be written: none is written. */
  private failed = false;
  /** The page texts (pageTextFile names) this build's documents have. */
  private readonly usedPages = new Set<string>();

  private constructor(
    private readonly file: string | undefined,
    private readonly previous: DocumentRecord | undefined,
    private readonly key: string,
    private readonly startedAtNs: bigint,
  ) {
    this.pagesFolder = file === undefined ? undefined : path.join(path.dirname(file), path.basename(PAGES_FOLDER));
  }

  /**
   * The entry the last lookup or parse recorded (a view that the next lookup may move), for the
   * saved runs (resource-runs.ts) to copy at once; taken by takeLastEntry.
   */
  private lastEntry: Uint8Array | undefined;

  /** The record's key (generator, parser, front-matter bound): the saved runs' too. */
  get recordKey(): string {
    return this.key;
  }

  /** Whether this build writes a record (a cache that keeps nothing, or whose writes failed, does not). */
  get keepsRecord(): boolean {
    return this.file !== undefined && !this.failed;
  }

  /** The entry the last lookup or parse recorded, once (undefined: none, or the record is not written). */
  takeLastEntry(): Uint8Array | undefined {
    const entry = this.lastEntry;
    this.lastEntry = undefined;
    return this.failed ? undefined : entry;
  }

  /**
   * Records `count` documents a saved run gave as they were (`entries`: their record entries, back
   * to back), each reused. False when the record is not written (the run is not taken then).
   */
  reuseRun(entries: Uint8Array, count: number): boolean {
    if (this.file === undefined || this.failed) return false;
    try {
      this.writer ??= this.openWriter();
      this.writer.append(entries);
    } catch {
      this.dropWriter();
      return false;
    }
    this.reusedCount += count;
    this.recordedCount += count;
    // Not known to be the previous record's entries byte for byte: the record is written again.
    this.allAsBefore = false;
    return true;
  }

  /** How many documents the previous build's record holds (0: none, or none to be believed). */
  get previousDocuments(): number {
    return this.previous?.size ?? 0;
  }

  /** Where a page's extracted text is kept (undefined: this cache keeps nothing). */
  pageTextFile(sha256: string, kind: string): string | undefined {
    if (this.pagesFolder === undefined) return undefined;
    return path.join(this.pagesFolder, `${digestBytes(Buffer.from(`${sha256} ${kind}`))}.txt`);
  }

  /** Keeps a page's extracted text for the builds after this one. */
  async writePageText(sha256: string, kind: string, text: string): Promise<string | undefined> {
    const file = this.pageTextFile(sha256, kind);
    if (file === undefined) return undefined;
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
      // Beside the pages folder, not in it: the build cache sweeps its own folders of a killed
      // writer's temp files, and the pages folder is too large to list every build.
      const temp = path.join(path.dirname(path.dirname(file)), `${path.basename(file)}.${process.pid}.tmp`);
      await fs.writeFile(temp, text);
      await fs.rename(temp, file);
      return file;
    } catch {
      return undefined;
    }
  }

  /** A cache that knows nothing and keeps nothing (every document is parsed). */
  static none(): DocumentCache {
    return new DocumentCache(undefined, undefined, '', 0n);
  }

  /**
   * `ignorePrevious` (build --force): everything is parsed again, and the result recorded. What
   * builds killed before they saved left beside the record goes (never a running build's).
   */
  static async open(projectRoot: string, generator: string, ignorePrevious: boolean): Promise<DocumentCache> {
    const file = path.join(projectRoot, CACHE_FILE);
    await removeDeadWritersFiles(file, RECORD_MARK);
    // A parse under another front-matter bound may have read (or skipped) a front matter differently.
    const key = `${generator} ${DOCUMENT_PARSER_ID} ${maxFrontMatterBytes(process.env)}`;
    // Missing, unreadable or damaged: every document is read and parsed.
    const previous = ignorePrevious ? undefined : DocumentRecord.open(file, key);
    return new DocumentCache(file, previous, key, BigInt(Date.now()) * 1_000_000n);
  }

  /**
   * The recorded parse of a file whose identity is untouched since it was recorded, with its
   * digest as bytes (no hex text made per document: the resource store keeps the bytes).
   */
  lookupUntouched(
    relativePath: string,
    mimeType: string,
    stats: DocumentStats,
  ): { digest: Uint8Array; parsed: ParsedDocument } | undefined {
    const previous = this.previous;
    const at = previous?.offsetOf(relativePath);
    if (
      previous === undefined ||
      at === undefined ||
      (previous.flagsAt(at) & TRUSTED_IDENTITY) === 0 ||
      !previous.sameIdentityAt(at, stats) ||
      !previous.hasMimeTypeAt(at, mimeType)
    )
      return undefined;
    const parsed = parsedOf(previous.parsedJsonAt(at));
    if (parsed === undefined) return undefined;
    // A copy: the view is the reader's window, which the next lookup may move.
    const digest = new Uint8Array(previous.digestAt(at));
    const entry = previous.entryBytes(at);
    // The record could not be read on: the file is read as if it had none.
    if (digest.length !== DIGEST_BYTES || entry.length === 0) return undefined;
    this.reusedCount += 1;
    // Trusted then, and older still now: the entry is the one recorded, byte for byte.
    if (!this.isFresh(stats)) this.recordBytes(entry, true, digest, mimeType, parsed);
    else this.record(relativePath, mimeType, stats, hexOf(digest), parsed);
    return { digest, parsed };
  }

  /** The recorded parse of these bytes (by digest), when a file's identity changed but not its bytes. */
  lookupDigest(
    relativePath: string,
    mimeType: string,
    stats: DocumentStats,
    sha256: string,
  ): ParsedDocument | undefined {
    // The previous build's parses only: two files of the same bytes in one build are parsed each.
    const at = this.offsetOfBytes(relativePath, sha256, mimeType);
    const parsed = at === undefined ? undefined : parsedOf(this.previous!.parsedJsonAt(at));
    if (parsed === undefined) return undefined;
    this.reusedCount += 1;
    this.record(relativePath, mimeType, stats, sha256, parsed);
    return parsed;
  }

  /**
   * The previous entry of these bytes: the path's own when it has them (a touch, a checkout),
   * none when it had other bytes (an edit: a search of every entry by digest, which a table of
   * them all costs, would only find a copy of another document), else any path's (a rename).
   */
  private offsetOfBytes(relativePath: string, sha256: string, mimeType: string): number | undefined {
    const previous = this.previous;
    const own = previous?.offsetOf(relativePath);
    if (previous === undefined || own === undefined) return previous?.offsetOfDigest(sha256, mimeType);
    return previous.sha256At(own) === sha256 && previous.hasMimeTypeAt(own, mimeType) ? own : undefined;
  }

  /** Records a parse this build made (counted when it parsed Markdown). */
  recordParse(
    relativePath: string,
    mimeType: string,
    stats: DocumentStats,
    sha256: string,
    parsed: ParsedDocument,
  ): void {
    if (parsed.summary !== undefined || parsed.page !== undefined) this.parsedCount += 1;
    this.record(relativePath, mimeType, stats, sha256, parsed);
  }

  private isFresh(stats: DocumentStats): boolean {
    return this.startedAtNs - stats.mtimeNs < RACY_WINDOW_NS;
  }

  private record(
    relativePath: string,
    mimeType: string,
    stats: DocumentStats,
    sha256: string,
    parsed: ParsedDocument,
  ): void {
    if (this.file === undefined || this.failed) return;
    const bytes = encodeEntry({
      relativePath,
      mimeType,
      trusted: !this.isFresh(stats),
      stats,
      sha256,
      parsedJson: JSON.stringify(parsed),
      sitePage: parsed.page !== undefined,
    });
    const at = this.previous?.offsetOf(relativePath);
    this.recordBytes(bytes, at !== undefined && this.previous!.entryBytes(at).equals(bytes), sha256, mimeType, parsed);
  }

  private recordBytes(
    bytes: Buffer,
    asBefore: boolean,
    sha256: string | Uint8Array,
    mimeType: string,
    parsed: ParsedDocument,
  ): void {
    if (this.file === undefined || this.failed) return;
    this.allAsBefore &&= asBefore;
    if (parsed.page !== undefined)
      this.usedPages.add(
        path.basename(this.pageTextFile(typeof sha256 === 'string' ? sha256 : hexOf(sha256), mimeType)!),
      );
    this.recordedCount += 1;
    try {
      this.writer ??= this.openWriter();
      this.writer.append(bytes);
      this.lastEntry = bytes;
    } catch {
      // The cache cannot be written: the next build parses again, as with no cache.
      this.dropWriter();
    }
  }

  private openWriter(): RecordWriter {
    mkdirSync(path.dirname(this.file!), { recursive: true });
    const writer = new RecordWriter(new SpillWriter(`${this.file}${RECORD_MARK}${process.pid}`, 0o666));
    try {
      writer.append(DocumentRecordHash.header(this.key));
    } catch (error) {
      closeWriter(writer.out);
      rmSync(writer.out.file, { force: true });
      throw error;
    }
    return writer;
  }

  /** Stops recording: this build writes no record (the previous one stays, true for what it holds). */
  private dropWriter(): void {
    if (this.writer !== undefined) {
      closeWriter(this.writer.out);
      rmSync(this.writer.out.file, { force: true });
    }
    this.writer = undefined;
    this.failed = true;
  }

  /** Lets go of the previous record's file (lookups after this find nothing). */
  close(): void {
    this.previous?.close();
  }

  /** Writes what this build saw (atomically); a failure to write only costs the next build a parse. */
  async save(): Promise<void> {
    this.close();
    if (this.file === undefined || this.failed) return;
    if (this.parsedCount === 0 && this.sameAsPrevious()) {
      this.dropWriter();
      return;
    }
    await this.dropUnusedPages();
    let temp: string | undefined;
    try {
      // An empty record (no document now, some before) is a header and a digest.
      this.writer ??= this.openWriter();
      const { out } = this.writer;
      temp = out.file;
      out.append(this.writer.trailer());
      out.close();
      this.writer = undefined;
      await fs.rename(temp, this.file);
      await fs.rm(path.join(path.dirname(this.file), path.basename(OLD_CACHE_FILE)), { force: true });
    } catch {
      if (this.writer !== undefined) closeWriter(this.writer.out);
      this.writer = undefined;
      if (temp !== undefined) await fs.rm(temp, { force: true }).catch(() => {});
    }
  }

  /** Removes the page texts no document of this build has. */
  private async dropUnusedPages(): Promise<void> {
    if (this.pagesFolder === undefined) return;
    const names = await fs.readdir(this.pagesFolder).catch(() => [] as string[]);
    for (const name of names)
      if (!this.usedPages.has(name)) await fs.rm(path.join(this.pagesFolder, name), { force: true }).catch(() => {});
  }

  /** Whether the record would not change (a no-op build writes nothing). */
  private sameAsPrevious(): boolean {
    if (this.previous === undefined) return this.recordedCount === 0;
    return this.allAsBefore && this.recordedCount === this.previous.size;
  }
}

function hexOf(digest: Uint8Array): string {
  return Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength).toString('hex');
}

/**
 * The record being written, gathered into chunks before they reach the file and the digest: one
 * write and one hash update a chunk, not one of each per document (an edit build copies every
 * untouched document's entry).
 */
class RecordWriter {
  private readonly hash = new DocumentRecordHash();
  private readonly chunk = Buffer.allocUnsafe(RECORD_CHUNK_BYTES);
  private used = 0;

  constructor(readonly out: SpillWriter) {}

  append(bytes: Uint8Array): void {
    if (bytes.length > RECORD_CHUNK_BYTES - this.used) this.flush();
    if (bytes.length > RECORD_CHUNK_BYTES) this.write(bytes);
    else {
      this.chunk.set(bytes, this.used);
      this.used += bytes.length;
    }
  }

  /** Writes what is gathered; returns the digest of everything appended (the record's trailer). */
  trailer(): Buffer {
    this.flush();
    return this.hash.trailer();
  }

  private flush(): void {
    if (this.used > 0) this.write(this.chunk.subarray(0, this.used));
    this.used = 0;
  }

  private write(bytes: Uint8Array): void {
    this.out.append(bytes);
    this.hash.add(bytes);
  }
}

/** Closes a record's writer (once: a write that failed closes it all the same). */
function closeWriter(out: SpillWriter): void {
  try {
    out.close();
  } catch {
    // A write failed: the file is removed all the same.
  }
}
