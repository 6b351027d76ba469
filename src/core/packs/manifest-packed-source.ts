// A TreeSource that reads a tree packed or not: it watches the manifest go by (every reader loads
// mcp.json before any call file) and, when our extension carries a `packs` table, answers the
// packed tools' call files through a PackedTreeSource over the same tree; every other path, and
// every path of an unpacked tree, reads through unchanged. A new manifest (a rebuilt tree) brings
// a new table and a fresh index cache, since pack and index names change with their content.
import { MANIFEST_FILE } from '../tree/manifest.js';
import type { ReadOutcome, TreeSource } from '../tree/tree-source.js';
import type { PackFileSource } from './pack-reader.js';
// Types only: the pack modules load when a manifest names packs, so an unpacked tree's serve
// starts with no more modules than before.
import type { PackedTreeSource, PackedTreeSourceOptions } from './packed-tree-source.js';

export class ManifestPackedSource implements TreeSource {
  readonly displayName: string;
  readonly revalidateAfterMs: number | undefined;
  /** Set while the last manifest read named packs; undefined for an unpacked tree. */
  private packed: PackedTreeSource | undefined;

  constructor(
    private readonly inner: TreeSource,
    private readonly files: PackFileSource,
    private readonly options: PackedTreeSourceOptions = {},
  ) {
    this.displayName = inner.displayName;
    this.revalidateAfterMs = inner.revalidateAfterMs;
  }

  /** The packed view of the tree, once a manifest with a pack table has been read. */
  packedSource(): PackedTreeSource | undefined {
    return this.packed;
  }

  async read(relativePath: string, etag?: string): Promise<ReadOutcome> {
    if (relativePath === MANIFEST_FILE) {
      const outcome = await this.inner.read(relativePath, etag);
      // The packs kept open belong to the tree read so far: a rebuilt one names its own.
      if (outcome.status !== 'not-modified') this.files.closeKept?.();
      if (outcome.status === 'ok') this.packed = await this.packedSourceFor(outcome.text);
      else if (outcome.status === 'missing') this.packed = undefined;
      return outcome;
    }
    return (this.packed ?? this.inner).read(relativePath, etag);
  }

  /** The size lookup of whichever source reads `relativePath` (tree-source.ts). */
  async sizeOf(relativePath: string): Promise<number | undefined> {
    if (relativePath === MANIFEST_FILE) return this.inner.sizeOf?.(relativePath);
    return (this.packed ?? this.inner).sizeOf?.(relativePath);
  }

  /** The synchronous read of whichever source reads `relativePath` (the packs' only from a warm index). */
  readNow(relativePath: string, maxBytes: number): ReadOutcome | undefined {
    if (relativePath === MANIFEST_FILE) return undefined;
    return (this.packed ?? this.inner).readNow?.(relativePath, maxBytes);
  }

  close(): void {
    this.files.closeKept?.();
    this.inner.close();
  }

  private async packedSourceFor(manifestText: string): Promise<PackedTreeSource | undefined> {
    // Checked before any pack module loads: most trees are not packed.
    if (!manifestText.includes('"packs"')) return undefined;
    const [{ packTableOfManifest }, { PackedTreeSource }] = await Promise.all([
      import('./pack-table.js'),
      import('./packed-tree-source.js'),
    ]);
    const parsed = packTableOfManifest(manifestText);
    if (parsed === undefined) return undefined;
    if ('problem' in parsed) {
      // Its packed calls then read as not precomputed (live runs still answer them), never a crash.
      this.options.onProblem?.(`${MANIFEST_FILE}: ${parsed.problem}; its packed calls are not answered from the tree`);
      return undefined;
    }
    return new PackedTreeSource(this.inner, this.files, parsed.table, this.options);
  }
}
