// A tree in a local folder: files read on demand, and never from outside the folder (a symlink
// that leaves the root reads as missing, like a file that is not there).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ReadOutcome, TreeSource } from './tree-source.js';

export class FolderSource implements TreeSource {
  readonly revalidateAfterMs = undefined;
  private realRoot: Promise<string>;

  constructor(private readonly root: string, readonly displayName: string) {
    this.realRoot = fs.realpath(root);
  }

  async read(relativePath: string): Promise<ReadOutcome> {
    const realRoot = await this.realRoot;
    const file = path.join(realRoot, ...relativePath.split('/'));
    let realFile: string;
    try {
      realFile = await fs.realpath(file);
    } catch (error) {
      if (isMissingError(error)) return { status: 'missing' };
      throw new Error(`${relativePath} cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (!realFile.startsWith(`${realRoot}${path.sep}`)) return { status: 'missing' };
    try {
      return { status: 'ok', text: await fs.readFile(realFile, 'utf8') };
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
