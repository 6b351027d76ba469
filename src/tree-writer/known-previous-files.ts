// Files of the previous tree that an earlier build recorded with their digest and identity
// (.staticmcp/search-index.json, .staticmcp/packs.json): when a new file's digest is the recorded
// one and the file on disk is still the one recorded (same inode, size and mtime, a regular file
// with the writer's mode), the tree writer leaves it where it is without reading it back
// (holds-same-bytes.ts reads the whole file). A one-document edit rewrites the search index, and
// all but a few dozen of its ~1,000 files come out the same: reading them was ~11 MB a rebuild.
// Any doubt (no record, another digest, a touched file) falls back to reading.
import { lstatSync } from 'node:fs';
import { holdsSameBytes } from './holds-same-bytes.js';

/** A file as a build recorded it (builder/recorded-file.ts). */
export interface KnownFile {
  path: string;
  sha256: string;
  inode: string;
  size: number;
  mtimeNs: string;
}

export class KnownPreviousFiles {
  private readonly byPath = new Map<string, KnownFile>();

  /** Adds recorded files; a record that is not well formed is left out. */
  add(files: Iterable<KnownFile>): void {
    for (const file of files)
      if (
        typeof file?.path === 'string' &&
        typeof file.sha256 === 'string' &&
        typeof file.inode === 'string' &&
        typeof file.mtimeNs === 'string' &&
        Number.isSafeInteger(file.size)
      )
        this.byPath.set(file.path, file);
  }

  /**
   * Whether `absolutePath`, the previous tree's file at `relativePath`, holds exactly `content`
   * (whose sha256 is `digest`): known by its record, else read and compared.
   */
  holdsSame(relativePath: string, absolutePath: string, content: string | Buffer, digest: Buffer): boolean {
    return this.holdsDigest(relativePath, absolutePath, digest) || holdsSameBytes(absolutePath, content);
  }

  /**
   * Whether `absolutePath` (the previous tree's file at `relativePath`) is known to hold the bytes
   * whose sha256 is `digest`, checked by one lstat; false when unknown (the caller reads instead).
   */
  private holdsDigest(relativePath: string, absolutePath: string, digest: Buffer): boolean {
    const file = this.byPath.get(relativePath);
    if (file === undefined || file.sha256 !== digest.toString('hex')) return false;
    try {
      const stats = lstatSync(absolutePath, { bigint: true });
      return (
        stats.isFile() &&
        // Linked as it is: only a file with the mode the writer gives its files may stand for a new one.
        (Number(stats.mode) & 0o777) === 0o644 &&
        String(stats.ino) === file.inode &&
        Number(stats.size) === file.size &&
        String(stats.mtimeNs) === file.mtimeNs
      );
    } catch {
      return false;
    }
  }
}
