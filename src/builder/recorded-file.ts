// A tree file as a build records it for the next build to reuse (pack-reuse.ts: a tool's packs;
// search-index-reuse.ts: the search index): its content digest and its identity on disk, so the
// next build knows an untouched file (same inode, size and mtime) without reading it.
import { type BigIntStats, lstatSync } from 'node:fs';

export interface RecordedFile {
  /** Its tree path. */
  path: string;
  sha256: string;
  inode: string;
  size: number;
  mtimeNs: string;
}

/** The record of the file at `path` (its tree path) whose lstat is `stats`. */
export function recordedFileOf(path: string, sha256: string, stats: BigIntStats): RecordedFile {
  return { path, sha256, inode: String(stats.ino), size: Number(stats.size), mtimeNs: String(stats.mtimeNs) };
}

/** Whether `absolutePath` is still the regular file `file` recorded (false when it is gone). */
export function isUntouched(absolutePath: string, file: RecordedFile): boolean {
  try {
    const stats = lstatSync(absolutePath, { bigint: true });
    return (
      stats.isFile() &&
      String(stats.ino) === file.inode &&
      Number(stats.size) === file.size &&
      String(stats.mtimeNs) === file.mtimeNs
    );
  } catch {
    return false;
  }
}
