// Putting existing files into the tree being written without reading them into memory: a user's
// public/ file or a shard part's file (linkOrCopy), and the user's own entries of the previous
// tree carried into the new one (linkCopy).
import { constants as fsConstants, promises as fs, linkSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

/** A copy that shares the files' data: hard links (a copy where linking fails), folders made anew. */
export async function linkCopy(source: string, target: string): Promise<void> {
  const stat = await fs.lstat(source);
  if (stat.isDirectory()) {
    await fs.mkdir(target, { mode: stat.mode & 0o7777 });
    for (const name of await fs.readdir(source)) await linkCopy(path.join(source, name), path.join(target, name));
  } else if (stat.isSymbolicLink()) {
    await fs.symlink(await fs.readlink(source), target);
  } else {
    await fs.link(source, target).catch(() => fs.copyFile(source, target));
  }
}

/** Errors of `link` that only say this source cannot be linked here: the file is copied instead. */
const LINK_REFUSED = new Set(['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP', 'EOPNOTSUPP']);

/**
 * Hard-links `source` (a regular file) at `target`, or copies it there when the two are on
 * different filesystems or the filesystem refuses links. Never through a symlink: a link in
 * `source`'s place (say, swapped in since it was digested) is refused, not followed. The copy
 * streams, so memory does not grow with the file's size.
 */
export async function linkOrCopy(source: string, target: string): Promise<void> {
  try {
    // A link shares the source's mode: only a plain rw-r--r-- file is linked (a file with other
    // permissions, say from an unpacked artifact, is copied with the mode the build gives its files).
    // Synchronous: an edit build links every unchanged index and pack file of the previous tree,
    // and a trip through the thread pool costs more CPU than the system call it makes.
    const stat = lstatSync(source);
    if (stat.isFile() && (stat.mode & 0o7777) === 0o644) {
      linkSync(source, target);
      return;
    }
  } catch (error) {
    if (!LINK_REFUSED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
  const handle = await fs.open(source, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile())
      throw Object.assign(new Error(`${source} is not a regular file`), { code: 'ENOTREGULAR' });
    const output = await fs.open(target, 'wx', 0o644);
    await pipeline(handle.createReadStream({ autoClose: false }), output.createWriteStream());
  } finally {
    await handle.close();
  }
}
