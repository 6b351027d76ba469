// Writes a tree atomically: files go into a sibling folder as they are produced (a build streams
// its call files in while scripts still run), which is swapped in at the end with two renames
// (swap-tree-in.ts), so a build killed at any moment leaves the previous tree in place (or, in the
// microseconds between the renames, beside it, where the next build puts it back).
// Each file's sha256 is recorded as it goes in (file-digests.ts), so the tree's content hash
// needs no read-back.
// The writer compares each new file with the previous tree's file at the same path first (a read,
// or its recorded digest and identity: known-previous-files.ts) and leaves an identical one where
// it is: those are hard-linked into the new tree just before the swap, and when nothing changed the
// new tree is dropped having written almost nothing (a `build --force` of an unchanged 2,000-call
// project created and then deleted 2,000 files).
// Given a TreeFileReuse (`staticmcp dev`), it links unchanged files by their recorded identity
// instead (file-reuse.ts).
// A write may be spooled (`{ spool: true }`): its content is appended to one spool file beside the
// output folder instead of becoming a file, and is read from there (`read`, `sizeOf`); a spooled
// file taken out again (`remove`) never costs a create or an unlink, and one still in the tree is
// written out as a file before the tree is compared or swapped in. The build spools the call files
// past its budget, which are packed at the end (builder/tree-output.ts).
// A deferred write (`writeDeferred`: a resource file kept from the previous build) has a digest and
// a size but no bytes until something reads it: an unchanged document in a linked pack never is.
import { promises as fs, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { assertPlainTreePath } from '../core/tree/tree-path.js';
import { ALL_FILES, digestFile, type FileFilter, type HashObserver } from './content-hash.js';
import { encodeUtf8InScratch, SCRATCH_MIN_LENGTH } from './utf8-scratch.js';
import { type ContentHashStateOptions, hashWithState } from './content-hash-state.js';
import { FileDigests } from './file-digests.js';
import type { ReusingWrite } from './file-reuse.js';
import type { CommitOptions, OpenTreeWriterOptions } from './tree-writer-options.js';
import { KnownPreviousFiles } from './known-previous-files.js';
import { linkOrCopy } from './link-or-copy.js';
import { carryOver, linkUnchangedFiles } from './tree-commit-links.js';
import { IO_CONCURRENCY, removeEmptiedFolders, removeTree } from './remove-tree.js';
import { digestFileOf, tempFolderOf } from './swap-folders.js';
import { swapTreeIn } from './swap-tree-in.js';
import { readFileInto } from './read-exactly.js';
import { holdsDigest } from './holds-same-bytes.js';
import { TreeSpool } from './tree-spool.js';
import { SharedFiles } from './shared-files.js';
import { holdsSameFiles, PreviousFolders } from './previous-tree.js';

/**
 * A tree being written beside `outDir`. Files go in one at a time (`write`), each path once; the
 * paths and the files' digests are the only things held in memory. `commit` swaps the tree in;
 * `discard` drops it and leaves the previous tree as it was.
 */
export class TreeWriter {
  readonly written: FileDigests; // read by the pack step, which names paths by slot
  private readonly folders = new Set<string>();
  private readonly previousFolders: PreviousFolders;
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
  /** Paths whose files are hard links shared with another path (shared-files.ts). */
  private readonly shared = new SharedFiles();
  /** The spool file, opened at the first spooled write. */
  private spool: TreeSpool | undefined;
  /** Makes a deferred file's bytes from its owner's number (setDeferredSource). */
  private deferredSource: ((owner: number) => Buffer) | undefined;
  /** Previous files a build's record knows (added by the builder): compared without a read. */
  readonly knownPrevious = new KnownPreviousFiles();

  private constructor(
    readonly outDir: string,
    readonly tempDir: string,
    /** Whether `outDir` holds a tree whose files a write can be compared with. */
    private readonly previousExists: boolean,
    private readonly reuse: ReusingWrite | undefined,
    private readonly hashState: ContentHashStateOptions | undefined,
  ) {
    this.written = new FileDigests(digestFileOf(outDir, process.pid));
    this.previousFolders = new PreviousFolders(outDir);
  }

  static async open(outDir: string, options: OpenTreeWriterOptions = {}): Promise<TreeWriter> {
    const tempDir = tempFolderOf(outDir, process.pid);
    await removeTree(tempDir);
    await fs.mkdir(tempDir, { recursive: true });
    const previousExists = await fs.stat(outDir).then(
      (stat) => stat.isDirectory(),
      () => false,
    );
    return new TreeWriter(outDir, tempDir, previousExists, options.reuse?.begin(outDir), options.hashState);
  }

  has(relativePath: string): boolean {
    return this.written.has(relativePath);
  }

  /** Every path written so far (and not removed), in the order first written. */
  paths(): IterableIterator<string> {
    return this.written.paths();
  }

  /** Whether the file at `relativePath` is held in the spool or deferred (not yet a file). */
  isSpooled(relativePath: string): boolean {
    return this.written.spooledAt(relativePath) !== undefined || this.isDeferred(relativePath);
  }

  isDeferred(relativePath: string): boolean {
    return this.written.deferredAt(relativePath) !== undefined;
  }

  /** What makes the bytes of the files written with `writeDeferred`, from their owner's number. */
  setDeferredSource(source: (owner: number) => Buffer): void {
    this.deferredSource = source;
  }

  /**
   * Records a file whose content has the digest `digest` and is `sizeBytes` long without its bytes:
   * the deferred source makes them (for `owner`) when the file is read or must become a file.
   */
  writeDeferred(relativePath: string, digest: Buffer, sizeBytes: number, owner: number): void {
    assertPlainTreePath(relativePath, 'the tree path');
    if (this.failure) throw this.failure;
    if (this.written.has(relativePath)) throw new Error(`${relativePath} is written already`);
    this.written.set(relativePath, digest);
    this.written.setDeferred(relativePath, owner, sizeBytes);
  }

  /** A deferred file's bytes, made now (the source checks them against the digest recorded). */
  private makeDeferred(relativePath: string): Buffer {
    const { owner, length } = this.written.deferredAt(relativePath)!;
    const content = this.deferredSource!(owner);
    if (content.length !== length) throw new Error(`${relativePath} is ${content.length} bytes, not ${length}`);
    return content;
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
  async write(relativePath: string, content: string | Buffer, options: { spool?: boolean } = {}): Promise<number> {
    assertPlainTreePath(relativePath, 'the tree path');
    if (this.failure) throw this.failure;
    // Claimed at once, so a second write of the same path sees it while this one waits for a slot.
    const digest = digestFile(content);
    // Only a new path is spooled: a path written again over a file stays a file.
    if (options.spool && !this.written.has(relativePath)) {
      this.written.set(relativePath, digest);
      return this.appendToSpool(relativePath, content);
    }
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
    const target = path.join(this.tempDir, relativePath);
    await this.start(relativePath, async () => {
      await linkOrCopy(source, target);
      // Dev's next rebuild may link it again when its content comes back the same.
      await this.reuse?.recordFile(relativePath, digest.toString('hex'), target);
    });
  }

  /**
   * Records `toPath` as one more name of the spooled file at `fromPath` (its bytes in the spool:
   * nothing read, digested or appended); its size, or undefined when `fromPath` is not spooled or
   * `toPath` is taken (the caller then writes the copy as any file).
   */
  copySpooled(fromPath: string, toPath: string): number | undefined {
    assertPlainTreePath(toPath, 'the tree path');
    if (this.failure) throw this.failure;
    const deferred = this.written.deferredAt(fromPath);
    if (deferred !== undefined && !this.written.has(toPath)) {
      this.written.set(toPath, this.written.get(fromPath)!);
      this.written.setDeferred(toPath, deferred.owner, deferred.length);
      this.written.setCopyOf(toPath, fromPath);
      return deferred.length;
    }
    const at = this.written.spooledAt(fromPath);
    if (at === undefined || this.written.has(toPath)) return undefined;
    this.written.set(toPath, this.written.get(fromPath)!);
    this.written.setSpooled(toPath, at.offset, at.length);
    this.written.setCopyOf(toPath, fromPath);
    return at.length;
  }

  /** Appends `content` to the spool (synchronously: one sequential write, no create) and returns its size. */
  private appendToSpool(relativePath: string, content: string | Buffer): number {
    const bytes = typeof content === 'string' ? utf8Of(content) : content;
    this.spool ??= TreeSpool.open(this.outDir);
    this.written.setSpooled(relativePath, this.spool.append(bytes), bytes.length);
    return bytes.length;
  }

  /** A spooled file's content, read from the spool. */
  private readSpooled(at: { offset: number; length: number }): Buffer {
    return this.spool!.readInto(Buffer.allocUnsafe(at.length), at.offset);
  }

  /**
   * Waits for every write, writes every spooled or deferred file still in the tree out as a file,
   * then drops the spool: first those of bytes of their own, then each copy (copySpooled) as a link
   * to its first name's file when that holds the same bytes in the new tree (shared-files.ts).
   */
  private async writeOutSpool(): Promise<void> {
    await this.flush();
    for (const relativePath of this.heldPaths())
      if (this.written.copyOf(relativePath) === undefined) await this.writeOutHeld(relativePath);
    await this.flush();
    for (const relativePath of this.heldPaths())
      await this.writeOutHeld(relativePath, this.written.copyOf(relativePath));
    await this.flush();
    this.closeSpool();
  }

  /** The deferred, then the spooled paths (each cleared as it is written out). */
  private *heldPaths(): IterableIterator<string> {
    yield* this.written.deferredPaths();
    if (this.spool) yield* this.written.spooledPaths();
  }

  /** Whether `copy` may link to the file of `first` (copyOf: not dropped): in the new tree, no copy, same digest. */
  private isLinkable(first: string, copy: string): boolean {
    if (this.reuse || this.isSpooled(first) || this.written.isUnchanged(first)) return false;
    return this.written.copyOf(first) === undefined && this.written.get(first)!.equals(this.written.get(copy)!);
  }

  /** Writes a spooled or deferred file out as a file: a link to `first`'s file when it may be one. */
  private async writeOutHeld(relativePath: string, first?: string): Promise<void> {
    const linked = first !== undefined && this.isLinkable(first, relativePath);
    const spooled = this.written.spooledAt(relativePath);
    const digest = Buffer.from(this.written.get(relativePath)!);
    const compare = this.previousExists && !this.reuse;
    // A deferred file the previous tree holds (its bytes' digest) stays there, its bytes never made.
    const deferred = !linked && !spooled && compare ? this.written.deferredAt(relativePath) : undefined;
    const own = deferred !== undefined && (await this.previousFolders.isOwn(path.dirname(relativePath)));
    if (own && holdsDigest(path.join(this.outDir, relativePath), digest, deferred.length)) {
      this.written.clearHeld(relativePath);
      this.written.setUnchanged(relativePath);
      return;
    }
    const content = linked ? undefined : spooled ? this.readSpooled(spooled) : this.makeDeferred(relativePath);
    this.written.clearHeld(relativePath);
    const link = async () => this.shared.link(this.tempDir, first!, relativePath);
    await this.start(relativePath, content ? () => this.writeOne(relativePath, content, digest, compare) : link);
  }

  private closeSpool(): void {
    this.spool?.close();
    this.spool = undefined;
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
    const ownFolder = (compare || this.reuse) && (await this.previousFolders.isOwn(path.dirname(relativePath)));
    const previous = path.join(this.outDir, relativePath);
    if (compare && ownFolder && this.knownPrevious.holdsSame(relativePath, previous, content, digest)) {
      this.written.setUnchanged(relativePath);
      return;
    }
    if (!this.reuse) {
      this.shared.unshare(relativePath, target);
      // Synchronous, creates included. A create costs 0.7-1 ms of kernel time on this machine's
      // ext4 (its inode allocator steps over recently deleted inodes), and on the thread pool the
      // 2,000 of a cold build cost 30-60% more CPU (creates racing in one folder) for no gain in
      // wall time (build-vs-xargs cold: 0.86 synchronous, 0.96 on the pool, same run).
      writeFileSync(target, typeof content === 'string' ? utf8Of(content) : content, { mode: 0o644 });
      return;
    }
    const hash = digest.toString('hex');
    if (ownFolder && this.reuse.linkUnchanged(relativePath, content, hash, target)) return;
    await this.reuse.write(relativePath, content, hash, target);
  }

  /** Waits for every write started so far; throws the first that failed. */
  async flush(): Promise<void> {
    while (this.inFlight > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    if (this.failure) throw this.failure;
  }

  /** What an earlier `write` put at `relativePath` (after a `flush`). */
  read(relativePath: string): Buffer {
    assertPlainTreePath(relativePath, 'the tree path');
    if (this.isDeferred(relativePath)) return this.makeDeferred(relativePath);
    const spooled = this.written.spooledAt(relativePath);
    if (spooled) return this.readSpooled(spooled);
    const root = this.written.isUnchanged(relativePath) ? this.outDir : this.tempDir;
    return readFileSync(path.join(root, relativePath));
  }

  /** Reads what an earlier `write` put at `relativePath` (after a `flush`) into `into`, exactly its size. */
  readInto(relativePath: string, into: Uint8Array): void {
    assertPlainTreePath(relativePath, 'the tree path');
    if (this.isDeferred(relativePath)) {
      into.set(this.makeDeferred(relativePath));
      return;
    }
    const spooled = this.written.spooledAt(relativePath);
    const root = this.written.isUnchanged(relativePath) ? this.outDir : this.tempDir;
    if (!spooled) readFileInto(path.join(root, relativePath), into);
    else if (spooled.length === into.length) this.spool!.readInto(into, spooled.offset);
    else throw new Error(`${relativePath} is ${spooled.length} bytes, not ${into.length}`);
  }

  /** The size in bytes of what an earlier `write` put at `relativePath` (after a `flush`). */
  sizeOf(relativePath: string): number {
    assertPlainTreePath(relativePath, 'the tree path');
    const spooled = this.written.spooledAt(relativePath) ?? this.written.deferredAt(relativePath);
    if (spooled) return spooled.length;
    const root = this.written.isUnchanged(relativePath) ? this.outDir : this.tempDir;
    return statSync(path.join(root, relativePath)).size;
  }

  /**
   * Takes files written earlier out of the new tree again (after a `flush`): their digests are
   * forgotten (so hash before removing what the hash must cover) and the folders they leave empty
   * are removed. A file left in the previous tree is simply not linked in.
   */
  async remove(relativePaths: Iterable<string>): Promise<void> {
    await this.flush();
    const emptied = new Set<string>();
    for (const relativePath of relativePaths) {
      assertPlainTreePath(relativePath, 'the tree path');
      if (!this.written.has(relativePath)) continue;
      const unchanged = this.written.isUnchanged(relativePath);
      const spooled = this.isSpooled(relativePath);
      this.written.drop(relativePath);
      if (spooled) continue;
      if (!unchanged) await fs.rm(path.join(this.tempDir, relativePath), { force: true });
      emptied.add(path.dirname(relativePath));
    }
    for (const folder of await removeEmptiedFolders(this.tempDir, emptied)) this.folders.delete(folder);
  }

  /** The digest (content-hash.ts `digestFile`) of what was last written at `relativePath`. */
  digestOf(relativePath: string): Buffer | undefined {
    return this.written.get(relativePath);
  }

  /**
   * The tree's content hash (content-hash.ts) over the files written so far that `include` accepts
   * (all of them without it), from the digests recorded as they were written.
   */
  async hashWritten(include: FileFilter = ALL_FILES): Promise<string> {
    return (await this.hashesWritten([include]))[0]!;
  }

  /** hashWritten for each of `includes` in one walk; `recorded`: through the hash state (a build that indexes documents). */
  async hashesWritten(includes: readonly FileFilter[], recorded = false, observer?: HashObserver): Promise<string[]> {
    await this.flush();
    return hashWithState(this.written, includes, recorded ? this.hashState : undefined, observer);
  }

  /** True when `outDir` holds these same files at the same sizes, and `manifestPath` byte for byte. */
  async matchesPrevious(manifestPath: string): Promise<boolean> {
    try {
      await this.writeOutSpool();
      return holdsSameFiles(this.outDir, this.tempDir, this.written, manifestPath, this.read(manifestPath));
    } catch {
      return false;
    }
  }

  /** Drops what was written; the previous tree stays as it was. */
  async discard(): Promise<void> {
    await this.flush().catch(() => {});
    this.closeSpool();
    this.written.close();
    await removeTree(this.tempDir);
    this.reuse?.discarded();
  }

  /**
   * Swaps the written tree in, with the previous tree's top-level entries that `options.keep`
   * accepts (linked before the swap, so a build killed at any point has lost nothing); returns
   * the names of those.
   */
  async commit(options: CommitOptions = {}): Promise<string[]> {
    let kept: string[] = [];
    try {
      await this.writeOutSpool();
      await linkUnchangedFiles(this.written, this.outDir, this.tempDir, this.folders);
      if (options.keep)
        kept = await carryOver(this.written, this.outDir, this.tempDir, options.keep, options.dropInsideKept ?? []);
    } catch (error) {
      await this.discard();
      throw error;
    }
    const oldDir = swapTreeIn(this.outDir, this.tempDir);
    this.reuse?.committed();
    this.written.close();
    if (oldDir !== undefined) await removeTree(oldDir);
    return kept;
  }
}

/** A string's UTF-8 for a synchronous write: a long one in the shared buffer (utf8-scratch.ts). */
function utf8Of(text: string): Buffer {
  return text.length >= SCRATCH_MIN_LENGTH ? encodeUtf8InScratch(text) : Buffer.from(text);
}
