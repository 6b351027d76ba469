// The per-document parse cache (issue #39: a document is not parsed when its bytes did not
// change). `<project>/.staticmcp/cache/documents.json` keeps, for each resource file, what the
// build takes from reading and parsing it (text or binary, a Markdown file's title, description,
// page and front-matter problem), keyed by the sha256 of its bytes, its MIME type and the parser's
// identity; and each file's identity on disk (inode, size, mtime), so a build knows an untouched
// file without reading it. A file whose identity changed is read and digested: the same bytes
// (a touch, a checkout) are still not parsed. Only what this build saw is written back, so the
// file holds one entry per document of the project. A corrupt or foreign file is ignored.
import { createHash } from 'node:crypto';
import { type BigIntStats, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { isObject } from '../core/tree/json-object.js';
import { maxFrontMatterBytes } from './front-matter-limit.js';
import type { MarkdownSummary } from './markdown-summary.js';

/**
 * What a parse of the same bytes gives: change it whenever markdown-summary.ts (or what the
 * build keeps from it) changes. The generator's name and version are part of the key too.
 */
export const DOCUMENT_PARSER_ID = 'markdown-summary/3';
const CACHE_FILE = path.join('.staticmcp', 'cache', 'documents.json');
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
  private readonly seen: CacheFile;
  private readonly pagesFolder: string | undefined;

  private constructor(
    private readonly file: string | undefined,
    private readonly previous: CacheFile | undefined,
    key: string,
    private readonly startedAtNs: bigint,
  ) {
    this.seen = { key, files: {}, parsed: {} };
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

  /** `ignorePrevious` (build --force): everything is parsed again, and the result recorded. */
  static open(projectRoot: string, generator: string, ignorePrevious: boolean): DocumentCache {
    const file = path.join(projectRoot, CACHE_FILE);
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
    const key = `${sha256} ${mimeType}`;
    const parsed = this.seen.parsed[key] ?? this.previous?.parsed[key];
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
    const fresh = this.startedAtNs - stats.mtimeNs < RACY_WINDOW_NS;
    this.seen.files[relativePath] = {
      sha256,
      mimeType,
      inode: fresh ? '' : String(stats.ino),
      size: Number(stats.size),
      mtimeNs: String(stats.mtimeNs),
    };
    this.seen.parsed[`${sha256} ${mimeType}`] = parsed;
  }

  /** Writes what this build saw (atomically); a failure to write only costs the next build a parse. */
  async save(): Promise<void> {
    if (this.file === undefined || (this.parsedCount === 0 && this.sameAsPrevious())) return;
    await this.dropUnusedPages();
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      await fs.writeFile(temp, JSON.stringify(this.seen));
      await fs.rename(temp, this.file);
    } catch {
      await fs.rm(temp, { force: true }).catch(() => {});
    }
  }

  /** Removes the page texts no document of this build has. */
  private async dropUnusedPages(): Promise<void> {
    if (this.pagesFolder === undefined) return;
    const used = new Set<string>();
    for (const entry of Object.values(this.seen.files))
      if (this.seen.parsed[`${entry.sha256} ${entry.mimeType}`]?.page !== undefined)
        used.add(path.basename(this.pageTextFile(entry.sha256, entry.mimeType)!));
    const names = await fs.readdir(this.pagesFolder).catch(() => [] as string[]);
    for (const name of names)
      if (!used.has(name)) await fs.rm(path.join(this.pagesFolder, name), { force: true }).catch(() => {});
  }

  /** Whether the record would not change (a no-op build writes nothing). */
  private sameAsPrevious(): boolean {
    const previous = this.previous?.files;
    if (previous === undefined) return Object.keys(this.seen.files).length === 0;
    const paths = Object.keys(this.seen.files);
    if (paths.length !== Object.keys(previous).length) return false;
    return paths.every((relativePath) => {
      const now = this.seen.files[relativePath]!;
      const before = previous[relativePath];
      return (
        before !== undefined &&
        before.sha256 === now.sha256 &&
        before.mimeType === now.mimeType &&
        before.inode === now.inode &&
        before.size === now.size &&
        before.mtimeNs === now.mtimeNs
      );
    });
  }
}
