// Reads a file that a user's project (or a previous tree) holds, refusing anything that is not a
// regular file. `fs.readFile` on a FIFO blocks until a writer appears, so a named pipe called
// `tool.meta.json` or `staticmcp.json` would hang a build forever; opening without blocking and
// checking what was opened turns that into an ordinary, reportable error. Files the build
// publishes are also confined to the project: a symlink that leads out (to /etc/passwd, to
// ~/.ssh) is refused, so nothing the project did not hold reaches a public tree.
import { type BigIntStats, constants, promises as fs } from 'node:fs';
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
const realRoots = new Map<string, { real: Promise<string>; resolvedAtMs: number }>();

function realRootOf(root: string): Promise<string> {
  const nowMs = Date.now();
  const known = realRoots.get(root);
  if (known && nowMs - known.resolvedAtMs < REAL_ROOT_REUSE_MS) return known.real;
  const real = fs.realpath(root);
  // A root that does not resolve is not remembered: the next read reports it afresh.
  real.catch(() => realRoots.delete(root));
  if (realRoots.size > 64) realRoots.clear();
  realRoots.set(root, { real, resolvedAtMs: nowMs });
  return real;
}

/** Whether `file`, with every symlink followed, is inside `root` (with its symlinks followed too). */
export async function isInsideRealFolder(file: string, root: string, knownRealRoot?: string): Promise<boolean> {
  const [realFile, realRoot] = await Promise.all([fs.realpath(file), knownRealRoot ?? realRootOf(root)]);
  return realFile.startsWith(`${realRoot}${path.sep}`);
}

/** Like readRegularFile, for a file the build publishes: it must really be inside `projectRoot`. */
export async function readProjectFile(file: string, projectRoot: string): Promise<Buffer> {
  if (!(await isInsideRealFolder(file, projectRoot))) {
    throw Object.assign(new Error(`${file} leads outside the project`), { code: OUTSIDE_PROJECT });
  }
  return readRegularFile(file);
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
  if (!(await isInsideRealFolder(file, projectRoot, realProjectRoot))) {
    throw Object.assign(new Error(`${file} leads outside the project`), { code: OUTSIDE_PROJECT });
  }
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile()) {
      throw Object.assign(new Error(`${file} is not a regular file`), { code: NOT_A_REGULAR_FILE });
    }
    return { bytes: await handle.readFile(), stats };
  } finally {
    await handle.close();
  }
}

export async function readRegularFile(file: string): Promise<Buffer>;
export async function readRegularFile(file: string, encoding: 'utf8'): Promise<string>;
export async function readRegularFile(file: string, encoding?: 'utf8'): Promise<Buffer | string> {
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) {
      throw Object.assign(new Error(`${file} is not a regular file`), { code: NOT_A_REGULAR_FILE });
    }
    const bytes = await handle.readFile();
    return encoding ? bytes.toString(encoding) : bytes;
  } finally {
    await handle.close();
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
