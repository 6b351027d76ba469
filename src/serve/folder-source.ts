// A tree in a local folder: files read on demand, and never from outside the folder (a symlink
// that leaves the root reads as missing, like a file that is not there). Reads are synchronous:
// tree files are small and local, and the promise API's per-read objects were most of the
// garbage of a precomputed call (resident memory, bench/bridge-big-tree.mjs).
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { ReadOutcome, TreeSource } from '../mcp/tree-source.js';

export class FolderSource implements TreeSource {
  readonly revalidateAfterMs = undefined;
  private realRoot: string | undefined;

  constructor(
    private readonly root: string,
    readonly displayName: string,
  ) {}

  async read(relativePath: string): Promise<ReadOutcome> {
    this.realRoot ??= realpathSync.native(this.root);
    const realRoot = this.realRoot;
    const file = path.join(realRoot, ...relativePath.split('/'));
    let realFile: string;
    try {
      realFile = realpathSync.native(file);
    } catch (error) {
      if (isMissingError(error)) return { status: 'missing' };
      throw new Error(`${relativePath} cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (!realFile.startsWith(`${realRoot}${path.sep}`)) return { status: 'missing' };
    try {
      return { status: 'ok', text: readFileSync(realFile, 'utf8') };
    } catch (error) {
      if (isMissingError(error)) return { status: 'missing' };
      // The code alone: the error's own message names the absolute path.
      throw new Error(`${relativePath} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }

  close(): void {}
}

function isMissingError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  // EISDIR: `tools/<name>.json` asked for while only a folder exists; ENOTDIR: a segment is a file.
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ENAMETOOLONG';
}
