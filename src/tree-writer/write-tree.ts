// Writes a tree atomically: files go into a sibling folder as they are produced (a build streams
// its call files in while scripts still run), which is swapped in at the end with two renames, so a
// build killed at any moment leaves the previous tree in place (or, in the microseconds between
// the renames, beside it, where the next build puts it back).
// Each file's sha256 is recorded as it goes in (tree/file-digests.ts), so the tree's content hash
// needs no read-back.
// A long-lived process (`staticmcp dev`) can ask for unchanged files to be hard-linked from the
// tree it wrote last instead of written again: the swap stays atomic, and a rebuild after a
// one-file edit no longer rewrites every call file (writes dominate such a rebuild). Any other
// writer compares each new file with the previous tree's file at the same path first (a read) and
// leaves an identical one where it is: those are hard-linked into the new tree just before the
// swap, and when nothing changed the new tree is dropped having written almost nothing (a
// `build --force` of an unchanged 2,000-call project created and then deleted 2,000 files).
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  linkSync,
  lstatSync,
  promises as fs,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isProcessAlive } from '../shared/process-alive.js';
import { createTreeHash, digestFile } from './content-hash.js';
import { FileDigests } from './file-digests.js';
import { assertPlainTreePath } from '../core/tree/tree-path.js';

const TEMP_MARK = '.staticmcp-tmp-';
const OLD_MARK = '.staticmcp-old-';
/** Writes in flight at once: on a busy disk one file create can take milliseconds. */
const IO_CONCURRENCY = 64;

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
      await removeTree(old.file);
    }
  }
  for (const temp of await siblingsMarked(outDir, TEMP_MARK)) {
    if (isProcessAlive(temp.pid) && temp.pid !== process.pid) continue;
    await removeTree(temp.file);
    notes.push(`removed ${path.basename(temp.file)}, left by an interrupted build`);
  }
  return notes;
}

/** What this process wrote at one tree path: its content's sha256 (hex) and the file's identity right after. */
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
    // Synchronous, as holdsSameBytes below: two small system calls for each file of every dev
    // rebuild cost less than two thread-pool round trips (bench/dev-rebuild with removeTree's
    // unlink: 122 → 80 ms).
    const stat = lstatSync(source);
    if (!stat.isFile()) return undefined;
    if (recorded) {
      if (stat.ino !== recorded.inode || stat.size !== recorded.size || stat.mtimeMs !== recorded.mtimeMs)
        return undefined;
    } else if (!holdsSameBytes(source, content)) {
      return undefined;
    }
    linkSync(source, target);
    return { hash, inode: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

/**
 * Whether `file` is a regular file holding exactly `content` (false when it cannot be read).
 * Synchronous: it runs for every file of a rebuild, and for small files four system calls cost
 * less than the thread-pool round trips of `lstat` + `readFile` (~0.3 s of a 2,000-call build).
 * O_NOFOLLOW keeps a symlink from standing for a file; O_NONBLOCK keeps a FIFO from blocking the open.
 */
function holdsSameBytes(file: string, content: string | Buffer): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const stat = fstatSync(descriptor);
    const size = typeof content === 'string' ? Buffer.byteLength(content) : content.length;
    // Linked as it is: only a file with the mode the writer gives its files may stand for a new one.
    if (!stat.isFile() || stat.size !== size || (stat.mode & 0o777) !== 0o644) return false;
    const bytes = Buffer.allocUnsafe(size);
    for (let offset = 0; offset < size; ) {
      const bytesRead = readSync(descriptor, bytes, offset, size - offset, offset);
      if (bytesRead === 0) return false;
      offset += bytesRead;
    }
    return typeof content === 'string' ? bytes.toString('utf8') === content : bytes.equals(content);
  } catch {
    return false;
  } finally {
    closeSync(descriptor);
  }
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

/** Errors of `link` that only say this source cannot be linked here: the file is copied instead. */
const LINK_REFUSED = new Set(['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP', 'EOPNOTSUPP']);

/**
 * Hard-links `source` (a regular file) at `target`, or copies it there when the two are on
 * different filesystems or the filesystem refuses links. Never through a symlink: a link in
 * `source`'s place (say, swapped in since it was digested) is refused, not followed. The copy
 * streams, so memory does not grow with the file's size.
 */
async function linkOrCopy(source: string, target: string): Promise<void> {
  try {
    // A link shares the source's mode: only a plain rw-r--r-- file is linked (a file with other
    // permissions, say from an unpacked artifact, is copied with the mode the build gives its files).
    const stat = await fs.lstat(source);
    if (stat.isFile() && (stat.mode & 0o7777) === 0o644) {
      await fs.link(source, target);
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

export interface WriteTreeOptions {
  /** Top-level entries of the previous tree to keep (the user's, not the build's). */
  keep?: (topLevelName: string) => boolean;
  /**
   * Paths inside kept folders that are the build's all the same (`.well-known/ai-catalog.json` in
   * the user's `.well-known/`): left out of what is kept, so a file this build no longer writes
   * does not live on.
   */
  dropInsideKept?: readonly string[];
}

/**
 * A tree being written beside `outDir`. Files go in one at a time (`write`), each path once; the
 * paths and the files' digests are the only things held in memory. `commit` swaps the tree in;
 * `discard` drops it and leaves the previous tree as it was.
 */
export class TreeWriter {
  private readonly written = new FileDigests();
  private readonly folders = new Set<string>();
  private readonly ownPreviousFolders = new Map<string, Promise<boolean>>();
  private readonly reuse:
    | { previous: Map<string, WrittenFile> | undefined; record: Map<string, WrittenFile> }
    | undefined;
  private readonly previousRecord: Map<string, WrittenFile> | undefined;
  private inFlight = 0;
  /** Writes waiting for a slot: each finished write lets the next one go. */
  private readonly slotWaiters: (() => void)[] = [];
  /**
   * Flushes waiting for every write to finish: all of them go when the last one does (waking one
   * per finished write, as for slots, left a second flusher waiting forever: a build whose call
   * files collided hung under load).
   */
  private readonly idleWaiters: (() => void)[] = [];
  private failure: unknown;

  private constructor(
    readonly outDir: string,
    readonly tempDir: string,
    /** Whether `outDir` holds a tree whose files a write can be compared with. */
    private readonly previousExists: boolean,
  ) {
    this.previousRecord = writtenTrees.get(outDir);
    this.reuse = reuseUnchangedFiles ? { previous: this.previousRecord, record: new Map() } : undefined;
    // Until the swap is done, nothing may be linked from a tree that is half replaced.
    writtenTrees.delete(outDir);
  }

  static async open(outDir: string): Promise<TreeWriter> {
    const tempDir = `${outDir}${TEMP_MARK}${process.pid}`;
    await removeTree(tempDir);
    await fs.mkdir(tempDir, { recursive: true });
    const previousExists = await fs.stat(outDir).then(
      (stat) => stat.isDirectory(),
      () => false,
    );
    return new TreeWriter(outDir, tempDir, previousExists);
  }

  has(relativePath: string): boolean {
    return this.written.has(relativePath);
  }

  /** How many files are written so far. */
  fileCount(): number {
    return this.written.size;
  }

  /** Waits until fewer than IO_CONCURRENCY writes are in flight. */
  private async slot(): Promise<void> {
    while (this.inFlight >= IO_CONCURRENCY) await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
  }

  /**
   * Starts writing one file (tree-relative `/` path) and returns its size in bytes once the write is
   * under way; `flush` waits for every write. Back-pressure: with IO_CONCURRENCY writes in flight,
   * the next one waits for a slot, so a fast producer never piles up file contents in memory.
   * Any path but a plain relative one (tree-path.ts) is refused before anything is written, so
   * no caller can make the writer reach outside the tree.
   */
  async write(relativePath: string, content: string | Buffer): Promise<number> {
    assertPlainTreePath(relativePath, 'the tree path');
    if (this.failure) throw this.failure;
    // Claimed at once, so a second write of the same path sees it while this one waits for a slot.
    const digest = digestFile(content);
    // A path written again is written (its first write may already be in the temporary tree).
    const compare = this.previousExists && !this.reuse && !this.written.has(relativePath);
    this.written.set(relativePath, digest);
    await this.start(relativePath, () => this.writeOne(relativePath, content, digest, compare));
    return typeof content === 'string' ? Buffer.byteLength(content) : content.length;
  }

  /**
   * Starts putting the regular file `source`, whose content has the digest `digest` (taken by the
   * caller as it read it), at `relativePath`: hard-linked where the filesystem allows, copied
   * (streamed, never through a symlink) otherwise. Nothing of the file is held in memory.
   */
  async writeFromFile(relativePath: string, source: string, digest: Buffer): Promise<void> {
    assertPlainTreePath(relativePath, 'the tree path');
    if (this.failure) throw this.failure;
    this.written.set(relativePath, digest);
    await this.start(relativePath, () => linkOrCopy(source, path.join(this.tempDir, relativePath)));
  }

  /** Waits for a slot, makes the file's folder, and starts `writing` it; its failure fails the tree. */
  private async start(relativePath: string, writing: () => Promise<void>): Promise<void> {
    await this.slot();
    const folder = path.dirname(relativePath);
    if (!this.folders.has(folder)) {
      // Synchronous: a handful of folders, and a file's write must find its folder there.
      mkdirSync(path.join(this.tempDir, folder), { recursive: true });
      this.folders.add(folder);
    }
    this.inFlight += 1;
    writing()
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.inFlight -= 1;
        this.slotWaiters.shift()?.();
        if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
      });
  }

  private async writeOne(
    relativePath: string,
    content: string | Buffer,
    digest: Buffer,
    compare: boolean,
  ): Promise<void> {
    const target = path.join(this.tempDir, relativePath);
    const ownFolder = (compare || this.reuse) && (await this.isOwnPreviousFolder(path.dirname(relativePath)));
    if (compare && ownFolder && holdsSameBytes(path.join(this.outDir, relativePath), content)) {
      this.written.setUnchanged(relativePath);
      return;
    }
    if (!this.reuse) {
      writeFileSync(target, content, { mode: 0o644 });
      return;
    }
    const hash = digest.toString('hex');
    const linked =
      ownFolder && (await linkUnchanged(this.outDir, this.reuse.previous, relativePath, content, hash, target));
    if (linked) {
      this.reuse.record.set(relativePath, linked);
      return;
    }
    await fs.writeFile(target, content, { mode: 0o644 });
    const stat = await fs.lstat(target);
    this.reuse.record.set(relativePath, { hash, inode: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs });
  }

  /**
   * Whether the previous tree's `folder` is a real folder of that tree: a symlink in the output
   * folder (say `tools` → elsewhere) must not make a file outside the tree a link of the new one.
   * Asked once per folder.
   */
  private isOwnPreviousFolder(folder: string): Promise<boolean> {
    let answer = this.ownPreviousFolders.get(folder);
    if (!answer) {
      answer = Promise.all([fs.realpath(this.outDir), fs.realpath(path.join(this.outDir, folder))]).then(
        ([root, real]) => real === path.join(root, folder),
        () => false,
      );
      this.ownPreviousFolders.set(folder, answer);
    }
    return answer;
  }

  /** Waits for every write started so far; throws the first that failed. */
  async flush(): Promise<void> {
    while (this.inFlight > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    if (this.failure) throw this.failure;
  }

  /** What an earlier `write` put at `relativePath` (after a `flush`). */
  read(relativePath: string): Buffer {
    assertPlainTreePath(relativePath, 'the tree path');
    const root = this.written.isUnchanged(relativePath) ? this.outDir : this.tempDir;
    return readFileSync(path.join(root, relativePath));
  }

  /** The digest (content-hash.ts `digestFile`) of what was last written at `relativePath`. */
  digestOf(relativePath: string): Buffer | undefined {
    return this.written.get(relativePath);
  }

  /**
   * The tree's content hash (content-hash.ts) over the files written so far that `include` accepts
   * (all of them without it), from the digests recorded as they were written.
   */
  async hashWritten(include: (relativePath: string) => boolean = () => true): Promise<string> {
    await this.flush();
    const hash = createTreeHash();
    for (const [treePath, digest] of this.written.sorted()) if (include(treePath)) hash.addDigest(treePath, digest);
    return hash.digest();
  }

  /** True when `outDir` holds these same files at the same sizes, and `manifestPath` byte for byte. */
  async matchesPrevious(manifestPath: string): Promise<boolean> {
    try {
      await this.flush();
      if (!readFileSync(path.join(this.outDir, manifestPath)).equals(this.read(manifestPath))) return false;
      for (const relativePath of this.written.paths()) {
        if (this.written.isUnchanged(relativePath)) continue;
        if (
          statSync(path.join(this.outDir, relativePath)).size !== statSync(path.join(this.tempDir, relativePath)).size
        )
          return false;
      }
      return true;
    } catch {
      return false;
    }
  }

  /** Drops what was written; the previous tree stays as it was. */
  async discard(): Promise<void> {
    await this.flush().catch(() => {});
    await removeTree(this.tempDir);
    if (this.previousRecord) writtenTrees.set(this.outDir, this.previousRecord);
  }

  /**
   * Swaps the written tree in, with the previous tree's top-level entries that `options.keep`
   * accepts (linked before the swap, so a build killed at any point has lost nothing); returns
   * the names of those.
   */
  async commit(options: WriteTreeOptions = {}): Promise<string[]> {
    let kept: string[] = [];
    try {
      await this.flush();
      await this.linkUnchangedFiles();
      if (options.keep) kept = await this.carryOver(options.keep, options.dropInsideKept ?? []);
    } catch (error) {
      await this.discard();
      throw error;
    }
    const oldDir = `${this.outDir}${OLD_MARK}${process.pid}`;
    let hadPrevious = true;
    try {
      await fs.rename(this.outDir, oldDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      hadPrevious = false;
    }
    await fs.rename(this.tempDir, this.outDir);
    if (this.reuse) writtenTrees.set(this.outDir, this.reuse.record);
    if (hadPrevious) await removeTree(oldDir);
    return kept;
  }

  /** Links the files left in the previous tree into the new one (before the swap: nothing is lost if killed). */
  private async linkUnchangedFiles(): Promise<void> {
    const pending = new Set<Promise<void>>();
    for (const relativePath of this.written.unchangedPaths()) {
      const source = path.join(this.outDir, relativePath);
      const target = path.join(this.tempDir, relativePath);
      const linking: Promise<void> = fs
        .link(source, target)
        .catch(() => fs.copyFile(source, target))
        .finally(() => pending.delete(linking));
      pending.add(linking);
      if (pending.size >= IO_CONCURRENCY) await Promise.race(pending);
    }
    await Promise.all(pending);
  }

  private async carryOver(keep: (name: string) => boolean, dropInside: readonly string[]): Promise<string[]> {
    let names: string[];
    try {
      names = (await fs.readdir(this.outDir)).sort();
    } catch {
      return [];
    }
    const writtenTop = new Set<string>();
    for (const filePath of this.written.paths()) writtenTop.add(filePath.split('/', 1)[0] ?? '');
    const kept: string[] = [];
    for (const name of names) {
      if (!keep(name) || writtenTop.has(name)) continue;
      await linkCopy(path.join(this.outDir, name), path.join(this.tempDir, name));
      for (const dropped of dropInside)
        if (dropped.startsWith(`${name}/`)) await fs.rm(path.join(this.tempDir, dropped), { force: true });
      kept.push(name);
    }
    return kept;
  }
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
  const writer = await TreeWriter.open(outDir);
  try {
    for (const [relativePath, content] of files) await writer.write(relativePath, content);
    await writer.flush();
  } catch (error) {
    await writer.discard();
    throw error;
  }
  return writer.commit(options);
}
