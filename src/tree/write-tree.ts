// Writes a whole tree atomically: files go into a sibling folder, which is swapped in at the end
// with two renames, so a build killed at any moment leaves the previous tree in place (or, in the
// microseconds between the renames, beside it, where the next build puts it back).
// A long-lived process (`staticmcp dev`) can ask for unchanged files to be hard-linked from the
// tree it wrote last instead of written again: the swap stays atomic, and a rebuild after a
// one-file edit no longer rewrites every call file (writes dominate such a rebuild).
import { createHash } from 'node:crypto';
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

/** What this process wrote at one tree path: its content hash and the file's identity right after. */
interface WrittenFile {
  hash: string;
  inode: number;
  size: number;
  mtimeMs: number;
}

/** Output folder → what this process last wrote there; only kept once reuse is switched on. */
const writtenTrees = new Map<string, Map<string, WrittenFile>>();
let reuseUnchangedFiles = false;

/**
 * From now on, in this process, files whose content equals what the previous write put at the same
 * path, and which are provably untouched since (same inode, size and mtime), are hard-linked from
 * the previous tree into the new one instead of written again.
 */
export function reuseUnchangedTreeFiles(): void {
  reuseUnchangedFiles = true;
}

function hashContent(content: string | Buffer): string {
  return createHash('sha1').update(content).digest('hex');
}

/**
 * Hard-links `relativePath` from the previous tree when it is unchanged and untouched, and returns
 * what is known of it then; undefined when it has to be written. Without a record of the previous
 * write (the first write of this process), a file of the same size is read and compared instead.
 */
async function linkUnchanged(
  previousRoot: string,
  previous: Map<string, WrittenFile> | undefined,
  relativePath: string,
  content: string | Buffer,
  hash: string,
  target: string,
): Promise<WrittenFile | undefined> {
  const recorded = previous?.get(relativePath);
  if (previous && recorded?.hash !== hash) return undefined;
  const source = path.join(previousRoot, relativePath);
  try {
    const stat = await fs.lstat(source);
    if (!stat.isFile()) return undefined;
    if (recorded) {
      if (stat.ino !== recorded.inode || stat.size !== recorded.size || stat.mtimeMs !== recorded.mtimeMs)
        return undefined;
    } else {
      const bytes = typeof content === 'string' ? Buffer.from(content) : content;
      if (stat.size !== bytes.length || !(await fs.readFile(source)).equals(bytes)) return undefined;
    }
    await fs.link(source, target);
    return { hash, inode: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

async function writeAll(
  root: string,
  files: ReadonlyMap<string, string | Buffer>,
  reuse?: { previousRoot: string; previous: Map<string, WrittenFile> | undefined; record: Map<string, WrittenFile> },
): Promise<void> {
  const folders = new Set<string>();
  for (const relativePath of files.keys()) folders.add(path.dirname(relativePath));
  for (const folder of [...folders].sort()) await fs.mkdir(path.join(root, folder), { recursive: true });
  const entries = [...files.entries()];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < entries.length) {
      const [relativePath, content] = entries[next++];
      const target = path.join(root, relativePath);
      if (!reuse) {
        await fs.writeFile(target, content, { mode: 0o644 });
        continue;
      }
      const hash = hashContent(content);
      const linked = await linkUnchanged(reuse.previousRoot, reuse.previous, relativePath, content, hash, target);
      if (linked) {
        reuse.record.set(relativePath, linked);
        continue;
      }
      await fs.writeFile(target, content, { mode: 0o644 });
      const stat = await fs.lstat(target);
      reuse.record.set(relativePath, { hash, inode: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs });
    }
  };
  await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, entries.length) }, worker));
}

/** A copy that shares the files' data: hard links (a copy where linking fails), folders made anew. */
async function linkCopy(source: string, target: string): Promise<void> {
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

/**
 * Carries the entries `keep` accepts from the previous `outDir` into the new tree, unless the new
 * tree has one of that name. Linked before the swap, so a build killed at any point has lost
 * nothing: the previous tree still holds them. Returns the names carried over.
 */
async function carryOver(
  outDir: string,
  tempDir: string,
  files: ReadonlyMap<string, string | Buffer>,
  keep: (name: string) => boolean,
): Promise<string[]> {
  let names: string[];
  try {
    names = (await fs.readdir(outDir)).sort();
  } catch {
    return [];
  }
  const written = new Set([...files.keys()].map((filePath) => filePath.split('/', 1)[0]));
  const kept: string[] = [];
  for (const name of names) {
    if (!keep(name) || written.has(name)) continue;
    await linkCopy(path.join(outDir, name), path.join(tempDir, name));
    kept.push(name);
  }
  return kept;
}

export interface WriteTreeOptions {
  /** Top-level entries of the previous tree to keep (the user's, not the build's). */
  keep?: (topLevelName: string) => boolean;
}

/**
 * Replaces `outDir` with `files` (tree-relative `/` paths → content), plus the previous tree's
 * entries that `options.keep` accepts; returns the names of those.
 */
export async function writeTreeAtomically(
  outDir: string,
  files: ReadonlyMap<string, string | Buffer>,
  options: WriteTreeOptions = {},
): Promise<string[]> {
  const tempDir = `${outDir}${TEMP_MARK}${process.pid}`;
  const oldDir = `${outDir}${OLD_MARK}${process.pid}`;
  await fs.rm(tempDir, { recursive: true, force: true });
  await fs.mkdir(tempDir, { recursive: true });
  const reuse = reuseUnchangedFiles
    ? { previousRoot: outDir, previous: writtenTrees.get(outDir), record: new Map<string, WrittenFile>() }
    : undefined;
  // Until the swap is done, nothing may be linked from a tree that is half replaced.
  writtenTrees.delete(outDir);
  let kept: string[] = [];
  try {
    await writeAll(tempDir, files, reuse);
    if (options.keep) kept = await carryOver(outDir, tempDir, files, options.keep);
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
  if (reuse) writtenTrees.set(outDir, reuse.record);
  if (hadPrevious) await fs.rm(oldDir, { recursive: true, force: true });
  return kept;
}
