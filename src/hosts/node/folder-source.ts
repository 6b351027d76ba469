// A tree in a local folder: files read on demand, and never from outside the folder (a symlink
// that leaves the root reads as missing, like a file that is not there). Reads are synchronous:
// tree files are small and local, and the promise API's per-read objects were most of the
// garbage of a precomputed call (resident memory, bench/bridge-big-tree.mjs). Synchronous but
// never blocking: a file is opened without waiting (O_NONBLOCK) and read only when it is a regular
// file, since reading a named pipe in the tree would wait for a writer and freeze every client.
// A call's file is sized (to claim room in the answer) and then read: the size is taken from the
// opened file, which the read that follows uses, so a new call opens and stats it once, not twice.
// Confinement is checked on the file actually opened, where the system can say which it is (Linux:
// /proc/self/fd): the plain path is opened without following a final link, and kept only when the
// opened file's own path is that same path, so no link was followed on the way and nothing swapped
// in between can lead outside. Any other case (a link anywhere on the way, no /proc) resolves the
// path first (one readlink per segment) and opens what it resolved to, as before. readNow, which
// answers a new call at once, opens a file by its name in a folder kept open once in use
// (kept-folders.ts), with the same proof made once for the folder, and closes the file in a
// microtask, after the answer its caller sends at once.
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE } from '../../core/tree/manifest.js';
import type { ReadOutcome, TreeSource } from '../../core/tree/tree-source.js';
import { KeptFolders } from './kept-folders.js';

/** The real path is already resolved: a link put there since is refused (ELOOP), not followed. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/** Where an open descriptor's path can be read back (a link to the file it holds). */
const DESCRIPTOR_LINKS = '/proc/self/fd/';

/** The most readNow reads: a call file larger than this is read by read(). */
const READ_NOW_BYTES = 64 * 1024;

/** A file sizeOf opened, kept for the read of the same path that normally follows at once. */
interface OpenedFile {
  relativePath: string;
  descriptor: number;
  size: number;
}

export class FolderSource implements TreeSource {
  readonly revalidateAfterMs = undefined;
  private realRoot: string | undefined;
  /** False once reading a descriptor's path back failed (no /proc): every open then resolves first. */
  private descriptorLinks = process.platform === 'linux';
  /** At most one: another sizeOf, a read, or close() closes it (a size refused by the answer's room is never read). */
  private opened: OpenedFile | undefined;
  /** The last file readNow read, until the microtask that closes it runs. */
  private readDescriptor: number | undefined;
  /** What readNow reads into: one read, and no new buffer per call. */
  private readNowBuffer: Buffer | undefined;
  /** The folders readNow opens files in (Linux, with /proc): made on its first read. */
  private keptFolders: KeptFolders | undefined;

  constructor(
    private readonly root: string,
    readonly displayName: string,
  ) {}

  /** The size of a regular file inside the tree; the file stays open for the read that follows. */
  async sizeOf(relativePath: string): Promise<number | undefined> {
    this.closeOpened();
    let descriptor: number | undefined;
    try {
      descriptor = this.openInside(relativePath);
      if (descriptor === undefined) return undefined;
      const stats = fstatSync(descriptor);
      if (!stats.isFile()) return undefined;
      this.opened = { relativePath, descriptor, size: stats.size };
      descriptor = undefined;
      return stats.size;
    } catch {
      // The read that follows says what is wrong.
      return undefined;
    } finally {
      if (descriptor !== undefined) closeSync(descriptor);
    }
  }

  async read(relativePath: string): Promise<ReadOutcome> {
    // The tree is being loaded (again): its folders are opened anew, a rebuilt tree's ones.
    if (relativePath === MANIFEST_FILE) this.keptFolders?.forget();
    const opened = this.opened;
    if (opened !== undefined && opened.relativePath === relativePath) {
      this.opened = undefined;
      try {
        return { status: 'ok', text: readOpenedFile(opened.descriptor, opened.size) };
      } catch (error) {
        return readFailure(relativePath, error);
      } finally {
        closeSync(opened.descriptor);
      }
    }
    // Outside the try: a tree folder that is gone is an error, not a missing file.
    this.realRoot ??= realpathSync.native(this.root);
    let fd: number | undefined;
    try {
      fd = this.openInside(relativePath);
    } catch (error) {
      if (isMissingError(error)) return { status: 'missing' };
      if ((error as NodeJS.ErrnoException).syscall !== 'realpath') return readFailure(relativePath, error);
      throw new Error(`${relativePath} cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (fd === undefined) return { status: 'missing' };
    try {
      try {
        const stats = fstatSync(fd);
        if (stats.isDirectory()) return { status: 'missing' };
        if (!stats.isFile()) {
          throw new Error(
            `${relativePath} is not a regular file (a named pipe, socket or device); rebuild the tree to replace it`,
          );
        }
        return { status: 'ok', text: readOpenedFile(fd, stats.size) };
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      return readFailure(relativePath, error);
    }
  }

  /**
   * read() without a promise, for an answer cut from the file's bytes (core/mcp/cut-call-answers.ts):
   * the same opening and containment, and one read into a buffer kept for it, without fstat. A
   * file that fills the buffer (larger than `maxBytes` or than the buffer) is not taken; nor is
   * anything that cannot be opened, read or is outside the tree: undefined, and read() says why.
   * What is not a regular file reads as an error or no bytes here (opened without waiting), and a
   * device's bytes would still have to be the call file of exactly that call to be answered.
   * A file missing from a kept folder (deleted since: a rebuilt tree) is not taken either: read()
   * looks its plain path up.
   */
  readNow(relativePath: string, maxBytes: number): ReadOutcome | undefined {
    this.closeOpened();
    let descriptor: number | undefined;
    try {
      const throughFolder = this.pathThroughKeptFolder(relativePath);
      descriptor = throughFolder !== undefined ? openSync(throughFolder, OPEN_FLAGS) : this.openInside(relativePath);
      if (descriptor === undefined) return undefined;
      const limit = Math.min(maxBytes, READ_NOW_BYTES);
      this.readNowBuffer ??= Buffer.allocUnsafe(READ_NOW_BYTES + 1);
      const filled = readSync(descriptor, this.readNowBuffer, 0, limit + 1, null);
      if (filled > limit) return undefined;
      return { status: 'ok', text: this.readNowBuffer.toString('utf8', 0, filled) };
    } catch {
      return undefined;
    } finally {
      if (descriptor !== undefined) this.closeSoon(descriptor);
    }
  }

  close(): void {
    this.closeOpened();
    this.closeRead();
    this.keptFolders?.forget();
  }

  /**
   * Closes what readNow read once the code that asked for it has run (a microtask): its answer,
   * sent in the same turn, goes out before the close(2) instead of after it.
   */
  private closeSoon(descriptor: number): void {
    if (this.readDescriptor === undefined) queueMicrotask(this.closeRead);
    else closeQuietly(this.readDescriptor);
    this.readDescriptor = descriptor;
  }

  private readonly closeRead = (): void => {
    const descriptor = this.readDescriptor;
    this.readDescriptor = undefined;
    if (descriptor !== undefined) closeQuietly(descriptor);
  };

  /** Where readNow opens `relativePath` through its kept folder, or undefined to open its plain path. */
  private pathThroughKeptFolder(relativePath: string): string | undefined {
    if (!this.descriptorLinks) return undefined;
    const slash = relativePath.lastIndexOf('/');
    if (slash <= 0) return undefined;
    this.realRoot ??= realpathSync.native(this.root);
    this.keptFolders ??= new KeptFolders(this.realRoot);
    return this.keptFolders.pathInside(relativePath.slice(0, slash), relativePath.slice(slash + 1));
  }

  private closeOpened(): void {
    if (this.opened === undefined) return;
    const { descriptor } = this.opened;
    this.opened = undefined;
    closeQuietly(descriptor);
  }

  /**
   * A descriptor of the tree file at `relativePath`, or undefined when it resolves outside the
   * tree; throws like realpath and open (a missing file: ENOENT or ENOTDIR).
   */
  private openInside(relativePath: string): number | undefined {
    this.realRoot ??= realpathSync.native(this.root);
    if (this.descriptorLinks) {
      const plain = `${this.realRoot}/${relativePath}`;
      let descriptor: number;
      try {
        descriptor = openSync(plain, OPEN_FLAGS);
      } catch (error) {
        // Missing whichever way it is looked up (a link on the way resolves to the same miss).
        if (isMissingError(error)) throw error;
        descriptor = -1;
      }
      if (descriptor >= 0) {
        let opened: string | undefined;
        try {
          opened = readlinkSync(`${DESCRIPTOR_LINKS}${descriptor}`);
        } catch {
          this.descriptorLinks = false;
        }
        if (opened === plain) return descriptor;
        closeSync(descriptor);
      }
    }
    const realFile = realpathSync.native(path.join(this.realRoot, ...relativePath.split('/')));
    return realFile.startsWith(`${this.realRoot}${path.sep}`) ? openSync(realFile, OPEN_FLAGS) : undefined;
  }
}

/**
 * The text of an open regular file of `size` bytes (its fstat): read to that size, in one read for
 * a tree file, without readFileSync's second stat and its read to the end.
 */
function readOpenedFile(descriptor: number, size: number): string {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const read = readSync(descriptor, buffer, filled, size - filled, null);
    if (read === 0) break;
    filled += read;
  }
  return buffer.toString('utf8', 0, filled);
}

/** A failed open or read as read() reports it: missing, or an error naming the tree path. */
function readFailure(relativePath: string, error: unknown): ReadOutcome {
  if (!(error as NodeJS.ErrnoException).code) throw error;
  if (isMissingError(error)) return { status: 'missing' };
  // The code alone: the error's own message names the absolute path.
  throw new Error(`${relativePath} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
}

function isMissingError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  // EISDIR: `tools/<name>.json` asked for while only a folder exists; ENOTDIR: a segment is a file.
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ENAMETOOLONG';
}

function closeQuietly(descriptor: number): void {
  try {
    closeSync(descriptor);
  } catch {}
}
