// What a tree writer knows of each file it wrote: its path and the sha256 of its content
// (tree/content-hash.ts), so the tree's content hash is computed at the end without reading a
// single file back. Kept flat for trees of hundreds of thousands of files: the digests sit side by
// side in one growing buffer (32 bytes a file), the map holds only each path's slot number.
import { FILE_DIGEST_BYTES } from './content-hash.js';

const INITIAL_SLOTS = 1024;

export class FileDigests {
  private readonly slots = new Map<string, number>();
  private digests = Buffer.alloc(INITIAL_SLOTS * FILE_DIGEST_BYTES);

  get size(): number {
    return this.slots.size;
  }

  has(filePath: string): boolean {
    return this.slots.has(filePath);
  }

  paths(): IterableIterator<string> {
    return this.slots.keys();
  }

  /** Records (or, for a path written again, replaces) the digest of the file at `filePath`. */
  set(filePath: string, digest: Uint8Array): void {
    let slot = this.slots.get(filePath);
    if (slot === undefined) {
      slot = this.slots.size;
      if ((slot + 1) * FILE_DIGEST_BYTES > this.digests.length) {
        const grown = Buffer.alloc(this.digests.length * 2);
        this.digests.copy(grown);
        this.digests = grown;
      }
      this.slots.set(filePath, slot);
    }
    this.digests.set(digest, slot * FILE_DIGEST_BYTES);
  }

  /** The digest recorded for `filePath` (a view: copy it to keep it past the next `set`). */
  get(filePath: string): Buffer | undefined {
    const slot = this.slots.get(filePath);
    if (slot === undefined) return undefined;
    return this.digests.subarray(slot * FILE_DIGEST_BYTES, (slot + 1) * FILE_DIGEST_BYTES);
  }
}
