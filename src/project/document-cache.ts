// The per-document parse cache (issue #39: a document is not parsed when its bytes did not
// change). `<project>/.staticmcp/cache/documents.json` keeps, for each resource file, what the
// build takes from reading and parsing it (text or binary, a Markdown file's title, description,
// page and front-matter problem), keyed by the sha256 of its bytes, its MIME type and the parser's
// identity; and each file's identity on disk (inode, size, mtime), so a build knows an untouched
// file without reading it. A file whose identity changed is read and digested: the same bytes
// (a touch, a checkout) are still not parsed. Only what this build saw is written back, so the
// file holds one entry per document of the project; it is written as the documents pass (JSON
// fragments in scratch files, joined at the end), never held whole. A corrupt or foreign file is
// ignored.
import { createHash } from 'node:crypto';
import {
  type BigIntStats,
  closeSync,
  promises as fs,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
} from 'node:fs';
import path from 'node:path';
import { isObject } from '../core/tree/json-object.js';
import { removeDeadWritersFiles } from '../tree-writer/interrupted-write.js';
import { SpillWriter } from '../tree-writer/spill-files.js';
import { maxFrontMatterBytes } from './front-matter-limit.js';
import type { MarkdownSummary } from './markdown-summary.js';

/**
 * What a parse of the same bytes gives: change it whenever markdown-summary.ts (or what the
 * build keeps from it) changes. The generator's name and version are part of the key too.
 */
export const DOCUMENT_PARSER_ID = 'markdown-summary/3';
const CACHE_FILE = path.join('.staticmcp', 'cache', 'documents.json');
/** Beside the record, `<mark><pid>`: the record being written, and its two fragments. */
const RECORD_MARK = '.new-';
const FILES_MARK = '.files-new-';
const PARSED_MARK = '.parsed-new-';
/** A site page's extracted text, one file per digest, read when its resource file is written. */
const PAGES_FOLDER = path.join('.staticmcp', 'cache', 'pages');
/**
 * A file modified this close to the build is not trusted by its identity next time (it could be
 * written again within the same mtime tick): it is digested instead.
 */
const RACY_WINDOW_NS = 2_000_000_000n;

/** What the build keeps from reading and parsing a document's bytes. */
export interface ParsedDocument {
  /** Published as `text` (else as a base64 `blob`). */
  text: boolean;
  summary?: MarkdownSummary;
  /** A built site's page (extract-page.ts): its text is in the cache's page folder (pageTextFile). */
  page?: { title?: string; canonicalHref?: string; warnings: string[] };
}

interface FileEntry {
  sha256: string;
  mimeType: string;
  /** Empty when the file was too fresh to be trusted by its identity. */
  inode: string;
  size: number;
  mtimeNs: string;
}

interface CacheFile {
  key: string;
  files: Record<string, FileEntry>;
  /** By `<sha256> <mimeType>`. */
  parsed: Record<string, ParsedDocument>;
}

/** A document's identity on disk, as `fs.stat(…, { bigint: true })` gives it. */
export type DocumentStats = Pick<BigIntStats, 'ino' | 'size' | 'mtimeNs'>;

/** Only the identity of a stat (a whole BigIntStats per document would be held until it is written). */
export function identityOf(stats: DocumentStats): DocumentStats {
  return { ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs };
}

export function digestBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function readCacheFile(file: string, key: string): CacheFile | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (isObject(parsed) && parsed.key === key && isObject(parsed.files) && isObject(parsed.parsed))
      return parsed as unknown as CacheFile;
  } catch {
    // Missing or corrupt: every document is read and parsed.
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
   * of heap a document, and its JSON text as much again, at discovery's end): its `files` and
   * `parsed` entries as JSON fragments in two scratch files beside the cache, joined by save().
   */
  private fragments: { files: SpillWriter; parsed: SpillWriter } | undefined;
  /** Entries recorded, and whether each is its path's entry in the previous record as it was. */
  private recordedCount = 0;
  private allAsBefore = true;
  /** A fragment could not be written: no record is written. */
  private failed = false;
  /** The page texts (pageTextFile names) this build's documents have. */
  private readonly usedPages = new Set<string>();

  private constructor(
    private readonly file: string | undefined,
    private readonly previous: CacheFile | undefined,
    private readonly key: string,
    private readonly startedAtNs: bigint,
  ) {
    this.pagesFolder = file === undefined ? undefined : path.join(path.dirname(file), path.basename(PAGES_FOLDER));
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
      const temp = `${file}.${process.pid}.tmp`;
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
    for (const mark of [RECORD_MARK, FILES_MARK, PARSED_MARK]) await removeDeadWritersFiles(file, mark);
    // A parse under another front-matter bound may have read (or skipped) a front matter differently.
    const key = `${generator} ${DOCUMENT_PARSER_ID} ${maxFrontMatterBytes(process.env)}`;
    const previous = ignorePrevious ? undefined : readCacheFile(file, key);
    return new DocumentCache(file, previous, key, BigInt(Date.now()) * 1_000_000n);
  }

  /** The recorded parse of a file whose identity is untouched since it was recorded, with its digest. */
  lookupUntouched(
    relativePath: string,
    mimeType: string,
    stats: DocumentStats,
  ): { sha256: string; parsed: ParsedDocument } | undefined {
    const entry = this.previous?.files[relativePath];
    if (
      entry === undefined ||
      entry.inode === '' ||
      entry.mimeType !== mimeType ||
      entry.inode !== String(stats.ino) ||
      entry.size !== Number(stats.size) ||
      entry.mtimeNs !== String(stats.mtimeNs)
    )
      return undefined;
    const parsed = this.previous?.parsed[`${entry.sha256} ${mimeType}`];
    if (parsed === undefined) return undefined;
    this.reusedCount += 1;
    this.record(relativePath, mimeType, stats, entry.sha256, parsed);
    return { sha256: entry.sha256, parsed };
  }

  /** The recorded parse of these bytes (by digest), when a file's identity changed but not its bytes. */
  lookupDigest(
    relativePath: string,
    mimeType: string,
    stats: DocumentStats,
    sha256: string,
  ): ParsedDocument | undefined {
    // The previous build's parses only: two files of the same bytes in one build are parsed each.
    const parsed = this.previous?.parsed[`${sha256} ${mimeType}`];
    if (parsed === undefined) return undefined;
    this.reusedCount += 1;
    this.record(relativePath, mimeType, stats, sha256, parsed);
    return parsed;
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

  private record(
    relativePath: string,
    mimeType: string,
    stats: DocumentStats,
    sha256: string,
    parsed: ParsedDocument,
  ): void {
    if (this.file === undefined || this.failed) return;
    const fresh = this.startedAtNs - stats.mtimeNs < RACY_WINDOW_NS;
    const entry: FileEntry = {
      sha256,
      mimeType,
      inode: fresh ? '' : String(stats.ino),
      size: Number(stats.size),
      mtimeNs: String(stats.mtimeNs),
    };
    const before = this.previous?.files[relativePath];
    this.allAsBefore &&=
      before !== undefined &&
      before.sha256 === entry.sha256 &&
      before.mimeType === entry.mimeType &&
      before.inode === entry.inode &&
      before.size === entry.size &&
      before.mtimeNs === entry.mtimeNs;
    if (parsed.page !== undefined) this.usedPages.add(path.basename(this.pageTextFile(sha256, mimeType)!));
    const separator = this.recordedCount === 0 ? '' : ',';
    this.recordedCount += 1;
    try {
      this.fragments ??= this.openFragments();
      this.fragments.files.append(
        Buffer.from(`${separator}${JSON.stringify(relativePath)}:${JSON.stringify(entry)}`, 'utf8'),
      );
      this.fragments.parsed.append(
        Buffer.from(`${separator}${JSON.stringify(`${sha256} ${mimeType}`)}:${JSON.stringify(parsed)}`, 'utf8'),
      );
    } catch {
      // The cache cannot be written: the next build parses again, as with no cache.
      this.dropFragments();
    }
  }

  private openFragments(): { files: SpillWriter; parsed: SpillWriter } {
    mkdirSync(path.dirname(this.file!), { recursive: true });
    const files = new SpillWriter(`${this.file}${FILES_MARK}${process.pid}`);
    try {
      return { files, parsed: new SpillWriter(`${this.file}${PARSED_MARK}${process.pid}`) };
    } catch (error) {
      files.close();
      rmSync(files.file, { force: true });
      throw error;
    }
  }

  /** Stops recording: this build writes no record (the previous one stays, true for what it holds). */
  private dropFragments(): void {
    closeFragments(this.fragments);
    removeFragments(this.fragments);
    this.fragments = undefined;
    this.failed = true;
  }

  /** Writes what this build saw (atomically); a failure to write only costs the next build a parse. */
  async save(): Promise<void> {
    if (this.file === undefined) return;
    const { fragments } = this;
    this.fragments = undefined;
    closeFragments(fragments);
    if (this.failed || (this.parsedCount === 0 && this.sameAsPrevious())) {
      removeFragments(fragments);
      return;
    }
    await this.dropUnusedPages();
    const temp = `${this.file}${RECORD_MARK}${process.pid}`;
    try {
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      const out = new SpillWriter(temp, 0o666);
      try {
        out.append(Buffer.from(`{"key":${JSON.stringify(this.key)},"files":{`, 'utf8'));
        if (fragments !== undefined) copyFileInto(fragments.files.file, out);
        out.append(Buffer.from('},"parsed":{', 'utf8'));
        if (fragments !== undefined) copyFileInto(fragments.parsed.file, out);
        out.append(Buffer.from('}}', 'utf8'));
      } finally {
        out.close();
      }
      await fs.rename(temp, this.file);
    } catch {
      await fs.rm(temp, { force: true }).catch(() => {});
    } finally {
      removeFragments(fragments);
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
    const previous = this.previous?.files;
    if (previous === undefined) return this.recordedCount === 0;
    return this.allAsBefore && this.recordedCount === Object.keys(previous).length;
  }
}

/** Closes (each once) a record's fragment files. */
function closeFragments(fragments: { files: SpillWriter; parsed: SpillWriter } | undefined): void {
  for (const writer of fragments ? [fragments.files, fragments.parsed] : []) {
    try {
      writer.close();
    } catch {
      // A write failed: the file is removed all the same.
    }
  }
}

function removeFragments(fragments: { files: SpillWriter; parsed: SpillWriter } | undefined): void {
  for (const writer of fragments ? [fragments.files, fragments.parsed] : []) rmSync(writer.file, { force: true });
}

/** Appends the whole of `file` to `out`, a chunk at a time. */
function copyFileInto(file: string, out: SpillWriter): void {
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      out.append(chunk.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
}
