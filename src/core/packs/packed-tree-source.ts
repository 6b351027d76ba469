// A TreeSource over a packed tree: `tools/<tool>/….json` of a tool the manifest's pack table names
// is answered from its packs (PackReader: one cached index, one record read); every other path
// reads through to the wrapped source unchanged, so the cached tree reader, lenient keys and tool
// calls above never know whether a tree is packed. A packed path the packs do not hold (or whose
// pack the host lacks) is `missing`; one whose pack
// or index is damaged or hostile fails its read with the reason, so the caller names the damage
// (a call answers "its precomputed answer cannot be read (…)", never a plain "not precomputed").
import type { ReadOutcome, TreeSource } from '../tree/tree-source.js';
import { callKeyOf, KEY_KIND } from './pack-format.js';
import {
  DEFAULT_PACK_CACHE_LIMITS,
  type PackCacheLimits,
  type PackFileSource,
  type PackIndexCache,
  type PackLookup,
  PackReader,
  textOfBody,
} from './pack-reader.js';
import { isPackableResourceFile, type PackTable, RESOURCE_PACK_GROUP } from './pack-table.js';

export interface PackedTreeSourceOptions {
  /** Limits of the source's own index cache, or a cache shared by the sources of one tree (an edge isolate's requests). */
  cacheLimits?: PackCacheLimits | PackIndexCache;
  /** Kept for the sources that share these options; a damaged pack fails its read instead (read()). */
  onProblem?: (reason: string) => void;
}

export class PackedTreeSource implements TreeSource {
  readonly displayName: string;
  readonly revalidateAfterMs: number | undefined;
  private readonly reader: PackReader;

  constructor(
    private readonly inner: TreeSource,
    files: PackFileSource,
    private readonly table: PackTable,
    options: PackedTreeSourceOptions = {},
  ) {
    this.displayName = inner.displayName;
    this.revalidateAfterMs = inner.revalidateAfterMs;
    this.reader = new PackReader(files, options.cacheLimits ?? DEFAULT_PACK_CACHE_LIMITS);
  }

  /** The tool whose packs answer `relativePath`, or undefined when the path is not packed. */
  packedToolOf(relativePath: string): string | undefined {
    // Resource files: the inline list's stay plain beside the packs, so a miss reads through (read()).
    if (isPackableResourceFile(relativePath))
      return this.table.has(RESOURCE_PACK_GROUP) ? RESOURCE_PACK_GROUP : undefined;
    if (!relativePath.startsWith('tools/') || !relativePath.endsWith('.json')) return undefined;
    const slash = relativePath.indexOf('/', 6);
    if (slash < 0) return undefined;
    const tool = relativePath.slice(6, slash);
    return this.table.has(tool) ? tool : undefined;
  }

  /** The packed lookup itself, with its reason when it fails (check and tests use it). */
  async lookup(relativePath: string): Promise<PackLookup | undefined> {
    const tool = this.packedToolOf(relativePath);
    if (tool === undefined) return undefined;
    // packedToolOf found the tool in the table.
    return this.reader.lookup(this.table.get(tool)!, KEY_KIND.call, callKeyOf(relativePath), relativePath);
  }

  /**
   * A packed file's size is its record's length in the pack index (the index is loaded anyway to
   * read it; the record is not read); any other path asks the wrapped source.
   */
  async sizeOf(relativePath: string): Promise<number | undefined> {
    const tool = this.packedToolOf(relativePath);
    if (tool === undefined) return this.inner.sizeOf?.(relativePath);
    try {
      const found = await this.reader.locate(
        this.table.get(tool)!,
        KEY_KIND.call,
        callKeyOf(relativePath),
        relativePath,
      );
      if (found.status === 'ok') return found.recordLength;
      return tool === RESOURCE_PACK_GROUP ? this.inner.sizeOf?.(relativePath) : undefined;
    } catch {
      // The read that follows says what is wrong.
      return undefined;
    }
  }

  async read(relativePath: string, etag?: string): Promise<ReadOutcome> {
    const found = await this.lookup(relativePath);
    if (found === undefined) return this.inner.read(relativePath, etag);
    // Named to the caller, who logs it: the read fails (a call says its answer cannot be read).
    if (found.status === 'refused') throw new Error(found.reason);
    if (found.status !== 'ok')
      // A resource the packs do not hold may be a plain file beside them (the inline list's).
      return this.packedToolOf(relativePath) === RESOURCE_PACK_GROUP
        ? this.inner.read(relativePath, etag)
        : { status: 'missing' };
    // Pack names are content hashes: the same pack and offset hold the same bytes, so the tag
    // names the content (a caller's copy under it is current; skipping the record read on
    // revalidation as well is left for the wiring).
    const packEtag = `"${found.pack}#${found.recordOffset}"`;
    if (etag === packEtag) return { status: 'not-modified' };
    return { status: 'ok', text: textOfBody(found.body), etag: packEtag };
  }

  /**
   * A packed call file's text without a promise, for an answer cut from its bytes: only once its
   * index is cached and when the host reads ranges now (lookup-now.ts); a record longer than
   * `maxBytes` is not taken, nor a resource, and any path the packs do not hold reads through.
   */
  readNow(relativePath: string, maxBytes: number): ReadOutcome | undefined {
    const tool = this.packedToolOf(relativePath);
    if (tool === undefined) return this.inner.readNow?.(relativePath, maxBytes);
    if (tool === RESOURCE_PACK_GROUP) return undefined;
    const found = this.reader.lookupNow(this.table.get(tool)!, KEY_KIND.call, callKeyOf(relativePath), relativePath);
    if (found === undefined || found.recordLength > maxBytes) return undefined;
    return { status: 'ok', text: textOfBody(found.body) };
  }

  /** Bytes the index cache holds now. */
  cacheSize(): { indexes: number; bytes: number; wholePackBytes: number } {
    return this.reader.cacheSize();
  }

  close(): void {
    this.inner.close();
  }
}
