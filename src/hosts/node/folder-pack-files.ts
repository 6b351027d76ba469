// The binary reads packs need (core/packs/pack-reader.ts: PackFileSource) from a tree in a local
// folder: a byte range with one positioned read, so a lookup never reads a whole pack. The same
// rules as FolderSource: nothing outside the folder (a symlink that leaves it reads as missing,
// a link is never followed), and only regular files are read (a named pipe never blocks a reader).
// readBytesNow keeps the last packs it opened open (a few), so a call answered from a warm pack is
// one positioned read: the checks ran when the pack was opened, the name is the content's hash
// (the same name holds the same bytes), and a new manifest (a rebuilt tree) closes them all.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { ByteRange, BytesOutcome, PackFileSource } from '../../core/packs/pack-reader.js';

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
const MISSING_CODES = new Set(['ENOENT', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG', 'ELOOP']);
/** Packs readBytesNow keeps open at most, the least recently read closed first. */
const KEPT_PACKS = 16;

export class FolderPackFiles implements PackFileSource {
  private realRoot: string | undefined;
  /** Descriptors of regular files inside the tree, of the length their index says, by tree path. */
  private readonly kept = new Map<string, number>();

  constructor(private readonly root: string) {}

  /**
   * The range of a pack opened as readBytes opens it (the same containment, flags and regular-file
   * test) and kept open while its length is the one the index says; undefined on any failure or
   * short read (readBytes then says what is wrong).
   */
  readBytesNow(relativePath: string, range: ByteRange): BytesOutcome | undefined {
    try {
      let fd = this.kept.get(relativePath);
      if (fd === undefined) {
        fd = this.openKept(relativePath, range.fileLength);
        if (fd === undefined) return undefined;
      } else {
        this.kept.delete(relativePath);
        this.kept.set(relativePath, fd);
      }
      if (range.offset + range.length > range.fileLength) return undefined;
      const bytes = new Uint8Array(range.length);
      return readSync(fd, bytes, 0, range.length, range.offset) === range.length
        ? { status: 'ok', bytes, whole: false }
        : undefined;
    } catch {
      return undefined;
    }
  }

  closeKept(): void {
    for (const fd of this.kept.values()) closeQuietly(fd);
    this.kept.clear();
  }

  private openKept(relativePath: string, fileLength: number): number | undefined {
    this.realRoot ??= realpathSync.native(this.root);
    const realFile = realpathSync.native(path.join(this.realRoot, ...relativePath.split('/')));
    if (!realFile.startsWith(`${this.realRoot}${path.sep}`)) return undefined;
    const fd = openSync(realFile, OPEN_FLAGS);
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile() || stats.size !== fileLength) {
        closeQuietly(fd);
        return undefined;
      }
    } catch {
      closeQuietly(fd);
      return undefined;
    }
    if (this.kept.size >= KEPT_PACKS) {
      const [oldest, oldestFd] = this.kept.entries().next().value as [string, number];
      this.kept.delete(oldest);
      closeQuietly(oldestFd);
    }
    this.kept.set(relativePath, fd);
    return fd;
  }

  async readBytes(relativePath: string, range?: ByteRange): Promise<BytesOutcome> {
    this.realRoot ??= realpathSync.native(this.root);
    const file = path.join(this.realRoot, ...relativePath.split('/'));
    let fd: number;
    try {
      const realFile = realpathSync.native(file);
      if (!realFile.startsWith(`${this.realRoot}${path.sep}`)) return { status: 'missing' };
      fd = openSync(realFile, OPEN_FLAGS);
    } catch (error) {
      if (MISSING_CODES.has((error as NodeJS.ErrnoException).code ?? '')) return { status: 'missing' };
      // The code alone: the error's own message names the absolute path.
      throw new Error(`${relativePath} cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    try {
      const stats = fstatSync(fd);
      if (stats.isDirectory()) return { status: 'missing' };
      if (!stats.isFile()) throw new Error(`${relativePath} is not a regular file; rebuild the tree to replace it`);
      const start = range ? Math.min(range.offset, stats.size) : 0;
      const length = range ? Math.max(0, Math.min(range.length, stats.size - start)) : stats.size;
      const bytes = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const read = readSync(fd, bytes, done, length - done, start + done);
        if (read === 0) break;
        done += read;
      }
      // A file shorter than the range asked for answers what it has: the reader refuses the shortfall.
      return { status: 'ok', bytes: done === length ? bytes : bytes.subarray(0, done), whole: range === undefined };
    } finally {
      closeSync(fd);
    }
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {}
}
