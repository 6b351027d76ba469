// Removing a tree (the writer's temporary tree, the tree it replaced, an interrupted build's
// leftovers) in bounded memory and one system call a file.
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** File operations in flight at once: on a busy disk one file create can take milliseconds. */
export const IO_CONCURRENCY = 64;

/**
 * Removes a folder and everything in it, in bounded memory: `fs.rm` starts an operation for every
 * entry at once (a 100,000-file tree took hundreds of MB), here at most IO_CONCURRENCY per folder
 * are in flight while its entries are read as a stream. A missing folder is not an error.
 */
export async function removeTree(target: string): Promise<void> {
  let folder: Awaited<ReturnType<typeof fs.opendir>>;
  try {
    folder = await fs.opendir(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') return fs.rm(target, { force: true });
    throw error;
  }
  const pending = new Set<Promise<void>>();
  for await (const entry of folder) {
    const entryPath = path.join(target, entry.name);
    const removal: Promise<void> = (entry.isDirectory() ? removeTree(entryPath) : unlinkIfThere(entryPath)).finally(
      () => pending.delete(removal),
    );
    pending.add(removal);
    if (pending.size >= IO_CONCURRENCY) await Promise.race(pending);
  }
  await Promise.all(pending);
  try {
    await fs.rmdir(target);
  } catch (error) {
    // Entries made (or missed by the listing) while it was read: one more pass.
    if ((error as NodeJS.ErrnoException).code === 'ENOTEMPTY') return removeTree(target);
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** One system call, where `fs.rm` checks the entry first (a rebuild removes thousands of files). */
async function unlinkIfThere(file: string): Promise<void> {
  try {
    await fs.unlink(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    // A folder after all (made since the listing, or a file system that did not say): EISDIR on
    // Linux, EPERM elsewhere.
    if (code === 'EISDIR' || code === 'EPERM') return removeTree(file);
    throw error;
  }
}

/**
 * Removes the folders of `tempDir` that removing files from `emptied` (tree-relative folders) left
 * empty, deepest first and then up to the top (a folder still holding anything stays); returns them.
 */
export async function removeEmptiedFolders(tempDir: string, emptied: Iterable<string>): Promise<string[]> {
  const folders = new Set<string>();
  for (let folder of emptied) {
    while (folder !== '.' && folder !== '') {
      folders.add(folder);
      folder = path.dirname(folder);
    }
  }
  const removed: string[] = [];
  for (const folder of [...folders].sort((a, b) => b.split('/').length - a.split('/').length || (a < b ? -1 : 1))) {
    try {
      await fs.rmdir(path.join(tempDir, folder));
      removed.push(folder);
    } catch {
      // Not empty (or never made): kept.
    }
  }
  return removed;
}
