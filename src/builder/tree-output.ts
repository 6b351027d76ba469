// Where the build's files go: the tree being written (tree-writer/tree-writer.ts) plus the tally
// the host limits are checked against. The call files come in through call-file-sink.ts.
// Past the call-file budget (`spoolCallFilesPast`), each further packable call file is spooled
// (tree-writer.ts) instead of created: the pack step (pack-call-files.ts) reads it from the spool
// and takes it out, so a packed tool's calls past the budget never become files; those of a tool
// left unpacked are written out as files before the swap. The budget decision itself still needs
// every tool's final count and size, known only once every call is in; but when the plan already
// enumerates more calls than the budget, every call file is spooled from the first: the files
// written before the budget was reached would otherwise each be created and then unlinked.
// Resource files past the first RESOURCE_FILES_IN_MARGIN are spooled the same way: past that many
// the pack step may take them (pack-resource-files.ts), and a packed file that was created costs
// a create and an unlink per name on every rebuild; those left plain are written out as files
// before the swap, as an unpacked tool's calls are.
import { isPackableResourceFile } from '../core/packs/pack-table.js';
import { assertPlainTreePath } from '../core/tree/tree-path.js';
import type { TreeWriter } from '../tree-writer/tree-writer.js';
import type { ToolPlan } from './plan-tools.js';
import { toolOfCallFile } from './packable-call-file.js';
import {
  addToTally,
  createTreeTally,
  readResourceFilesInMargin,
  removeFromTally,
  type TreeTally,
} from './host-limits.js';

export class TreeOutput {
  readonly tally: TreeTally = createTreeTally();
  /** Call files past this many are spooled; undefined: never. */
  private spoolPast: number | undefined;
  /** Packable resource files written so far (spooled past RESOURCE_FILES_IN_MARGIN, with spooling on). */
  private resourceFiles = 0;
  /** RESOURCE_FILES_IN_MARGIN (its test hook read once, when the build's output opens). */
  private readonly resourceFilesInMargin = readResourceFilesInMargin();

  constructor(readonly writer: TreeWriter) {}

  async write(filePath: string, content: string | Buffer): Promise<void> {
    if (this.writer.has(filePath)) {
      await this.writer.flush();
      // Replaced, not added: the tally counts the file once, at its new size.
      removeFromTally(this.tally, filePath, this.writer.sizeOf(filePath));
    }
    addToTally(this.tally, filePath, await this.writer.write(filePath, content, { spool: this.spools(filePath) }));
  }

  /** Whether a file written now at `filePath` goes to the spool (counts it, for a resource file). */
  private spools(filePath: string): boolean {
    return this.spoolPast !== undefined && (this.spoolsCall(filePath) || this.spoolsResource(filePath));
  }

  private spoolsCall(filePath: string): boolean {
    return this.tally.callFiles >= this.spoolPast! && toolOfCallFile(filePath) !== undefined;
  }

  private spoolsResource(filePath: string): boolean {
    if (!isPackableResourceFile(filePath)) return false;
    this.resourceFiles += 1;
    return this.resourceFiles > this.resourceFilesInMargin;
  }

  /**
   * Spools the packable call files written once the tree holds `maxCallFiles` (a budget above 0),
   * or all of them when `plans` enumerate more calls than that, and the packable resource files
   * past RESOURCE_FILES_IN_MARGIN.
   */
  spoolCallFilesPast(maxCallFiles: number, plans: readonly ToolPlan[]): void {
    if (maxCallFiles > 0) this.spoolPast = enumeratedCallsOf(plans) > maxCallFiles ? 0 : maxCallFiles;
  }

  /**
   * Records the file at `filePath` by its digest and size alone (tree-writer.ts writeDeferred): its
   * bytes are made for `owner` by the writer's deferred source only if something reads them.
   */
  writeDeferred(filePath: string, digest: Buffer, sizeBytes: number, owner: number): void {
    // Counted as a write would be (the spool decision of the files after it stays the same).
    this.spools(filePath);
    this.writer.writeDeferred(filePath, digest, sizeBytes, owner);
    addToTally(this.tally, filePath, sizeBytes);
  }

  /**
   * Puts the regular file `source` (`sizeBytes` long, content digest `digest`) at `filePath`,
   * hard-linked where it can be: a previous tree's file reused as it is (pack-reuse.ts).
   */
  async writeFromFile(filePath: string, source: string, digest: Buffer, sizeBytes: number): Promise<void> {
    if (this.writer.has(filePath)) {
      await this.writer.flush();
      removeFromTally(this.tally, filePath, this.writer.sizeOf(filePath));
    }
    await this.writer.writeFromFile(filePath, source, digest);
    addToTally(this.tally, filePath, sizeBytes);
  }

  /** Takes written files out of the tree and the tally (the pack step, after the content hash). */
  async remove(filePaths: readonly string[]): Promise<void> {
    await this.writer.flush();
    for (const filePath of filePaths)
      if (this.writer.has(filePath)) removeFromTally(this.tally, filePath, this.writer.sizeOf(filePath));
    await this.writer.remove(filePaths);
  }

  /**
   * remove, by the writer's slots (`slotAt(position)`, `length` of them): a file held in the spool
   * or deferred, never a file on disk, is dropped with no path made; the others go through remove.
   */
  async removeSlots(slots: { length: number; slotAt(position: number): number }): Promise<void> {
    await this.writer.flush();
    const files = this.writer.written;
    const others: string[] = [];
    for (let position = 0; position < slots.length; position++) {
      const slot = slots.slotAt(position);
      const held = files.heldLengthAt(slot);
      if (held === undefined) {
        if (files.isLive(slot)) others.push(files.at(slot));
        continue;
      }
      removeFromTally(this.tally, files.bytesAt(slot), held);
      files.dropSlot(slot);
    }
    if (others.length > 0) await this.remove(others);
  }

  /** Whether the tree has a file at `filePath` (written, or for a shard part, left to shard 1). */
  has(filePath: string): boolean {
    return this.writer.has(filePath);
  }

  /** The bytes of the file written at `filePath` (after a flush). */
  read(filePath: string): Buffer {
    return this.writer.read(filePath);
  }

  /**
   * copy, from the writer's live slot of the file (its path made only if its bytes are read):
   * the assembly's raw-name copy of each document (raw-resource-copies.ts).
   */
  async copySlot(fromSlot: number, toPath: string): Promise<void> {
    const files = this.writer.written;
    if (!this.writer.has(toPath) && files.heldLengthAt(fromSlot) !== undefined) {
      assertPlainTreePath(toPath, 'the tree path');
      const size = files.addHeldCopy(fromSlot, toPath, this.spools(toPath));
      if (size !== undefined) {
        addToTally(this.tally, toPath, size);
        return;
      }
    }
    await this.write(toPath, this.writer.read(files.at(fromSlot)));
  }

  /** Writes at `toPath` a copy of the file written at `fromPath` (after a flush). */
  async copy(fromPath: string, toPath: string): Promise<void> {
    // A spooled file's copy that would be spooled too is one more name of the same spooled bytes.
    // A deferred file's copy is deferred too (copySpooled), wherever the copy would go.
    if (
      !this.writer.has(toPath) &&
      this.writer.isSpooled(fromPath) &&
      (this.spools(toPath) || this.writer.isDeferred(fromPath))
    ) {
      const size = this.writer.copySpooled(fromPath, toPath);
      if (size !== undefined) {
        addToTally(this.tally, toPath, size);
        return;
      }
    }
    await this.write(toPath, this.writer.read(fromPath));
  }
}

/** The calls the plans enumerate: about the call files they make (copies at omitted defaults add some, failures take some away). */
function enumeratedCallsOf(plans: readonly ToolPlan[]): number {
  let calls = 0;
  for (const { enumeration } of plans) if (enumeration.precomputable) calls += enumeration.count;
  return calls;
}
