// Dev's file reuse, an option of the tree writer: `staticmcp dev` keeps one TreeFileReuse for its
// session and hands it to every build, and each rebuild hard-links the files whose content equals
// what the previous write put at the same path, and which are provably untouched since (same
// inode, size and mtime), from the previous tree instead of writing them again. The swap stays
// atomic, and a rebuild after a one-file edit no longer rewrites every call file (writes dominate
// such a rebuild). A writer without it compares content instead (tree-writer.ts).
import { linkSync, lstatSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { holdsSameBytes } from './holds-same-bytes.js';

/** What a write put at one tree path: its content's sha256 (hex) and the file's identity right after. */
interface WrittenFile {
  hash: string;
  inode: number;
  size: number;
  mtimeMs: number;
}

type WrittenTree = Map<string, WrittenFile>;

/** What the writers given this reuse wrote, by output folder; one per long-lived process (dev). */
export class TreeFileReuse {
  private readonly trees = new Map<string, WrittenTree>();

  /**
   * Starts the reuse of one write of `outDir`. Until that write is committed or discarded,
   * nothing may be linked from `outDir` (a tree half replaced), so its record is taken out.
   */
  begin(outDir: string): ReusingWrite {
    const previous = this.trees.get(outDir);
    this.trees.delete(outDir);
    return new ReusingWrite(outDir, previous, (record) => {
      if (record) this.trees.set(outDir, record);
    });
  }
}

/** The reuse side of one tree write: links what it can, records what it writes. */
export class ReusingWrite {
  private readonly record: WrittenTree = new Map();

  constructor(
    private readonly outDir: string,
    private readonly previous: WrittenTree | undefined,
    private readonly keep: (record: WrittenTree | undefined) => void,
  ) {}

  /**
   * Hard-links `relativePath` from the previous tree at `target` when it is unchanged and
   * untouched, and says whether it did. Without a record of the previous write (the first write of
   * this reuse), a file of the same size is read and compared instead.
   */
  linkUnchanged(relativePath: string, content: string | Buffer, hash: string, target: string): boolean {
    const recorded = this.previous?.get(relativePath);
    if (this.previous && recorded?.hash !== hash) return false;
    const source = path.join(this.outDir, relativePath);
    try {
      // Synchronous, as holdsSameBytes: two small system calls for each file of every dev
      // rebuild cost less than two thread-pool round trips (bench/dev-rebuild with removeTree's
      // unlink: 122 → 80 ms).
      const stat = lstatSync(source);
      if (!stat.isFile()) return false;
      if (recorded) {
        if (stat.ino !== recorded.inode || stat.size !== recorded.size || stat.mtimeMs !== recorded.mtimeMs)
          return false;
      } else if (!holdsSameBytes(source, content)) {
        return false;
      }
      linkSync(source, target);
      this.record.set(relativePath, { hash, inode: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs });
      return true;
    } catch {
      return false;
    }
  }

  /** Writes `content` at `target` and records the file's identity for the next write. */
  async write(relativePath: string, content: string | Buffer, hash: string, target: string): Promise<void> {
    await fs.writeFile(target, content, { mode: 0o644 });
    const stat = await fs.lstat(target);
    this.record.set(relativePath, { hash, inode: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs });
  }

  /** Records the identity of a file put at `target` some other way (a link of a previous tree's file). */
  async recordFile(relativePath: string, hash: string, target: string): Promise<void> {
    const stat = await fs.lstat(target);
    this.record.set(relativePath, { hash, inode: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs });
  }

  /** The new tree is in place: the next write links from it. */
  committed(): void {
    this.keep(this.record);
  }

  /** The new tree was dropped: the previous tree, untouched, is still the one to link from. */
  discarded(): void {
    this.keep(this.previous);
  }
}
