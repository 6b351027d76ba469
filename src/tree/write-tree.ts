// Writes a whole tree atomically: files go into a sibling folder, which is swapped in at the end
// with two renames, so a build killed at any moment leaves the previous tree in place (or, in the
// microseconds between the renames, beside it, where the next build puts it back).
import { promises as fs } from 'node:fs';
import path from 'node:path';

const TEMP_MARK = '.staticmcp-tmp-';
const OLD_MARK = '.staticmcp-old-';
const WRITE_CONCURRENCY = 64;

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function siblingsMarked(outDir: string, mark: string): Promise<{ file: string; pid: number }[]> {
  const parent = path.dirname(outDir);
  const prefix = `${path.basename(outDir)}${mark}`;
  let names: string[];
  try {
    names = await fs.readdir(parent);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => ({ file: path.join(parent, name), pid: Number(name.slice(prefix.length)) }));
}

/**
 * Puts back a previous tree left beside `outDir` by a build killed mid-swap, and removes the
 * half-written folders of dead builds. Returns what it did, for the build log.
 */
export async function recoverInterruptedWrite(outDir: string): Promise<string[]> {
  const notes: string[] = [];
  for (const old of await siblingsMarked(outDir, OLD_MARK)) {
    if (isProcessAlive(old.pid) && old.pid !== process.pid) continue;
    let outExists = true;
    try {
      await fs.lstat(outDir);
    } catch {
      outExists = false;
    }
    if (!outExists) {
      await fs.rename(old.file, outDir);
      notes.push(`restored the previous tree that an interrupted build left at ${path.basename(old.file)}`);
    } else {
      await fs.rm(old.file, { recursive: true, force: true });
    }
  }
  for (const temp of await siblingsMarked(outDir, TEMP_MARK)) {
    if (isProcessAlive(temp.pid) && temp.pid !== process.pid) continue;
    await fs.rm(temp.file, { recursive: true, force: true });
    notes.push(`removed ${path.basename(temp.file)}, left by an interrupted build`);
  }
  return notes;
}

async function writeAll(root: string, files: ReadonlyMap<string, string | Buffer>): Promise<void> {
  const folders = new Set<string>();
  for (const relativePath of files.keys()) folders.add(path.dirname(relativePath));
  for (const folder of [...folders].sort()) await fs.mkdir(path.join(root, folder), { recursive: true });
  const entries = [...files.entries()];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < entries.length) {
      const [relativePath, content] = entries[next++];
      await fs.writeFile(path.join(root, relativePath), content, { mode: 0o644 });
    }
  };
  await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, entries.length) }, worker));
}

/** Replaces `outDir` with exactly `files` (tree-relative `/` paths → content). */
export async function writeTreeAtomically(outDir: string, files: ReadonlyMap<string, string | Buffer>): Promise<void> {
  const tempDir = `${outDir}${TEMP_MARK}${process.pid}`;
  const oldDir = `${outDir}${OLD_MARK}${process.pid}`;
  await fs.rm(tempDir, { recursive: true, force: true });
  await fs.mkdir(tempDir, { recursive: true });
  try {
    await writeAll(tempDir, files);
  } catch (error) {
    await fs.rm(tempDir, { recursive: true, force: true });
    throw error;
  }
  let hadPrevious = true;
  try {
    await fs.rename(outDir, oldDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    hadPrevious = false;
  }
  await fs.rename(tempDir, outDir);
  if (hadPrevious) await fs.rm(oldDir, { recursive: true, force: true });
}
