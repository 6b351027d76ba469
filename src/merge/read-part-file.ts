// Reads one file of a shard part for `merge` (and of a tree for `index`, which reads it alike), in
// bounded memory and never through a link. A part is an artifact downloaded in CI: whoever could tamper with it could put a symlink to the merge
// machine's files in it (it would be read and published), or sparse files of many GiB (which cost
// nothing to upload and everything to read). So the file is opened with O_NOFOLLOW (a symlink is
// refused, not followed), checked to be a regular file and no bigger than the cap from its size
// (before a byte is read), and digested in fixed chunks: what is held is one chunk per file being
// read, whatever the files' sizes.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, read, readSync } from 'node:fs';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { showTreePath } from '../core/tree/tree-path.js';

/**
 * The largest part file merge accepts by default. GitHub refuses files over 100 MiB in a repository
 * (a tree is often pushed to a gh-pages branch) and Cloudflare Pages serves none over 25 MiB (the
 * build warns from there), so no tree any host publishes holds a bigger one; it is well above the
 * call files a default build writes (limits.maxOutputBytes, 10 MiB, as JSON). `--max-file-bytes`
 * raises it for a project that needs more.
 */
export const DEFAULT_MAX_PART_FILE_BYTES = 100 * 1024 * 1024;

/** Bytes read at a time while digesting: small enough that 32 files read at once hold 8 MiB. */
const CHUNK_BYTES = 256 * 1024;

/** The command reading: its messages name it (and, for merge, the part and its flag). */
export type PartFileReader = 'merge' | 'index';

const HINTS: Record<PartFileReader, string> = {
  merge:
    'Build that shard again and merge the fresh folder; parts must reach the merge as their build wrote them (in CI, upload the whole folder, hidden files included).',
  index:
    'Replace it with the regular file it stands for (or remove it), then run staticmcp index again; index reads only the regular files of a tree.',
};

const SYMLINK_WHY: Record<PartFileReader, string> = {
  merge:
    'is a symlink: a part holds only the regular files its build wrote, and merge never follows a link (it could lead to any file of this machine)',
  index: 'is a symlink: index never follows a link (it could lead to any file of this machine)',
};

const CAP_WHY: Record<PartFileReader, string> = {
  merge: 'bytes merge accepts for one file (--max-file-bytes)',
  index: 'bytes index reads for one file',
};

export interface PartFile {
  /** sha256 of the content (content-hash.ts digestFile). */
  digest: Buffer;
  size: number;
  /** The whole content, only when asked for (the few files the merge computes again). */
  content?: Buffer;
}

function refuse(
  reader: PartFileReader,
  given: string,
  filePath: string,
  why: string,
  code = 'PART_FILE_REFUSED',
): never {
  throw new StaticMcpError(code, `${given}/${showTreePath(filePath)} ${why}`, HINTS[reader]);
}

/**
 * Digests the part file at `source` (`filePath` inside the part `given`), or reads it whole with
 * `keepContent`. Refuses a symlink, anything but a regular file, and a file over `maxFileBytes`,
 * in words of the command `reader`.
 */
export async function readPartFile(
  reader: PartFileReader,
  source: string,
  given: string,
  filePath: string,
  maxFileBytes: number,
  keepContent: boolean,
): Promise<PartFile> {
  let fd: number;
  try {
    // Synchronous calls: a part holds thousands of small files, and for each one open, fstat, read
    // and close cost less than as many thread-pool round trips (a merge of 6,000 calls took 13 %
    // longer with a FileHandle per file).
    fd = openSync(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') refuse(reader, given, filePath, SYMLINK_WHY[reader]);
    if (code === 'ENXIO') refuse(reader, given, filePath, 'is not a regular file (a socket or device)');
    refuse(reader, given, filePath, `cannot be read (${code ?? (error as Error).message})`, 'PART_CHANGED');
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) refuse(reader, given, filePath, 'is not a regular file (a pipe, socket, device or folder)');
    if (stat.size > maxFileBytes) {
      refuse(
        reader,
        given,
        filePath,
        `is ${stat.size} bytes, over the ${maxFileBytes} ${CAP_WHY[reader]}; it was not read`,
        'PART_FILE_TOO_BIG',
      );
    }
    const hash = createHash('sha256');
    const kept: Buffer[] = [];
    // One byte more than the file's size, so a small file is read, and found complete, in one call.
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, stat.size + 1));
    const small = stat.size < CHUNK_BYTES;
    let size = 0;
    for (;;) {
      const bytesRead = small
        ? readSync(fd, chunk, 0, chunk.length, null)
        : await readAsync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      // A file growing while it is read is refused at the cap all the same.
      if (size > maxFileBytes)
        refuse(reader, given, filePath, `grew past ${maxFileBytes} bytes while it was read`, 'PART_FILE_TOO_BIG');
      const bytes = chunk.subarray(0, bytesRead);
      hash.update(bytes);
      if (keepContent) kept.push(Buffer.from(bytes));
      if (small && bytesRead < chunk.length) break;
    }
    return { digest: hash.digest(), size, ...(keepContent ? { content: Buffer.concat(kept) } : {}) };
  } finally {
    closeSync(fd);
  }
}

/** fs.read as a promise of the bytes read (large files are read off the main thread). */
function readAsync(fd: number, buffer: Buffer, offset: number, length: number, position: null): Promise<number> {
  return new Promise((resolve, reject) =>
    read(fd, buffer, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))),
  );
}
