// Where the build's files go: the tree being written (tree-writer/tree-writer.ts) plus the tally
// the host limits are checked against. The call files come in through call-file-sink.ts.
import type { TreeWriter } from '../tree-writer/tree-writer.js';
import { addToTally, createTreeTally, removeFromTally, type TreeTally } from './host-limits.js';

export class TreeOutput {
  readonly tally: TreeTally = createTreeTally();

  constructor(readonly writer: TreeWriter) {}

  async write(filePath: string, content: string | Buffer): Promise<void> {
    if (this.writer.has(filePath)) {
      await this.writer.flush();
      // Replaced, not added: the tally counts the file once, at its new size.
      removeFromTally(this.tally, filePath, this.writer.read(filePath).length);
    }
    addToTally(this.tally, filePath, await this.writer.write(filePath, content));
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

  /** Whether the tree has a file at `filePath` (written, or for a shard part, left to shard 1). */
  has(filePath: string): boolean {
    return this.writer.has(filePath);
  }

  /** Writes at `toPath` a copy of the file written at `fromPath` (after a flush). */
  async copy(fromPath: string, toPath: string): Promise<void> {
    await this.write(toPath, this.writer.read(fromPath));
  }
}
