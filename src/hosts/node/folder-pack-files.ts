// The binary reads packs need (core/packs/pack-reader.ts: PackFileSource) from a tree in a local
// folder: a byte range with one positioned read, so a lookup never reads a whole pack. The same
// rules as FolderSource: nothing outside the folder (a symlink that leaves it reads as missing,
// a link is never followed), and only regular files are read (a named pipe never blocks a reader).
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { ByteRange, BytesOutcome, PackFileSource } from '../../core/packs/pack-reader.js';

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
const MISSING_CODES = new Set(['ENOENT', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG', 'ELOOP']);

export class FolderPackFiles implements PackFileSource {
  private realRoot: string | undefined;

  constructor(private readonly root: string) {}

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
