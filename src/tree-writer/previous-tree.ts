// What the tree writer asks of the previous tree (tree-writer.ts): which of its folders are its own
// (a file there may stand for a new tree's file, left where it is and linked in at the swap, while
// a symlink in the output folder, say `tools` → elsewhere, must not make a file outside the tree a
// link of the new one), and whether it holds the same files as the new one.
import { promises as fs, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FileDigests } from './file-digests.js';

export class PreviousFolders {
  private readonly answers = new Map<string, Promise<boolean>>();
  /** The output folder's real path, taken once a build (it was taken again for every folder asked). */
  private realOutDir: Promise<string> | undefined;

  constructor(private readonly outDir: string) {}

  /** Whether the previous tree's `folder` is a real folder of that tree. Asked once per folder. */
  isOwn(folder: string): Promise<boolean> {
    let answer = this.answers.get(folder);
    if (!answer) {
      this.realOutDir ??= fs.realpath(this.outDir);
      answer = Promise.all([this.realOutDir, fs.realpath(path.join(this.outDir, folder))]).then(
        ([root, real]) => real === path.join(root, folder),
        () => false,
      );
      this.answers.set(folder, answer);
    }
    return answer;
  }
}

/**
 * True when `outDir` holds the files written into `tempDir` (every one not left unchanged) at the
 * same sizes, and `manifestPath` as `manifest` byte for byte. Throws when a file cannot be read.
 */
export function holdsSameFiles(
  outDir: string,
  tempDir: string,
  written: FileDigests,
  manifestPath: string,
  manifest: Buffer,
): boolean {
  if (!readFileSync(path.join(outDir, manifestPath)).equals(manifest)) return false;
  for (const relativePath of written.paths()) {
    if (written.isUnchanged(relativePath)) continue;
    if (statSync(path.join(outDir, relativePath)).size !== statSync(path.join(tempDir, relativePath)).size)
      return false;
  }
  return true;
}
