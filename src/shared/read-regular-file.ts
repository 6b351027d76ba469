// Reads a file that a user's project (or a previous tree) holds, refusing anything that is not a
// regular file. `fs.readFile` on a FIFO blocks until a writer appears, so a named pipe called
// `tool.meta.json` or `staticmcp.json` would hang a build forever; opening without blocking and
// checking what was opened turns that into an ordinary, reportable error. Files the build
// publishes are also confined to the project: a symlink that leads out (to /etc/passwd, to
// ~/.ssh) is refused, so nothing the project did not hold reaches a public tree.
// The open, stat, read and close themselves are synchronous: a build reads thousands of small
// files one after another, and four thread-pool round trips per file cost more than the reads.
import {
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  promises as fs,
  openSync,
  readSync,
  realpathSync,
} from 'node:fs';
import path from 'node:path';

/** The `code` of the error thrown for a pipe, socket, device or folder. */
export const NOT_A_REGULAR_FILE = 'ENOTREGULAR';
/** The `code` of the error thrown for a file whose real path leaves the folder it must stay in. */
export const OUTSIDE_PROJECT = 'EOUTSIDEPROJECT';

/**
 * How long a root's real path is reused: a build reads thousands of files under one root, and
 * resolving the root again for each cost as much as resolving the file; a root re-pointed while
 * `dev` runs is seen again after this long.
 */
const REAL_ROOT_REUSE_MS = 1_000;
type RealPaths = Map<string, { real: Promise<string>; resolvedAtMs: number }>;
const realRoots: RealPaths = new Map();
/**
 * The folders files are read from, reused the same way: a file whose folder is inside the root and
 * which is no symlink itself (opened with O_NOFOLLOW) needs no realpath of its own, which
 * walks every component of its path: for every document, on every rebuild.
 */
const realFolders: RealPaths = new Map();
const NO_FOLLOW: number | undefined = constants.O_NOFOLLOW;
/** The same folders' real paths, for synchronous reads (readProjectFileAndStatsSync). */
const realFoldersSync = new Map<string, { real: string; resolvedAtMs: number }>();

function realPathReused(known: RealPaths, folder: string, maxEntries: number): Promise<string> {
  const nowMs = Date.now();
  const found = known.get(folder);
  if (found && nowMs - found.resolvedAtMs < REAL_ROOT_REUSE_MS) return found.real;
  const real = fs.realpath(folder);
  // A folder that does not resolve is not remembered: the next read reports it afresh.
  real.catch(() => known.delete(folder));
  if (known.size > maxEntries) known.clear();
  known.set(folder, { real, resolvedAtMs: nowMs });
  return real;
}

function realRootOf(root: string): Promise<string> {
  return realPathReused(realRoots, root, 64);
}

/**
 * Opens `file` for reading (without blocking on a FIFO) when it is really inside `root`; throws
 * OUTSIDE_PROJECT otherwise. A file that is no symlink, in a folder inside the root, is opened at
 * once; a symlink has its real path checked first.
 */
async function openInsideFolder(file: string, root: string, knownRealRoot?: string): Promise<number> {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK;
  if (NO_FOLLOW !== undefined) {
    const realRoot = knownRealRoot ?? (await realRootOf(root));
    const realFolder = await realPathReused(realFolders, path.dirname(file), 4096);
    if (realFolder === realRoot || realFolder.startsWith(`${realRoot}${path.sep}`)) {
      try {
        return openSync(file, flags | NO_FOLLOW);
      } catch (error) {
        // ELOOP: the file is a symlink, checked below.
        if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw error;
      }
    }
  }
  if (!(await isInsideRealFolder(file, root, knownRealRoot))) {
    throw Object.assign(new Error(`${file} leads outside the project`), { code: OUTSIDE_PROJECT });
  }
  return openSync(file, flags);
}

/** Whether `file`, with every symlink followed, is inside `root` (with its symlinks followed too). */
export async function isInsideRealFolder(file: string, root: string, knownRealRoot?: string): Promise<boolean> {
  const [realFile, realRoot] = await Promise.all([fs.realpath(file), knownRealRoot ?? realRootOf(root)]);
  return realFile.startsWith(`${realRoot}${path.sep}`);
}

/** Like readRegularFile, for a file the build publishes: it must really be inside `projectRoot`. */
export async function readProjectFile(file: string, projectRoot: string): Promise<Buffer> {
  return readOpened(file, await openInsideFolder(file, projectRoot));
}

/**
 * readProjectFile, with the identity (inode, size, mtime) of the file it read. `realProjectRoot`,
 * the project's real path when the caller knows it, spares a realpath per file.
 */
export async function readProjectFileAndStats(
  file: string,
  projectRoot: string,
  realProjectRoot?: string,
): Promise<{ bytes: Buffer; stats: BigIntStats }> {
  const fd = await openInsideFolder(file, projectRoot, realProjectRoot);
  try {
    const stats = fstatSync(fd, { bigint: true });
    if (!stats.isFile()) {
      throw Object.assign(new Error(`${file} is not a regular file`), { code: NOT_A_REGULAR_FILE });
    }
    return { bytes: readAllSync(fd, Number(stats.size)), stats };
  } finally {
    closeSync(fd);
  }
}

/**
 * readProjectFileAndStats, synchronously (a file the tree writer reads when asked, tree-writer.ts
 * writeDeferred): its real path is checked each time (a few files a build).
 */
export function readProjectFileAndStatsSync(
  file: string,
  projectRoot: string,
  realProjectRoot?: string,
): { bytes: Buffer; stats: BigIntStats } {
  const realRoot = realProjectRoot ?? realpathSync(projectRoot);
  const flags = constants.O_RDONLY | constants.O_NONBLOCK;
  // As openInsideFolder: a file that is no symlink, in a folder inside the root, needs no realpath of its own.
  const folder = path.dirname(file);
  const known = realFoldersSync.get(folder);
  let realFolder = known !== undefined && Date.now() - known.resolvedAtMs < REAL_ROOT_REUSE_MS ? known.real : undefined;
  if (realFolder === undefined) {
    if (realFoldersSync.size > 4096) realFoldersSync.clear();
    realFolder = realpathSync(folder);
    realFoldersSync.set(folder, { real: realFolder, resolvedAtMs: Date.now() });
  }
  const inside = (real: string) => real === realRoot || real.startsWith(`${realRoot}${path.sep}`);
  let fd: number | undefined;
  try {
    if (NO_FOLLOW !== undefined && inside(realFolder)) fd = openSync(file, flags | NO_FOLLOW);
  } catch (error) {
    // ELOOP: the file is a symlink, checked below.
    if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw error;
  }
  if (fd === undefined && !realpathSync(file).startsWith(`${realRoot}${path.sep}`))
    throw Object.assign(new Error(`${file} leads outside the project`), { code: OUTSIDE_PROJECT });
  fd ??= openSync(file, flags);
  try {
    const stats = fstatSync(fd, { bigint: true });
    if (!stats.isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: NOT_A_REGULAR_FILE });
    return { bytes: readAllSync(fd, Number(stats.size)), stats };
  } finally {
    closeSync(fd);
  }
}

export async function readRegularFile(file: string): Promise<Buffer>;
export async function readRegularFile(file: string, encoding: 'utf8'): Promise<string>;
export async function readRegularFile(file: string, encoding?: 'utf8'): Promise<Buffer | string> {
  const bytes = readOpened(file, openSync(file, constants.O_RDONLY | constants.O_NONBLOCK));
  return encoding ? bytes.toString(encoding) : bytes;
}

/** The bytes of the file `fd` opened (`file`), refused unless it is a regular file; closes it. */
function readOpened(file: string, fd: number): Buffer {
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      throw Object.assign(new Error(`${file} is not a regular file`), { code: NOT_A_REGULAR_FILE });
    }
    return readAllSync(fd, stats.size);
  } finally {
    closeSync(fd);
  }
}

/** Everything `fd` holds from its start: `expectedBytes` as its stat said, more if it grew since. */
function readAllSync(fd: number, expectedBytes: number): Buffer {
  let bytes = Buffer.allocUnsafe(Math.max(expectedBytes, 0) + 1);
  let done = 0;
  for (;;) {
    if (done === bytes.length) {
      const larger = Buffer.allocUnsafe(bytes.length * 2);
      bytes.copy(larger, 0, 0, done);
      bytes = larger;
    }
    const read = readSync(fd, bytes, done, bytes.length - done, null);
    if (read === 0) return bytes.subarray(0, done);
    done += read;
  }
}

/** Why a read failed, for messages: "not a regular file: …" or the errno code. */
export function readFailureReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === NOT_A_REGULAR_FILE || code === 'EISDIR' || code === 'ENXIO')
    return 'not a regular file: a pipe, socket, device or folder';
  if (code === OUTSIDE_PROJECT)
    return 'it is a symlink that leads outside the project, and only files inside the project are published; copy the file into the project instead';
  return code ?? (error as Error).message;
}
