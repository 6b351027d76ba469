// A tree in a local folder: files read on demand, and never from outside the folder (a symlink
// that leaves the root reads as missing, like a file that is not there). Reads are synchronous:
// tree files are small and local, and the promise API's per-read objects were most of the
// garbage of a precomputed call (resident memory, bench/bridge-big-tree.mjs). Synchronous but
// never blocking: a file is opened without waiting (O_NONBLOCK) and read only when it is a regular
// file, since reading a named pipe in the tree would wait for a writer and freeze every client.
import { closeSync, constants, fstatSync, openSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ReadOutcome, TreeSource } from '../../core/tree/tree-source.js';

/** The real path is already resolved: a link put there since is refused (ELOOP), not followed. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

export class FolderSource implements TreeSource {
  readonly revalidateAfterMs = undefined;
  private realRoot: string | undefined;

  constructor(
    private readonly root: string,
    readonly displayName: string,
  ) {}

  /** The size of a regular file inside the tree, from a stat (nothing is opened). */
  async sizeOf(relativePath: string): Promise<number | undefined> {
    try {
      const realFile = this.realPathOf(relativePath);
      if (realFile === undefined) return undefined;
      const stats = statSync(realFile, { throwIfNoEntry: false });
      return stats?.isFile() ? stats.size : undefined;
    } catch {
      // The read that follows says what is wrong.
      return undefined;
    }
  }

  async read(relativePath: string): Promise<ReadOutcome> {
    // Outside the try: a tree folder that is gone is an error, not a missing file.
    this.realRoot ??= realpathSync.native(this.root);
    let realFile: string | undefined;
    try {
      realFile = this.realPathOf(relativePath);
    } catch (error) {
      if (isMissingError(error)) return { status: 'missing' };
      throw new Error(`${relativePath} cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (realFile === undefined) return { status: 'missing' };
    try {
      const fd = openSync(realFile, OPEN_FLAGS);
      try {
        const stats = fstatSync(fd);
        if (stats.isDirectory()) return { status: 'missing' };
        if (!stats.isFile()) {
          throw new Error(
            `${relativePath} is not a regular file (a named pipe, socket or device); rebuild the tree to replace it`,
          );
        }
        return { status: 'ok', text: readFileSync(fd, 'utf8') };
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if (!(error as NodeJS.ErrnoException).code) throw error;
      if (isMissingError(error)) return { status: 'missing' };
      // The code alone: the error's own message names the absolute path.
      throw new Error(`${relativePath} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }

  close(): void {}

  /** The real path of a tree file, or undefined when it resolves outside the tree; throws like realpath. */
  private realPathOf(relativePath: string): string | undefined {
    this.realRoot ??= realpathSync.native(this.root);
    const realFile = realpathSync.native(path.join(this.realRoot, ...relativePath.split('/')));
    return realFile.startsWith(`${this.realRoot}${path.sep}`) ? realFile : undefined;
  }
}

function isMissingError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  // EISDIR: `tools/<name>.json` asked for while only a folder exists; ENOTDIR: a segment is a file.
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ENAMETOOLONG';
}
